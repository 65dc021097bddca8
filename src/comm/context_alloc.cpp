// Context id allocation by the mask method (see context_alloc.h): the local, pure part. The collective
// allocate() lives in context_alloc_collective.cpp so this file links without the p2p engine.
#include "comm/context_alloc.h"

#include <algorithm>
#include <bit>

namespace ftmpi::comm {

namespace {
constexpr std::uint32_t kReservedSlots = 2;  // world (ids 0/1) and self (ids 2/3)
}

ContextAllocator::ContextAllocator() {
  async_free_.fill(~std::uint64_t{0});
  free_.fill(~std::uint64_t{0});
  for (std::uint32_t s = 0; s < kReservedSlots; ++s) free_[s / 64] &= ~(std::uint64_t{1} << (s % 64));
}

Result<std::uint32_t> ContextAllocator::lowest_common(const Mask& common) {
  for (std::size_t w = 0; w < kWords; ++w) {
    if (common[w] != 0) {
      const auto slot = static_cast<std::uint32_t>(w * 64 + static_cast<std::size_t>(std::countr_zero(common[w])));
      return slot * 2;
    }
  }
  return Status(Errc::no_mem, "out of communicator context ids");
}

Status ContextAllocator::claim(std::uint32_t id) {
  const std::uint32_t slot = id / 2;
  if (id % 2 != 0 || slot < kReservedSlots || slot >= kSlots)
    return Status(Errc::intern, "bad context id");
  std::uint64_t& word = free_[slot / 64];
  const std::uint64_t bit = std::uint64_t{1} << (slot % 64);
  if ((word & bit) == 0) return Status(Errc::intern, "context id already in use");
  word &= ~bit;
  return {};
}

void ContextAllocator::release(std::uint32_t id) {
  const std::uint32_t slot = id / 2;
  if (slot >= kSlots && slot < 2 * kSlots) {
    async_free_[(slot - kSlots) / 64] |= std::uint64_t{1} << (slot % 64);
    return;
  }
  if (slot < kReservedSlots || slot >= kSlots) return;
  free_[slot / 64] |= std::uint64_t{1} << (slot % 64);
}

bool ContextAllocator::in_use(std::uint32_t id) const {
  const std::uint32_t slot = id / 2;
  if (slot >= kSlots && slot < 2 * kSlots)
    return (async_free_[(slot - kSlots) / 64] & (std::uint64_t{1} << (slot % 64))) == 0;
  if (slot >= kSlots) return false;
  if (slot < kReservedSlots) return true;
  return (free_[slot / 64] & (std::uint64_t{1} << (slot % 64))) == 0;
}

ContextAllocator::Allocation::Allocation(ContextAllocator& a, const AllocKey& key, bool concurrent)
    : a_(a), key_(key), concurrent_(concurrent) {
  a_.inflight_.push_back(this);
}

ContextAllocator::Allocation::~Allocation() {
  for (std::size_t w = 0; w < kWords; ++w) a_.reserved_[w] &= ~mine_[w];
  auto it = std::find(a_.inflight_.begin(), a_.inflight_.end(), this);
  if (it != a_.inflight_.end()) a_.inflight_.erase(it);
  ++a_.changes_;
}

ContextAllocator::Contribution ContextAllocator::Allocation::begin() {
  // Round 0 at a THREAD_MULTIPLE process is the entry round: it offers nothing (context_alloc.h "Threads").
  // Otherwise: everything unreserved, if no other live allocation here has a lower key.
  const bool entry = concurrent_ && !live_;
  entry_ = entry;
  const bool lowest = !entry && std::none_of(a_.inflight_.begin(), a_.inflight_.end(), [this](const Allocation* o) {
    return o != this && o->live_ && (o->urgent() != urgent() ? o->urgent() : o->key_ < key_);
  });
  Contribution c{};
  bool whole = true;
  for (std::size_t w = 0; w < kWords; ++w) {
    const std::uint64_t offered = w < kLocalWord ? a_.free_[w] : 0;  // the local pool is never offered
    mine_[w] = lowest ? (offered & ~a_.reserved_[w]) : 0;
    a_.reserved_[w] |= mine_[w];
    c[w] = mine_[w];
    if (mine_[w] != offered) whole = false;
  }
  c[kWords] = whole ? ~std::uint64_t{0} : ~std::uint64_t{1};
  return c;
}

Result<bool> ContextAllocator::Allocation::finish(const Contribution& common, std::uint32_t* id) {
  live_ = true;  // the AND holds every member's contribution: every member has called this allocation
  just_entered_ = entry_;
  ++rounds_;
  ++a_.changes_;
  Mask m{};
  for (std::size_t w = 0; w < kWords; ++w) {
    m[w] = common[w];
    a_.reserved_[w] &= ~mine_[w];
  }
  mine_ = Mask{};
  auto lowest = lowest_common(m);
  if (!lowest.ok()) {
    if ((common[kWords] & 1u) != 0) return lowest.status();  // every member gave all it had: out of ids
    return false;
  }
  FTMPI_TRY(a_.claim(*lowest));
  *id = *lowest;
  return true;
}

Result<std::uint32_t> ContextAllocator::allocate_local() {
  Mask m{};
  for (std::size_t w = 0; w < kWords; ++w) m[w] = free_[w] & ~reserved_[w];
  auto lowest = lowest_common(m);
  if (!lowest.ok()) return lowest.status();
  FTMPI_TRY(claim(*lowest));
  return *lowest;
}

std::uint64_t ContextAllocator::reserve_async(std::size_t w) {
  const std::uint64_t bits = async_free_[w % kAsyncWords];
  async_free_[w % kAsyncWords] = 0;
  return bits;
}

void ContextAllocator::give_back_async(std::size_t w, std::uint64_t bits) { async_free_[w % kAsyncWords] |= bits; }

ContextAllocator::Mask ContextAllocator::reserve_async_mask(std::size_t w, std::size_t n) {
  Mask m{};
  for (std::size_t i = 0; i < n && i < kAsyncWords; ++i) {
    const std::size_t k = (w + i) % kAsyncWords;
    m[k] = reserve_async(k);
  }
  return m;
}

void ContextAllocator::give_back_async_mask(const Mask& m) {
  for (std::size_t k = 0; k < kAsyncWords; ++k) async_free_[k] |= m[k];
}

}  // namespace ftmpi::comm
