// Derived datatype constructors (see derived.h).
#include "datatype/derived.h"

#include <algorithm>
#include <cstdlib>
#include <limits>
#include <memory>
#include <new>

namespace ftmpi::dt {
namespace {

constexpr std::size_t kMaxBytes = static_cast<std::size_t>(std::numeric_limits<std::ptrdiff_t>::max()) / 4;

bool mul_ok(std::size_t a, std::size_t b, std::size_t* out) {
  return !__builtin_mul_overflow(a, b, out) && *out <= kMaxBytes;
}

}  // namespace

void TypeBuilder::add_run(Basic kind, std::size_t units) {
  if (units == 0) return;
  kinds_.bytes += units * unit_size(kind);
  kinds_.elements += units * elements_per_unit(kind);
  auto& items = kinds_.items;
  if (!items.empty() && items.back().nested == nullptr && items.back().kind == kind) {
    items.back().count += units;
    return;
  }
  items.push_back(KindSeq::Item{kind, units, nullptr});
}

void TypeBuilder::add_repeats(const std::shared_ptr<const KindSeq>& seq, std::size_t n) {
  kinds_.bytes += n * seq->bytes;
  kinds_.elements += n * seq->elements;
  if (seq->items.size() == 1 && seq->items[0].nested != nullptr) {  // a repeat of a repeat: one level
    kinds_.items.push_back(KindSeq::Item{Basic::none, n * seq->items[0].count, seq->items[0].nested});
    return;
  }
  kinds_.items.push_back(KindSeq::Item{Basic::none, n, seq});
}

Status TypeBuilder::add(const Datatype* old, std::ptrdiff_t disp, std::size_t n, std::ptrdiff_t stride) {
  if (n == 0) {
    if (!any_ && basic_ == Basic::none) basic_ = old->basic;  // an empty type still has a kind
    return {};
  }
  std::size_t bytes = 0, span = 0, units = 0;
  if (!mul_ok(n, old->size, &bytes) || !mul_ok(n, static_cast<std::size_t>(std::abs(stride)), &span) ||
      !mul_ok(n, old->basic_count, &units) || size_ + bytes > kMaxBytes ||
      std::abs(disp) > static_cast<std::ptrdiff_t>(kMaxBytes)) {
    return Status(Errc::arg, "datatype too large");
  }
  const std::ptrdiff_t last = disp + static_cast<std::ptrdiff_t>(n - 1) * stride;
  const std::ptrdiff_t first_lo = std::min(disp, last), first_hi = std::max(disp, last);
  const std::ptrdiff_t lb = first_lo + old->lb, ub = first_hi + old->lb + old->extent;
  const std::ptrdiff_t tlb = first_lo + old->true_lb, tub = first_hi + old->true_lb + old->true_extent;
  if (!any_) {
    lb_ = lb, ub_ = ub, true_lb_ = tlb, true_ub_ = tub;
    if (basic_ != Basic::none && basic_ != old->basic) mixed_ = true;
    basic_ = old->basic;
    any_ = true;
  } else {
    lb_ = std::min(lb_, lb), ub_ = std::max(ub_, ub);
    true_lb_ = std::min(true_lb_, tlb), true_ub_ = std::max(true_ub_, tub);
    if (basic_ != old->basic) mixed_ = true;
  }
  size_ += bytes;
  basic_count_ += units;
  align_ = std::max(align_, alignment(old));

  if (old->size == 0) return {};
  if (old->kinds != nullptr) {
    add_repeats(old->kinds, n);
  } else if (unit_size(old->basic) != 0) {
    add_run(old->basic, n * (old->size / unit_size(old->basic)));
  }
  if (old->contiguous) {
    layout_.add_bytes(disp, n, stride, old->size);
  } else {
    layout_.add_layout(disp, n, stride, old->layout);
  }
  return {};
}

Result<Datatype*> TypeBuilder::finish() {
  auto* t = new (std::nothrow) Datatype;
  if (t == nullptr) return Status(Errc::no_mem, "out of memory building a datatype");
  t->basic = mixed_ ? Basic::none : basic_;
  t->size = size_;
  if (any_) {
    t->lb = lb_, t->extent = ub_ - lb_;
    t->true_lb = true_lb_, t->true_extent = true_ub_ - true_lb_;
  }
  t->predefined = false;
  t->committed = false;
  t->basic_count = basic_count_;
  t->align = align_;
  t->contiguous = layout_.empty() ||
                  (layout_.is_prefix_run() && t->extent == static_cast<std::ptrdiff_t>(size_) && t->lb == 0);
  if (!t->contiguous) t->layout = layout_.finish();
  if (t->basic == Basic::none && t->size > 0) t->kinds = std::make_shared<const KindSeq>(std::move(kinds_));
  *this = TypeBuilder{};
  return t;
}

Result<Datatype*> make_contiguous(std::size_t count, const Datatype* old) {
  TypeBuilder b;
  FTMPI_TRY(b.add(old, 0, count));
  return b.finish();
}

// One segment of `count` blocks `stride_bytes` apart, each block `blocklen` old elements back to back:
// O(1) whatever the count.
Result<Datatype*> make_hvector(std::size_t count, std::size_t blocklen, std::ptrdiff_t stride_bytes,
                               const Datatype* old) {
  TypeBuilder b;
  if (count == 0) return b.finish();
  if (blocklen == 0) {
    FTMPI_TRY(b.add(old, 0, 0));
    return b.finish();
  }
  Result<Datatype*> block = make_contiguous(blocklen, old);
  if (!block.ok()) return block;
  const std::unique_ptr<Datatype> owned(block.value());
  FTMPI_TRY(b.add(owned.get(), 0, count, stride_bytes));
  return b.finish();
}

Result<Datatype*> make_vector(std::size_t count, std::size_t blocklen, std::ptrdiff_t stride,
                              const Datatype* old) {
  std::ptrdiff_t stride_bytes = 0;
  if (__builtin_mul_overflow(stride, old->extent, &stride_bytes)) return Status(Errc::arg, "stride too large");
  return make_hvector(count, blocklen, stride_bytes, old);
}

Result<Datatype*> make_dup(const Datatype* old) {
  auto* t = new (std::nothrow) Datatype(*old);
  if (t == nullptr) return Status(Errc::no_mem, "out of memory duplicating a datatype");
  t->magic = kMagicDatatype;
  t->predefined = false;
  t->name.clear();
  t->refs = 1;
  return t;
}

void rebound(Datatype* t, std::ptrdiff_t lb, std::ptrdiff_t extent) {
  if (t->contiguous && t->size > 0) t->layout = single_run(0, t->size);  // the old layout, spelled out
  t->lb = lb;
  t->extent = extent;
  const Layout* l = t->layout.get();
  t->contiguous = l != nullptr && l->segs.size() == 1 && l->segs[0].child == nullptr && l->segs[0].count == 1 &&
                  l->segs[0].disp == 0 && lb == 0 && extent == static_cast<std::ptrdiff_t>(t->size);
  if (t->contiguous) t->layout.reset();
  if (t->size == 0) t->contiguous = (extent == 0 && lb == 0);
}

void commit(Datatype* t) { t->committed = true; }

Status retire(Datatype* t) {
  if (!live(t)) return Status(Errc::type, "invalid datatype");
  if (t->predefined) return Status(Errc::type, "cannot free a predefined datatype");
  t->magic = kMagicFreed;
  t->refs -= 1;
  return {};
}

}  // namespace ftmpi::dt
