// The byte layout of one element of a non-contiguous datatype, as a loop nest of regular pieces.
//
// Model: a Layout is a list of Segments in type-map (= pack) order. A Segment is `count` repetitions placed
// `stride` bytes apart from `disp`, each repetition either a run of `length` contiguous bytes (a leaf) or
// the whole type map of a child Layout placed at the repetition's start. MPI_Type_vector(10^9, 1, 2, int) is
// then one leaf {disp 0, count 10^9, stride 8, length 4}: building, committing, querying and walking the
// type's structure costs O(1) memory in its element count. Children are shared and immutable once built,
// so a type built on another one points at the other's layout instead of copying it.
//
// Invariants (kept by LayoutBuilder, relied on by pack/unpack):
//  * every segment has count >= 1 and moves at least one byte (length > 0, or a child with size > 0);
//  * a leaf with count > 1 has stride != length (contiguous repetitions are one longer leaf), a leaf with
//    count 1 has stride 0; children are not single count-1 segments (those are unwrapped into the parent);
//  * starts[i] is the packed offset where segs[i] begins, starts.back() + bytes of the last segment == size,
//    so a packed byte offset is found by binary search (pack/unpack can start anywhere in O(depth log n)).
// Depth (the nesting of children) grows by at most two per constructor call the user nests.
#pragma once
#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

namespace ftmpi::dt {

struct Layout;

struct Segment {
  std::ptrdiff_t disp = 0;    // byte offset of the first repetition
  std::size_t count = 1;      // repetitions (>= 1)
  std::ptrdiff_t stride = 0;  // bytes between repetitions
  std::size_t length = 0;     // leaf: bytes per repetition (child == null)
  std::shared_ptr<const Layout> child;
  // Packed bytes of one repetition.
  inline std::size_t unit() const;
};

struct Layout {
  std::vector<Segment> segs;
  std::vector<std::size_t> starts;  // packed offset of each segment
  std::size_t size = 0;             // packed bytes of the whole layout
  std::size_t depth = 1;            // 1 + the deepest child's depth
};

inline std::size_t Segment::unit() const { return child ? child->size : length; }

// Builds a Layout by appending repetitions in pack order. Merges what it can on the way: a repetition that
// touches the previous leaf extends it, repetitions of the same shape at a constant stride become one
// regular segment (so an indexed type whose blocks are evenly spaced costs one segment), and trivial
// nesting is unwrapped (a child that is one count-1 segment, a parent whose stride is the child's period).
class LayoutBuilder {
 public:
  // `count` repetitions, `stride` bytes apart from `disp`, of `length` contiguous bytes.
  void add_bytes(std::ptrdiff_t disp, std::size_t count, std::ptrdiff_t stride, std::size_t length);
  // `count` repetitions, `stride` bytes apart from `disp`, of `child`'s type map (null or size 0: nothing).
  void add_layout(std::ptrdiff_t disp, std::size_t count, std::ptrdiff_t stride,
                  const std::shared_ptr<const Layout>& child);
  bool empty() const { return segs_.empty(); }
  // True when what was added is exactly the bytes [0, size) in order (no layout needed).
  bool is_prefix_run() const;
  // The finished layout (null when nothing was added). The builder is empty afterwards.
  std::shared_ptr<const Layout> finish();

 private:
  void append(Segment s);
  std::vector<Segment> segs_;
  std::size_t size_ = 0;
  std::size_t depth_ = 1;
};

// The layout of one element of a type that is only `length` bytes at `offset` (e.g. after MPI_Type_create_resized
// of a contiguous type, or a predefined pair type with tail padding).
std::shared_ptr<const Layout> single_run(std::ptrdiff_t offset, std::size_t length);

// Calls f(offset, length) for every run of bytes of `l` placed at `base`, in pack order. The repetitions of
// a leaf are visited one by one (this walks the data, not the description: O(runs)).
template <class F>
void for_each_run_of(const Layout& l, std::ptrdiff_t base, F& f) {
  for (const Segment& s : l.segs) {
    std::ptrdiff_t at = base + s.disp;
    for (std::size_t k = 0; k < s.count; ++k, at += s.stride) {
      if (s.child) {
        for_each_run_of(*s.child, at, f);
      } else {
        f(at, s.length);
      }
    }
  }
}
// The same for `count` elements, `extent` bytes apart (offsets from the first element's origin).
template <class F>
void for_each_block(const Layout& l, std::size_t count, std::ptrdiff_t extent, F&& f) {
  std::ptrdiff_t at = 0;
  for (std::size_t i = 0; i < count; ++i, at += extent) for_each_run_of(l, at, f);
}

}  // namespace ftmpi::dt
