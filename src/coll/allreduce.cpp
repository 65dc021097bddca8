// Allreduce: recursive doubling with the usual fix-up for non-powers of two (Thakur, Rabenseifner, Gropp
// 2005). With pof2 the largest power of two <= p and rem = p - pof2, the first 2*rem ranks pair up
// (even sends to odd, odd keeps the combined value), the pof2 remaining ranks exchange-and-combine over
// log2(pof2) rounds, and the odd ranks hand the result back to their even partners.
// Operand order is kept (the lower-ranked side is always the left operand), so non-commutative ops are
// correct too. The combine step is a parameter so that context-id allocation can reuse the algorithm on
// bit masks (coll/mask_allreduce.h).
#include "coll/allreduce_schedule.h"

#include <cstring>

#include "coll/builders.h"
#include "coll/coll.h"
#include "coll/local_copy.h"

namespace ftmpi::coll {

void build_allreduce_bytes(Schedule& s, std::byte* acc, std::size_t bytes, bool commutative, const Combine& combine) {
  const int p = s.comm()->size, me = s.comm()->rank;
  std::byte* tmp = s.scratch(bytes);
  int pof2 = 1;
  while (pof2 * 2 <= p) pof2 *= 2;
  const int rem = p - pof2;

  int newrank;
  if (me < 2 * rem) {
    if (me % 2 == 0) {
      s.send_bytes(me + 1, acc, bytes);
      s.fence();
      newrank = -1;
    } else {
      s.recv_bytes(me - 1, tmp, bytes);
      s.local([=] { combine(tmp, acc); });  // acc = tmp(lower rank) op acc
      newrank = me / 2;
    }
  } else {
    newrank = me - rem;
  }

  if (newrank != -1) {
    for (int mask = 1; mask < pof2; mask <<= 1) {
      const int newdst = newrank ^ mask;
      const int dst = newdst < rem ? newdst * 2 + 1 : newdst + rem;
      s.send_bytes(dst, acc, bytes);
      s.recv_bytes(dst, tmp, bytes);
      if (commutative || dst < me) {
        s.local([=] { combine(tmp, acc); });
      } else {
        s.local([=] {  // acc = acc op tmp, keeping rank order
          combine(acc, tmp);
          std::memcpy(acc, tmp, bytes);
        });
      }
    }
  }

  if (me < 2 * rem) {
    if (me % 2 == 1) {
      s.send_bytes(me - 1, acc, bytes);
    } else {
      s.recv_bytes(me + 1, acc, bytes);
    }
    s.fence();
  }
}

void build_allreduce(Schedule& s, const void* sendbuf, void* recvbuf, std::size_t count,
                     const ftmpi_datatype_s* type, const ftmpi_op_s* op) {
  const std::size_t bytes = dt::packed_size(type, count);
  std::byte* acc = packed_scratch(s, is_in_place(sendbuf) ? recvbuf : sendbuf, count, type);
  build_allreduce_bytes(s, acc, bytes, op->commutative,
                  [=](const void* in, void* inout) { dt::apply(op, in, inout, count, type); });
  s.local([=] { dt::unpack(acc, bytes, type, recvbuf); });
}

Status allreduce(Runtime& rt, ftmpi_comm_s* comm, const void* sendbuf, void* recvbuf, std::size_t count,
                 const Datatype* type, const Op* op) {
  Schedule s(comm);
  build_allreduce(s, sendbuf, recvbuf, count, type, op);
  return run(rt, s);
}

}  // namespace ftmpi::coll
