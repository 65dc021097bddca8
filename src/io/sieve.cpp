// Data sieving (model in io/sieve.h).
#include "io/sieve.h"

#include <cstring>
#include <memory>

#include "io/posix.h"

namespace ftmpi::io {

std::vector<SieveGroup> sieve_groups(const std::vector<Extent>& ex, const SieveOptions& o) {
  std::vector<SieveGroup> out;
  std::size_t i = 0;
  while (i < ex.size()) {
    std::size_t j = i + 1;
    std::uint64_t data = ex[i].len;
    if (o.mode != CbMode::disable) {
      const std::uint64_t lo = ex[i].file_off;
      while (j < ex.size() && ex[j].file_off >= ex[j - 1].file_off + ex[j - 1].len &&
             ex[j].file_off + ex[j].len - lo <= o.buffer) {
        data += ex[j].len;
        ++j;
      }
    }
    const std::uint64_t span = ex[j - 1].file_off + ex[j - 1].len - ex[i].file_off;
    const bool dense_enough = o.mode == CbMode::enable || data * 16 >= span;
    if (j - i >= 2 && dense_enough) {
      out.push_back({i, j, true});
    } else {
      // Not worth it (or alone): each extent on its own; a sparse group still advances past its first.
      if (j - i >= 2) j = i + 1;
      out.push_back({i, j, false});
    }
    i = j;
  }
  return out;
}

Status sieve_write(int fd, const std::vector<Extent>& ex, std::uint64_t pos, const char* data, const SieveOptions& o) {
  std::vector<char> buf;
  for (const SieveGroup& g : sieve_groups(ex, o)) {
    if (!g.sieve) {
      for (std::size_t k = g.first; k < g.last; ++k) {
        // A plain write next to others' read-modify-writes: a shared lock keeps it out of their spans.
        std::unique_ptr<RangeLock> shared;
        if (o.lock && o.mode != CbMode::disable) {
          shared = std::make_unique<RangeLock>(fd, ex[k].file_off, ex[k].len, false);
          FTMPI_TRY(shared->status());
        }
        FTMPI_TRY(write_at(fd, ex[k].file_off, data + (ex[k].stream_off - pos), ex[k].len));
      }
      continue;
    }
    const std::uint64_t lo = ex[g.first].file_off;
    const std::uint64_t hi = ex[g.last - 1].file_off + ex[g.last - 1].len;
    std::unique_ptr<RangeLock> lock;
    if (o.lock) {
      lock = std::make_unique<RangeLock>(fd, lo, hi - lo, true);
      FTMPI_TRY(lock->status());
    }
    buf.resize(hi - lo);
    std::uint64_t n = 0;
    FTMPI_TRY(read_at(fd, lo, buf.data(), hi - lo, &n));
    if (n < hi - lo) std::memset(buf.data() + n, 0, hi - lo - n);  // past the end: a hole reads as zeros
    for (std::size_t k = g.first; k < g.last; ++k)
      std::memcpy(buf.data() + (ex[k].file_off - lo), data + (ex[k].stream_off - pos), ex[k].len);
    FTMPI_TRY(write_at(fd, lo, buf.data(), hi - lo));
  }
  return Status::Ok();
}

Status sieve_read(int fd, const std::vector<Extent>& ex, std::uint64_t pos, char* data, const SieveOptions& o,
                  std::uint64_t* got) {
  *got = 0;
  std::vector<char> buf;
  for (const SieveGroup& g : sieve_groups(ex, o)) {
    if (!g.sieve) {
      for (std::size_t k = g.first; k < g.last; ++k) {
        std::uint64_t n = 0;
        FTMPI_TRY(read_at(fd, ex[k].file_off, data + (ex[k].stream_off - pos), ex[k].len, &n));
        *got += n;
        if (n < ex[k].len) return Status::Ok();  // end of file
      }
      continue;
    }
    const std::uint64_t lo = ex[g.first].file_off;
    const std::uint64_t hi = ex[g.last - 1].file_off + ex[g.last - 1].len;
    buf.resize(hi - lo);
    std::uint64_t n = 0;
    FTMPI_TRY(read_at(fd, lo, buf.data(), hi - lo, &n));
    for (std::size_t k = g.first; k < g.last; ++k) {
      const std::uint64_t at = ex[k].file_off - lo;
      const std::uint64_t have = n > at ? std::min(n - at, ex[k].len) : 0;
      std::memcpy(data + (ex[k].stream_off - pos), buf.data() + at, have);
      *got += have;
      if (have < ex[k].len) return Status::Ok();  // end of file
    }
  }
  return Status::Ok();
}

}  // namespace ftmpi::io
