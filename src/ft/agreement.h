// Fault-tolerant uniform agreement (seed 000 §1.3 MPI_Comm_agreement; ULFM MPIX_Comm_agree) as a plain
// state machine: events in (start, message, failure notice), messages and a decision out. The same code
// runs inside the library (ft/agreement_op.cpp drives it from the progress loop) and in the deterministic
// simulator (tests/sim), which kills processes at every step and checks the properties below.
//
// Model. Fail-stop processes with a perfect failure detector: the launcher kills a suspect before it
// announces it, so every notice is true, and every survivor eventually receives every notice. Messages
// between live processes are eventually delivered (any order).
//
// Algorithm (one instance = one agreement call on one communicator):
//  * A process's *view* is the set of members it knows to have failed. Views only grow; any view carried
//    by a message is merged into the receiver's view (notices are true, so this is safe).
//  * For a view V, the live members L = members \ V form a binomial tree rooted at min(L).
//  * UP phase: a started process waits for an UP tagged V from each child in the V-tree, then sends its
//    parent UP(V, AND of its own and its children's values). A root that has all its children's UPs
//    decides (value, failed set = V) and sends DOWN(V) to its children, who decide and forward.
//  * Any change of view restarts the UP phase in the new tree (UPs of other views are ignored).
//  * A decided process never changes its decision: it sends UP(V, decided) in every new view, and answers
//    any UP with DOWN(decision). A process receiving a decided UP adopts the decision at once.
//  * A process that has sent an undecided UP tagged V accepts only a DOWN tagged V.
// Safety: a root decides a fresh value only after an undecided UP(V) from every live member of V's tree,
// each sent before that member decided anything, and members that sent such an UP can only accept DOWNs
// of V — so whatever any live process decided earlier flows up to the root first. Termination: finitely
// many failures, so views converge; in the final view everyone's UP reaches the root.
// Cost without failures: every process sends one UP and at most log2(n) DOWNs; 2·log2(n) rounds.
//
// Fast path (small groups, `fast` in the constructor): a recursive-doubling exchange, the message pattern of
// an Allreduce. Let p be the largest power of two <= n and r = n - p. Step 0: an *extra* member e >= p sends
// its contribution to e - p (members below r fold it in). Steps 1..log2(p): member i < p sends its partial
// AND to i ^ 2^(s-1) and ANDs in what that partner sent for the same step. Step log2(p)+1: member i < r sends
// the result to i + p. A member decides (its result, failed set {}) when its last step is done — every
// member holds the AND of all n contributions. FAST messages are tagged with the empty view and their step,
// and are kept (one per step, from the one partner allowed at that step) until this member needs them, also
// before it starts. The second phase of the tree (the DOWN wave) is not needed without failures: the
// exchange delivers the result to everyone in log2(n) rounds; only a failure brings the tree in.
// Members of the empty view send no UP or DOWN; any failure (a notice, or a message tagged with a non-empty
// view — the view is the failure epoch every message carries) moves a member to the tree of its new view
// as above, where a fast decision counts as any decision, and it sends no FAST afterwards.
// Safety: every decision taken in the empty view — by the exchange, or by a tree root of the empty view —
// is the AND of all n contributions with failed set {} (each contribution reaches every result through the
// exchange; AND is idempotent), so they are equal. A root decides fresh in a non-empty view V only after an
// undecided UP(V) from every live member of V's tree; a member that sent one has a non-empty view, so it
// never decides fast afterwards (and one that decided fast before sends a decided UP instead, which the
// root adopts). So a fresh decision in V and a fast decision by a live member cannot both happen: the live
// member is in V's tree and its UP either carries its fast decision or excludes one. A member that decided
// fast and then died is not bound (agreement is among the processes alive at the end, seed 000 §1.3).
// Termination: without failures every partner's FAST arrives; with a failure, every survivor eventually
// gets the notice (perfect detector), leaves the empty view, and the tree argument applies — a member never
// waits in the exchange for a partner that moved on, because it moves on too.
// Cost without failures: log2(p) + (r > 0 ? 2 : 0) rounds; at most log2(p) + 1 messages per member
// (1 at 2 ranks, 4 at 16), n·log2(n) in all for a power of two.
//
// Board phase (ft/agree_board.h): on a communicator with a shared-memory board, start() with the board makes
// the instance try to decide there first; it falls back to everything above (started with the same
// contribution and what it knows by then) only when the board says nobody will decide there. Until then the
// message-passing part is *unstarted*: it keeps what arrives, as before any start.
//
// Reuse: an instance is reset() and reused by the next agreement on the communicator (FtManager keeps the
// decided ones it forgets): its buffers keep their capacity, so a fault-free agreement allocates nothing.
//
// Properties checked by tests/sim: agreement (every process that decides, decides the same value and
// failed set), validity (the value is the AND of the contributions of a superset of the processes alive at
// the end, and the failed set contains every failure any participant knew of when it started), termination
// (every survivor decides).
#pragma once
#include <cstdint>
#include <optional>
#include <span>
#include <vector>

#include "ft/agree_board.h"
#include "ft/rank_set.h"

namespace ftmpi::ft {

// The agreed value: a bit vector combined with AND (a flag is one word; shrink's context-id mask is many).
using Bits = std::vector<std::uint64_t>;

struct AgreeMsg {
  enum class Kind : std::uint8_t { up = 1, down = 2, fast = 3 };
  Kind kind = Kind::up;
  bool decided = false;  // up: the sender has decided; value/failed are its decision
  std::uint8_t step = 0; // fast: the exchange's step (0: from an extra member, last: to an extra member)
  RankSet view;          // the view this message belongs to
  Bits value;            // up: partial AND (or decision); down: decision
  RankSet failed;        // up (decided): decided failed set; down: decided failed set
};

struct Outgoing {
  int dest;
  AgreeMsg msg;
};

class Agreement {
 public:
  // `me` and `size` are ranks in the communicator; `fast`: take the exchange (above) when starting with an
  // empty view (every member of the instance must make the same choice).
  Agreement(int me, int size, bool fast = false) { reset(me, size, fast); }
  // Back to a fresh instance (as constructed), keeping the buffers' capacity.
  void reset(int me, int size, bool fast);

