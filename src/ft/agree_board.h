// The agreement's shared-memory phase (issue 13 target 6, issue 10's commit): on a communicator whose members
// all share the collective area (coll/shm_area.h), an agreement first tries to decide on a *board* of shared
// words, without messages, and falls back to the message-passing agreement (ft/agreement.h) only when a
// failure gets in the way. The board is an interface, so that the same Agreement code runs over the library's
// shared memory (ft/shm_board.h) and over the simulator's (tests/sim/agree_board_sim_test.cpp), which kills
// processes between any two board steps and checks the agreement's properties.
//
// Model. That of ft/agreement.h (fail-stop processes, perfect detector: a process is killed before its
// failure is announced, so a process known failed writes nothing more; every survivor gets every notice),
// plus shared memory that outlives its writers: a word written by a process that then dies stays readable,
// and a compare-and-swap (CAS) is atomic. Every member of instance j sees the same board for j.
//
// Board. For every member r and instance j an *entry*: a state word and r's contribution (its words outside
// the trimmed all-ones ends: total length, offset, up to kBoardWords words). The state word of j is
//   empty       (any word of an earlier instance),
//   contributed (j, 1): r's contribution for j is in the entry (written before the CAS, release/acquire),
//   closed      (j, 2): nobody's contribution for j will ever be there.
// An entry leaves `empty` by one CAS, and never changes afterwards: whoever's CAS wins decides it for good.
// Only r itself writes `contributed` into r's entry; anybody may write `closed` into an empty entry.
//
// Algorithm (instance j, member m; the *phase* ends when m decides or falls back):
//  1. m waits until the board may be written for j (the window, below).
//  2. If m may go fast — no member known failed, its contribution fits, the caller waits until decided (a
//     blocking agree or a commit without timeout) and its set-up of the area succeeded — it writes its
//     contribution and CASes its state from empty to contributed; otherwise it CASes it to closed.
//  3. m then scans every member's state. If m knows a failure (from a notice, now or later), it first CASes
//     every empty state it finds to closed (the *freeze*). If every state is contributed: m decides (AND of
//     the n contributions, failed set {}) — the *board decision*. If some state is closed: m falls back: it
//     starts the message-passing agreement with its contribution and what it knows (ft/agreement.h). Else m
//     waits (polling, or woken by a writer's doorbell) and scans again; a failure notice triggers a scan.
// A member that has decided on the board sends no agreement message for j and ignores any it receives.
//
// Safety. Each state is decided by the first CAS on it and never changes. A board decision needs every state
// contributed; a fallback needs one state closed. So either every state of j ends contributed — then no
// member ever falls back, every member that decides decides on the board, and all board decisions are the
// AND of the same n contributions with failed set {} — or some state ends closed — then no member decides on
// the board, and every decision is the message-passing agreement's, uniform by ft/agreement.h (its members
// are the survivors that fell back; a member that died in the board phase is, to them, a member that died
// before contributing). A process dying after some members decided on the board changes nothing: all states
// were contributed before anyone decided, and a survivor that learns of the death freezes, finds every state
// contributed and decides the same. Validity: a board decision is the AND of every member's contribution
// (all n, each written by its member); its failed set {} contains every failure a member knew when it
// started, because a member that knew one closed its own state. Messages of j reaching a member still in its
// board phase come from a member that fell back, i.e. that saw a closed state: the receiver scans first
// (it sees that state too) and falls back before handling them; an unstarted message-passing agreement keeps
// messages until it starts (ft/agreement.h), so nothing is lost.
// Liveness. Without failures every member contributes (or closes) and every scan ends. With a failure: a dead
// member's state may stay empty, but every survivor gets the notice and freezes, after which every state is
// contributed or closed and the scan ends; the fallback terminates by ft/agreement.h. A stopped (SIGSTOP)
// member is waited for, as by the message-passing agreement, until the detector declares it failed.
//
// Window. The board has kBoardRing entries per member, reused: instance j uses entry j mod kBoardRing. Before
// writing anything for j (step 2 or a freeze), m waits until every member not known failed has *finished*
// every board phase of instances up to j − kBoardRing (each member publishes the lowest instance whose phase
// it has not finished yet, `done`). So no live member still reads an entry when it is reused, and a state of
// a later instance is never seen in place of j's (a member known failed reads nothing more). The wait always
// ends: a member still in j − kBoardRing waits only on entries of that instance, which are written (or
// frozen) without waiting for j.
//
// Waking. A waiter spins briefly (a blocking start: FtManager::spin_on_board; not in an oversubscribed job,
// where the members it waits for need its core), then waits in the progress loop like any MPI wait (yield,
// then sleep on its doorbell: progress/progress.h); it is rung only by what ends its wait: a closed
// state (by its closer or a freezer) or the last contribution — the CASes are sequentially consistent, so of
// two members that contribute and then scan, the later one sees both, and the last one's scan sees every
// state contributed and rings every sleeping member. (Ringing at every contribution woke every waiter n−1
// times per agreement: measured slower than the point-to-point exchange on 4 oversubscribed ranks.)
//
// Cost without failures: one CAS and one line of contribution written per member, n lines read by each
// (one flat round, no leader: the last contributor decides at once, the others on their next scan), one
// doorbell check of every member by the last contributor; no message, no allocation. An Allreduce through the area takes
// two hand-offs (members → leader → members); the board takes one.
#pragma once
#include <cstdint>
#include <span>

#include "ft/rank_set.h"

namespace ftmpi::ft {

inline constexpr int kBoardWords = 6;       // contribution words an entry holds (beyond: not fast)
inline constexpr std::uint64_t kBoardRing = 8;  // entries per member (outstanding board instances)

// State words of an entry for instance j.
inline constexpr std::uint64_t kBoardContributed = 1, kBoardClosed = 2;
inline constexpr std::uint64_t board_state(std::uint64_t j, std::uint64_t tag) { return (j << 2) | tag; }
inline constexpr bool board_empty(std::uint64_t s, std::uint64_t j) { return (s >> 2) < j || s == 0; }

struct BoardEntry {
  std::uint32_t total = 0;  // length of the contribution (words); every word outside [off, off+len) is all-ones
  std::uint32_t off = 0;
  std::uint32_t len = 0;
  const std::uint64_t* words = nullptr;
};

// One communicator's board (every member of its instances sees the same). Calls are from one thread.
class AgreeBoard {
 public:
  virtual ~AgreeBoard() = default;
  // Member r's state word of instance j's entry (acquire).
  virtual std::uint64_t state(int r, std::uint64_t j) = 0;
  // CAS member r's state word of j from `expected` to `desired` (acq_rel); on failure `expected` gets the
  // current word.
  virtual bool cas(int r, std::uint64_t j, std::uint64_t& expected, std::uint64_t desired) = 0;
  // Member r's contribution of j (valid once its state is contributed for j).
  virtual BoardEntry entry(int r, std::uint64_t j) = 0;
  // Write this member's contribution of j (before its CAS to contributed).
  virtual void write(std::uint64_t j, std::uint32_t total, std::uint32_t off, std::span<const std::uint64_t> words) = 0;
  // The window: may entries of j be written (every member not in `failed` has finished j − kBoardRing)?
  virtual bool window_open(std::uint64_t j, const RankSet& failed) = 0;
  // This member's board phase of j begins / is over (it reads nothing of j any more): publishes `done`.
  virtual void begin(std::uint64_t j) = 0;
  virtual void finish(std::uint64_t j) = 0;
  // Wake members that may wait on the board (after a state change).
  virtual void ring() = 0;
};

}  // namespace ftmpi::ft
