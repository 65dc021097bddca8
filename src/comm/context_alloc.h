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
// Threads (MPI_THREAD_MULTIPLE). Several allocations may be in flight at once in one process (the lock is
// released while a round's AND travels), over parents, groups and sides that overlap in any way between
// processes, started in any order (MPI only orders collectives on one communicator). Protocol:
//
// Model. An *allocation* X has members M(X) (every process that will hold the new id) and a *key* k(X), the
// same at every member of X and different from the key of every allocation that shares a member with X and
// can be in flight with it (AllocKey below says how each constructor builds it). Every member of X calls it
// eventually, unless the program is erroneous; a member may be held up before it calls X for as long as the
// application likes (another thread's MPI call, a mutex), and a member may run any other allocations in other
// threads meanwhile. Communication between the members of X is reliable (failures: see below).
//
// Algorithm. X runs *rounds* 0, 1, 2, ... at every member. In round r a member contributes C = (mask, whole):
// a set of its free slots, which it *reserves* (no other round here offers or claims them until this round
// ends), and whole = "mask is every free slot of mine" (the last 64 slots excepted, see allocate_local). The
// members' contributions are ANDed (`and_all`: the parent's allreduce, a subset's reduce+broadcast, both
// sides of an intercommunicator through their leaders); every member gets the same AND A and
//   - A has a slot: every member claims the lowest one; X ends;
//   - A is empty and A.whole: every member gave all it had: out of ids, every member returns no_mem;
//   - otherwise: every member runs round r+1 (at once after the entry round, else after a short bounded
//     pause, between_rounds).
// What a member contributes in round r:
//   - round 0, in a process at MPI_THREAD_MULTIPLE: nothing (whole cleared). Round 0 is an *entry* round:
//     when it ends here, every member of X has called X. X is then *live* here.
//   - otherwise (round >= 1, or a process that cannot have two allocations in flight at once): if no other
//     allocation live here comes first, every free slot no other round here reserved; else nothing.
//     *Comes first*: the order (urgent before not urgent, then the lower key), where X is *urgent* once it
//     has ended kUrgentRounds rounds. Without urgency a thread that creates communicators back to back on a
//     low key (a create_from_group loop on MPI_COMM_WORLD) starved every higher key for as long as it ran:
//     its next allocation was live again before the starved one's next round (ft_comm_threads_group).
// Safety (no two allocations sharing a process claim one slot; a claimed slot is free at every member):
// the claimed slot lies in A, so in every member's contribution to that round, so it was free and reserved
// for that round at every member, and no other round in flight at that member could offer it; a member
// claims it before its reservation ends. Every member sees the same A, so all take the same decision in the
// same round.
// Liveness (if every member calls X, X ends): (1) a round of X ends once every member runs it; a member runs
// X's rounds one after the other with only bounded pauses (never waiting for another allocation), so once
// every member has called X every round ends, and a reservation is held for a finite time. (2) A round that
// reserves at a THREAD_MULTIPLE process belongs to a live allocation, whose members all run its rounds, so
// no reservation waits for a member that has not called its allocation — the hang this protocol removes:
// before, an allocation's first round reserved every slot here and waited for a member whose thread was still
// in a lower-key allocation that needed those very slots here (comm_threads_ctx "mix"). (3) Priority looks
// only at live allocations, so an allocation not yet called everywhere slows nobody down. (4) Let X be the
// lowest-key allocation live somewhere and unfinished. At each member p, once X is live at p, the rounds of
// other allocations live at p begun before end (1), and later ones offer nothing (X is lower); so from some
// round on every member contributes all its free slots (whole): X then claims a slot or every member returns
// out of ids. Induction over keys (finitely many allocations are in flight at once): every live allocation
// ends, and every called one becomes live. No fixed order of threads or ranks is assumed anywhere.
// Uniqueness of keys is what makes (4) hold: two allocations sharing a member never both count as lowest.
// With urgency, (4) is about the first in the order (urgent, key) instead of the lowest key: X's round count
// is the same at every member after each round (every member runs every round), urgency never ends, so from
// round kUrgentRounds on X compares alike everywhere with every other live allocation; an allocation that
// becomes live later is not urgent for its first kUrgentRounds rounds, so only finitely many come before X.
// Failures: a round's AND fails like any collective (Errc::proc_failed, revoked); the member returns the
// error and ends its reservation (no hang). In FT mode each round's AND is one fault-tolerant agreement
// (comm_ops.h agree_context): every survivor sees the same AND or the same error in every round. The
// agreement instance is the call's own — a keyed instance numbered per agreeing object (ft/creation_keys.h)
// on the parent, on a channel of (member set, parent, tag) for create_group / create_from_group, on the
// intercommunicator's span, on a per-call bridge for Intercomm_create — so concurrent calls over the same
// member set from different threads never mix their rounds. A revoke never ends a round in progress (its
// decision stands everywhere); it vetoes the next round (ft/creation_keys.h), so the outcome stays uniform.
// Cost: one round (the AND of the masks) when alone; at MPI_THREAD_MULTIPLE one more, empty, round (the
// entry round); under contention a non-lowest allocation repeats cheap empty rounds until the lower ends.
// A communicator of this process alone (a dup of MPI_COMM_SELF) needs no round: allocate_local() takes a slot
// no round reserved. Rounds never offer the last 64 slots (kLocalWord), so that one finds a slot even while
// another thread's round has reserved every other free slot. (MPICH suite threads/comm/comm_create_threads,
// dup_leak_test, comm_create_group_threads, comm_dup_deadlock, idup_comm_gen; threads/spawn; threads/init/
// mult_session; tests/unit/context_alloc_test.cpp simulates interleavings of processes and threads.)
#pragma once
#include <array>
#include <compare>
#include <vector>
#include <cstdint>
#include <span>

