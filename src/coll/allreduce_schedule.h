// The allreduce algorithm as a schedule builder, for reuse by other collectives (context-id allocation).
#pragma once
#include <cstddef>

#include "coll/local_copy.h"
#include "coll/schedule.h"
#include "datatype/datatype.h"

namespace ftmpi::coll {

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
  int pof2 = 1;
  while (pof2 * 2 <= p) pof2 *= 2;
  const int rem = p - pof2;

  int newrank;
  if (me < 2 * rem) {
    if (me % 2 == 0) {
      s.send(me + 1, acc, count, type);
      s.fence();
      newrank = -1;
    } else {
      s.recv(me - 1, tmp, count, type);
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

  if (me < 2 * rem) {
    if (me % 2 == 1) {
      s.send(me - 1, acc, count, type);
    } else {
      s.recv(me + 1, acc, count, type);
    }
    s.fence();
  }
}

}  // namespace ftmpi::coll
