// The board phase's steps (ft/agree_board.h) as templates over the board's type, so that one source serves
// the interface (B = AgreeBoard: the simulator's boards, tests/sim/agree_board_sim_test.cpp) and the
// library's final ShmBoard (ft/shm_board.cpp instantiates them for it: its calls are inlined, no virtual
// call per state read). Included by ft/agreement.cpp and ft/shm_board.cpp only.
#pragma once
#include <algorithm>
#include <cstring>

#include "ft/agreement.h"

namespace ftmpi::ft {

// The board decision's value (ft/agree_board.h 3, 5): every state of j is contributed; the AND of the n entries.
template <class B>
void Agreement::and_entries_on(B& b) {
  const std::uint64_t j = board_j_;
  // Every state is contributed, this member's too: its entry is contribution_ (trimmed), so the value is
  // contribution_ AND the others' entries (words beyond an entry's total are all-ones in it; every member
  // contributes the same length in practice, a longer entry grows the value).
  const std::size_t n = contribution_.size();
  if (value_.size() != n) value_.resize(n);
  if (n > 0) std::memcpy(value_.data(), contribution_.data(), n * sizeof(std::uint64_t));
  for (int r = 0; r < size_; ++r) {
    if (r == me_) continue;
    const BoardEntry e = b.entry(r, j);
    if (e.total > value_.size()) [[unlikely]]
      value_.resize(e.total, ~std::uint64_t{0});
    std::uint64_t* v = value_.data();
    const std::uint32_t len = e.off >= e.total ? 0 : std::min(e.len, e.total - e.off);
    for (std::uint32_t i = 0; i < len; ++i) v[e.off + i] &= e.words[i];
  }
}

// ft/agree_board.h, steps 1-5 (a counted board) or 1, 2, 5 (a scanned one).
template <class B>
void Agreement::board_step_on(B& b) {
  if (decided_) {  // adopted from the message-passing agreement: a state is closed, nobody decides here
    end_board();
    step();
    return;
  }
  const std::uint64_t j = board_j_;
  const std::uint64_t contributed = board_state(j, kBoardContributed), closed = board_state(j, kBoardClosed);
  const bool counted = b.counted();
  bool wrote = false;
  if (!board_written_) {
    if (!b.window_open(j, view_)) return;  // 1.
    // 2. The contribution without its all-ones ends.
    const std::size_t n = contribution_.size();
    if (!trim_known_ || trim_end_ > n) [[unlikely]] {
      std::size_t off = 0, end = n;
      while (off < n && contribution_[off] == ~std::uint64_t{0}) ++off;
      while (end > off && contribution_[end - 1] == ~std::uint64_t{0}) --end;
      trim_off_ = static_cast<std::uint32_t>(off);
      trim_end_ = static_cast<std::uint32_t>(end);
      trim_known_ = n <= 0xffffffffu;
    }
    const std::size_t off = trim_off_, end = trim_end_;
    const bool go = board_go_ && view_.empty() && end - off <= static_cast<std::size_t>(kBoardWords) && n <= 0xffffffffu;
    std::uint64_t s = b.state(me_, j);
    if (go && board_empty(s, j))  // (if another member closes it meanwhile, nobody reads these words)
      b.write(j, static_cast<std::uint32_t>(n), static_cast<std::uint32_t>(off),
                    std::span<const std::uint64_t>(contribution_.data() + off, end - off));
    while (board_empty(s, j) && !b.cas(me_, j, s, go ? contributed : closed)) {
    }
    if (board_empty(s, j)) s = go ? contributed : closed;
    board_written_ = true;
    wrote = true;
    if (counted) {
      bool any_closed = false;
      if (b.arrive(j, s != contributed, &any_closed)) {  // 3. the last arriver
        if (any_closed) {
          b.publish(j, closed, 0, 0, {}, 0);
          b.ring();
          end_board();
          start_messages();
          return;
        }
        and_entries_on(b);
        publish_decision(j);  // before the phase ends (the window: ft/agree_board.h)
        board_decided();
        return;
      }
      if (s != contributed) {
        // My own state is closed, so the outcome can only be "fall back": take it now rather than wait for the
        // last arrival, which never comes when a member has no board (its area's set-up failed before it
        // mapped the segment: then nobody goes fast and every member with the area closes here; shm_board.h).
        end_board();
        start_messages();
        return;
      }
    } else if (s != contributed) {
      b.ring_after_cas();  // a scanned board's waiters end at a closed state
    }
  } else if (counted && board_take_outcome()) {  // 4.
    return;
  }
  if (counted && view_.empty()) return;  // 4. wait for the outcome
  // 5. (and a scanned board's 3) Scan, freezing empty states once a failure is known.
  const bool freeze = !view_.empty();
  bool all = true, saw_closed = false, froze = false;
  for (int r = 0; r < size_; ++r) {
    std::uint64_t s = b.state(r, j);
    while (freeze && board_empty(s, j)) {
      if (b.cas(r, j, s, closed)) {
        s = closed;
        froze = true;
      }
    }
    if (s == contributed) continue;
    all = false;
    if (!board_empty(s, j)) {  // closed (a later instance's word cannot be here: the window)
      saw_closed = true;
      break;
    }
    if (!freeze) break;  // r has not written yet: wait
  }
  // A scanned board's waiters are woken by what ends their wait: a closed state (above, or a freeze) or the
  // last contribution (its writer's scan sees every state contributed: the CASes are ordered).
  if (froze || (all && wrote && !counted)) b.ring_after_cas();  // (nothing stored since the CAS)
  if (all) {
    and_entries_on(b);
    board_decided();
    return;
  }
  if (saw_closed) {  // nobody decides on the board: fall back
    end_board();
    start_messages();
  }
}

}  // namespace ftmpi::ft
