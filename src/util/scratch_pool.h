// A cache of large scratch buffers, so that operations which need temporary memory on every call (the
// collectives' reduction accumulators, receive staging) do not map and fault in fresh pages each time:
// a 1 MiB Allreduce that allocates and frees its scratch per call spends more time in page faults than in
// communication. Owned by the Runtime (one per process), used under the runtime's lock.
//
// Buffers are grouped by capacity class (a power of two, at least kMinClass); a released buffer is kept for
// the next acquire of the same class while the cache holds at most `max_cached_bytes` and kMaxCached
// buffers, otherwise it is freed. Requests above kMaxClass are never rounded up (no 2x waste on huge
// buffers) and never cached.
#pragma once
#include <cstddef>
#include <vector>

namespace ftmpi {

class ScratchPool {
 public:
  static constexpr std::size_t kMinClass = 4096;
  static constexpr std::size_t kMaxClass = std::size_t{64} << 20;
  static constexpr std::size_t kMaxCached = 16;
  static constexpr std::size_t kAlign = 64;

  explicit ScratchPool(std::size_t max_cached_bytes = std::size_t{128} << 20) : max_cached_(max_cached_bytes) {}
  ~ScratchPool();
  ScratchPool(const ScratchPool&) = delete;
  ScratchPool& operator=(const ScratchPool&) = delete;

  // A buffer of at least `bytes` bytes, kAlign-aligned, contents undefined. Never null (throws
  // std::bad_alloc like operator new when memory is exhausted).
  std::byte* acquire(std::size_t bytes);
  // Give back a buffer obtained from acquire(bytes) with the same `bytes`.
  void release(std::byte* p, std::size_t bytes);

  // For tests: buffers and bytes currently cached.
  std::size_t cached_buffers() const { return free_.size(); }
  std::size_t cached_bytes() const { return cached_; }

  // The capacity acquire(bytes) really allocates.
  static std::size_t capacity_for(std::size_t bytes);

 private:
  struct Block {
    std::byte* p;
    std::size_t cap;
  };
  std::vector<Block> free_;
  std::size_t cached_ = 0;
  std::size_t max_cached_;
};

}  // namespace ftmpi
