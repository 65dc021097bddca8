// Scan and Exscan: recursive doubling (as in MPICH). Every rank keeps `partial`, the reduction of a
// contiguous range of ranks ending at itself that grows by doubling: in round k it swaps partials with
// rank^2^k (when that rank exists). A partner below contributes a range just before ours: it becomes the
// left operand of both `partial` and the result; a partner above only extends `partial` (as the right
// operand, so non-commutative ops keep rank order). ceil(log2 p) rounds.
// Exscan's result on rank r covers ranks [0, r): it starts from the first lower partner's partial; rank 0's
// recvbuf is never written. MPI_IN_PLACE (sendbuf): the input is in recvbuf.
#include "coll/builders.h"
#include "coll/local_copy.h"
#include "coll/schedule.h"

namespace ftmpi::coll {

namespace {

void build_prefix(Schedule& s, const void* sendbuf, void* recvbuf, std::size_t count, const Dt* type,
                  const ftmpi_op_s* op, bool inclusive) {
  const int p = s.comm()->size, me = s.comm()->rank;
  const void* input = is_in_place(sendbuf) ? recvbuf : sendbuf;
  void* partial = typed_scratch(s, count, type);
  void* tmp = typed_scratch(s, count, type);
  copy_typed(input, count, type, partial, count, type);
  if (inclusive && !is_in_place(sendbuf)) copy_typed(input, count, type, recvbuf, count, type);
  bool have_result = inclusive;  // exscan: recvbuf holds nothing until the first lower partner
  const bool commute = op->commutative;
  for (int mask = 1; mask < p; mask <<= 1) {
    const int peer = me ^ mask;
    if (peer >= p) continue;
    s.send(peer, partial, count, type);
    s.recv(peer, tmp, count, type);
    if (peer < me) {
      const bool first = !have_result;
      s.local([=] {
        dt::apply(op, tmp, partial, count, type);  // partial = tmp op partial
        if (first) {
          copy_typed(tmp, count, type, recvbuf, count, type);
        } else {
          dt::apply(op, tmp, recvbuf, count, type);  // result = tmp op result
        }
      });
      have_result = true;
    } else if (commute) {
      s.local([=] { dt::apply(op, tmp, partial, count, type); });
    } else {
      s.local([=] {  // partial = partial op tmp
        dt::apply(op, partial, tmp, count, type);
        copy_typed(tmp, count, type, partial, count, type);
      });
    }
  }
}

}  // namespace

void build_scan(Schedule& s, const void* sendbuf, void* recvbuf, std::size_t count, const Dt* type,
                const ftmpi_op_s* op) {
  build_prefix(s, sendbuf, recvbuf, count, type, op, true);
}

void build_exscan(Schedule& s, const void* sendbuf, void* recvbuf, std::size_t count, const Dt* type,
                  const ftmpi_op_s* op) {
  build_prefix(s, sendbuf, recvbuf, count, type, op, false);
}

}  // namespace ftmpi::coll
