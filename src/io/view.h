// A file view (MPI-3.1 §13.3): which bytes of the file a process sees, as a pure mapping between the
// process's *data stream* (the bytes of its accesses back to back, in the file's representation) and file
// byte offsets.
//
// Model. A view is a displacement `disp`, and a filetype tiled from there: element i starts at
// disp + i * extent and holds the runs of its type map (offsets from the element's start, non-negative and
// non-decreasing, as §13.3 requires) — the holes between runs are invisible to this process. The data
// stream position p lies in element p / size, at p % size bytes into the concatenation of its runs. The
// etype is the unit of positions (offsets, pointers) and is kept by the file object, not here: the view
// works in bytes.
//
// Cost. A run list of the filetype is built once at MPI_File_set_view (memory in the number of runs of one
// filetype element, not of the file), with its prefix sums; mapping a range costs O(log runs) to find its
// start and O(1) per run it covers. A dense filetype (one run covering its extent: MPI_BYTE, MPI_INT, a
// contiguous type) maps any range to one extent, whatever its length.
#pragma once
#include <algorithm>
#include <cstdint>
#include <vector>

namespace ftmpi::io {

struct Run {
  std::uint64_t offset;  // bytes from the filetype element's start
  std::uint64_t length;  // bytes
};

class View {
 public:
  // The default view: displacement 0, a dense filetype of one byte (MPI_BYTE).
  View() : runs_{{0, 1}}, prefix_{0, 1}, extent_(1), size_(1) {}
  // `runs` in type-map order, touching runs merged by the caller or not; empty runs are dropped. Runs may
  // overlap (a file opened read-only allows it, §13.3): then overlapping() is true, and the extents of a
  // range are no longer ordered by their ends (io::clip is told).
  View(std::uint64_t disp, std::vector<Run> runs, std::uint64_t extent) : disp_(disp), extent_(extent) {
    for (const Run& r : runs) {
      if (r.length == 0) continue;
      if (!runs_.empty() && r.offset < runs_.back().offset + runs_.back().length) overlapping_ = true;
      if (!runs_.empty() && runs_.back().offset + runs_.back().length == r.offset)
        runs_.back().length += r.length;
      else
        runs_.push_back(r);
    }
    prefix_.push_back(0);
    for (const Run& r : runs_) prefix_.push_back(prefix_.back() + r.length);
    size_ = prefix_.back();
  }

  std::uint64_t disp() const { return disp_; }
  std::uint64_t extent() const { return extent_; }
  std::uint64_t size() const { return size_; }  // data bytes per filetype element
  bool dense() const { return runs_.size() == 1 && runs_[0].offset == 0 && runs_[0].length == extent_; }
  bool overlapping() const { return overlapping_; }

  // Calls f(file_offset, stream_offset, length) for the file extents holding the data stream bytes
  // [pos, pos + len), in stream order, touching extents merged. Nothing when size() == 0.
  template <class F>
  void for_each_extent(std::uint64_t pos, std::uint64_t len, F&& f) const {
    if (len == 0 || size_ == 0) return;
    if (dense()) {
      f(disp_ + pos, pos, len);
      return;
    }
    std::uint64_t elem = pos / size_;
    std::uint64_t within = pos % size_;
    std::size_t k = static_cast<std::size_t>(std::upper_bound(prefix_.begin(), prefix_.end(), within) -
                                             prefix_.begin()) - 1;
    std::uint64_t pend_off = 0, pend_pos = 0, pend_len = 0;
    std::uint64_t stream = pos;
    while (len > 0) {
      const Run& r = runs_[k];
      const std::uint64_t into = within - prefix_[k];
      const std::uint64_t take = std::min<std::uint64_t>(r.length - into, len);
      const std::uint64_t off = disp_ + elem * extent_ + r.offset + into;
      if (pend_len > 0 && pend_off + pend_len == off) {
        pend_len += take;
      } else {
        if (pend_len > 0) f(pend_off, pend_pos, pend_len);
        pend_off = off, pend_pos = stream, pend_len = take;
      }
      stream += take, len -= take, within += take;
      if (within == prefix_[k + 1] && ++k == runs_.size()) k = 0, within = 0, ++elem;
    }
    if (pend_len > 0) f(pend_off, pend_pos, pend_len);
  }

  // The file offset of data stream byte `pos` (MPI_File_get_byte_offset).
  std::uint64_t byte_offset(std::uint64_t pos) const {
    std::uint64_t out = disp_;
    bool set = false;
    for_each_extent(pos, 1, [&](std::uint64_t off, std::uint64_t, std::uint64_t) {
      if (!set) out = off, set = true;
    });
    if (!set && size_ > 0) out = disp_ + (pos / size_) * extent_;
    return out;
  }

  // Data stream bytes that lie before file offset `file_off` (the stream position of the end of a file of
  // that size: MPI_SEEK_END, the initial pointer of MPI_MODE_APPEND).
  std::uint64_t stream_before(std::uint64_t file_off) const {
    if (file_off <= disp_ || size_ == 0) return 0;
    const std::uint64_t rel = file_off - disp_;
    const std::uint64_t elem = rel / extent_;
    const std::uint64_t in = rel % extent_;
    std::uint64_t bytes = elem * size_;
    for (const Run& r : runs_) {
      if (in <= r.offset) break;
      bytes += std::min(r.length, in - r.offset);
    }
    return bytes;
  }

 private:
  std::uint64_t disp_ = 0;
  std::vector<Run> runs_;
  std::vector<std::uint64_t> prefix_;
  std::uint64_t extent_ = 1;
  std::uint64_t size_ = 1;
  bool overlapping_ = false;
};

}  // namespace ftmpi::io
