// The allreduce algorithm as a schedule builder, for reuse by other collectives (context-id allocation).
#pragma once
#include <cstddef>

#include "coll/local_copy.h"
#include "coll/schedule.h"
#include "datatype/datatype.h"

namespace ftmpi::coll {

// The largest power of two <= p.
inline int pof2_below(int p) {
  int pof2 = 1;
  while (pof2 * 2 <= p) pof2 *= 2;
  return pof2;
}

// The non-power-of-two fold shared by the allreduce algorithms (Thakur, Rabenseifner, Gropp 2005): with
// rem = p - pof2_below(p), the first 2*rem ranks pair up; the even one sends its vector to the odd one,
// which combines it (acc = tmp op acc, the lower rank on the left) and goes on as rank me/2 of a
// power-of-two group. Returns that new rank, me - rem for the ranks beyond the pairs, or -1 for the even
// ranks that drop out. `tmp` must hold `count` elements on the odd ranks of the pairs.
template <class Combine>
int fold_in(Schedule& s, void* acc, void* tmp, std::size_t count, const ftmpi_datatype_s* type, int rem,
            Combine combine) {
  const int me = s.comm()->rank;
  if (me >= 2 * rem) return me - rem;
  if (me % 2 == 0) {
    s.send(me + 1, acc, count, type);
    s.fence();
    return -1;
  }
  s.recv(me - 1, tmp, count, type);
  s.local([=] { combine(tmp, acc); });
  return me / 2;
}

// The end of the fold: the odd rank of each pair hands the result back to its even partner.
inline void fold_out(Schedule& s, void* acc, std::size_t count, const ftmpi_datatype_s* type, int rem) {
  const int me = s.comm()->rank;
  if (me >= 2 * rem) return;
  if (me % 2 == 1) {
    s.send(me - 1, acc, count, type);
  } else {
    s.recv(me + 1, acc, count, type);
  }
  s.fence();
}

// Append to `s` an allreduce over s.comm() of the `count` elements of `type` at `acc` (a buffer laid out
// per the type, owned by the caller or by `s`): when the schedule finishes, `acc` holds the combination
// of every member's value, in rank order unless `commutative`.
// combine(in, inout): inout = in (op) inout, where `in` is the left operand. It is copied into the
// schedule's local steps, so keep it small and cheap to copy (a lambda capturing a few pointers).
template <class Combine>
void build_allreduce_into(Schedule& s, void* acc, std::size_t count, const ftmpi_datatype_s* type, bool commutative,
                          Combine combine) {
  const int p = s.comm()->size, me = s.comm()->rank;
  void* tmp = typed_scratch(s, count, type);
  const int pof2 = pof2_below(p);
  const int rem = p - pof2;
  const int newrank = fold_in(s, acc, tmp, count, type, rem, combine);

  if (newrank != -1) {
    for (int mask = 1; mask < pof2; mask <<= 1) {
      const int newdst = newrank ^ mask;
      const int dst = newdst < rem ? newdst * 2 + 1 : newdst + rem;
      s.send(dst, acc, count, type);
      s.recv(dst, tmp, count, type);
      if (commutative || dst < me) {
        s.local([=] { combine(tmp, acc); });
      } else {
        s.local([=] {  // acc = acc op tmp, keeping rank order
          combine(acc, tmp);
          copy_typed(tmp, count, type, acc, count, type);
        });
      }
    }
  }

  fold_out(s, acc, count, type, rem);
}

}  // namespace ftmpi::coll
