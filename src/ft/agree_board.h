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
//     contribution and CASes its state from empty to contributed; otherwise it CASes it to closed. Either
//     way m then *arrives*: one atomic step on j's arrivals word, which counts the members that arrived at j
//     and whether one of them arrived with its own state closed (a freezer may have closed m's state before
//     m's CAS: m then arrives closed).
//  3. The member whose arrival is the n-th (the *last arriver*) knows every state of j: all contributed if
//     nobody arrived closed (each arriving member saw its own state after its CAS, and states never change),
//     else one is closed. All contributed: it decides (AND of the n contributions, failed set {}) — the
//     *board decision* — and publishes it in j's *outcome* (the value, when it fits, then the outcome word
//     decided); one closed: it publishes the outcome word "fall back" and falls back. Then it rings.
//     A member that is not the last arriver and whose own state is closed falls back at once: one state is
//     closed, so the outcome can only be "fall back" (and a member without a board — its area's set-up
//     failed before it mapped the segment — never arrives: then nobody goes fast, every member with the
//     area closes its own state, and all of them fall back here instead of waiting for an n-th arrival).
//  4. Any other member waits, while it knows no failure, for j's outcome word: decided — it decides the
//     published value (or, if the value did not fit, the AND of the n entries, every state being
//     contributed); fall back — it falls back: it starts the message-passing agreement with its
//     contribution and what it knows (ft/agreement.h).
//  5. A member that knows a failure (from a notice, at the start or later, or the view of an agreement
//     message) scans instead: it first CASes every empty state it finds to closed (the *freeze*); then every
//     state contributed — it decides as in 3; one closed — it falls back. (A published outcome, if any, says
//     the same: it is taken first.)
// A member that has decided on the board sends no agreement message for j and ignores any it receives.
//
// Safety. Each state is decided by the first CAS on it and never changes. A board decision needs every state
// contributed (3, 5; 4 takes 3's); a fallback needs one state closed (3's "fall back" is published only when a
// member arrived closed). So either every state of j ends contributed — then no member ever falls back, every
// member that decides decides on the board, and all board decisions are the AND of the same n contributions
// with failed set {} — or some state ends closed — then no member decides on the board, and every decision
// is the message-passing agreement's, uniform by ft/agreement.h (its members are the survivors that fell
// back; a member that died in the board phase is, to them, a member that died before contributing). A
// process dying after some members decided on the board changes nothing: all states were contributed before
// anyone decided, and a survivor that learns of the death freezes, finds every state contributed and decides
// the same. A last arriver dying between its arrival and its publication leaves the outcome unpublished:
// the survivors learn of its death and scan (5), as when a member dies before arriving. Validity: a board
// decision is the AND of every member's contribution (all n, each written by its member); its failed set {}
// contains every failure a member knew when it started, because a member that knew one closed its own state.
// Messages of j reaching a member still in its board phase come from a member that fell back, i.e. that
// saw a closed state or the published "fall back": the receiver merges the message's view first (a sender
// that scanned knows a failure, and its view says so) and then scans or reads the outcome word, which shows
// it the same, and falls back before handling the message; an unstarted message-passing agreement keeps
// messages until it starts (ft/agreement.h), so nothing is lost.
// Liveness. Without failures every member with a board arrives and the last one publishes (members without
// one exist only when every member closes its own state, and then each falls back on arriving: 3). With a failure: a dead member
// may never arrive (or die before publishing), but every survivor gets the notice and freezes, after which
// every state is contributed or closed and the scan ends; the fallback terminates by ft/agreement.h. A
// stopped (SIGSTOP) member is waited for, as by the message-passing agreement, until the detector declares
// it failed.
//
// Two kinds. The arrivals pay off when ranks outnumber cores: every waiter's turn on a core then costs its
// reads, and a waiter reads one line instead of n. With a core per rank the arrivals word is one more line
// handed from core to core on the critical path (measured at 2 ranks: agree 0.96 against 0.78 us), so such
// boards are *scanned*: no arrivals and no outcome; in steps 2-4 a member instead scans every state after its
// CAS and on every wake-up — every state contributed: it decides (AND of the entries); one closed: it falls
// back — and a member whose own state is closed, or whose contribution is the last, rings the others. The
// safety argument above uses only "a board decision needs every state contributed, a fallback one state
// closed", which the scan keeps; liveness: every member scans after its own CAS, so the last CAS's writer
// sees every state written. The kind is chosen by the first member that makes the board (oversubscribed or
// not) and stored in the area (a CAS from 0), so every member uses the same.
//
// Window. The board has kBoardRing entries per member and kBoardRing outcomes (arrivals word, outcome word,
// value), reused: instance j uses entry and outcome j mod kBoardRing. Before writing anything for j (step 2
// or a freeze), m waits until every member not known failed has *finished* every board phase of instances up
// to j − kBoardRing (each member publishes the lowest instance whose phase it has not finished yet, `done`).
// So no live member still reads an entry or an outcome when it is reused (a member finishes j only after it
// read j's outcome; the last arriver of j publishes before it finishes j, and nobody arrives at j + kBoardRing
// before it did), and a state of a later instance is never seen in place of j's (a member known failed reads
// and writes nothing more). The arrivals and outcome words carry their instance, so a word of j − kBoardRing
// reads as "nobody arrived" and "not published". The wait always ends: a member still in j − kBoardRing waits
// only on what that instance's members write (or freeze) without waiting for j.
//
// Waking. A waiter spins briefly (a blocking start: FtManager::spin_on_board; not in an oversubscribed job,
// where the members it waits for need its core), then waits in the progress loop like any MPI wait (yield,
// then sleep on its doorbell: progress/progress.h); it is rung only by what ends its wait: the last arriver's
// publication, or a freeze (a member that learnt of a failure; the others learn of it too). (Ringing at every
// contribution woke every waiter n−1 times per agreement: measured slower than the point-to-point exchange
// on 4 oversubscribed ranks.)
//
// Cost without failures: one CAS and one line of contribution written per member, one atomic step on the
// arrivals word; the last arriver reads the n entries and writes the outcome (one line for up to 4 words of
// value, one more per 8 words), the others read the outcome — the pattern of the area's Allreduce
// (coll/shm_area.h "Last arriver"): a waiter reads one line, not n, which matters when ranks outnumber
// cores and every waiter's turn on a core costs its scan. No message, no allocation, no leader.
// A value whose trimmed words are all the same word is published in the repeated form (that word and a
// count: AgreeBoard::publish), on the outcome's first line: a fault-free TryBlock commit's value is n slots
// of zeros (3 words each below 65 members: 48 words, 7 lines, at 16 members), and every waiter read the 7
// lines the last arriver had just written — 6 more cache-line hand-offs per waiter and call than the
// Allreduce's one (measured under callgrind at 16 ranks: ~400 instructions per waiter and call in
// board_take_outcome alone). Only the encoding changes: the value read back is the same words.
#pragma once
#include <cstdint>
#include <span>

