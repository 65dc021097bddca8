// Barrier: dissemination (Hensgen, Finkel, Manber). ceil(log2 p) rounds; in round k every rank signals
// rank+2^k and waits for rank-2^k. Works for any p, no root, every rank learns that all others entered.
#include "coll/coll.h"
#include "coll/schedule.h"

namespace ftmpi::coll {

Status barrier(Runtime& rt, ftmpi_comm_s* comm) {
  Schedule s(comm);
  const int p = comm->size, me = comm->rank;
  for (int dist = 1; dist < p; dist <<= 1) {
    s.send_bytes((me + dist) % p, nullptr, 0);
    s.recv_bytes((me - dist + p) % p, nullptr, 0);
    s.fence();
  }
  return run(rt, s);
}

}  // namespace ftmpi::coll
