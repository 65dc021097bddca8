// Where an agreement frame sent by a freed communicator's zombie goes (FtManager::on_ft_frame and
// on_stale_ft_frame). Such a frame (its "from freed" bit set, ft_manager.cpp kFromFreed) went out after its sender q
// retired the communicator X it belongs to, so after q's retire notice for X (frames between two processes are
// delivered in order): X is the communicator of the last retire notice from q that this process received on the
// slot. Let C_1..C_k be the communicators on the slot retired here, and m the number of q's notices received
// (p2p/stale_filter.h: the frame is *stale* when k > m):
//   - stale (k > m): X = C_m, and this process has since retired C_k, k > m, so it registered C_m+1 after C_m,
//     which dropped C_m's zombie: nothing here needs the frame — drop it. (It used to go to the zombie of C_k, a
//     different communicator with the same members: the same channel key answered another generation's round.)
//   - not stale, a communicator registered here: X is it, or C_k when q has not retired the registered one
//     (handle_agree takes the frame only if q retired it);
//   - not stale, none registered, and q's notice for the *next* communicator on the slot came already
//     (k < m; FtManager::early_retired_ holds such notices): X is that next communicator, which q created,
//     revoked and freed before this process registered it (a fast revoker, `ft_group_revoke skip_free`): keep
//     the frame until it is registered (then the notice is replayed first);
//   - not stale, none registered, no such notice (k = m): X = C_k: its zombie, if it has one; else X is over
//     here (every instance of it decided here before it was retired), and the frame is dropped.
// Before (until skipfree2, 2026-11-27) the zombie rule was applied in the fourth case too: the zombie of the
// *previous* communicator on the slot took the fast revoker's veto for the next one, its channel of the same
// key (same parent context, lowest member, tag and group: the next trial's create_group) consumed it, and the
// next communicator's round never decided at that member (the skip_free hang). tests/sim/slot_route_sim_test.cpp
// checks these rules against generations of communicators on one slot.
#pragma once

namespace ftmpi::ft {

enum class FreedFrameRoute { current, next, zombie, drop };

// `stale`: the stale filter's verdict for the sender; `registered`: a communicator is registered on the slot
// here; `sender_retired_next`: the sender's retire notice for the next communicator on the slot arrived already;
// `zombie`: the slot has a zombie here.
constexpr FreedFrameRoute route_freed_frame(bool stale, bool registered, bool sender_retired_next, bool zombie) {
  if (stale) return FreedFrameRoute::drop;
  if (registered) return FreedFrameRoute::current;
  if (sender_retired_next) return FreedFrameRoute::next;
  return zombie ? FreedFrameRoute::zombie : FreedFrameRoute::drop;
}

}  // namespace ftmpi::ft
