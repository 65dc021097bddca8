// The allreduce algorithm as a schedule builder, for reuse by other collectives (context-id allocation).
#pragma once
#include <cstddef>
#include <functional>

#include "coll/schedule.h"

namespace ftmpi::coll {

// combine(in, inout): inout = in (op) inout, where `in` is the left operand.
using Combine = std::function<void(const void* in, void* inout)>;

// Append to `s` an allreduce of the `bytes` packed bytes at `acc` (a buffer owned by the caller or by
// `s`) over s.comm(): when the schedule finishes, `acc` holds the combination of every member's value,
// in rank order unless `commutative`.
void build_allreduce_bytes(Schedule& s, std::byte* acc, std::size_t bytes, bool commutative, const Combine& combine);

}  // namespace ftmpi::coll
