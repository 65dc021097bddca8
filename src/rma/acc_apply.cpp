// Element-wise accumulates on window memory (model and atomicity rule in rma/acc_apply.h).
#include "rma/acc_apply.h"

#include <array>
#include <cstring>

#include "datatype/builtin_types.h"

namespace ftmpi::rma {

namespace {

using dt::Basic;
using dt::OpKind;

enum class Cls : std::uint8_t { sint, uint, flt, other };

Cls cls_of(Basic b) {
  switch (b) {
    case Basic::int_: case Basic::long_: case Basic::llong: case Basic::i32: case Basic::i64: case Basic::aint:
    case Basic::offset: case Basic::count:
      return Cls::sint;
    case Basic::uint: case Basic::ulong: case Basic::ullong: case Basic::u32: case Basic::u64:
      return Cls::uint;
    case Basic::float_: case Basic::double_:
      return Cls::flt;
    default:
      return Cls::other;
  }
}

std::array<dt::Op, 16> make_ops() {
  std::array<dt::Op, 16> a{};
  for (std::size_t i = 0; i < a.size(); ++i) {
    a[i].kind = static_cast<OpKind>(i);
    a[i].predefined = true;
  }
  return a;
}

// One element, atomically. U: the raw word (uint32_t / uint64_t); F: the floating type of that size.
template <class U, class F>
U atomic_one(U* e, const void* in, const dt::Datatype* unit, OpKind op, Cls c) {
  U v = 0;
  if (in) std::memcpy(&v, in, sizeof v);
  switch (op) {
    case OpKind::no_op: return __atomic_load_n(e, __ATOMIC_SEQ_CST);
    case OpKind::replace: return __atomic_exchange_n(e, v, __ATOMIC_SEQ_CST);
    case OpKind::sum:
      if (c == Cls::sint || c == Cls::uint) return __atomic_fetch_add(e, v, __ATOMIC_SEQ_CST);
      if (c == Cls::flt) {
        U old = __atomic_load_n(e, __ATOMIC_RELAXED);
        for (;;) {
          F a, b;
          std::memcpy(&a, &old, sizeof a);
          std::memcpy(&b, &v, sizeof b);
          a = b + a;
          U nv;
          std::memcpy(&nv, &a, sizeof nv);
          if (__atomic_compare_exchange_n(e, &old, nv, false, __ATOMIC_SEQ_CST, __ATOMIC_RELAXED)) return old;
        }
      }
      break;
    case OpKind::band:
      if (c == Cls::sint || c == Cls::uint) return __atomic_fetch_and(e, v, __ATOMIC_SEQ_CST);
      break;
    case OpKind::bor:
      if (c == Cls::sint || c == Cls::uint) return __atomic_fetch_or(e, v, __ATOMIC_SEQ_CST);
      break;
    case OpKind::bxor:
      if (c == Cls::sint || c == Cls::uint) return __atomic_fetch_xor(e, v, __ATOMIC_SEQ_CST);
      break;
    default: break;
  }
  // Any other predefined operation: the generic reduction of this one element inside a CAS loop.
  const dt::Op* o = op_of(op);
  U old = __atomic_load_n(e, __ATOMIC_RELAXED);
  for (;;) {
    U nv = old;
    dt::apply_packed(o, &v, &nv, 1, unit);
    if (__atomic_compare_exchange_n(e, &old, nv, false, __ATOMIC_SEQ_CST, __ATOMIC_RELAXED)) return old;
  }
}

// One element under the AccLock (or not shared at all): plain read-modify-write.
void plain_one(std::byte* e, const void* in, const dt::Datatype* unit, OpKind op, std::byte* out) {
  const std::size_t n = unit->size;
  if (out) std::memcpy(out, e, n);
  if (op == OpKind::no_op) return;
  if (op == OpKind::replace) {
    std::memmove(e, in, n);
    return;
  }
  dt::apply_packed(op_of(op), in, e, 1, unit);
}

void one(std::byte* e, const std::byte* in, const dt::Datatype* unit, OpKind op, std::byte* out, bool atomics,
         Cls c) {
  const std::size_t n = unit->size;
  if (atomics && n == 4 && unit->extent == 4 && (reinterpret_cast<std::uintptr_t>(e) & 3) == 0) {
    const std::uint32_t old = atomic_one<std::uint32_t, float>(reinterpret_cast<std::uint32_t*>(e), in, unit, op, c);
    if (out) std::memcpy(out, &old, 4);
  } else if (atomics && n == 8 && unit->extent == 8 && (reinterpret_cast<std::uintptr_t>(e) & 7) == 0) {
    const std::uint64_t old = atomic_one<std::uint64_t, double>(reinterpret_cast<std::uint64_t*>(e), in, unit, op, c);
    if (out) std::memcpy(out, &old, 8);
  } else {
    plain_one(e, in, unit, op, out);
  }
}

}  // namespace

const dt::Op* op_of(dt::OpKind kind) {
  static const std::array<dt::Op, 16> ops = make_ops();
  return &ops[static_cast<std::size_t>(kind) & 15];
}

bool atomic_unit(const dt::Datatype* unit) {
  return unit && (unit->size == 4 || unit->size == 8) && unit->extent == static_cast<std::ptrdiff_t>(unit->size);
}

bool lock_free(const std::byte* base, const TargetShape& s, const dt::Datatype* unit) {
  if (!atomic_unit(unit)) return false;
  const std::uintptr_t mask = unit->size - 1;
  if (reinterpret_cast<std::uintptr_t>(base) & mask) return false;
  if (s.nblocks == 0) return s.count <= 1 || (static_cast<std::uintptr_t>(s.extent) & mask) == 0;
  if (s.count > 1 && (static_cast<std::uintptr_t>(s.extent) & mask)) return false;
  for (std::uint32_t b = 0; b < s.nblocks; ++b)
    if ((static_cast<std::uintptr_t>(s.blocks[b].offset) & mask) || (s.blocks[b].length & mask)) return false;
  return true;
}

void acc_apply(std::byte* base, const TargetShape& s, const dt::Datatype* unit, dt::OpKind op, const std::byte* in,
               std::byte* out, bool atomics) {
  const std::size_t n = unit->size;
  if (n == 0) return;
  const Cls c = cls_of(unit->basic);
  const bool has_in = in != nullptr && op != OpKind::no_op;
  const bool atomic_capable = atomics && atomic_unit(unit);
  const dt::Op* o = op_of(op);
  auto run = [&](std::byte* p, std::size_t len) {
    // A run none of whose elements is atomic (plain memory, a unit of another size, or a misaligned start,
    // which misaligns every element of the run alike): the caller holds the AccLock, so the whole run is
    // one typed reduction (the kernels of dt::apply_packed) instead of one call per element.
    if (!atomic_capable || (reinterpret_cast<std::uintptr_t>(p) & (n - 1)) != 0) {
      const std::size_t m = len / n;
      if (m == 0) return;
      if (out) {
        std::memcpy(out, p, m * n);
        out += m * n;
      }
      if (has_in) {
        if (op == OpKind::replace)
          std::memmove(p, in, m * n);
        else
          dt::apply_packed(o, in, p, m, unit);
        in += m * n;
      }
      return;
    }
    for (std::size_t k = 0; k + n <= len; k += n) {
      one(p + k, has_in ? in : nullptr, unit, op, out, atomics, c);
      if (has_in) in += n;
      if (out) out += n;
    }
  };
  if (s.nblocks == 0 && s.extent == static_cast<std::int64_t>(s.type_size)) {  // one contiguous run
    run(base, s.count * s.type_size);
    return;
  }
  for (std::size_t i = 0; i < s.count; ++i) {
    std::byte* e = base + static_cast<std::int64_t>(i) * s.extent;
    if (s.nblocks == 0) {
      run(e, s.type_size);
      continue;
    }
    for (std::uint32_t b = 0; b < s.nblocks; ++b) run(e + s.blocks[b].offset, s.blocks[b].length);
  }
}

void cas_apply(std::byte* at, const dt::Datatype* unit, const void* val, const void* cmp, void* out, bool atomics) {
  const std::size_t n = unit->size;
  if (atomics && n == 4 && unit->extent == 4 && (reinterpret_cast<std::uintptr_t>(at) & 3) == 0) {
    std::uint32_t expect, nv;
    std::memcpy(&expect, cmp, 4);
    std::memcpy(&nv, val, 4);
    __atomic_compare_exchange_n(reinterpret_cast<std::uint32_t*>(at), &expect, nv, false, __ATOMIC_SEQ_CST,
                                __ATOMIC_SEQ_CST);
    std::memcpy(out, &expect, 4);  // the old value, whether or not it matched
    return;
  }
  if (atomics && n == 8 && unit->extent == 8 && (reinterpret_cast<std::uintptr_t>(at) & 7) == 0) {
    std::uint64_t expect, nv;
    std::memcpy(&expect, cmp, 8);
    std::memcpy(&nv, val, 8);
    __atomic_compare_exchange_n(reinterpret_cast<std::uint64_t*>(at), &expect, nv, false, __ATOMIC_SEQ_CST,
                                __ATOMIC_SEQ_CST);
    std::memcpy(out, &expect, 8);
    return;
  }
  std::byte old[64];
  const std::size_t m = n <= sizeof old ? n : sizeof old;
  std::memcpy(old, at, m);
  if (std::memcmp(old, cmp, m) == 0) std::memcpy(at, val, m);
  std::memcpy(out, old, m);
}

}  // namespace ftmpi::rma
