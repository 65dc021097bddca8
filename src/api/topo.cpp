// Process topologies (MPI-3.1 §7): Dims_create, Cart_*, Graph_*, Dist_graph_*, Topo_test. The pure parts
// are in topo/topology.h; here: argument checks, building the new communicator (a split or dup of the old
// one, ranks never reordered) and attaching the topology to it (shared with later duplicates).
#include <memory>
#include <vector>

#include "api/attr.h"
#include "api/common.h"
#include "coll/coll.h"
#include "comm/comm_ops.h"
#include "comm/group_algebra.h"
#include "topo/topology.h"

using ftmpi::Errc;
using ftmpi::Status;
using ftmpi::api::ret;
using ftmpi::api::rt;
namespace cops = ftmpi::comm;
namespace topo = ftmpi::topo;

namespace {

#define TOPO_CHECK_INTRA(c, fn)                                                       \
  FTMPI_CHECK_COMM(c, fn);                                                            \
  if ((c)->is_inter()) return ret(c, Status(Errc::comm, "intercommunicators have no topology"), fn)

// The topology of `comm` if it is of `kind`, else nullptr.
const topo::Topology* topology_of(MPI_Comm comm, topo::Kind kind) {
  return comm->topo && comm->topo->kind == kind ? comm->topo.get() : nullptr;
}

// Members of `comm` with rank < `members` get a new communicator (same order) carrying `t`; the others
// get MPI_COMM_NULL. Collective over comm.
int build(MPI_Comm comm, int members, std::shared_ptr<topo::Topology> t, MPI_Comm* newcomm, const char* fn) {
  MPI_Comm out = MPI_COMM_NULL;
  const int color = comm->rank < members ? 0 : cops::kUndefined;
  Status st = cops::split(rt(), comm, color, comm->rank, &out);
  if (!st.ok()) return ret(comm, st, fn);
  if (out) out->topo = std::move(t);
  *newcomm = out;
  return MPI_SUCCESS;
}

}  // namespace

extern "C" int PMPI_Dims_create(int nnodes, int ndims, int* dims) {
  FTMPI_ENTER("MPI_Dims_create");
  if (ndims < 0) return ret(nullptr, Status(Errc::dims, "ndims is negative"), "MPI_Dims_create");
  if (ndims > 0 && !dims) return ret(nullptr, Status(Errc::arg, "dims is NULL"), "MPI_Dims_create");
  std::span<int> d(dims, static_cast<std::size_t>(ndims));
  return ret(nullptr, topo::dims_create(nnodes, d), "MPI_Dims_create");
}
FTMPI_ALIAS(Dims_create)

// ---- Cartesian ----

extern "C" int PMPI_Cart_create(MPI_Comm comm, int ndims, const int* dims, const int* periods, int reorder,
                                MPI_Comm* newcomm) {
  (void)reorder;  // ranks are kept (allowed: reorder is a hint)
  FTMPI_ENTER("MPI_Cart_create");
  TOPO_CHECK_INTRA(comm, "MPI_Cart_create");
  if (ndims < 0) return ret(comm, Status(Errc::dims, "ndims is negative"), "MPI_Cart_create");
  if (!newcomm || (ndims > 0 && (!dims || !periods)))
    return ret(comm, Status(Errc::arg, "NULL argument"), "MPI_Cart_create");
  *newcomm = MPI_COMM_NULL;
  auto t = std::make_shared<topo::Topology>();
  t->kind = topo::Kind::cart;
  long long product = 1;
  for (int i = 0; i < ndims; ++i) {
    if (dims[i] <= 0) return ret(comm, Status(Errc::dims, "dims entries must be positive"), "MPI_Cart_create");
    product *= dims[i];
    if (product > comm->size)
      return ret(comm, Status(Errc::arg, "the grid is larger than the communicator"), "MPI_Cart_create");
    t->cart.dims.push_back(dims[i]);
    t->cart.periods.push_back(periods[i] != 0);
  }
  return build(comm, static_cast<int>(product), std::move(t), newcomm, "MPI_Cart_create");
}
FTMPI_ALIAS(Cart_create)

