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
// Fast path (small groups, `fast` in the constructor): a process that starts with an empty view sends its
// contribution in a FAST message to every other member instead of an UP; one that holds FASTs from all
// the others while its view is still empty decides (AND of all n contributions, failed set {}) — one
// round, n−1 messages per process. Processes of the empty view send no UP or DOWN; any failure (a notice,
// or a message tagged with a non-empty view) moves a process to the tree of its new view as above, where a
// fast decision counts as any decision. Safety: every decision taken in the empty view — fast, or by a
// tree root of the empty view — is the AND of all n contributions with failed set {}, so they are equal;
// a root decides fresh in a non-empty view V only after an undecided UP(V) from every live member of V's
// tree, and a process that sent one has a non-empty view, so it never decides fast afterwards (and one
// that decided fast before sends a decided UP instead). Termination: without failures every FAST arrives;
// with one, every survivor eventually leaves the empty view and the tree argument applies.
//
// Properties checked by tests/sim: agreement (every process that decides, decides the same value and
// failed set), validity (the value is the AND of the contributions of a superset of the processes alive at
// the end, and the failed set contains every failure any participant knew of when it started), termination
// (every survivor decides).
#pragma once
#include <cstdint>
#include <optional>
#include <vector>

#include "ft/rank_set.h"

namespace ftmpi::ft {

// The agreed value: a bit vector combined with AND (a flag is one word; shrink's context-id mask is many).
using Bits = std::vector<std::uint64_t>;

struct AgreeMsg {
  enum class Kind : std::uint8_t { up = 1, down = 2, fast = 3 };
  Kind kind = Kind::up;
  bool decided = false;  // up: the sender has decided; value/failed are its decision
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
  // `me` and `size` are ranks in the communicator; `fast`: take the one-round path (above) when starting
  // with an empty view (every member of the instance must make the same choice).
  Agreement(int me, int size, bool fast = false);

  // This process calls agree with `contribution`, knowing `known_failed` (e.g. acknowledged failures).
  void start(Bits contribution, const RankSet& known_failed);
  void on_message(int src, const AgreeMsg& m);
  void on_failure(int rank);

  // Messages produced since the last call.
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
  void decide(const Bits& value, const RankSet& failed);
  void step();
  void send(int dest, AgreeMsg m) { out_.push_back(Outgoing{dest, std::move(m)}); }
  AgreeMsg make(AgreeMsg::Kind k, const RankSet& tag) const;

  int me_;
  int size_;
  bool started_ = false;
  Bits contribution_;
  RankSet view_;

  // Round state for the current view.
  int parent_ = -1;             // -1: I am the root
  std::vector<int> children_;
  std::vector<ChildUp> ups_;    // undecided UPs of the current view received from children
  bool up_sent_in_view_ = false;
  bool down_sent_in_view_ = false;

  std::optional<RankSet> last_undecided_up_view_;  // tag of the last undecided UP I sent

  // Fast path: FASTs received (before or after start), their AND, and whether I sent mine.
  bool fast_ = false;
  bool fast_sent_ = false;
  std::vector<bool> fast_from_;
  int fast_count_ = 0;
  Bits fast_acc_;
  bool in_fast_round() const { return fast_ && view_.empty(); }

  bool decided_ = false;
  Bits value_;
  RankSet decided_failed_;

  std::vector<Outgoing> out_;
};

}  // namespace ftmpi::ft
