// Neighbourhood collectives (MPI-3.1 §7.6) as schedules: the neighbour lists of a communicator's process
// topology, and one builder that exchanges one block with every neighbour. The C API (api/coll_neighbor.cpp)
// turns the five collectives (allgather(v), alltoall(v,w)) into per-neighbour blocks.
#pragma once
#include <cstddef>
#include <vector>

#include "coll/schedule.h"
#include "util/status.h"

namespace ftmpi::coll {

// No neighbour in this slot (a non-periodic Cartesian edge): its buffer slot is kept, nothing moves.
inline constexpr int kNoNeighbor = -1;

// The standard's neighbour order. Cartesian: for each dimension, the -1 then the +1 neighbour (kNoNeighbor off
// a non-periodic edge), as sources and as destinations. Graph: the node's neighbours, as both. Distributed
// graph: the in-neighbours (sources) and out-neighbours (destinations) in creation order.
struct Neighbors {
  std::vector<int> sources;
  std::vector<int> destinations;
  bool cartesian = false;
};

// Errc::topology when `comm` carries no process topology.
Result<Neighbors> neighbors_of(const ftmpi_comm_s* comm);

// One block of a neighbour exchange: `count` elements of `type` at byte offset `offset` of the buffer.
struct NeighborBlock {
  std::ptrdiff_t offset = 0;
  std::size_t count = 0;
  const ftmpi_datatype_s* type = nullptr;
};

// Append the exchange to `s` (whose communicator carries `nb`'s topology): receive recvs[i] from
// nb.sources[i] and send sends[j] to nb.destinations[j] (sizes must match the lists); kNoNeighbor slots are
// skipped. Every receive is posted before any send. On a Cartesian topology the two sends of a dimension go
// +1 neighbour first: when both neighbours are the same process (a periodic dimension of size 1 or 2), its
// receive for the -1 slot, posted first, then matches the block meant for it.
void build_neighbor_exchange(Schedule& s, const Neighbors& nb, const void* sendbuf,
                             const std::vector<NeighborBlock>& sends, void* recvbuf,
                             const std::vector<NeighborBlock>& recvs);

}  // namespace ftmpi::coll
