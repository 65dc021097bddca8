// Bcast: binomial tree rooted at `root` (ranks renumbered relative to the root). A rank receives once
// from its parent, then forwards to its children, largest subtree first. log2 p rounds on the critical path.
// The engine handles the datatype, so non-contiguous types need no packing here.
#include "coll/coll.h"
#include "coll/schedule.h"

namespace ftmpi::coll {

Status bcast(Runtime& rt, ftmpi_comm_s* comm, void* buf, std::size_t count, const Datatype* type, int root) {
  Schedule s(comm);
  const int p = comm->size;
  const int rel = (comm->rank - root + p) % p;
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
  return run(rt, s);
}

}  // namespace ftmpi::coll
