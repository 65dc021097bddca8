// Barrier: dissemination (Hensgen, Finkel, Manber). ceil(log2 p) rounds; in round k every rank signals
// rank+2^k and waits for rank-2^k. Works for any p, no root, every rank learns that all others entered.
#include "coll/builders.h"
#include "runtime/runtime.h"
#include "coll/coll.h"
#include "coll/schedule.h"
#include "coll/shm_coll.h"

namespace ftmpi::coll {

void build_barrier(Schedule& s) {
  const int p = s.comm()->size, me = s.comm()->rank;
  for (int dist = 1; dist < p; dist <<= 1) {
    s.send_bytes((me + dist) % p, nullptr, 0);
    s.recv_bytes((me - dist + p) % p, nullptr, 0);
    s.fence();
  }
}

Status barrier(Runtime& rt, ftmpi_comm_s* comm) {
  if (auto st = shm_barrier(rt, comm)) return *st;  // all on this host
  Schedule s(comm, &rt.scratch());
  s.run_immediately(rt);  // the builder does no build-time work
  build_barrier(s);
  return run(rt, s);
}

}  // namespace ftmpi::coll