  // This process calls agree with `contribution`, knowing `known_failed` (e.g. acknowledged failures).
  void start(std::span<const std::uint64_t> contribution, const RankSet& known_failed);
  // The same with a board phase first (ft/agree_board.h): instance `j` of `board`; `go_fast`: this member may
  // contribute there (else it closes its entry and falls back once every member arrived). `board` outlives
  // the phase.
  void start(std::span<const std::uint64_t> contribution, const RankSet& known_failed, AgreeBoard* board,
             std::uint64_t j, bool go_fast);
  // Scan the board again (board phase only; nothing otherwise): may decide or fall back (messages to send).
  void on_board();
  // In the board phase (not decided, not fallen back).
  bool on_board_phase() const { return board_ != nullptr; }
  // Would on_board() change anything now (read-only: the outcome published, a failure known, or the window
  // open while waiting for it)? For a sleeping waiter's wake check.
  bool board_ready();
  // Decided on the board (sends and accepts no message).
  bool decided_on_board() const { return board_decided_; }
  void on_message(int src, const AgreeMsg& m);
  void on_failure(int rank);

  // The board phase's steps over board type B (ft/agreement_board_step.h); called by AgreeBoard::step only.
  template <class B>
  void board_step_on(B& b);
  template <class B>
  void and_entries_on(B& b);

  // Messages produced since the last take/clear. outgoing() + clear_outgoing() reuse the messages' buffers
  // (the library's path); take_outgoing() moves them out (the simulator's).
  std::span<const Outgoing> outgoing() const { return {out_.data(), out_n_}; }
  void clear_outgoing() { out_n_ = 0; }
  std::vector<Outgoing> take_outgoing();

  bool started() const { return started_; }
  bool decided() const { return decided_; }
  const Bits& value() const { return value_; }
  const RankSet& failed() const { return decided_failed_; }
  const RankSet& view() const { return view_; }
  // My place in the current view's tree (-1: I am the root); used by bridges (ft/bridge.h).
  int parent() const { return parent_; }
  const std::vector<int>& children() const { return children_; }

 private:
  struct ChildUp {
    int child;
    Bits value;
  };
  void merge_view(const RankSet& v);
  void reset_round();
  void start_messages();  // the message-passing start (after start() or a fallback)
  void set_contribution(std::span<const std::uint64_t> c);
  void board_step();
  void end_board();
  // ft/agree_board.h steps 3-5: the AND of the entries into value_; the board decision (ends the phase);
  // taking a published outcome (true: the phase is over); the last arriver's publication of value_.
  void board_and_entries();
  void board_decided();
  bool board_take_outcome();
  void publish_decision(std::uint64_t j);
  void decide(const Bits& value, const RankSet& failed);
  void step();
  void advance_fast();
  // A message slot to fill (its buffers reused): kind and view set, value and failed empty.
  AgreeMsg& push(int dest, AgreeMsg::Kind k, const RankSet& tag);

  int me_ = 0;
  int size_ = 0;
  bool started_ = false;
  Bits contribution_;
  RankSet view_;

  // Round state for the current view.
  int parent_ = -1;             // -1: I am the root
  std::vector<int> children_;
  std::vector<ChildUp> ups_;    // undecided UPs of the current view received from children
  bool up_sent_in_view_ = false;
  bool down_sent_in_view_ = false;
  bool empty_round_ = false;    // parent_/children_ are the empty view's tree for (me_, size_) (reset keeps them)

  std::optional<RankSet> last_undecided_up_view_;  // tag of the last undecided UP I sent

  // Fast path (recursive doubling; steps 0 .. fast_last_).
  bool fast_ = false;
  int fast_p_ = 1;              // largest power of two <= size
  int fast_last_ = 1;           // log2(fast_p_) + 1: the step that hands the result to an extra member
  int fast_next_ = 0;           // the next step this member has to complete
  int fast_sent_ = -1;          // the last step whose message this member sent
  bool fast_started_ = false;   // started in the empty view (sent or will send FASTs, no UP/DOWN there)
  Bits fast_acc_;               // my partial AND
  std::vector<Bits> fast_in_;   // per step: the partner's value (valid where fast_has_)
  std::uint64_t fast_has_ = 0;  // bit s: fast_in_[s] is valid (steps <= log2(n) + 1 < 64)
  bool has_fast(int s) const { return (fast_has_ >> s) & 1u; }
  bool in_fast_round() const { return fast_ && view_.empty(); }
  int fast_partner(int step) const;  // who sends me / receives from me at `step` (-1: nobody)

  // Board phase.
  AgreeBoard* board_ = nullptr;  // non-null while in the board phase
  std::uint64_t board_j_ = 0;
  bool board_go_ = false;        // may contribute on the board
  bool board_written_ = false;   // own state is contributed or closed
  bool board_decided_ = false;
  // contribution_ without its all-ones ends: [trim_off_, trim_end_), valid while trim_known_ (set_contribution
  // clears it when the words change; kept across reset, as contribution_ is).
  bool trim_known_ = false;
  std::uint32_t trim_off_ = 0, trim_end_ = 0;

  bool decided_ = false;
  Bits value_;
  RankSet decided_failed_;

  std::vector<Outgoing> out_;
  std::size_t out_n_ = 0;
};

}  // namespace ftmpi::ft
