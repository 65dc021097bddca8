// Neighbour lists of a process topology and the neighbour-exchange schedule (see coll/neighbor.h).
#include "coll/neighbor.h"

#include "comm/communicator.h"
#include "topo/topology.h"

namespace ftmpi::coll {

Result<Neighbors> neighbors_of(const ftmpi_comm_s* comm) {
  const topo::Topology* t = comm->topo.get();
  Neighbors nb;
  switch (t ? t->kind : topo::Kind::none) {
    case topo::Kind::cart:
      nb.cartesian = true;
      for (int d = 0; d < t->cart.ndims(); ++d) {
        int src = kNoNeighbor, dst = kNoNeighbor;
        FTMPI_TRY(t->cart.shift(comm->rank, d, 1, kNoNeighbor, &src, &dst));
        nb.sources.push_back(src);
        nb.sources.push_back(dst);
      }
      nb.destinations = nb.sources;
      return nb;
    case topo::Kind::graph: {
      auto list = t->graph.neighbors(comm->rank);
      if (!list.ok()) return list.status();
      nb.sources.assign(list->begin(), list->end());
      nb.destinations = nb.sources;
      return nb;
    }
    case topo::Kind::dist_graph:
      nb.sources = t->dist.sources;
      nb.destinations = t->dist.destinations;
      return nb;
    case topo::Kind::none:
      break;
  }
  return Status(Errc::topology, "the communicator has no process topology");
}

void build_neighbor_exchange(Schedule& s, const Neighbors& nb, const void* sendbuf,
                             const std::vector<NeighborBlock>& sends, void* recvbuf,
                             const std::vector<NeighborBlock>& recvs) {
  for (std::size_t i = 0; i < nb.sources.size(); ++i) {
    if (nb.sources[i] == kNoNeighbor) continue;
    s.recv(nb.sources[i], static_cast<char*>(recvbuf) + recvs[i].offset, recvs[i].count, recvs[i].type);
  }
  const std::size_t n = nb.destinations.size();
  for (std::size_t k = 0; k < n; ++k) {
    // Cartesian: slots (2d, 2d+1) are sent as 2d+1, 2d.
    const std::size_t j = nb.cartesian ? (k ^ 1U) : k;
    if (nb.destinations[j] == kNoNeighbor) continue;
    s.send(nb.destinations[j], static_cast<const char*>(sendbuf) + sends[j].offset, sends[j].count, sends[j].type);
  }
}

}  // namespace ftmpi::coll