extern "C" int PMPI_Cart_map(MPI_Comm comm, int ndims, const int* dims, const int* periods, int* newrank) {
  (void)periods;
  FTMPI_ENTER("MPI_Cart_map");
  TOPO_CHECK_INTRA(comm, "MPI_Cart_map");
  if (ndims < 0) return ret(comm, Status(Errc::dims, "ndims is negative"), "MPI_Cart_map");
  if (!newrank || (ndims > 0 && !dims)) return ret(comm, Status(Errc::arg, "NULL argument"), "MPI_Cart_map");
  long long product = 1;
  for (int i = 0; i < ndims; ++i) {
    if (dims[i] <= 0) return ret(comm, Status(Errc::dims, "dims entries must be positive"), "MPI_Cart_map");
    product *= dims[i];
    if (product > comm->size) return ret(comm, Status(Errc::arg, "the grid is larger than the communicator"), "MPI_Cart_map");
  }
  *newrank = comm->rank < product ? comm->rank : MPI_UNDEFINED;
  return MPI_SUCCESS;
}
FTMPI_ALIAS(Cart_map)

#define CART_OF(comm, fn)                                                                    \
  TOPO_CHECK_INTRA(comm, fn);                                                                \
  const topo::Topology* t = topology_of(comm, topo::Kind::cart);                             \
  if (!t) return ret(comm, Status(Errc::topology, "not a Cartesian communicator"), fn)

extern "C" int PMPI_Cartdim_get(MPI_Comm comm, int* ndims) {
  FTMPI_ENTER("MPI_Cartdim_get");
  CART_OF(comm, "MPI_Cartdim_get");
  if (!ndims) return ret(comm, Status(Errc::arg, "ndims is NULL"), "MPI_Cartdim_get");
  *ndims = t->cart.ndims();
  return MPI_SUCCESS;
}
FTMPI_ALIAS(Cartdim_get)

extern "C" int PMPI_Cart_get(MPI_Comm comm, int maxdims, int* dims, int* periods, int* coords) {
  FTMPI_ENTER("MPI_Cart_get");
  CART_OF(comm, "MPI_Cart_get");
  const int n = std::min(maxdims, t->cart.ndims());
  if (n > 0 && (!dims || !periods || !coords)) return ret(comm, Status(Errc::arg, "NULL argument"), "MPI_Cart_get");
  std::vector<int> c(static_cast<std::size_t>(t->cart.ndims()));
  Status st = t->cart.coords_of(comm->rank, c);
  if (!st.ok()) return ret(comm, st, "MPI_Cart_get");
  for (int i = 0; i < n; ++i) {
    dims[i] = t->cart.dims[static_cast<std::size_t>(i)];
    periods[i] = t->cart.periods[static_cast<std::size_t>(i)] ? 1 : 0;
    coords[i] = c[static_cast<std::size_t>(i)];
  }
  return MPI_SUCCESS;
}
FTMPI_ALIAS(Cart_get)

extern "C" int PMPI_Cart_rank(MPI_Comm comm, const int* coords, int* rank) {
  FTMPI_ENTER("MPI_Cart_rank");
  CART_OF(comm, "MPI_Cart_rank");
  if (!rank || (t->cart.ndims() > 0 && !coords)) return ret(comm, Status(Errc::arg, "NULL argument"), "MPI_Cart_rank");
  auto r = t->cart.rank_of(std::span<const int>(coords, static_cast<std::size_t>(t->cart.ndims())));
  if (!r.ok()) return ret(comm, r.status(), "MPI_Cart_rank");
  *rank = *r;
  return MPI_SUCCESS;
}
FTMPI_ALIAS(Cart_rank)

extern "C" int PMPI_Cart_coords(MPI_Comm comm, int rank, int maxdims, int* coords) {
  FTMPI_ENTER("MPI_Cart_coords");
  CART_OF(comm, "MPI_Cart_coords");
  if (maxdims < t->cart.ndims()) return ret(comm, Status(Errc::arg, "maxdims is too small"), "MPI_Cart_coords");
  if (t->cart.ndims() > 0 && !coords) return ret(comm, Status(Errc::arg, "coords is NULL"), "MPI_Cart_coords");
  if (rank < 0 || rank >= comm->size) return ret(comm, Status(Errc::rank, "invalid rank"), "MPI_Cart_coords");
  return ret(comm, t->cart.coords_of(rank, std::span<int>(coords, static_cast<std::size_t>(t->cart.ndims()))),
             "MPI_Cart_coords");
}
FTMPI_ALIAS(Cart_coords)

