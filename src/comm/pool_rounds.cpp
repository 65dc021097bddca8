// Rounds of a non-blocking creation on the non-blocking context-id pool (see pool_rounds.h).
#include "comm/pool_rounds.h"

#include <algorithm>

#include "ft/ft_manager.h"

namespace ftmpi::comm {

PoolRounds::PoolRounds(ContextAllocator& ids, ft::FtManager& ft, ftmpi_comm_s* on, ftmpi_comm_s* counter, std::size_t slots)
    : ids_(ids), ft_(ft), on_(on), seq_(counter->idup_seq++) {
  words_ = std::min(ContextAllocator::kAsyncWords, std::max<std::size_t>(1, (slots + 63) / 64));
}

PoolRounds::~PoolRounds() { ids_.give_back_async_mask(reserved_); }

void PoolRounds::reserve() {
  std::uint64_t h = (std::uint64_t{on_->ctx_pt2pt} << 32 | seq_) ^ (0x9e3779b97f4a7c15ull * (round_ + 1));
  h ^= h >> 31;
  h *= 0xbf58476d1ce4e5b9ull;
  h ^= h >> 29;
  reserved_ = ids_.reserve_async_mask(static_cast<std::size_t>(h % ContextAllocator::kAsyncWords), words_);
}

const ft::Agreement& PoolRounds::start(std::span<const std::uint64_t> contribution) {
  // The key's layout is MPI_Comm_idup's (comm/comm_idup.cpp): its number and round; bit 30 clear.
  const auto key = static_cast<std::uint32_t>(((seq_ & 0x7fffffu) << 7) | (round_ & 0x7fu));
  return ft_.start_keyed_agreement(on_, key, contribution);
}

Status PoolRounds::retry() {
  ids_.give_back_async_mask(reserved_);
  reserved_ = Mask{};
  if (++round_ < kMaxRounds) return Status();
  return Status(Errc::no_mem, "out of communicator context ids");
}

PoolRounds::Mask PoolRounds::take() {
  Mask m = reserved_;
  reserved_ = Mask{};
  return m;
}

}  // namespace ftmpi::comm
