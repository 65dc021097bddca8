// Unit tests of the datatype layout (datatype/layout.h): regular constructors stay O(1) whatever their
// count, evenly spaced blocks merge, and pack / unpack / pack_range / unpack_range at arbitrary byte offsets
// agree with a reference flattening computed independently here (randomized nested types).
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cstring>
#include <numeric>
#include <random>
#include <vector>

#include "datatype/array_types.h"
#include "datatype/datatype.h"
#include "datatype/derived.h"
#include "datatype/layout.h"
#include "datatype_owned.h"
#include "mpi.h"

namespace {
namespace dt = ftmpi::dt;
using dt::Block;
using dt::Datatype;
using dt::testing::Owned;

TEST(DatatypeLayout, HugeVectorIsOneSegment) {
  const auto t0 = std::chrono::steady_clock::now();
  Owned v(dt::make_vector(1000000000, 1, 2, MPI_INT));
  const double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  ASSERT_NE(v.t, nullptr);
  EXPECT_LT(secs, 0.5);
  EXPECT_EQ(v.t->size, 4000000000u);
  EXPECT_EQ(v.t->extent, (2 * 999999999LL + 1) * 4);
  EXPECT_EQ(v.t->true_extent, v.t->extent);
  EXPECT_EQ(v.t->basic_count, 1000000000u);
  ASSERT_NE(v.t->layout, nullptr);
  ASSERT_EQ(v.t->layout->segs.size(), 1u);
  const dt::Segment& s = v.t->layout->segs[0];
  EXPECT_EQ(s.count, 1000000000u);
  EXPECT_EQ(s.stride, 8);
  EXPECT_EQ(s.length, 4u);
  EXPECT_EQ(s.child, nullptr);

  // A vector of such vectors (2^32+ elements), then a contiguous of that: still a few segments.
  Owned vv(dt::make_hvector(5, 1, v.t->extent + 4, v.t));
  EXPECT_EQ(vv.t->size, 5 * 4000000000ull);
  EXPECT_LE(vv.t->layout->depth, 2u);
  Owned cvv(dt::make_contiguous(3, vv.t));
  EXPECT_EQ(cvv.t->size, 15 * 4000000000ull);
  EXPECT_LE(cvv.t->layout->depth, 3u);

  // Packing a window far inside it starts there without walking the 10^9 runs before it.
  std::vector<int> buf(64);
  std::iota(buf.begin(), buf.end(), 0);
  const std::size_t offset = 4000000000ull - 16 * 4;  // the last 16 ints of the vector (element 999999984..)
  std::vector<int> out(16, -1);
  int* base = buf.data() - 2 * 999999984LL;             // so that those elements land in buf
  dt::pack_range(base, v.t, offset, out.size() * sizeof(int), out.data());
  for (int i = 0; i < 16; ++i) EXPECT_EQ(out[i], 2 * i);
}

TEST(DatatypeLayout, RegularConstructorsStaySmall) {
  // vector of vector: inner one segment, outer one segment around it.
  Owned in(dt::make_vector(100, 2, 3, MPI_DOUBLE));
  Owned out(dt::make_hvector(1000, 1, 4096 * 8, in.t));
  ASSERT_NE(out.t->layout, nullptr);
  EXPECT_EQ(out.t->layout->segs.size(), 1u);
  EXPECT_EQ(out.t->layout->depth, 2u);
  EXPECT_EQ(out.t->size, 1000u * 100 * 2 * 8);

  // A vector whose stride is its inner period folds into one leaf.
  Owned inner(dt::make_vector(4, 1, 2, MPI_INT));  // extent 7 ints
  Owned res(dt::make_resized(inner.t, 0, 8 * 4));
  Owned folded(dt::make_contiguous(1000, res.t));
  ASSERT_EQ(folded.t->layout->segs.size(), 1u);
  EXPECT_EQ(folded.t->layout->segs[0].count, 4000u);
  EXPECT_EQ(folded.t->layout->segs[0].child, nullptr);

  // Evenly spaced indexed_block / hindexed blocks: one segment, however many blocks.
  std::vector<int> displs(10000);
  for (std::size_t i = 0; i < displs.size(); ++i) displs[i] = static_cast<int>(3 * i);
  Owned ib(dt::make_indexed_block(displs.size(), 2, displs.data(), MPI_INT));
  EXPECT_EQ(ib.t->layout->segs.size(), 1u);
  std::vector<int> lens(10000, 1);
  std::vector<std::ptrdiff_t> hd(10000);
  for (std::size_t i = 0; i < hd.size(); ++i) hd[i] = static_cast<std::ptrdiff_t>(i < 5000 ? 16 * i : 16 * i + 4);
  Owned hi(dt::make_hindexed(hd.size(), lens.data(), hd.data(), MPI_INT));
  EXPECT_EQ(hi.t->layout->segs.size(), 2u);  // two regular runs
  // Touching blocks merge into one run.
  const int tl[] = {2, 3, 1};
  const int td[] = {4, 6, 9};
  Owned touch(dt::make_indexed(3, tl, td, MPI_INT));
  ASSERT_EQ(dt::flatten(touch.t).size(), 1u);
  EXPECT_EQ(dt::flatten(touch.t)[0].offset, 16);
  EXPECT_EQ(dt::flatten(touch.t)[0].length, 24u);

  // 3-D subarray: a few segments, not one per row.
  const int sizes[] = {100, 200, 300}, sub[] = {50, 60, 70}, starts[] = {10, 20, 30};
  Owned sa(dt::make_subarray(sizes, sub, starts, dt::Order::c, MPI_FLOAT));
  EXPECT_EQ(sa.t->size, 50u * 60 * 70 * 4);
  EXPECT_LE(sa.t->layout->depth, 3u);
  EXPECT_EQ(sa.t->layout->segs.size(), 1u);
}

TEST(DatatypeLayout, ZeroLengthBlocksDoNotMoveBounds) {
  const int lens[] = {0, 2, 0};
  const int displs[] = {-10, 3, 50};
  Owned t(dt::make_indexed(3, lens, displs, MPI_INT));
  EXPECT_EQ(t.t->lb, 12);
  EXPECT_EQ(t.t->extent, 8);
  EXPECT_EQ(t.t->true_lb, 12);
  EXPECT_EQ(t.t->true_extent, 8);
  Owned v(dt::make_vector(1000000000, 0, 7, MPI_INT));
  EXPECT_EQ(v.t->size, 0u);
  EXPECT_EQ(v.t->extent, 0);
}

// ---- randomized comparison with an independent reference flattening ----

// A test type: the library's descriptor and the type map it should have (runs in type-map order, unmerged,
// zero-length runs left out), computed here from the constructor arguments only.
struct RefType {
  const Datatype* t = nullptr;
  std::vector<Block> map;
};

class Gen {
 public:
  explicit Gen(unsigned seed) : rng_(seed) {}
  ~Gen() {
    for (Datatype* t : owned_) {
      (void)dt::retire(t);
      delete t;
    }
  }