extern "C" int PMPI_Cart_shift(MPI_Comm comm, int direction, int disp, int* rank_source, int* rank_dest) {
  FTMPI_ENTER("MPI_Cart_shift");
  CART_OF(comm, "MPI_Cart_shift");
  if (!rank_source || !rank_dest) return ret(comm, Status(Errc::arg, "NULL argument"), "MPI_Cart_shift");
  if (direction < 0) return ret(comm, Status(Errc::arg, "direction is negative"), "MPI_Cart_shift");
  return ret(comm, t->cart.shift(comm->rank, direction, disp, MPI_PROC_NULL, rank_source, rank_dest), "MPI_Cart_shift");
}
FTMPI_ALIAS(Cart_shift)

extern "C" int PMPI_Cart_sub(MPI_Comm comm, const int* remain_dims, MPI_Comm* newcomm) {
  FTMPI_ENTER("MPI_Cart_sub");
  CART_OF(comm, "MPI_Cart_sub");
  if (!newcomm || (t->cart.ndims() > 0 && !remain_dims)) return ret(comm, Status(Errc::arg, "NULL argument"), "MPI_Cart_sub");
  *newcomm = MPI_COMM_NULL;
  std::vector<bool> remain;
  for (int i = 0; i < t->cart.ndims(); ++i) remain.push_back(remain_dims[i] != 0);
  int color = 0, key = 0;
  Status st = t->cart.sub_color_key(comm->rank, remain, &color, &key);
  if (!st.ok()) return ret(comm, st, "MPI_Cart_sub");
  auto sub = std::make_shared<topo::Topology>();
  sub->kind = topo::Kind::cart;
  sub->cart = t->cart.sub(remain);
  MPI_Comm out = MPI_COMM_NULL;
  st = cops::split(rt(), comm, color, key, &out);
  if (!st.ok()) return ret(comm, st, "MPI_Cart_sub");
  out->topo = std::move(sub);
  *newcomm = out;
  return MPI_SUCCESS;
}
FTMPI_ALIAS(Cart_sub)

// ---- graphs ----

extern "C" int PMPI_Graph_create(MPI_Comm comm, int nnodes, const int* index, const int* edges, int reorder,
                                 MPI_Comm* newcomm) {
  (void)reorder;
  FTMPI_ENTER("MPI_Graph_create");
  TOPO_CHECK_INTRA(comm, "MPI_Graph_create");
  if (nnodes < 0) return ret(comm, Status(Errc::arg, "nnodes is negative"), "MPI_Graph_create");
  if (!newcomm || (nnodes > 0 && !index)) return ret(comm, Status(Errc::arg, "NULL argument"), "MPI_Graph_create");
  *newcomm = MPI_COMM_NULL;
  const int nedges = nnodes > 0 ? index[nnodes - 1] : 0;
  if (nedges < 0) return ret(comm, Status(Errc::arg, "negative edge count"), "MPI_Graph_create");
  if (nedges > 0 && !edges) return ret(comm, Status(Errc::arg, "edges is NULL"), "MPI_Graph_create");
  auto g = topo::Graph::make(comm->size, std::span<const int>(index, static_cast<std::size_t>(nnodes)),
                             std::span<const int>(edges, static_cast<std::size_t>(nedges)));
  if (!g.ok()) return ret(comm, g.status(), "MPI_Graph_create");
  auto t = std::make_shared<topo::Topology>();
  t->kind = topo::Kind::graph;
  t->graph = std::move(*g);
  return build(comm, nnodes, std::move(t), newcomm, "MPI_Graph_create");
}
FTMPI_ALIAS(Graph_create)

extern "C" int PMPI_Graph_map(MPI_Comm comm, int nnodes, const int* index, const int* edges, int* newrank) {
  (void)index, (void)edges;
  FTMPI_ENTER("MPI_Graph_map");
  TOPO_CHECK_INTRA(comm, "MPI_Graph_map");
  if (!newrank) return ret(comm, Status(Errc::arg, "newrank is NULL"), "MPI_Graph_map");
  if (nnodes < 0 || nnodes > comm->size) return ret(comm, Status(Errc::arg, "invalid nnodes"), "MPI_Graph_map");
  *newrank = comm->rank < nnodes ? comm->rank : MPI_UNDEFINED;
  return MPI_SUCCESS;
}
FTMPI_ALIAS(Graph_map)

