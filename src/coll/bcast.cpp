// Bcast: binomial tree rooted at `root` (ranks renumbered relative to the root). A rank receives once
// from its parent, then forwards to its children, largest subtree first. log2 p rounds on the critical path.
// The engine handles the datatype, so non-contiguous types need no packing here (except to forward a
// message whose size differed from this rank's, see build_bcast).
#include "coll/builders.h"
#include "runtime/runtime.h"
#include "coll/coll.h"
#include "coll/schedule.h"
#include "coll/shm_coll.h"
#include "mpi.h"

namespace ftmpi::coll {

void build_bcast(Schedule& s, void* buf, std::size_t count, const ftmpi_datatype_s* type, int root) {
  const int p = s.comm()->size;
  const int rel = (s.comm()->rank - root + p) % p;
  int mask = 1;
  Schedule::SendSpec* fwd = nullptr;  // what this rank forwards: its buffer, unless the parent's message differed
  while (mask < p) {
    if (rel & mask) {
      // An erroneous program whose ranks pass different sizes (MPICH errors/coll/bcastlength): every rank
      // must see the mismatch, also below a rank that saw it first. Such a rank forwards a message of the
      // size it got (shorter than its buffer) or one byte longer than its buffer (it was truncated), so a
      // child that posted what its parent posted sees the same mismatch; the bytes are undefined after an
      // error. A matching message costs nothing more than the two small structs.
      auto* got = new (s.scratch(sizeof(Schedule::RecvOutcome))) Schedule::RecvOutcome{};
      s.recv_exact((rel - mask + root) % p, buf, count, type, got);
      s.fence();
      if (mask > 1 && rel + 1 < p) {  // it has children
        fwd = new (s.scratch(sizeof(Schedule::SendSpec))) Schedule::SendSpec{buf, count, type};
        s.local([&s, got, fwd, buf, count, type] {
          const std::size_t mine = type->size * count;
          if (!got->truncated && got->bytes == mine) return;
          const std::size_t n = got->truncated ? mine + 1 : got->bytes;
          std::byte* packed = s.scratch(mine + 1);
          if (mine > 0) dt::pack(buf, count, type, packed);
          packed[mine] = std::byte{0};
          *fwd = Schedule::SendSpec{packed, n, &ftmpi_dt_byte};
        });
      }
      break;
    }
    mask <<= 1;
  }
  for (mask >>= 1; mask > 0; mask >>= 1) {
    if (rel + mask >= p) continue;
    if (fwd != nullptr) s.send_spec((rel + mask + root) % p, fwd);
    else s.send((rel + mask + root) % p, buf, count, type);
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
