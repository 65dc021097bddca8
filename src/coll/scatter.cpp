// Scatter: binomial tree for small data, linear for large (tuning.h).
//  * Binomial: the root packs the p blocks in relative-rank order (rotated so that it comes first); each
//    rank receives the packed range of its subtree from its parent once, keeps the first block and forwards
//    the rest to its children, largest subtree first. log2 p rounds.
//  * Linear: the root sends each rank its block of sendbuf (engine handles sendtype) and copies its own
//    block locally unless recvbuf is MPI_IN_PLACE; every other rank receives once.
#include <algorithm>

#include "coll/builders.h"
#include "runtime/runtime.h"
#include "coll/coll.h"
#include "coll/local_copy.h"
#include "coll/schedule.h"
#include "coll/tuning.h"

namespace ftmpi::coll {

void build_scatter_linear(Schedule& s, const void* sendbuf, std::size_t sendcount, const Datatype* sendtype,
                          void* recvbuf, std::size_t recvcount, const Datatype* recvtype, int root) {
  const int p = s.comm()->size, me = s.comm()->rank;
  if (me != root) {
    s.recv(root, recvbuf, recvcount, recvtype);
    return;
  }
  for (int i = 0; i < p; ++i) {
    if (i != root) s.send(i, block_at(sendbuf, static_cast<std::size_t>(i), sendcount, sendtype), sendcount, sendtype);
  }
  if (!is_in_place(recvbuf)) {
    copy_typed(block_at(sendbuf, static_cast<std::size_t>(me), sendcount, sendtype), sendcount, sendtype, recvbuf,
               recvcount, recvtype);
  }
}

void build_scatter_binomial(Schedule& s, const void* sendbuf, std::size_t sendcount, const Datatype* sendtype,
                            void* recvbuf, std::size_t recvcount, const Datatype* recvtype, int root) {
  const int p = s.comm()->size, me = s.comm()->rank;
  const int rel = (me - root + p) % p;
  const bool am_root = me == root;
  const std::size_t blk = am_root ? dt::packed_size(sendtype, sendcount) : dt::packed_size(recvtype, recvcount);
  const int n = rel == 0 ? p : std::min(rel & -rel, p - rel);
  std::byte* buf = s.scratch(static_cast<std::size_t>(n) * blk);
  int mask = 1;
  if (am_root) {
    for (int i = 0; i < p; ++i) {
      const auto real = static_cast<std::size_t>((i + root) % p);
      dt::pack(block_at(sendbuf, real, sendcount, sendtype), sendcount, sendtype,
               buf + static_cast<std::size_t>(i) * blk);
    }
    while (mask < p) mask <<= 1;
    if (!is_in_place(recvbuf)) dt::unpack(buf, blk, recvtype, recvbuf);
  } else {
    while (!(rel & mask)) mask <<= 1;
    s.recv_bytes((rel - mask + root) % p, buf, static_cast<std::size_t>(n) * blk);
    s.local([=] { dt::unpack(buf, blk, recvtype, recvbuf); });  // block 0 is mine; the rest is forwarded
  }
  for (mask >>= 1; mask > 0; mask >>= 1) {
    const int child = rel + mask;
    if (child < p) {
      s.send_bytes((child + root) % p, buf + static_cast<std::size_t>(mask) * blk,
                   static_cast<std::size_t>(std::min(mask, p - child)) * blk);
    }
  }
}

void build_scatter(Schedule& s, const void* sendbuf, std::size_t sendcount, const Datatype* sendtype, void* recvbuf,
                   std::size_t recvcount, const Datatype* recvtype, int root) {
  const bool am_root = s.comm()->rank == root;
  const std::size_t blk = am_root ? dt::packed_size(sendtype, sendcount) : dt::packed_size(recvtype, recvcount);
  if (blk * static_cast<std::size_t>(s.comm()->size) <= tuning::kBinomialGatherMaxTotal) {
    build_scatter_binomial(s, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root);
  } else {
    build_scatter_linear(s, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root);
  }
}

Status scatter(Runtime& rt, ftmpi_comm_s* comm, const void* sendbuf, std::size_t sendcount,
               const Datatype* sendtype, void* recvbuf, std::size_t recvcount, const Datatype* recvtype, int root) {
  Schedule s(comm, &rt.scratch());
  s.run_immediately(rt);  // build-time copies come before the first step (or touch no pending buffer)
  build_scatter(s, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root);
  return run(rt, s);
}

}  // namespace ftmpi::coll