#define GRAPH_OF(comm, fn)                                                                  \
  TOPO_CHECK_INTRA(comm, fn);                                                               \
  const topo::Topology* t = topology_of(comm, topo::Kind::graph);                           \
  if (!t) return ret(comm, Status(Errc::topology, "not a graph communicator"), fn)

extern "C" int PMPI_Graphdims_get(MPI_Comm comm, int* nnodes, int* nedges) {
  FTMPI_ENTER("MPI_Graphdims_get");
  GRAPH_OF(comm, "MPI_Graphdims_get");
  if (!nnodes || !nedges) return ret(comm, Status(Errc::arg, "NULL argument"), "MPI_Graphdims_get");
  *nnodes = t->graph.nnodes();
  *nedges = static_cast<int>(t->graph.edges.size());
  return MPI_SUCCESS;
}
FTMPI_ALIAS(Graphdims_get)

extern "C" int PMPI_Graph_get(MPI_Comm comm, int maxindex, int maxedges, int* index, int* edges) {
  FTMPI_ENTER("MPI_Graph_get");
  GRAPH_OF(comm, "MPI_Graph_get");
  const int ni = std::min(maxindex, t->graph.nnodes());
  const int ne = std::min(maxedges, static_cast<int>(t->graph.edges.size()));
  if ((ni > 0 && !index) || (ne > 0 && !edges)) return ret(comm, Status(Errc::arg, "NULL argument"), "MPI_Graph_get");
  for (int i = 0; i < ni; ++i) index[i] = t->graph.index[static_cast<std::size_t>(i)];
  for (int i = 0; i < ne; ++i) edges[i] = t->graph.edges[static_cast<std::size_t>(i)];
  return MPI_SUCCESS;
}
FTMPI_ALIAS(Graph_get)

extern "C" int PMPI_Graph_neighbors_count(MPI_Comm comm, int rank, int* nneighbors) {
  FTMPI_ENTER("MPI_Graph_neighbors_count");
  GRAPH_OF(comm, "MPI_Graph_neighbors_count");
  if (!nneighbors) return ret(comm, Status(Errc::arg, "NULL argument"), "MPI_Graph_neighbors_count");
  auto n = t->graph.neighbors(rank);
  if (!n.ok()) return ret(comm, n.status(), "MPI_Graph_neighbors_count");
  *nneighbors = static_cast<int>(n->size());
  return MPI_SUCCESS;
}
FTMPI_ALIAS(Graph_neighbors_count)

extern "C" int PMPI_Graph_neighbors(MPI_Comm comm, int rank, int maxneighbors, int* neighbors) {
  FTMPI_ENTER("MPI_Graph_neighbors");
  GRAPH_OF(comm, "MPI_Graph_neighbors");
  auto n = t->graph.neighbors(rank);
  if (!n.ok()) return ret(comm, n.status(), "MPI_Graph_neighbors");
  const int k = std::min(maxneighbors, static_cast<int>(n->size()));
  if (k > 0 && !neighbors) return ret(comm, Status(Errc::arg, "neighbors is NULL"), "MPI_Graph_neighbors");
  for (int i = 0; i < k; ++i) neighbors[i] = (*n)[static_cast<std::size_t>(i)];
  return MPI_SUCCESS;
}
FTMPI_ALIAS(Graph_neighbors)

// ---- distributed graphs ----

namespace {
bool unweighted(const int* w) { return w == MPI_UNWEIGHTED; }
// MPI_WEIGHTS_EMPTY (and MPI_UNWEIGHTED) are markers, never arrays.
const int* weight_array(const int* w) { return w == MPI_UNWEIGHTED || w == MPI_WEIGHTS_EMPTY ? nullptr : w; }

int attach_dist(MPI_Comm comm, topo::DistGraph g, MPI_Comm* newcomm, const char* fn) {
  MPI_Comm out = MPI_COMM_NULL;
  Status st = cops::dup(rt(), comm, &out);
  if (!st.ok()) return ret(comm, st, fn);
  auto t = std::make_shared<topo::Topology>();
  t->kind = topo::Kind::dist_graph;
  t->dist = std::move(g);
  out->topo = std::move(t);
  *newcomm = out;
  return MPI_SUCCESS;
}
}  // namespace

