// Graph and distributed-graph topologies (see topology.h).
#include "topo/topology.h"

namespace ftmpi::topo {

Result<Graph> Graph::make(int comm_size, std::span<const int> index, std::span<const int> edges) {
  if (static_cast<int>(index.size()) > comm_size) return Status(Errc::arg, "more graph nodes than processes");
  Graph g;
  int prev = 0;
  for (int v : index) {
    if (v < prev) return Status(Errc::arg, "graph index must be non-decreasing and non-negative");
    prev = v;
  }
  if (static_cast<std::size_t>(prev) != edges.size()) return Status(Errc::arg, "graph index and edges disagree");
  for (int e : edges)
    if (e < 0 || e >= static_cast<int>(index.size())) return Status(Errc::arg, "graph edge names no node");
  g.index.assign(index.begin(), index.end());
  g.edges.assign(edges.begin(), edges.end());
  return g;
}

Result<std::span<const int>> Graph::neighbors(int rank) const {
  if (rank < 0 || rank >= nnodes()) return Status(Errc::rank, "rank is not a node of the graph");
  const int begin = rank == 0 ? 0 : index[static_cast<std::size_t>(rank) - 1];
  const int end = index[static_cast<std::size_t>(rank)];
  return std::span<const int>(edges).subspan(static_cast<std::size_t>(begin), static_cast<std::size_t>(end - begin));
}

Result<DistGraph> DistGraph::make(int comm_size, std::span<const int> sources, const int* source_weights,
                                  std::span<const int> destinations, const int* dest_weights, bool weighted) {
  DistGraph g;
  g.weighted = weighted;
  for (int r : sources)
    if (r < 0 || r >= comm_size) return Status(Errc::rank, "source rank out of range");
  for (int r : destinations)
    if (r < 0 || r >= comm_size) return Status(Errc::rank, "destination rank out of range");
  g.sources.assign(sources.begin(), sources.end());
  g.destinations.assign(destinations.begin(), destinations.end());
  if (weighted) {
    if ((!source_weights && !sources.empty()) || (!dest_weights && !destinations.empty()))
      return Status(Errc::arg, "weights missing");
    for (std::size_t i = 0; i < sources.size(); ++i) {
      if (source_weights[i] < 0) return Status(Errc::arg, "negative edge weight");
      g.source_weights.push_back(source_weights[i]);
    }
    for (std::size_t i = 0; i < destinations.size(); ++i) {
      if (dest_weights[i] < 0) return Status(Errc::arg, "negative edge weight");
      g.dest_weights.push_back(dest_weights[i]);
    }
  }
  return g;
}

DistGraph adjacency_of(int rank, std::span<const Edge> all_edges, bool weighted) {
  DistGraph g;
  g.weighted = weighted;
  for (const Edge& e : all_edges) {
    if (e.dst == rank) {
      g.sources.push_back(e.src);
      if (weighted) g.source_weights.push_back(e.weight);
    }
    if (e.src == rank) {
      g.destinations.push_back(e.dst);
      if (weighted) g.dest_weights.push_back(e.weight);
    }
  }
  return g;
}

}  // namespace ftmpi::topo
