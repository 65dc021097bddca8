// The allreduce algorithm as a schedule builder, for reuse by other collectives (context-id allocation).
#pragma once
#include <cstddef>
#include <functional>

#include "coll/schedule.h"
#include "datatype/datatype.h"

namespace ftmpi::coll {

// combine(in, inout): inout = in (op) inout, where `in` is the left operand.
using Combine = std::function<void(const void* in, void* inout)>;

// Append to `s` an allreduce over s.comm() of the `count` elements of `type` at `acc` (a buffer laid out
// per the type, owned by the caller or by `s`): when the schedule finishes, `acc` holds the combination
// of every member's value, in rank order unless `commutative`.
void build_allreduce_into(Schedule& s, void* acc, std::size_t count, const ftmpi_datatype_s* type, bool commutative,
                          const Combine& combine);

}  // namespace ftmpi::coll
