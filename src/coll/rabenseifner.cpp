// Allreduce for large vectors and commutative ops: Rabenseifner's algorithm (Thakur, Rabenseifner, Gropp
// 2005, as in MPICH). With pof2 the largest power of two <= p and rem = p - pof2, the first 2*rem ranks fold
// pairwise as in recursive doubling (the even one drops out). The pof2 remaining ranks then
//   1. reduce-scatter by recursive halving: in round k a rank keeps half of its current range, sends the
//      other half to its partner and combines the partner's copy of the half it keeps; after log2 pof2
//      rounds each rank owns the full reduction of one 1/pof2 slice;
//   2. allgather by recursive doubling, undoing the halving in reverse order.
// Each rank sends and receives about 2*(n - n/pof2) elements instead of n*log2 p. Slices are element ranges
// (count split as evenly as possible), so any type works; operands combine in an order that depends on the
// rank, hence commutative ops only. The dropped-out even ranks get the result from their partner at the end.
#include <vector>

#include "coll/allreduce_schedule.h"
#include "coll/builders.h"
#include "coll/local_copy.h"
#include "coll/schedule.h"

namespace ftmpi::coll {

void build_allreduce_rabenseifner(Schedule& s, const void* sendbuf, void* recvbuf, std::size_t count, const Dt* type,
                                  const ftmpi_op_s* op) {
  const int p = s.comm()->size, me = s.comm()->rank;
  // The reduction runs in recvbuf itself (it has the type's layout for `count` elements), and `tmp` holds
  // only the largest single receive: with p = 2 and 2^31 bytes of data that is 1 GiB of scratch, not 4.
  char* acc = static_cast<char*>(recvbuf);
  if (!is_in_place(sendbuf)) copy_typed(sendbuf, count, type, acc, count, type);
  const int pof2 = pof2_below(p);
  const int rem = p - pof2;
  const std::ptrdiff_t ext = type->extent;
  // Slice i (of pof2) covers elements [disp[i], disp[i] + cnt[i]); lower slices are the larger ones.
  const auto n = static_cast<std::size_t>(pof2);
  std::vector<std::size_t> cnt(n), disp(n);
  for (std::size_t i = 0; i < n; ++i) {
    cnt[i] = count / n + (i < count % n ? 1 : 0);
    disp[i] = i == 0 ? 0 : disp[i - 1] + cnt[i - 1];
  }
  auto range = [&](int from, int to) {  // elements in slices [from, to)
    std::size_t c = 0;
    for (int i = from; i < to; ++i) c += cnt[static_cast<std::size_t>(i)];
    return c;
  };
  // Receives into tmp: the whole vector (odd ranks of the fold), then halves, quarters, ... of it.
  const bool folds_in = me < 2 * rem && me % 2 == 1;
  char* tmp = static_cast<char*>(typed_scratch(s, folds_in ? count : range(0, pof2 / 2), type));

  const int newrank = fold_in(s, acc, tmp, count, type, rem,
                              [=](const void* in, void* inout) { dt::apply(op, in, inout, count, type); });

  if (newrank != -1) {
    auto off = [&](int slice) { return static_cast<std::ptrdiff_t>(disp[static_cast<std::size_t>(slice)]) * ext; };
    auto real = [&](int nr) { return nr < rem ? nr * 2 + 1 : nr + rem; };

    int send_idx = 0, recv_idx = 0, last_idx = pof2, mask = 1;
    for (; mask < pof2; mask <<= 1) {
      const int newdst = newrank ^ mask, dst = real(newdst);
      std::size_t send_cnt, recv_cnt;
      if (newrank < newdst) {
        send_idx = recv_idx + pof2 / (mask * 2);
        send_cnt = range(send_idx, last_idx);
        recv_cnt = range(recv_idx, send_idx);
      } else {
        recv_idx = send_idx + pof2 / (mask * 2);
        send_cnt = range(send_idx, recv_idx);
        recv_cnt = range(recv_idx, last_idx);
      }
      s.send(dst, acc + off(send_idx), send_cnt, type);
      s.recv(dst, tmp, recv_cnt, type);  // rounds are fenced by the local step: tmp is reused
      char* inout = acc + off(recv_idx);
      s.local([=] { dt::apply(op, tmp, inout, recv_cnt, type); });
      send_idx = recv_idx;
      if (mask * 2 < pof2) last_idx = recv_idx + pof2 / (mask * 2);
    }
    for (mask >>= 1; mask > 0; mask >>= 1) {
      const int newdst = newrank ^ mask, dst = real(newdst);
      std::size_t send_cnt, recv_cnt;
      if (newrank < newdst) {
        if (mask != pof2 / 2) last_idx = last_idx + pof2 / (mask * 2);
        recv_idx = send_idx + pof2 / (mask * 2);
        send_cnt = range(send_idx, recv_idx);
        recv_cnt = range(recv_idx, last_idx);
      } else {
        recv_idx = send_idx - pof2 / (mask * 2);
        send_cnt = range(send_idx, last_idx);
        recv_cnt = range(recv_idx, send_idx);
      }
      s.send(dst, acc + off(send_idx), send_cnt, type);
      s.recv(dst, acc + off(recv_idx), recv_cnt, type);
      s.fence();
      if (newrank > newdst) send_idx = recv_idx;
    }
  }

  fold_out(s, acc, count, type, rem);
}

}  // namespace ftmpi::coll
