// The rounds of a non-blocking creation that agrees, by one fault-tolerant agreement per round, on context
// ids of the non-blocking pool (comm/context_alloc.h): FA-MPI's splits and group creations
// (api/famp_comm.cpp), MPIX_Comm_ishrink / MPIX_Comm_shrink (api/ft.cpp), FA-MPI spawn's survivors step
// (api/famp_spawn.cpp).
//
// Why. Such a creation completes in the progress loop, so other creations may run meanwhile on this process (a
// blocking MPI_Comm_dup / create_group / split, another thread's, an MPI_Comm_idup, another pending non-blocking
// creation). Offering the blocking allocator's free slots unreserved let a blocking creation claim the lowest
// common slot before the agreement decided the same one: MPI_ERR_INTERN "context id already in use" (skipfree2,
// ishrinkid). So each round offers slots of the non-blocking pool that it takes out of the pool (reserves):
// words w..w+n-1 (n: enough for the slots the creation needs per member), w a hash of (the agreement
// communicator's context, the creation's number, the round). Nothing else offers or claims a reserved slot, so
// the slots decided are free at every member of every new communicator. A round whose AND has too few common
// slots (another creation holds those words at some member) gives its slots back and the next round runs in
// other words — every member sees the same decision, so all do — up to kMaxRounds rounds (then: out of ids).
// Rounds are keyed agreement instances (FtManager::start_keyed_agreement) numbered like MPI_Comm_idup's and
// drawn from the same counter (Communicator::idup_seq of `counter`), so the two never share an instance and
// members may start them in any order relative to other agreements.
//
// Contract: every member constructs PoolRounds for the same creation with the same `on`, the same `counter`
// (whose idup_seq advances in the same order at every member: creations on it are started in the same order
// everywhere, MPI's rule) and the same slot count. Caller holds the runtime lock, as for every FtManager call.
#pragma once
#include <cstdint>
#include <span>

#include "comm/context_alloc.h"
#include "ft/agreement.h"

struct ftmpi_comm_s;
namespace ftmpi::ft {
class FtManager;
}

namespace ftmpi::comm {

class PoolRounds {
 public:
  using Mask = ContextAllocator::Mask;
  static constexpr std::uint32_t kMaxRounds = 128;

  // `on`: where the rounds' agreements run; `counter`: the communicator whose idup_seq numbers this creation
  // (takes one number); `slots`: context slots needed per member (the pool words reserved per round cover them).
  PoolRounds(ContextAllocator& ids, ft::FtManager& ft, ftmpi_comm_s* on, ftmpi_comm_s* counter, std::size_t slots);
  ~PoolRounds();  // gives back whatever this round still holds
  PoolRounds(const PoolRounds&) = delete;
  PoolRounds& operator=(const PoolRounds&) = delete;

  // Start the current round: reserve its pool words, then start its agreement on `on` with the contribution
  // `encode(reserved mask)` returns (a container of uint64_t words that carries the mask as the creation's
  // decoder expects).
  template <class Encode>
  const ft::Agreement& begin(Encode&& encode) {
    reserve();
    const auto contribution = encode(static_cast<const Mask&>(reserved_));
    return start(std::span<const std::uint64_t>(contribution.data(), contribution.size()));
  }
  // The current round decided too few common slots: its slots go back to the pool. An error ("out of
  // communicator context ids") when kMaxRounds rounds have run; otherwise call begin() again for the next round.
  Status retry();
  // The current round decided: the caller takes its reserved slots; it keeps the ones its new communicators
  // use and gives the others back (ContextAllocator::give_back_async_mask).
  Mask take();

 private:
  void reserve();
  const ft::Agreement& start(std::span<const std::uint64_t> contribution);

  ContextAllocator& ids_;
  ft::FtManager& ft_;
  ftmpi_comm_s* on_;
  std::uint32_t seq_ = 0;    // this creation's number on its counter (the rounds' keys)
  std::uint32_t round_ = 0;
  std::size_t words_ = 1;    // pool words reserved per round
  Mask reserved_{};          // this round's slots, out of the pool
};

}  // namespace ftmpi::comm