#include "util/status.h"

struct ftmpi_comm_s;
namespace ftmpi {
class Runtime;
}

namespace ftmpi::comm {

// An allocation's key ("Threads" above): the same at every member, different between allocations that share
// a member and may be in flight together. `ctx` is the context id of a communicator C that is live at process
// `witness` (C's lowest member, by world rank) while the allocation runs, and `kind` separates allocations
// over one C: two live communicators of one process never share a context id, so two keys can be equal only
// for allocations over the same C, of the same kind:
//   - intracommunicator constructors on parent P: {P's id, P's lowest member, kKindParent};
//   - MPI_Comm_create_group / create_from_group on P with tag t: {P's id, P's lowest member, 2^29 | t}
//     (MPI: concurrent create_group calls on one P differ in their tags);
//   - a constructor on intercommunicator I (merge, dup, split, create): {I's id, lowest member of both
//     groups, kKindInter};
//   - MPI_Intercomm_create: the lower of the two sides' {hidden local communicator's id, its lowest member},
//     kind kKindInterCreate (a side's hidden communicator is the creation's own, used by nothing else).
struct AllocKey {
  std::uint32_t ctx = 0;
  std::int32_t witness = 0;
  std::uint32_t kind = 0;
  static constexpr std::uint32_t kKindParent = 0xffffffffu;
  static constexpr std::uint32_t kKindInter = 0xfffffffeu;
  static constexpr std::uint32_t kKindInterCreate = 0xfffffffdu;
  auto operator<=>(const AllocKey&) const = default;
};

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

  // One allocation's rounds at this process (see "Threads" above). `concurrent`: this process may run
  // several allocations at once (MPI_THREAD_MULTIPLE): round 0 is then an entry round.
  using Contribution = std::array<std::uint64_t, kWords + 1>;  // the mask, then the "whole" word (bit 0)
  class Allocation {
   public:
    Allocation(ContextAllocator& a, const AllocKey& key, bool concurrent);  // in flight until destroyed
    ~Allocation();
    Allocation(const Allocation&) = delete;
    Allocation& operator=(const Allocation&) = delete;
    // This round's contribution (reserves its slots until finish()).
    Contribution begin();
    // After the AND of every member's contribution to this round: Ok(true) with *id claimed, Ok(false) to
    // run another round, Errc::no_mem when no slot is free everywhere.
    Result<bool> finish(const Contribution& common, std::uint32_t* id);
    const AllocKey& key() const { return key_; }
    bool live() const { return live_; }
    // The round that just ended was the entry round: the next one follows at once (no pause: nothing cut it).
    bool just_entered() const { return just_entered_; }
    // Rounds ended after which an allocation comes before every non-urgent one ("Threads" above).
    static constexpr std::uint32_t kUrgentRounds = 6;
    bool urgent() const { return rounds_ >= kUrgentRounds; }

   private:
    ContextAllocator& a_;
    AllocKey key_;
    bool concurrent_;
    bool live_ = false;  // every member has called this allocation (a round ended here)
    bool entry_ = false;         // the round in progress is the entry round
    bool just_entered_ = false;  // the last round to end was the entry round
    std::uint32_t rounds_ = 0;   // rounds ended
    Mask mine_{};
  };

  // The rounds of one allocation: `and_all` ANDs this member's contribution with every other member's
  // (in place), collective over the allocation's members. Every member calls it with the same key.
  template <class AndAll>
  Status run_rounds(Runtime& rt, const AllocKey& key, AndAll&& and_all, std::uint32_t* id) {
    Allocation alloc(*this, key, concurrent(rt));
    for (;;) {
      Contribution c = alloc.begin();
      FTMPI_TRY(and_all(c));
      auto done = alloc.finish(c, id);
      if (!done.ok()) return done.status();
      if (*done) return {};
      if (!alloc.just_entered()) between_rounds(rt);
    }
  }

  // The lowest world rank among c's members (both groups of an intercommunicator): a key's witness.
  static std::int32_t lowest_member(const ftmpi_comm_s* c);

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
  // The same pool as a whole Mask (non-blocking creations that agree on a mask of kWords words: FA-MPI's
  // splits and group creations, api/famp_comm.cpp): bit b of word i of an *async mask* stands for async slot
  // i*64+b. reserve_async_mask takes every free slot of pool words w, w+1, ..., w+n-1 (mod kAsyncWords) out
  // of the pool; give_back_async_mask returns the slots of `m` (the ones not kept). A context id that the
  // mask method (lowest_common, famp::decode_split) picks from an async mask is a *mask id* (slot*2): its
  // real id is async_id_of(mask id).
  Mask reserve_async_mask(std::size_t w, std::size_t n);
  void give_back_async_mask(const Mask& m);
  static std::uint32_t async_id_of(std::uint32_t mask_id) { return mask_id + 2 * kSlots; }
  // Clear the bit of mask id `mask_id` in `m`.
  static void mask_drop(Mask& m, std::uint32_t mask_id) { m[(mask_id / 2) / 64] &= ~(std::uint64_t{1} << ((mask_id / 2) % 64)); }

 private:
  static bool concurrent(Runtime& rt);
  void between_rounds(Runtime& rt);
  // allocate_among's AND of one round's contributions.
  Status and_among(Runtime& rt, ftmpi_comm_s* numbering, const std::vector<int>& peers, int me, int tag,
                   Contribution& common);

  Mask free_{};
  Mask async_free_{};
  Mask reserved_{};                   // slots contributed by rounds in flight (threads)
  std::vector<Allocation*> inflight_;  // the allocations in flight here
  std::uint64_t changes_ = 0;         // bumped when an allocation here ends a round or ends (between_rounds)
};

}  // namespace ftmpi::comm
