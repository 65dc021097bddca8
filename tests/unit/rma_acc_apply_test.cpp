// rma::acc_apply (src/rma/acc_apply.h): a region whose elements are not atomic (plain memory, or units of
// 1/2/12/16 bytes, or misaligned runs) is reduced run by run with one typed kernel call; an atomic-capable
// region element by element with hardware atomics. Whatever the path, the result must be the element-wise
// reference: out[i] = e_i before, e_i = in[i] op e_i, in pack order over the target shape.
#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <vector>

#include "datatype/builtin_types.h"
#include "datatype/op.h"
#include "rma/acc_apply.h"

namespace {
namespace dt = ftmpi::dt;
namespace rma = ftmpi::rma;
using dt::Basic;
using dt::OpKind;

// The reference: one element at a time through dt::apply_packed, walking the shape like the Service does.
void reference(std::byte* base, const rma::TargetShape& s, const dt::Datatype* unit, OpKind op, const std::byte* in,
               std::byte* out) {
  const std::size_t n = unit->size;
  auto run = [&](std::byte* p, std::size_t len) {
    for (std::size_t k = 0; k + n <= len; k += n) {
      if (out) {
        std::memcpy(out, p + k, n);
        out += n;
      }
      if (op == OpKind::no_op || !in) continue;
      if (op == OpKind::replace)
        std::memcpy(p + k, in, n);
      else
        dt::apply_packed(rma::op_of(op), in, p + k, 1, unit);
      in += n;
    }
  };
  for (std::size_t i = 0; i < s.count; ++i) {
    std::byte* e = base + static_cast<std::int64_t>(i) * s.extent;
    if (s.nblocks == 0) {
      run(e, s.type_size);
      continue;
    }
    for (std::uint32_t b = 0; b < s.nblocks; ++b) run(e + s.blocks[b].offset, s.blocks[b].length);
  }
}

std::vector<std::byte> pattern(std::size_t bytes, unsigned seed, Basic b) {
  std::vector<std::byte> v(bytes);
  if (b == Basic::double_) {  // finite doubles (sums stay exact)
    for (std::size_t i = 0; i + 8 <= bytes; i += 8) {
      const double d = static_cast<double>((i / 8 * 7 + seed) % 1000) * 0.5;
      std::memcpy(v.data() + i, &d, 8);
    }
    return v;
  }
  if (b == Basic::double_int) {  // {double, int} packed: 12 bytes
    for (std::size_t i = 0; i + 12 <= bytes; i += 12) {
      const double d = static_cast<double>((i / 12 * 5 + seed) % 7);
      const std::int32_t k = static_cast<std::int32_t>(i / 12 + seed);
      std::memcpy(v.data() + i, &d, 8);
      std::memcpy(v.data() + i + 8, &k, 4);
    }
    return v;
  }
  for (std::size_t i = 0; i < bytes; ++i) v[i] = static_cast<std::byte>((i * 31 + seed * 17) & 0xff);
  return v;
}

struct Case {
  Basic basic;
  OpKind op;
  bool fetch;
  bool atomics;
  std::size_t misalign;  // bytes added to the base address
};

void check(const Case& c, const rma::TargetShape& shape, std::size_t span) {
  const dt::Datatype* unit = dt::builtin(c.basic);
  ASSERT_NE(unit, nullptr);
  std::size_t packed = 0;
  if (shape.nblocks == 0) {
    packed = shape.count * shape.type_size;
  } else {
    for (std::uint32_t b = 0; b < shape.nblocks; ++b) packed += shape.count * shape.blocks[b].length;
  }
  // Window memory: 8-byte aligned storage plus the requested misalignment.
  std::vector<std::uint64_t> store_a(span / 8 + 2), store_b(span / 8 + 2);
  auto* a = reinterpret_cast<std::byte*>(store_a.data()) + c.misalign;
  auto* b = reinterpret_cast<std::byte*>(store_b.data()) + c.misalign;
  const std::vector<std::byte> init = pattern(span, 3, c.basic);
  std::memcpy(a, init.data(), span);
  std::memcpy(b, init.data(), span);
  const std::vector<std::byte> in = pattern(packed, 11, c.basic);
  std::vector<std::byte> out_a(packed), out_b(packed);
  rma::acc_apply(a, shape, unit, c.op, in.data(), c.fetch ? out_a.data() : nullptr, c.atomics);
  reference(b, shape, unit, c.op, in.data(), c.fetch ? out_b.data() : nullptr);
  EXPECT_EQ(std::memcmp(a, b, span), 0) << "basic " << int(c.basic) << " op " << int(c.op) << " atomics "
                                        << c.atomics << " misalign " << c.misalign;
  if (c.fetch) {
    EXPECT_EQ(std::memcmp(out_a.data(), out_b.data(), packed), 0);
  }
}

const Case kCases[] = {
    {Basic::double_, OpKind::sum, false, false, 0},  {Basic::double_, OpKind::sum, true, false, 0},
    {Basic::double_, OpKind::replace, true, false, 0}, {Basic::double_, OpKind::no_op, true, false, 0},
    {Basic::double_, OpKind::max, true, false, 0},   {Basic::double_, OpKind::sum, true, true, 0},
    {Basic::double_, OpKind::sum, true, true, 4},    {Basic::double_, OpKind::replace, false, true, 1},
    {Basic::int_, OpKind::bxor, true, false, 0},     {Basic::int_, OpKind::prod, true, true, 0},
    {Basic::int_, OpKind::sum, false, true, 2},      {Basic::char_, OpKind::sum, true, false, 0},
    {Basic::char_, OpKind::sum, false, true, 1},     {Basic::short_, OpKind::min, true, true, 0},
    {Basic::double_int, OpKind::maxloc, true, false, 0}, {Basic::double_int, OpKind::minloc, false, true, 0},
};

TEST(RmaAccApply, ContiguousRegionMatchesElementwise) {
  for (const Case& c : kCases) {
    const dt::Datatype* unit = dt::builtin(c.basic);
    for (std::size_t count : {std::size_t{1}, std::size_t{7}, std::size_t{4096}}) {
      rma::TargetShape s;
      s.count = count;
      s.type_size = unit->size;
      s.extent = static_cast<std::int64_t>(unit->size);
      check(c, s, count * unit->size);
    }
  }
}

TEST(RmaAccApply, ContiguousMultiUnitElementsMatchElementwise) {
  for (const Case& c : kCases) {  // an element of 3 units, laid back to back (a contiguous derived type)
    const dt::Datatype* unit = dt::builtin(c.basic);
    rma::TargetShape s;
    s.count = 50;
    s.type_size = 3 * unit->size;
    s.extent = static_cast<std::int64_t>(3 * unit->size);
    check(c, s, s.count * s.type_size);
  }
}

TEST(RmaAccApply, StridedAndBlockedRegionsMatchElementwise) {
  for (const Case& c : kCases) {
    const dt::Datatype* unit = dt::builtin(c.basic);
    const std::size_t n = unit->size;
    {  // one unit per element, a gap of one unit between elements (a vector type)
      rma::TargetShape s;
      s.count = 33;
      s.type_size = n;
      s.extent = static_cast<std::int64_t>(2 * n);
      check(c, s, s.count * 2 * n);
    }
    {  // two runs per element: units 0-1 and unit 3 of a 5-unit extent
      const rma::WireBlock blocks[2] = {{0, 2 * n}, {static_cast<std::int64_t>(3 * n), n}};
      rma::TargetShape s;
      s.count = 21;
      s.type_size = 3 * n;
      s.extent = static_cast<std::int64_t>(5 * n);
      s.blocks = blocks;
      s.nblocks = 2;
      check(c, s, s.count * 5 * n);
    }
  }
}

}  // namespace
