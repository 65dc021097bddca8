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
// double: a cmpxchg loop), and for the atomic elements of a locked operation; a run of non-atomic elements
// (back-to-back elements are one run) is one typed reduction (dt::apply_packed over the run).
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

// 0: a signed or unsigned integer type of 4/8 bytes; 1: float/double; 2: anything else.
inline int fast_class(dt::Basic b) {
  using B = dt::Basic;
  switch (b) {
    case B::int_: case B::long_: case B::llong: case B::i32: case B::i64: case B::aint: case B::offset:
    case B::count: case B::uint: case B::ulong: case B::ullong: case B::u32: case B::u64:
      return 0;
    case B::float_: case B::double_:
      return 1;
    default:
      return 2;
  }
}

namespace detail {
template <class U, class F>
inline void fast_elems(U* e, std::size_t n, dt::OpKind op, bool is_float, const std::byte* in, std::byte* out) {
  for (std::size_t i = 0; i < n; ++i) {
    U v = 0, old;
    if (in) __builtin_memcpy(&v, in + i * sizeof(U), sizeof(U));
    switch (op) {
      case dt::OpKind::no_op: old = __atomic_load_n(e + i, __ATOMIC_SEQ_CST); break;
      case dt::OpKind::replace: old = __atomic_exchange_n(e + i, v, __ATOMIC_SEQ_CST); break;
      case dt::OpKind::band: old = __atomic_fetch_and(e + i, v, __ATOMIC_SEQ_CST); break;
      case dt::OpKind::bor: old = __atomic_fetch_or(e + i, v, __ATOMIC_SEQ_CST); break;
      case dt::OpKind::bxor: old = __atomic_fetch_xor(e + i, v, __ATOMIC_SEQ_CST); break;
      default:  // sum
        if (!is_float) {
          old = __atomic_fetch_add(e + i, v, __ATOMIC_SEQ_CST);
        } else {
          old = __atomic_load_n(e + i, __ATOMIC_RELAXED);
          for (;;) {
            F a, b;
            __builtin_memcpy(&a, &old, sizeof a);
            __builtin_memcpy(&b, &v, sizeof b);
            a = b + a;
            U nv;
            __builtin_memcpy(&nv, &a, sizeof nv);
            if (__atomic_compare_exchange_n(e + i, &old, nv, false, __ATOMIC_SEQ_CST, __ATOMIC_RELAXED)) break;
          }
        }
    }
    if (out) __builtin_memcpy(out + i * sizeof(U), &old, sizeof(U));
  }
}
}  // namespace detail

// The common case, inline: `n` contiguous elements of `unit` at `at` in atomic-capable memory, op one of
// no_op / replace / sum (integers, float, double) / band / bor / bxor (integers), every element aligned.
// Same semantics as acc_apply(atomics = true) on them; false (nothing done) when the case does not apply.
inline bool acc_fast(std::byte* at, std::size_t n, const dt::Datatype* unit, dt::OpKind op, const std::byte* in,
                     std::byte* out) {
  const std::size_t sz = unit->size;
  if ((sz != 4 && sz != 8) || unit->extent != static_cast<std::ptrdiff_t>(sz) ||
      (reinterpret_cast<std::uintptr_t>(at) & (sz - 1)) != 0)
    return false;
  const int c = fast_class(unit->basic);
  switch (op) {
    case dt::OpKind::no_op: case dt::OpKind::replace: break;
    case dt::OpKind::sum: if (c == 2) return false; break;
    case dt::OpKind::band: case dt::OpKind::bor: case dt::OpKind::bxor: if (c != 0) return false; break;
    default: return false;
  }
  if (op == dt::OpKind::no_op) in = nullptr;
  if (sz == 4)
    detail::fast_elems<std::uint32_t, float>(reinterpret_cast<std::uint32_t*>(at), n, op, c == 1, in, out);
  else
    detail::fast_elems<std::uint64_t, double>(reinterpret_cast<std::uint64_t*>(at), n, op, c == 1, in, out);
  return true;
}

}  // namespace ftmpi::rma
