// Fence 1 of a Reinit epoch on a shared-memory board, for a job whose ranks all run on the launcher's host
// (2026-11-26 21:40, branch reinit9h). Before, fence 1 went through mpiexec: n lines in, the coordinator's
// release, n lines out, and each rank's service thread woke to read its line and then woke the application
// thread — on the recovery's critical path, 2n + 1 scheduler hand-offs after the slowest rank arrived (7-9 ms
// at 16 ranks on 2 loaded cores, the largest part of the rollback; docs/performance.md).
//
// Model. mpiexec (the coordinator, epoch_change.h) creates one segment per job (FTMPI_REINIT_BOARD), never
// fails and writes the board's word before it tells anybody of a new epoch. Ranks fail by crashing at any
// moment; a crashed rank's death makes a newer epoch (the coordinator's on_death) before its rank is
// restarted. Every rank of the job maps the segment (restarted processes and spares too).
//
// Algorithm. The word is (epoch, expected, arrived) in one 64-bit atomic, plus a 32-bit futex sequence.
//  * The coordinator starting epoch E writes (E, members of E, 0), bumps the sequence and wakes every
//    waiter (a rank still waiting in an older epoch's fence sees it superseded) — then sends the notices.
//  * A member entering fence 1 of E writes its set-up cards into its own slot (a seqlock; epoch E), then
//    counts itself in with a compare-and-swap that succeeds only while the word is at E. The arrival that
//    makes arrived == expected bumps the sequence and wakes every waiter: fence 1 of E is released.
//  * A waiter sleeps on the sequence (futex) until the word shows E released or a newer epoch. Released: it
//    reads the cards it needs from the other members' slots (card_reaches, as the coordinator's cards_for
//    would) — every slot at E; one at a newer epoch means its owner died and was restarted: superseded.
//    Newer epoch: superseded (the notice, on its way from mpiexec, names the failed ranks; the rank waits for
//    it and starts over). mpiexec hears of fence 1 only with the rank's fence-2 line (entering fence 2
//    counts as having entered fence 1 at the coordinator; the line carries the rank's timeline) and sends
//    no fence_out seq=1: no line and no launcher wake-up on the critical path.
// Safety: (1) of epoch_change.h holds: the word reaches (E, x, x) only after `expected` = every member of E
// counted itself in, each after dropping its old engine; an older epoch's arrival cannot count (the CAS
// compares the epoch); a dead process's arrival counts only if it arrived before dying, as when mpiexec saw
// its fence line before its death. (4): a member reads only slots stamped E, written by the process that
// arrived for E (a process restarted since stamps a newer epoch and the reader starts over). A waiter of E
// that sees a newer epoch never resumes in E even if E was released (others may have): it builds the newer
// epoch directly, in which every process new since the last commit is new again (kept_links.h).
// Cost: per member one CAS, one futex wait; the last arrival one futex wake of everybody: n hand-offs
// instead of 3n + 1, and no launcher on the way. Fence 2 (the commit) still goes through mpiexec, off the
// critical path. The simulator (tests/sim/reinit_sim_test.cpp, Board tests)
// runs the same pure word logic with kills at every step.
#pragma once
#include <atomic>
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "models/reinit/epoch_change.h"
#include "models/reinit/life_lock.h"
#include "util/status.h"

