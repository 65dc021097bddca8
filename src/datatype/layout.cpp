// LayoutBuilder (see layout.h): normalisation and merging of segments as they are appended.
#include "datatype/layout.h"

#include <algorithm>

namespace ftmpi::dt {
namespace {

bool leaf(const Segment& s) { return s.child == nullptr; }

// Contiguous repetitions of a leaf become one longer leaf; a single repetition has stride 0.
void normalise_leaf(Segment& s) {
  std::size_t bytes = 0;
  if (s.count > 1 && s.stride == static_cast<std::ptrdiff_t>(s.length) &&
      !__builtin_mul_overflow(s.count, s.length, &bytes)) {
    s.length = bytes;
    s.count = 1;
  }
  if (s.count == 1) s.stride = 0;
}

// Unwraps trivial nesting: a child that is one count-1 segment, a parent of one repetition around a
// one-segment child, and a parent whose stride is exactly the period of the child's only segment.
void normalise(Segment& s) {
  while (s.child != nullptr && s.child->segs.size() == 1) {
    const Segment c = s.child->segs[0];  // copy: s.child is replaced below
    std::ptrdiff_t period = 0;
    std::size_t merged = 0;
    if (c.count == 1) {
      s.disp += c.disp;
    } else if (s.count == 1) {
      s.disp += c.disp, s.count = c.count, s.stride = c.stride;
    } else if (!__builtin_mul_overflow(static_cast<std::ptrdiff_t>(c.count), c.stride, &period) &&
               period == s.stride && !__builtin_mul_overflow(s.count, c.count, &merged)) {
      s.disp += c.disp, s.count = merged, s.stride = c.stride;
    } else {
      break;
    }
    s.length = c.length;
    s.child = c.child;
  }
  if (leaf(s)) normalise_leaf(s);
  if (s.count == 1) s.stride = 0;
}

bool same_payload(const Segment& a, const Segment& b) {
  return a.child == b.child && (a.child != nullptr || a.length == b.length);
}

}  // namespace

void LayoutBuilder::append(Segment s) {
  if (s.count == 0 || s.unit() == 0) return;
  normalise(s);
  size_ += s.count * s.unit();
  if (s.child) depth_ = std::max(depth_, s.child->depth + 1);
  if (!segs_.empty()) {
    Segment& p = segs_.back();
    // Touching single runs: one longer run.
    if (leaf(p) && leaf(s) && p.count == 1 && s.count == 1 &&
        p.disp + static_cast<std::ptrdiff_t>(p.length) == s.disp) {
      p.length += s.length;
      return;
    }
    // Same shape continuing the previous segment's progression: one regular segment.
    if (same_payload(p, s)) {
      const std::ptrdiff_t step = p.count > 1 ? p.stride : s.count > 1 ? s.stride : s.disp - p.disp;
      std::ptrdiff_t next = 0;
      if ((s.count == 1 || s.stride == step) &&
          !__builtin_mul_overflow(static_cast<std::ptrdiff_t>(p.count), step, &next) && p.disp + next == s.disp) {
        p.count += s.count;
        p.stride = step;
        if (leaf(p)) normalise_leaf(p);
        return;
      }
    }
  }
  segs_.push_back(std::move(s));
}

void LayoutBuilder::add_bytes(std::ptrdiff_t disp, std::size_t count, std::ptrdiff_t stride, std::size_t length) {
  append(Segment{disp, count, stride, length, nullptr});
}

void LayoutBuilder::add_layout(std::ptrdiff_t disp, std::size_t count, std::ptrdiff_t stride,
                               const std::shared_ptr<const Layout>& child) {
  if (child == nullptr || child->size == 0 || count == 0) return;
  if (count == 1 && child->segs.size() <= 8) {  // a few pieces: inline them (they may merge with ours)
    for (const Segment& c : child->segs) append(Segment{disp + c.disp, c.count, c.stride, c.length, c.child});
    return;
  }
  append(Segment{disp, count, stride, 0, child});
}

bool LayoutBuilder::is_prefix_run() const {
  return segs_.size() == 1 && leaf(segs_[0]) && segs_[0].count == 1 && segs_[0].disp == 0;
}

std::shared_ptr<const Layout> LayoutBuilder::finish() {
  if (segs_.empty()) {
    *this = LayoutBuilder{};
    return nullptr;
  }
  auto l = std::make_shared<Layout>();
  l->segs = std::move(segs_);
  l->segs.shrink_to_fit();
  l->starts.reserve(l->segs.size());
  std::size_t at = 0;
  for (const Segment& s : l->segs) {
    l->starts.push_back(at);
    at += s.count * s.unit();
  }
  l->size = at;
  l->depth = depth_;
  *this = LayoutBuilder{};
  return l;
}

std::shared_ptr<const Layout> single_run(std::ptrdiff_t offset, std::size_t length) {
  LayoutBuilder b;
  b.add_bytes(offset, 1, 0, length);
  return b.finish();
}

}  // namespace ftmpi::dt