#include "ft/rank_set.h"

namespace ftmpi::ft {

inline constexpr int kBoardWords = 6;       // contribution words an entry holds (beyond: not fast)
inline constexpr int kBoardResultWords = 60;  // value words an outcome holds (beyond: waiters AND the entries)
inline constexpr std::uint32_t kBoardNoResult = 0xffffffffu;  // an outcome without its value (publish's total, result's len)
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
  // A published value only (AgreeBoard::result): non-zero when [off, off+len) holds `len` copies of words[0]
  // and only that one word is stored (the "repeated" form; entries never use it).
  bool repeated = false;
};

class Agreement;

// One communicator's board (every member of its instances sees the same). Calls are from one thread.
class AgreeBoard {
 public:
  virtual ~AgreeBoard() = default;
  // Run a's board step (steps 1-5 below) over this board: a.board_step_on(*this). A final board type
  // overrides it with the same call on its own type (ft/agreement_board_step.h), so that the step's many
  // small calls are inlined; the simulator's boards keep this one.
  virtual void step(Agreement& a);
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
  // The same right after this member's own CAS on a state word (its last store): a board whose CAS is a
  // full barrier needs no fence before it looks who sleeps.
  virtual void ring_after_cas() { ring(); }
  // A counted board (steps 2-4 as above) or a scanned one (no arrivals, no outcome: see "Two kinds"). The
  // same at every member of the board, for good.
  virtual bool counted() const = 0;
  // Arrive at j (step 2, once per member and instance, after its own state is written; `closed`: that state
  // is closed). True for the last of the n arrivals; then *any_closed says whether some member arrived closed.
  virtual bool arrive(std::uint64_t j, bool closed, bool* any_closed) = 0;
  // The last arriver's publication of j (step 3): the value (kBoardNoResult as `total` in a decided outcome
  // whose value does not fit: no words), then the outcome word `tag` = board_state(j, kBoardContributed)
  // (decided) or board_state(j, kBoardClosed) (fall back), release. `repeat` > 0: the repeated form — the
  // value's words [off, off+repeat) are all words[0] (words holds that one word); result() gives it back as
  // BoardEntry{total, off, repeat, words, repeated = true}.
  virtual void publish(std::uint64_t j, std::uint64_t tag, std::uint32_t total, std::uint32_t off,
                       std::span<const std::uint64_t> words, std::uint32_t repeat) = 0;
  // j's outcome word (acquire): board_empty(w, j) while not published.
  virtual std::uint64_t outcome(std::uint64_t j) = 0;
  // j's published value (valid once outcome(j) is decided; len = kBoardNoResult: not published, read the
  // entries).
  virtual BoardEntry result(std::uint64_t j) = 0;
};

}  // namespace ftmpi::ft
