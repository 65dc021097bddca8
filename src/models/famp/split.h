// Fault-aware communicator creation of FA-MPI (seed 001 §7.5.1, §8.3: MPI_Comm_split_sync/_local,
// isplit_*, create_group_sync/_local, igroup_*, MPI_Comm_isplit_multi_sync) as pure functions around one
// agreement (ft/agreement.h) on the parent communicator.
//
// Algorithm. Every member contributes, in one AND-combined value: its mask of free context slots
// (comm/context_alloc.h) and a slot of its own holding up to kMaxSplits (color, key) requests (the same
// "gather by AND" as the TryBlock commit, models/famp/commit.h: all-ones in the other members' slots). The
// agreement decides one value and one failed set F everywhere. decode_split() then gives, as a pure
// function of the decision: the members = contributors not in F; for every color asked for by a member
// (MPI_UNDEFINED excluded), in increasing color order, the members that asked for it, ordered by (key,
// parent rank), and the i-th lowest context slot free at every contributor. So every survivor builds the
// same communicators with the same context ids, whoever died before or during the call; `shrunk` says F
// is not empty (the sync forms return MPI_GROUP_SHRUNK then).
//
// Safety: as the agreement's (same decision everywhere) plus: a slot free in the AND is free at every
// member of every new communicator (each contributed its mask), and distinct colors get distinct slots, so
// a process that joins several new communicators (isplit_multi) never reuses an id.
// Cost: one agreement; messages carry 32 words of mask + n·(1 + 2·kMaxSplits) words.
//
// Intercommunicators (MPI-3.1 §6.4.2 split semantics): the agreement runs over the union of both groups
// (FtManager::span), members numbered in the span's order; decode_split with slots_per_group = 2 gives each
// color a second common free slot, the context of the new *hidden local* communicators (each side's local
// members of the color: disjoint processes, so both sides may use the same id). A color with survivors on
// one side only gives MPI_COMM_NULL (as MPI_Comm_split on an intercommunicator); inter_sides() splits a
// group's members by side.
#pragma once
#include <cstdint>
#include <vector>

#include "ft/agreement.h"

namespace ftmpi::famp {

inline constexpr int kMaxSplits = 8;  // output communicators one member may ask for in one call

struct SplitRequest {
  int color;
  int key;
};

struct SplitGroup {
  int color;
  std::uint32_t context;    // even context id (slot * 2)
  std::vector<int> members; // parent ranks, in new-rank order
  std::uint32_t local_context = 0;  // slots_per_group == 2: the hidden local communicators' context id
};

struct SplitOutcome {
  bool ok = true;           // false: not enough common context slots
  bool shrunk = false;      // the agreed failed set is not empty
  ft::RankSet failed;
  std::vector<SplitGroup> groups;  // by increasing color
};

// `mask` = this member's free-slot mask (kWords words), `undefined` = MPI_UNDEFINED.
ft::Bits encode_split(const std::vector<std::uint64_t>& mask, int me, int size, const std::vector<SplitRequest>& asks);
// `slots_per_group`: 1 (intracommunicators) or 2 (intercommunicators: local_context too).
SplitOutcome decode_split(const ft::Bits& value, const ft::RankSet& failed, std::size_t mask_words, int size,
                          int undefined, int slots_per_group = 1);

// An intercommunicator split: a group's members (span ranks, in new-rank order) on each side. `in_first(r)`:
// is span rank r in the span's first group? `first`/`second` keep the group's order.
template <class InFirst>
void inter_sides(const SplitGroup& g, InFirst&& in_first, std::vector<int>* first, std::vector<int>* second) {
  for (int r : g.members) (in_first(r) ? first : second)->push_back(r);
}

}  // namespace ftmpi::famp
