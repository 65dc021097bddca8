// Element-wise accumulates on window memory: the one routine every path that applies an accumulate-class
// operation (Accumulate, Get_accumulate, Fetch_and_op, Compare_and_swap) goes through: direct origins on a
// mapped window (rma/direct.h), the target's Service for message origins (rma/service.cpp), and the origins
// that reach user memory by process_vm_readv/writev (rma/cma.h; they read, apply here, write back).
//
// Atomicity rule (MPI-3.1 §11.7.1): concurrent accumulates on the same location with the same predefined
// type are element-wise atomic. Here, for one window member's memory:
//   * Memory that every direct origin *maps* (MPI_Win_allocate segments, MPI_Win_allocate_shared) is
//     "atomic-capable": an element of a 4- or 8-byte basic type without padding whose address is naturally
//     aligned is updated with one hardware atomic (fetch_add / fetch_and / fetch_or / fetch_xor / exchange /
//     load, otherwise a compare-and-swap loop around the generic reduction of that one element), by every
//     path, lock-free.
//   * Every other element (1, 2, 12 or 16-byte types, misaligned addresses, and all of the memory of
//     MPI_Win_create / dynamic windows, which origins reach by process_vm_* and cannot update atomically) is
//     updated under the member's AccLock (rma/direct.h), by every path.
// Whether an element is atomic depends only on its address, its basic type and the window: two operations
// on the same element always agree on how they exclude each other, whichever path they take. An operation
// whose elements are all atomic takes no lock at all (lock_free below); one with any other element holds
// the AccLock for its whole length (its atomic elements are still updated atomically, since lock-free
// operations may run concurrently on them).
//
// Cost: one atomic instruction per element on the lock-free path (MPI_SUM on int/long: lock xadd; on
// double: a cmpxchg loop); the generic reduction (dt::apply_packed) per element otherwise.
#pragma once
#include <cstddef>
#include <cstdint>

#include "datatype/datatype.h"
#include "datatype/op.h"
#include "rma/wire.h"

namespace ftmpi::rma {

// Where a target region lies: `count` elements `extent` bytes apart from `base`; an element is `nblocks`
// runs (offset, length), or, when nblocks == 0, `type_size` contiguous bytes at its start.
struct TargetShape {
  std::size_t count = 0;
  std::size_t type_size = 0;
  std::int64_t extent = 0;
  const WireBlock* blocks = nullptr;
  std::uint32_t nblocks = 0;
};

// True when `unit` (a basic type) can be updated by one hardware atomic: 4 or 8 bytes, no padding.
bool atomic_unit(const dt::Datatype* unit);
// True when every element of `unit` in the region is atomic (atomic-capable memory, atomic_unit, every
// element naturally aligned): the operation needs no AccLock.
bool lock_free(const std::byte* base, const TargetShape& s, const dt::Datatype* unit);

// For each element e of `unit` in the region, in pack order (i-th): out[i] = e before (when out), then
// e = in[i] op e (op replace: e = in[i]; no_op: e unchanged; in may be null then). `in` and `out` are
// packed. `atomics`: the memory is atomic-capable (aligned 4/8-byte elements use hardware atomics).
void acc_apply(std::byte* base, const TargetShape& s, const dt::Datatype* unit, dt::OpKind op, const std::byte* in,
               std::byte* out, bool atomics);
// Compare-and-swap of the element at `at`: out = old; if old == cmp, element = val.
void cas_apply(std::byte* at, const dt::Datatype* unit, const void* val, const void* cmp, void* out, bool atomics);

// A predefined operation of `kind` (for dt::apply_packed), static storage.
const dt::Op* op_of(dt::OpKind kind);

}  // namespace ftmpi::rma
