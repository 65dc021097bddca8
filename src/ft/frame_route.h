// Where an agreement frame sent by a freed communicator's zombie goes (FtManager::on_ft_frame). Such a frame
// (its "from freed" bit set, ft_manager.cpp kFromFreed) went out after its sender retired the communicator X it
// belongs to, so after the sender's retire notice for X (frames between two processes are delivered in order).
// It reached on_ft_frame, not on_stale_ft_frame: this process has no retired communicator on the slot whose
// notice from the sender is still missing (p2p/stale_filter.h), so X is the communicator on the slot here now,
// the one retired here last (its zombie), or one not registered here yet.
//
// The rule, for a frame from process q on the slot of context s:
//   - a communicator is registered on s here: it is X (handle_agree then checks that q retired it);
//   - none, and q's retire notice for the *next* communicator on s came already (FtManager::early_retired_: a
//     notice that arrives while no communicator is registered on s, and is not stale, is for the next one):
//     X is that next communicator, which q created, revoked and freed before this process registered it (a
//     fast revoker, `ft_group_revoke skip_free`): keep the frame until it is registered;
//   - none, no such notice: X is the communicator retired here last: its zombie, if it has one; else X is
//     over here (every instance of it decided here before it was retired), and the frame is dropped.
// Before (until skipfree2, 2026-11-27) the third rule was applied in the second case too: the zombie of the
// *previous* communicator on s took the fast revoker's veto for the next one, its channel of the same key
// (the same parent context, lowest member, tag and group: the next trial's create_group) consumed it, and the
// next communicator's round never decided at that member. tests/sim/slot_route_sim_test.cpp checks the rule
// against generations of communicators on one slot.
#pragma once

namespace ftmpi::ft {

enum class FreedFrameRoute { current, next, zombie, drop };

// `registered`: a communicator is registered on the slot here; `sender_retired_next`: the sender's retire
// notice for the next communicator on the slot arrived already; `zombie`: the slot has a zombie here.
constexpr FreedFrameRoute route_freed_frame(bool registered, bool sender_retired_next, bool zombie) {
  if (registered) return FreedFrameRoute::current;
  if (sender_retired_next) return FreedFrameRoute::next;
  return zombie ? FreedFrameRoute::zombie : FreedFrameRoute::drop;
}

}  // namespace ftmpi::ft
