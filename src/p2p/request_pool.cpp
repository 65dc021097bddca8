#include "p2p/request_pool.h"

#include <new>

namespace ftmpi::p2p {

void RequestPool::grow() {
  chunks_.push_back(std::make_unique<Request[]>(kChunk));
  Request* base = chunks_.back().get();
  for (std::size_t i = kChunk; i-- > 0;) {
    base[i].magic = kMagicFreed;
    base[i].next = free_;
    free_ = &base[i];
  }
}

Request* RequestPool::lookup(std::uint64_t id) const {
  const auto inc = static_cast<std::uint16_t>(id >> 48);
  auto p = static_cast<std::uintptr_t>(id & ((std::uint64_t{1} << 48) - 1));
  for (const auto& c : chunks_) {
    auto base = reinterpret_cast<std::uintptr_t>(c.get());
    if (p >= base && p < base + kChunk * sizeof(Request) && (p - base) % sizeof(Request) == 0) {
      Request* r = reinterpret_cast<Request*>(p);
      return r->magic == kMagicRequest && r->incarnation == inc ? r : nullptr;
    }
  }
  return nullptr;
}

void RequestPool::invalidate_all() {
  for (const auto& c : chunks_)
    for (std::size_t i = 0; i < kChunk; ++i) c[i].magic = kMagicRolledBack;
  free_ = nullptr;
}

}  // namespace ftmpi::p2p