  RefType basic() {
    static const Datatype* const kBasics[] = {MPI_INT, MPI_DOUBLE, MPI_CHAR, MPI_SHORT_INT, MPI_DOUBLE_INT};
    const Datatype* t = kBasics[pick(0, 4)];
    RefType r{t, {}};
    if (t->contiguous) {
      r.map.push_back(Block{0, t->size});
    } else {
      r.map = dt::flatten(t);
    }
    return r;
  }

  // A random type of nesting depth <= depth with packed size in (0, 1 << 14].
  RefType any(int depth) {
    for (;;) {
      RefType r = depth == 0 ? basic() : one(any(depth - 1));
      if (r.t != nullptr && r.t->size > 0 && r.t->size <= (1u << 14) && r.t->extent > 0) return r;
    }
  }

 private:
  int pick(int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng_); }

  static void copies(std::vector<Block>& out, const RefType& old, std::ptrdiff_t disp, std::size_t n,
                     std::ptrdiff_t stride) {
    for (std::size_t k = 0; k < n; ++k)
      for (const Block& b : old.map) out.push_back(Block{disp + static_cast<std::ptrdiff_t>(k) * stride + b.offset, b.length});
  }

  RefType keep(ftmpi::Result<Datatype*> r, std::vector<Block> map) {
    if (!r.ok()) return RefType{};
    dt::commit(r.value());
    owned_.push_back(r.value());
    return RefType{r.value(), std::move(map)};
  }