extern "C" int PMPI_Dist_graph_create_adjacent(MPI_Comm comm, int indegree, const int* sources,
                                               const int* sourceweights, int outdegree, const int* destinations,
                                               const int* destweights, MPI_Info info, int reorder,
                                               MPI_Comm* newcomm) {
  (void)info, (void)reorder;
  FTMPI_ENTER("MPI_Dist_graph_create_adjacent");
  TOPO_CHECK_INTRA(comm, "MPI_Dist_graph_create_adjacent");
  const char* fn = "MPI_Dist_graph_create_adjacent";
  if (indegree < 0 || outdegree < 0) return ret(comm, Status(Errc::arg, "negative degree"), fn);
  if (!newcomm || (indegree > 0 && !sources) || (outdegree > 0 && !destinations))
    return ret(comm, Status(Errc::arg, "NULL argument"), fn);
  *newcomm = MPI_COMM_NULL;
  const bool weighted = !unweighted(sourceweights) && !unweighted(destweights);
  auto g = topo::DistGraph::make(comm->size, std::span<const int>(sources, static_cast<std::size_t>(indegree)),
                                 weight_array(sourceweights),
                                 std::span<const int>(destinations, static_cast<std::size_t>(outdegree)),
                                 weight_array(destweights), weighted);
  if (!g.ok()) return ret(comm, g.status(), fn);
  return attach_dist(comm, std::move(*g), newcomm, fn);
}
FTMPI_ALIAS(Dist_graph_create_adjacent)

extern "C" int PMPI_Dist_graph_create(MPI_Comm comm, int n, const int* sources, const int* degrees,
                                      const int* destinations, const int* weights, MPI_Info info, int reorder,
                                      MPI_Comm* newcomm) {
  (void)info, (void)reorder;
  FTMPI_ENTER("MPI_Dist_graph_create");
  TOPO_CHECK_INTRA(comm, "MPI_Dist_graph_create");
  const char* fn = "MPI_Dist_graph_create";
  if (n < 0) return ret(comm, Status(Errc::arg, "n is negative"), fn);
  if (!newcomm || (n > 0 && (!sources || !degrees))) return ret(comm, Status(Errc::arg, "NULL argument"), fn);
  *newcomm = MPI_COMM_NULL;
  // My edges as (src, dst, weight) triples.
  std::vector<int> mine;
  const int* w = weight_array(weights);
  const bool weighted_here = !unweighted(weights);
  int k = 0;
  for (int i = 0; i < n; ++i) {
    if (degrees[i] < 0) return ret(comm, Status(Errc::arg, "negative degree"), fn);
    if (sources[i] < 0 || sources[i] >= comm->size) return ret(comm, Status(Errc::rank, "source rank out of range"), fn);
    for (int j = 0; j < degrees[i]; ++j, ++k) {
      if (!destinations) return ret(comm, Status(Errc::arg, "destinations is NULL"), fn);
      if (destinations[k] < 0 || destinations[k] >= comm->size)
        return ret(comm, Status(Errc::rank, "destination rank out of range"), fn);
      const int wt = weighted_here && w ? w[k] : 1;
      if (wt < 0) return ret(comm, Status(Errc::arg, "negative edge weight"), fn);
      mine.insert(mine.end(), {sources[i], destinations[k], wt});
    }
  }
  // Everybody's edges: counts first, then the lists padded to the longest (coll has fixed-size allgather).
  const auto p = static_cast<std::size_t>(comm->size);
  int info_mine[2] = {static_cast<int>(mine.size() / 3), weighted_here ? 1 : 0};
  std::vector<int> counts(2 * p);
  Status st = ftmpi::coll::allgather(rt(), comm, info_mine, 2, &ftmpi_dt_int, counts.data(), 2, &ftmpi_dt_int);
  if (!st.ok()) return ret(comm, st, fn);
  int longest = 0;
  bool weighted = true;
  for (std::size_t r = 0; r < p; ++r) {
    longest = std::max(longest, counts[2 * r]);
    if (!counts[2 * r + 1]) weighted = false;
  }
  mine.resize(static_cast<std::size_t>(longest) * 3, -1);
  std::vector<int> all(static_cast<std::size_t>(longest) * 3 * p);
  if (longest > 0) {
    st = ftmpi::coll::allgather(rt(), comm, mine.data(), mine.size(), &ftmpi_dt_int, all.data(), mine.size(),
                                &ftmpi_dt_int);
    if (!st.ok()) return ret(comm, st, fn);
  }
  std::vector<topo::Edge> edges;
  for (std::size_t r = 0; r < p; ++r)
    for (int e = 0; e < counts[2 * r]; ++e) {
      const int* x = &all[(r * static_cast<std::size_t>(longest) + static_cast<std::size_t>(e)) * 3];
      edges.push_back({x[0], x[1], x[2]});
    }
  return attach_dist(comm, topo::adjacency_of(comm->rank, edges, weighted), newcomm, fn);
}
FTMPI_ALIAS(Dist_graph_create)

