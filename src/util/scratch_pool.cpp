// Scratch buffer cache (see scratch_pool.h).
#include "util/scratch_pool.h"

#include <bit>
#include <new>

namespace ftmpi {

namespace {
std::byte* allocate(std::size_t cap) {
  return static_cast<std::byte*>(::operator new(cap, std::align_val_t{ScratchPool::kAlign}));
}
void deallocate(std::byte* p) { ::operator delete(p, std::align_val_t{ScratchPool::kAlign}); }
}  // namespace

ScratchPool::~ScratchPool() {
  for (const Block& b : free_) deallocate(b.p);
}

std::size_t ScratchPool::capacity_for(std::size_t bytes) {
  if (bytes <= kMinClass) return kMinClass;
  if (bytes > kMaxClass) return bytes;
  return std::bit_ceil(bytes);
}

std::byte* ScratchPool::acquire(std::size_t bytes) {
  const std::size_t cap = capacity_for(bytes);
  for (std::size_t i = 0; i < free_.size(); ++i) {
    if (free_[i].cap != cap) continue;
    std::byte* p = free_[i].p;
    free_[i] = free_.back();
    free_.pop_back();
    cached_ -= cap;
    return p;
  }
  return allocate(cap);
}

void ScratchPool::release(std::byte* p, std::size_t bytes) {
  if (p == nullptr) return;
  const std::size_t cap = capacity_for(bytes);
  if (cap > kMaxClass || cached_ + cap > max_cached_ || free_.size() >= kMaxCached) {
    deallocate(p);
    return;
  }
  free_.push_back({p, cap});
  cached_ += cap;
}

}  // namespace ftmpi
