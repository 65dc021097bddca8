// Gather: binomial tree for small data, linear for large (tuning.h).
//  * Binomial: ranks renumbered relative to the root; the rank at relative position `rel` collects the
//    packed blocks of relatives [rel, rel + subtree) in a scratch buffer (its own first), then sends the
//    whole range to its parent in one message. The root unpacks the p blocks, rotated back to real ranks,
//    into recvbuf. log2 p rounds; inner nodes forward data, which pays off only while blocks are small.
//  * Linear: the root posts one receive per rank straight into its block of recvbuf (the engine lays data
//    out per recvtype) and copies its own contribution locally; every other rank sends once.
#include <algorithm>

#include "coll/builders.h"
#include "runtime/runtime.h"
#include "coll/coll.h"
#include "coll/local_copy.h"
#include "coll/schedule.h"
#include "coll/tuning.h"

namespace ftmpi::coll {

void build_gather_linear(Schedule& s, const void* sendbuf, std::size_t sendcount, const Datatype* sendtype,
                         void* recvbuf, std::size_t recvcount, const Datatype* recvtype, int root) {
  const int p = s.comm()->size, me = s.comm()->rank;
  if (me != root) {
    s.send(root, sendbuf, sendcount, sendtype);
    return;
  }
  for (int i = 0; i < p; ++i) {
    if (i != root) s.recv(i, block_at(recvbuf, static_cast<std::size_t>(i), recvcount, recvtype), recvcount, recvtype);
  }
  if (!is_in_place(sendbuf)) {
    copy_typed(sendbuf, sendcount, sendtype, block_at(recvbuf, static_cast<std::size_t>(me), recvcount, recvtype),
               recvcount, recvtype);
  }
}

// Number of relative ranks in the binomial subtree rooted at relative rank `rel` (p ranks in all).
static int subtree_size(int rel, int p) {
  if (rel == 0) return p;
  return std::min(rel & -rel, p - rel);
}

void build_gather_binomial(Schedule& s, const void* sendbuf, std::size_t sendcount, const Datatype* sendtype,
                           void* recvbuf, std::size_t recvcount, const Datatype* recvtype, int root) {
  const int p = s.comm()->size, me = s.comm()->rank;
  const int rel = (me - root + p) % p;
  const bool am_root = me == root;
  const std::size_t blk = am_root ? dt::packed_size(recvtype, recvcount) : dt::packed_size(sendtype, sendcount);
  const int n = subtree_size(rel, p);
  std::byte* buf = s.scratch(static_cast<std::size_t>(n) * blk);
  if (am_root && is_in_place(sendbuf)) {
    dt::pack(block_at(recvbuf, static_cast<std::size_t>(me), recvcount, recvtype), recvcount, recvtype, buf);
  } else {
    dt::pack(sendbuf, sendcount, sendtype, buf);
  }
  for (int mask = 1; mask < p; mask <<= 1) {
    if (rel & mask) {
      s.fence();  // the whole subtree has arrived
      s.send_bytes((rel - mask + root) % p, buf, static_cast<std::size_t>(n) * blk);
      return;
    }
    const int child = rel + mask;
    if (child < p) {
      s.recv_bytes((child + root) % p, buf + static_cast<std::size_t>(mask) * blk,
                   static_cast<std::size_t>(std::min(mask, p - child)) * blk);
    }
  }
  // Root: every block is in `buf`, in relative order.
  s.local([=] {
    for (int i = 0; i < p; ++i) {
      const auto real = static_cast<std::size_t>((i + root) % p);
      dt::unpack(buf + static_cast<std::size_t>(i) * blk, blk, recvtype, block_at(recvbuf, real, recvcount, recvtype));
    }
  });
}

void build_gather(Schedule& s, const void* sendbuf, std::size_t sendcount, const Datatype* sendtype, void* recvbuf,
                  std::size_t recvcount, const Datatype* recvtype, int root) {
  const bool am_root = s.comm()->rank == root;
  const std::size_t blk = am_root ? dt::packed_size(recvtype, recvcount) : dt::packed_size(sendtype, sendcount);
  if (blk * static_cast<std::size_t>(s.comm()->size) <= tuning::kBinomialGatherMaxTotal) {
    build_gather_binomial(s, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root);
  } else {
    build_gather_linear(s, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root);
  }
}

Status gather(Runtime& rt, ftmpi_comm_s* comm, const void* sendbuf, std::size_t sendcount, const Datatype* sendtype,
              void* recvbuf, std::size_t recvcount, const Datatype* recvtype, int root) {
  Schedule s(comm, &rt.scratch());
  s.run_immediately(rt);  // build-time copies come before the first step (or touch no pending buffer)
  build_gather(s, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root);
  return run(rt, s);
}

}  // namespace ftmpi::coll