#define DIST_OF(comm, fn)                                                                   \
  TOPO_CHECK_INTRA(comm, fn);                                                               \
  const topo::Topology* t = topology_of(comm, topo::Kind::dist_graph);                      \
  if (!t) return ret(comm, Status(Errc::topology, "not a distributed-graph communicator"), fn)

extern "C" int PMPI_Dist_graph_neighbors_count(MPI_Comm comm, int* indegree, int* outdegree, int* weighted) {
  FTMPI_ENTER("MPI_Dist_graph_neighbors_count");
  DIST_OF(comm, "MPI_Dist_graph_neighbors_count");
  if (!indegree || !outdegree || !weighted)
    return ret(comm, Status(Errc::arg, "NULL argument"), "MPI_Dist_graph_neighbors_count");
  *indegree = static_cast<int>(t->dist.sources.size());
  *outdegree = static_cast<int>(t->dist.destinations.size());
  *weighted = t->dist.weighted ? 1 : 0;
  return MPI_SUCCESS;
}
FTMPI_ALIAS(Dist_graph_neighbors_count)

extern "C" int PMPI_Dist_graph_neighbors(MPI_Comm comm, int maxindegree, int* sources, int* sourceweights,
                                         int maxoutdegree, int* destinations, int* destweights) {
  FTMPI_ENTER("MPI_Dist_graph_neighbors");
  DIST_OF(comm, "MPI_Dist_graph_neighbors");
  const auto& d = t->dist;
  const int ni = std::min(maxindegree, static_cast<int>(d.sources.size()));
  const int no = std::min(maxoutdegree, static_cast<int>(d.destinations.size()));
  if ((ni > 0 && !sources) || (no > 0 && !destinations))
    return ret(comm, Status(Errc::arg, "NULL argument"), "MPI_Dist_graph_neighbors");
  int* sw = const_cast<int*>(weight_array(sourceweights));
  int* dw = const_cast<int*>(weight_array(destweights));
  for (int i = 0; i < ni; ++i) {
    sources[i] = d.sources[static_cast<std::size_t>(i)];
    if (d.weighted && sw) sw[i] = d.source_weights[static_cast<std::size_t>(i)];
  }
  for (int i = 0; i < no; ++i) {
    destinations[i] = d.destinations[static_cast<std::size_t>(i)];
    if (d.weighted && dw) dw[i] = d.dest_weights[static_cast<std::size_t>(i)];
  }
  return MPI_SUCCESS;
}
FTMPI_ALIAS(Dist_graph_neighbors)

extern "C" int PMPI_Topo_test(MPI_Comm comm, int* status) {
  FTMPI_ENTER("MPI_Topo_test");
  FTMPI_CHECK_COMM(comm, "MPI_Topo_test");
  if (!status) return ret(comm, Status(Errc::arg, "status is NULL"), "MPI_Topo_test");
  switch (comm->topo ? comm->topo->kind : topo::Kind::none) {
    case topo::Kind::cart: *status = MPI_CART; break;
    case topo::Kind::graph: *status = MPI_GRAPH; break;
    case topo::Kind::dist_graph: *status = MPI_DIST_GRAPH; break;
    case topo::Kind::none: *status = MPI_UNDEFINED; break;
  }
  return MPI_SUCCESS;
}
FTMPI_ALIAS(Topo_test)
