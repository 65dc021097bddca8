// Bcast: binomial tree rooted at `root` (ranks renumbered relative to the root). A rank receives once
// from its parent, then forwards to its children, largest subtree first. log2 p rounds on the critical path.
// The engine handles the datatype, so non-contiguous types need no packing here.
#include "coll/builders.h"
#include "runtime/runtime.h"
#include "coll/coll.h"
#include "coll/schedule.h"
#include "coll/shm_coll.h"

namespace ftmpi::coll {

void build_bcast(Schedule& s, void* buf, std::size_t count, const ftmpi_datatype_s* type, int root) {
  const int p = s.comm()->size;
  const int rel = (s.comm()->rank - root + p) % p;
  int mask = 1;
  while (mask < p) {
    if (rel & mask) {
      s.recv((rel - mask + root) % p, buf, count, type);
      s.fence();
      break;
    }
    mask <<= 1;
  }
  for (mask >>= 1; mask > 0; mask >>= 1) {
    if (rel + mask < p) s.send((rel + mask + root) % p, buf, count, type);
  }
}

Status bcast(Runtime& rt, ftmpi_comm_s* comm, void* buf, std::size_t count, const Datatype* type, int root) {
  if (auto st = shm_bcast(rt, comm, buf, count, type, root)) return *st;  // small, all on this host
  Schedule s(comm, &rt.scratch());
  s.run_immediately(rt);  // the builder does no build-time work
  build_bcast(s, buf, count, type, root);
  return run(rt, s);
}

}  // namespace ftmpi::coll
