// Two-phase collective buffering (MPI-3.1 §13.6.1 hints cb_buffer_size, cb_nodes; the ROMIO scheme): the
// plan every member computes alike from the same inputs. Pure; the exchange is in api/file_coll.cpp.
//
// Model. The accesses of all members of a collective call together span [lo, hi) of the file. The span is cut
// into `naggr` contiguous file domains of equal size, one per aggregator (member a * size / naggr for
// domain a, spread over the members). Each domain is handled in rounds of at most cb bytes (the window
// [domain.lo + r cb, ...)): in round r every member sends each aggregator the pieces of its access that fall
// in that aggregator's window (a write: offset, length and data; a read: offset and length, answered with
// data), and each aggregator does the file I/O of its window: for a write one pwrite per maximal run of
// bytes received (holes between runs are not written, so no read-modify-write and no lock is needed); for a
// read one pread of the span of the requests (data sieving), then the answers.
//
// Cost. Every round is one all-to-all of counts and one all-to-allv of pieces; an aggregator holds at most
// one window (cb bytes) of file data. Rounds = ceil(domain / cb). Each byte crosses the network once (twice
// counting the read answers' requests).
#pragma once
#include <algorithm>
#include <cstdint>
#include <utility>
#include <vector>

namespace ftmpi::io {

// A piece of a member's access: file bytes [file_off, file_off + len) hold its data stream bytes
// [stream_off, stream_off + len).
struct Extent {
  std::uint64_t file_off, stream_off, len;
};

struct TwoPhasePlan {
  std::uint64_t lo = 0, hi = 0;  // span of every member's access
  int naggr = 1;
  std::uint64_t domain = 0;  // bytes per file domain
  std::uint64_t cb = 1;      // bytes per round and aggregator
  int rounds = 0;

  TwoPhasePlan(std::uint64_t lo_, std::uint64_t hi_, int naggr_, std::uint64_t cb_) : lo(lo_), hi(hi_), cb(cb_) {
    const std::uint64_t span = hi > lo ? hi - lo : 0;
    naggr = std::max(1, std::min<int>(naggr_, static_cast<int>(std::max<std::uint64_t>(1, span))));
    domain = span == 0 ? 0 : (span + static_cast<std::uint64_t>(naggr) - 1) / static_cast<std::uint64_t>(naggr);
    rounds = domain == 0 ? 0 : static_cast<int>((domain + cb - 1) / cb);
  }
  // The member acting as aggregator `a`.
  static int aggregator_rank(int a, int naggr, int size) {
    return static_cast<int>(static_cast<long long>(a) * size / naggr);
  }
  // The window of aggregator `a` in round `r` (empty when the domain is shorter).
  std::pair<std::uint64_t, std::uint64_t> window(int a, int r) const {
    const std::uint64_t dlo = lo + static_cast<std::uint64_t>(a) * domain;
    const std::uint64_t dhi = std::min(hi, dlo + domain);
    const std::uint64_t wlo = std::min(dhi, dlo + static_cast<std::uint64_t>(r) * cb);
    return {wlo, std::min(dhi, wlo + cb)};
  }
};

// f(file_off, stream_off, len) for the parts of `ex` (sorted by file_off; overlapping only when !ends_sorted)
// inside [wlo, whi).
template <class F>
void clip(const std::vector<Extent>& ex, std::uint64_t wlo, std::uint64_t whi, F&& f, bool ends_sorted = true) {
  if (wlo >= whi) return;
  // Extents of a view without overlapping runs are ordered by start and by end: binary search of the first
  // one ending past wlo. An overlapping view (read-only files) orders only the starts: scan from the first.
  auto it = ends_sorted ? std::upper_bound(ex.begin(), ex.end(), wlo,
                                           [](std::uint64_t v, const Extent& e) { return v < e.file_off + e.len; })
                        : ex.begin();
  for (; it != ex.end() && it->file_off < whi; ++it) {
    const std::uint64_t s = std::max(wlo, it->file_off);
    const std::uint64_t e = std::min(whi, it->file_off + it->len);
    if (s < e) f(s, it->stream_off + (s - it->file_off), e - s);
  }
}

// Sorts `runs` (offset, length) and merges overlapping or touching ones.
inline std::vector<std::pair<std::uint64_t, std::uint64_t>> merge_runs(std::vector<std::pair<std::uint64_t, std::uint64_t>> runs) {
  std::sort(runs.begin(), runs.end());
  std::vector<std::pair<std::uint64_t, std::uint64_t>> out;
  for (const auto& [off, len] : runs) {
    if (!out.empty() && out.back().first + out.back().second >= off)
      out.back().second = std::max(out.back().first + out.back().second, off + len) - out.back().first;
    else
      out.emplace_back(off, len);
  }
  return out;
}

}  // namespace ftmpi::io
