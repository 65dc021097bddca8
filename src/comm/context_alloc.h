// Context ids for new communicators (MPICH's mask method).
//
// Every communicator owns a pair of context ids: an even one for point-to-point traffic and the next odd
// one for collective traffic. A *slot* is such a pair: slot s = ids 2s and 2s+1. Slots 0 and 1 belong to
// MPI_COMM_WORLD and MPI_COMM_SELF and are never handed out.
//
// Allocation is collective over a parent communicator: each member contributes its mask of free slots,
// the masks are combined with a bitwise AND over the parent's collective context, and every member
// claims the lowest slot free everywhere. Because a process's own mask takes part in every allocation it
// joins, two communicators that share a process can never get the same id, whatever the order in which
// overlapping creations happen on other processes.
//
// Not thread-safe by itself: callers hold the runtime lock (one MPI call at a time).
//
// Threads (MPI_THREAD_MULTIPLE): allocations on different parents may be in flight at once in one process
// (the lock is released while the AND travels), and would pick the same lowest common slot. So each
// allocation is a sequence of rounds. A round contributes only slots no other round in flight here
// contributed (reserved_), and only if its key (the parent's context id; create_group adds the tag) is the
// lowest of the allocations in flight here: the others contribute nothing. The agreed slot lies in every
// member's contribution, so no other round here can claim it. One more word travels with the mask, ANDed:
// bit 0 "my contribution was all my free slots". An empty AND with that bit set means out of ids; with it
// clear the round is repeated (every member sees the same AND, so all repeat). The allocation with the lowest
// key in flight anywhere gets every member's whole free mask in its next round, so it ends, then the next.
// Alone (one thread) the first round contributes the free mask and ends the allocation, as before.
// A communicator of this process alone (a dup of MPI_COMM_SELF) needs no round: allocate_local() takes a slot
// no round reserved. Rounds never offer the last 64 slots (kLocalWord), so that one finds a slot even while
// another thread's round has reserved every other free slot and waits for a member held up by the
// application until this one returns (MPICH suite threads/comm/comm_dup_deadlock). (MPICH
// suite threads/comm/comm_create_threads, dup_leak_test, comm_create_group_threads: "context id already in
// use".)
#pragma once
#include <array>
#include <vector>
#include <cstdint>
#include <span>

#include "util/status.h"

struct ftmpi_comm_s;
namespace ftmpi {
class Runtime;
}

namespace ftmpi::comm {

class ContextAllocator {
 public:
  static constexpr std::uint32_t kSlots = 2048;  // 4096 context ids
  static constexpr std::size_t kWords = kSlots / 64;
  using Mask = std::array<std::uint64_t, kWords>;  // bit set = slot free

  ContextAllocator();

  // This process's mask of free slots (what it contributes to an allocation).
  const Mask& free_mask() const { return free_; }

  // Pure part of an allocation: the lowest slot set in `common` (the AND of every member's mask).
  // Errc::no_mem (MPI_ERR_OTHER-ish "out of context ids") when no bit is set.
  static Result<std::uint32_t> lowest_common(const Mask& common);

  // Mark the slot of context id `id` (even) used here. Errc::intern if it is already used or reserved.
  Status claim(std::uint32_t id);
  // Give the slot of context id `id` back. Ids of reserved slots and ids not in use are ignored.
  void release(std::uint32_t id);
  bool in_use(std::uint32_t id) const;

  // Collective over `parent` (every member calls it, in the same order as its other collectives on
  // parent): agree on a fresh even context id, claimed on every member. On error nothing is claimed.
  Status allocate(Runtime& rt, ftmpi_comm_s* parent, std::uint32_t* id);
  // The same among a subset of `numbering`'s processes only (MPI_Comm_create_group): `peers` are the
  // members' ranks in `numbering` (in group order), `me` this process's index in `peers`; traffic goes on
  // numbering's collective context with `tag`. Addressing by `numbering`'s ranks keeps the senders of two
  // such allocations over different subsets apart, which a subset's own numbering would not: a member
  // already in the next create_group (same tag, another group) must not feed a member still in this one.
  Status allocate_among(Runtime& rt, ftmpi_comm_s* numbering, const std::vector<int>& peers, int me, int tag,
                        std::uint32_t* id);

  // The last mask word: slots only allocate_local() hands out.
  static constexpr std::size_t kLocalWord = kWords - 1;
  // A context id for a communicator with this process as its only member (no other process involved).
  Result<std::uint32_t> allocate_local();

  // One round of an allocation (see "Threads" above): what this process contributes, the extra word last.
  using Contribution = std::array<std::uint64_t, kWords + 1>;
  class Round {
   public:
    Round(ContextAllocator& a, std::uint64_t key);  // enters the allocation (in flight until destroyed)
    ~Round();
    Round(const Round&) = delete;
    Round& operator=(const Round&) = delete;
    // This round's contribution (reserves its slots until finish()).
    Contribution begin();
    // After the AND of every member's contribution: Ok(true) with *id claimed, Ok(false) to run another
    // round, Errc::no_mem when no slot is free everywhere.
    Result<bool> finish(const Contribution& common, std::uint32_t* id);

   private:
    ContextAllocator& a_;
    std::uint64_t key_;
    Mask mine_{};
  };

  // ---- the non-blocking pool (MPI_Comm_idup, comm/comm_idup.h) ----
  // Slots kSlots .. 2*kSlots-1 (ids 4096 .. 8191) belong to non-blocking allocations only, so that one
  // completing inside a blocking allocation's wait can never take the id the blocking one is agreeing on
  // (the blocking protocol above and its callers stay as they are). They are handed out a 64-slot word at a
  // time: reserve_async(w) takes every free slot of word w out of the pool (for one allocation round) and
  // returns them as bits; give_back_async(w, bits) returns the ones not kept. release() frees an id of
  // either pool.
  static constexpr std::size_t kAsyncWords = kWords;
  std::uint64_t reserve_async(std::size_t w);
  void give_back_async(std::size_t w, std::uint64_t bits);
  // The context id of bit `bit` of async word `w`.
  static std::uint32_t async_id(std::size_t w, int bit) {
    return static_cast<std::uint32_t>((kSlots + w * 64 + static_cast<std::size_t>(bit)) * 2);
  }

 private:
  void between_rounds(Runtime& rt);
  // allocate_among's AND of one round's contributions.
  Status and_among(Runtime& rt, ftmpi_comm_s* numbering, const std::vector<int>& peers, int me, int tag,
                   Contribution& common);

  Mask free_{};
  Mask async_free_{};
  Mask reserved_{};                     // slots contributed by rounds in flight (threads)
  std::vector<std::uint64_t> inflight_;  // keys of the allocations in flight here
};

}  // namespace ftmpi::comm