  RefType one(const RefType& old) {
    const std::ptrdiff_t ext = old.t->extent;
    std::vector<Block> map;
    switch (pick(0, 8)) {
      case 0: {
        const int n = pick(1, 4);
        copies(map, old, 0, n, ext);
        return keep(dt::make_contiguous(n, old.t), map);
      }
      case 1: {
        const int n = pick(1, 6), bl = pick(0, 3), stride = pick(-4, 6);
        for (int j = 0; j < n; ++j) copies(map, old, j * stride * ext, bl, ext);
        return keep(dt::make_vector(n, bl, stride, old.t), map);
      }
      case 2: {
        const int n = pick(1, 6), bl = pick(1, 3);
        const std::ptrdiff_t stride = pick(-3, 40) * 4 + pick(0, 1) * ext;
        for (int j = 0; j < n; ++j) copies(map, old, j * stride, bl, ext);
        return keep(dt::make_hvector(n, bl, stride, old.t), map);
      }
      case 3: {
        const int n = pick(1, 6);
        std::vector<int> lens(n), displs(n);
        for (int j = 0; j < n; ++j) {
          lens[j] = pick(0, 3);
          displs[j] = pick(0, 1) ? j * 3 : pick(-5, 12);  // sometimes evenly spaced
          copies(map, old, displs[j] * ext, lens[j], ext);
        }
        return keep(dt::make_indexed(n, lens.data(), displs.data(), old.t), map);
      }
      case 4: {
        const int n = pick(1, 6);
        std::vector<int> lens(n);
        std::vector<std::ptrdiff_t> displs(n);
        for (int j = 0; j < n; ++j) {
          lens[j] = pick(0, 2);
          displs[j] = pick(-8, 64) * 2;
          copies(map, old, displs[j], lens[j], ext);
        }
        return keep(dt::make_hindexed(n, lens.data(), displs.data(), old.t), map);
      }
      case 5: {
        const int n = pick(1, 8), bl = pick(1, 2);
        std::vector<int> displs(n);
        for (int j = 0; j < n; ++j) {
          displs[j] = pick(0, 2) ? 2 * j : pick(0, 20);
          copies(map, old, displs[j] * ext, bl, ext);
        }
        return keep(dt::make_indexed_block(n, bl, displs.data(), old.t), map);
      }
      case 6: {  // struct of old and a double
        const int lens[] = {pick(1, 2), pick(0, 2)};
        const std::ptrdiff_t displs[] = {pick(0, 3) * 8, pick(-2, 6) * 8 + ext * lens[0]};
        const Datatype* types[] = {old.t, MPI_DOUBLE};
        copies(map, old, displs[0], lens[0], ext);
        for (int k = 0; k < lens[1]; ++k) map.push_back(Block{displs[1] + 8 * k, 8});
        return keep(dt::make_struct(2, lens, displs, types), map);
      }
      case 7: {  // resized: same map, other bounds
        map = old.map;
        return keep(dt::make_resized(old.t, pick(-2, 2) * 4, ext + pick(0, 3) * 4), map);
      }
      default: {  // subarray, 1 to 3 dimensions, C or Fortran order
        const int nd = pick(1, 3);
        const bool fortran = pick(0, 1) == 1;
        int sizes[3], sub[3], st[3];
        for (int i = 0; i < nd; ++i) {
          sizes[i] = pick(1, 5);
          sub[i] = pick(1, sizes[i]);
          st[i] = pick(0, sizes[i] - sub[i]);
        }
        // Storage order: C as given, Fortran reversed (first index fastest).
        int ss[3], su[3], sst[3];
        for (int i = 0; i < nd; ++i) {
          const int j = fortran ? nd - 1 - i : i;
          ss[i] = sizes[j], su[i] = sub[j], sst[i] = st[j];
        }
        int idx[3] = {0, 0, 0};
        for (idx[0] = sst[0]; idx[0] < sst[0] + su[0]; ++idx[0]) {
          for (idx[1] = nd > 1 ? sst[1] : 0; idx[1] < (nd > 1 ? sst[1] + su[1] : 1); ++idx[1]) {
            for (idx[2] = nd > 2 ? sst[2] : 0; idx[2] < (nd > 2 ? sst[2] + su[2] : 1); ++idx[2]) {
              std::ptrdiff_t lin = 0;
              for (int i = 0; i < nd; ++i) lin = lin * ss[i] + idx[i];
              copies(map, old, lin * ext, 1, ext);
            }
          }
        }
        return keep(dt::make_subarray(std::span<const int>(sizes, nd), std::span<const int>(sub, nd),
                                      std::span<const int>(st, nd), fortran ? dt::Order::fortran : dt::Order::c,
                                      old.t),
                    map);
      }
    }
  }

  std::mt19937 rng_;
  std::vector<Datatype*> owned_;
};

std::vector<Block> merged(const std::vector<Block>& map) {
  std::vector<Block> out;
  for (const Block& b : map) {
    if (b.length == 0) continue;
    if (!out.empty() && out.back().offset + static_cast<std::ptrdiff_t>(out.back().length) == b.offset) {
      out.back().length += b.length;
    } else {
      out.push_back(b);
    }
  }
  return out;
}

