// Process topologies (MPI-3.1 §7) as pure data and functions: Dims_create, Cartesian grids, graphs and
// distributed graphs. No communication here; the C API attaches a Topology to a communicator and uses
// these functions to answer queries. Ranks are ranks of the communicator the topology belongs to.
#pragma once
#include <cstdint>
#include <span>
#include <vector>

#include "util/status.h"

namespace ftmpi::topo {

// MPI_Dims_create: fill the zero entries of `dims` so that the product of all entries is `nnodes`, the
// filled entries as close to each other as possible and in non-increasing order. Non-zero entries are
// kept. Errc::dims when a given entry is negative or the given entries do not divide nnodes (or, with
// no zero entry, multiply to something else); Errc::arg for nnodes < 1. Among the possible fillings the
// one with the smallest spread (largest minus smallest factor) wins, ties going to the one whose smallest
// factor is largest, then the next smallest... (MPICH's choice), e.g. 24 in 3 -> 4x3x2, 36 in 2 -> 6x6,
// 7 in 2 -> 7x1, 5040 in 3 -> 21x16x15 (not 20x18x14: same spread, smaller smallest factor).
Status dims_create(int nnodes, std::span<int> dims);

// A Cartesian grid. Rank order is row-major: the last dimension varies fastest.
struct Cart {
  std::vector<int> dims;
  std::vector<bool> periods;

  int ndims() const { return static_cast<int>(dims.size()); }
  int size() const;  // product of dims (1 for ndims == 0)

  // Rank at `coords`. A coordinate outside [0, dims[i]) wraps in a periodic dimension and is
  // Errc::rank in a non-periodic one.
  Result<int> rank_of(std::span<const int> coords) const;
  // Coordinates of `rank` (0 <= rank < size()); Errc::rank otherwise.
  Status coords_of(int rank, std::span<int> coords) const;
  // MPI_Cart_shift: (source, dest) of `rank` for a shift of `disp` along `dim`; `proc_null` where the
  // neighbour falls off a non-periodic edge. Errc::dims for a bad dimension.
  Status shift(int rank, int dim, int disp, int proc_null, int* source, int* dest) const;
  // MPI_Cart_sub: the sub-grid of the kept dimensions, and for `rank` its color (which sub-grid: the
  // rank of its coordinates along the dropped dimensions) and key (rank inside the sub-grid).
  Cart sub(const std::vector<bool>& remain) const;
  Status sub_color_key(int rank, const std::vector<bool>& remain, int* color, int* key) const;
};

// MPI_Graph_create's graph: `index[i]` is the total number of neighbours of nodes 0..i, `edges` lists
// them node by node.
struct Graph {
  std::vector<int> index;
  std::vector<int> edges;

  int nnodes() const { return static_cast<int>(index.size()); }
  // Validate the arguments of MPI_Graph_create for a communicator of `comm_size` processes.
  static Result<Graph> make(int comm_size, std::span<const int> index, std::span<const int> edges);
  // Neighbours of `rank` (Errc::rank when out of range).
  Result<std::span<const int>> neighbors(int rank) const;
};

// A distributed graph as seen by one process: its in-neighbours (sources) and out-neighbours
// (destinations) with optional weights.
struct DistGraph {
  std::vector<int> sources, source_weights;
  std::vector<int> destinations, dest_weights;
  bool weighted = false;

  // Validate Dist_graph_create_adjacent's arguments (ranks in [0, comm_size)).
  static Result<DistGraph> make(int comm_size, std::span<const int> sources, const int* source_weights,
                                std::span<const int> destinations, const int* dest_weights, bool weighted);
};

// MPI_Dist_graph_create's scattered edge description, gathered: given every process's
// (n, sources[n], degrees[n], destinations[sum], weights[sum]) flattened as edges (src, dst, weight),
// the adjacency of process `rank`. In-edges and out-edges keep the order (contributing process,
// position) so every process computes the same lists.
struct Edge {
  int src, dst, weight;
};
DistGraph adjacency_of(int rank, std::span<const Edge> all_edges, bool weighted);

enum class Kind : std::uint8_t { none, graph, cart, dist_graph };

// What a communicator carries (exactly one of the three members is meaningful, per `kind`).
struct Topology {
  Kind kind = Kind::none;
  Cart cart;
  Graph graph;
  DistGraph dist;
};

}  // namespace ftmpi::topo