namespace ftmpi::reinit {

// --- the pure part (the simulator runs it) ---
struct BoardWord {
  std::uint32_t epoch = 0;
  std::uint16_t expected = 0;
  std::uint16_t arrived = 0;
};
constexpr std::uint64_t pack(BoardWord w) {
  return (static_cast<std::uint64_t>(w.epoch) << 32) | (static_cast<std::uint64_t>(w.expected) << 16) | w.arrived;
}
constexpr BoardWord unpack(std::uint64_t v) {
  return {static_cast<std::uint32_t>(v >> 32), static_cast<std::uint16_t>(v >> 16), static_cast<std::uint16_t>(v)};
}
// The coordinator starts epoch e with `expected` members.
constexpr std::uint64_t board_begin(std::uint32_t e, std::uint16_t expected) { return pack({e, expected, 0}); }
enum class BoardFence : std::uint8_t { waiting, released, superseded, behind };
// Fence 1 of e as the word shows it. `behind`: the board is not at e yet (never after the launcher's
// notice, which follows its write; kept for robustness: wait).
constexpr BoardFence board_state(std::uint64_t w, std::uint32_t e) {
  const BoardWord b = unpack(w);
  if (b.epoch > e) return BoardFence::superseded;
  if (b.epoch < e) return BoardFence::behind;
  return b.arrived >= b.expected ? BoardFence::released : BoardFence::waiting;
}
// One member arriving at fence 1 of e: the new word, or nothing when the word is not at e or is already
// complete (a stale arrival counts for nothing).
constexpr std::optional<std::uint64_t> board_arrive(std::uint64_t w, std::uint32_t e) {
  BoardWord b = unpack(w);
  if (b.epoch != e || b.arrived >= b.expected) return std::nullopt;
  ++b.arrived;
  return pack(b);
}

// --- the segment ---
// Fits a fence line's cards (EpochBootstrap keeps them under 2 KiB) with room to spare.
constexpr std::size_t kBoardSlotText = 4064;
// The most ranks a board serves (the word's counters are 16 bits); larger jobs fence through mpiexec.
constexpr int kBoardMaxRanks = 4096;

class FenceBoard {
 public:
  // mpiexec: create the segment `name` (no leading '/') for n ranks.
  static Result<FenceBoard> create(const std::string& name, int n);
  // A rank: map the segment mpiexec created.
  static Result<FenceBoard> attach(const std::string& name);
  FenceBoard() = default;
  FenceBoard(FenceBoard&& o) noexcept : base_(o.base_), bytes_(o.bytes_) { o.base_ = nullptr; }
  FenceBoard& operator=(FenceBoard&& o) noexcept {
    std::swap(base_, o.base_);
    std::swap(bytes_, o.bytes_);
    return *this;
  }
  ~FenceBoard();
  int size() const;
  // Rank r's life lock (life_lock.h), after the fence slots in the same segment; nullptr if r is out of range.
  LifeSlot* life(int r) const;
  // The mapping outlives this object (a life lock on it is still held; life_lock.h).
  void keep_mapped() { base_ = nullptr; }

  // Coordinator: epoch e begins with `members` members; waiters of older epochs wake.
  void begin(int e, int members);

  // Member `rank`: enter fence 1 of e with `cards`; wait until it is released (true, `got` = the cards of
  // the other members this rank needs: card_reaches with `is_new`) or superseded (false). `give_up()` is
  // polled between waits (a newer notice arrived through the control channel).
  template <class IsNew, class GiveUp>
  bool fence1(int rank, int e, const std::vector<Card>& cards, IsNew is_new, GiveUp give_up, std::vector<Card>* got);

 private:
  FenceBoard(void* base, std::size_t bytes) : base_(base), bytes_(bytes) {}
 public:
  struct Header;  // the segment's layout (fence_board.cpp)
  struct Slot;

 private:
  Header& hdr() const;
  Slot& slot(int r) const;
  void write_slot(int rank, int e, const std::vector<Card>& cards);
  // The slot's text if stamped e; nullopt if stamped newer (its owner moved on); "" if older (not a member).
  std::optional<std::string> read_slot(int r, int e, bool* newer) const;
  // Count in; true when this arrival released the fence. False also when the word is not at e.
  bool arrive(int e);
  BoardFence state(int e, std::uint32_t* seq) const;
  void wait(std::uint32_t seen, int timeout_ms) const;
  void wake_all();

  void* base_ = nullptr;
  std::size_t bytes_ = 0;
};

template <class IsNew, class GiveUp>
bool FenceBoard::fence1(int rank, int e, const std::vector<Card>& cards, IsNew is_new, GiveUp give_up,
                        std::vector<Card>* got) {
  write_slot(rank, e, cards);
  if (arrive(e)) wake_all();
  for (;;) {
    std::uint32_t seq = 0;
    const BoardFence s = state(e, &seq);
    if (s == BoardFence::superseded) return false;
    if (s == BoardFence::released) break;
    if (give_up()) return false;
    wait(seq, 50);
  }
  const int n = size();
  for (int k = 0; k < n; ++k) {
    if (k == rank) continue;
    bool newer = false;
    std::optional<std::string> text = read_slot(k, e, &newer);
    if (newer) return false;  // its owner died and was restarted for a newer epoch
    if (!text || text->empty()) continue;
    for (Card& c : parse_cards(*text))
      if (card_reaches(c.first, rank, is_new)) got->push_back(std::move(c));
  }
  return true;
}

}  // namespace ftmpi::reinit