TEST(DatatypeLayout, RandomTypesMatchReferenceAtAnyOffset) {
  Gen gen(20261126);
  std::mt19937 rng(7);
  for (int iter = 0; iter < 400; ++iter) {
    const RefType r = gen.any(1 + iter % 3);
    const Datatype* t = r.t;
    SCOPED_TRACE("iteration " + std::to_string(iter));
    // Reference size, true bounds and flattening.
    std::size_t size = 0;
    std::ptrdiff_t lo = 0, hi = 0;
    bool first = true;
    for (const Block& b : r.map) {
      size += b.length;
      if (b.length == 0) continue;
      lo = first ? b.offset : std::min(lo, b.offset);
      hi = first ? b.offset + static_cast<std::ptrdiff_t>(b.length)
                 : std::max(hi, b.offset + static_cast<std::ptrdiff_t>(b.length));
      first = false;
    }
    ASSERT_EQ(t->size, size);
    EXPECT_EQ(t->true_lb, lo);
    EXPECT_EQ(t->true_extent, hi - lo);
    const std::vector<Block> want_flat = merged(r.map);
    const std::vector<Block> flat = dt::flatten(t);
    if (t->contiguous) {
      EXPECT_TRUE(want_flat.size() == 1 && want_flat[0].offset == 0 && t->extent == static_cast<std::ptrdiff_t>(size));
    } else {
      ASSERT_EQ(flat.size(), want_flat.size());
      for (std::size_t i = 0; i < flat.size(); ++i) {
        EXPECT_EQ(flat[i].offset, want_flat[i].offset);
        EXPECT_EQ(flat[i].length, want_flat[i].length);
      }
    }

    // A typed buffer for `count` elements, byte values distinct.
    const std::size_t count = 1 + iter % 3;
    const std::ptrdiff_t span_lo = lo, span_hi = hi + static_cast<std::ptrdiff_t>(count - 1) * t->extent;
    std::vector<unsigned char> typed(static_cast<std::size_t>(span_hi - span_lo));
    for (std::size_t i = 0; i < typed.size(); ++i) typed[i] = static_cast<unsigned char>(i * 7 + 3);
    unsigned char* base = typed.data() - span_lo;
    // Reference packed bytes.
    std::vector<unsigned char> want;
    for (std::size_t e = 0; e < count; ++e)
      for (const Block& b : r.map)
        for (std::size_t k = 0; k < b.length; ++k)
          want.push_back(base[static_cast<std::ptrdiff_t>(e) * t->extent + b.offset + static_cast<std::ptrdiff_t>(k)]);
    std::vector<unsigned char> got(want.size(), 0);
    dt::pack(base, count, t, got.data());
    ASSERT_EQ(got, want);

    for (int trial = 0; trial < 12; ++trial) {
      const std::size_t off = std::uniform_int_distribution<std::size_t>(0, want.size())(rng);
      const std::size_t len = std::uniform_int_distribution<std::size_t>(0, want.size() - off)(rng);
      std::vector<unsigned char> part(len + 1, 0xAB);
      dt::pack_range(base, t, off, len, part.data());
      ASSERT_TRUE(std::equal(part.begin(), part.begin() + static_cast<std::ptrdiff_t>(len),
                             want.begin() + static_cast<std::ptrdiff_t>(off)))
          << "pack_range offset " << off << " length " << len;
      EXPECT_EQ(part[len], 0xAB);  // nothing written past the range

      // unpack_range of that slice into a blank buffer, against the reference scatter.
      std::vector<unsigned char> ref(typed.size(), 0xEE), out(typed.size(), 0xEE);
      unsigned char* rbase = ref.data() - span_lo;
      std::size_t pos = 0;
      for (std::size_t e = 0; e < count; ++e)
        for (const Block& b : r.map)
          for (std::size_t k = 0; k < b.length; ++k, ++pos)
            if (pos >= off && pos < off + len)
              rbase[static_cast<std::ptrdiff_t>(e) * t->extent + b.offset + static_cast<std::ptrdiff_t>(k)] = want[pos];
      dt::unpack_range(want.data() + off, t, off, len, out.data() - span_lo);
      ASSERT_EQ(out, ref) << "unpack_range offset " << off << " length " << len;
      if (off == 0) {  // a short message through unpack gives the same
        std::vector<unsigned char> out2(typed.size(), 0xEE);
        dt::unpack(want.data(), len, t, out2.data() - span_lo);
        ASSERT_EQ(out2, ref);
      }
    }
  }
}

}  // namespace
