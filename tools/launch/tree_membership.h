// Who is in the launcher tree and under whom, as the origin sees it: re-parenting after the loss of an
// inner daemon (issue 8; seed 002 §3.6, §8.1.3). A plain state machine like tree_liveness.h: the origin
// feeds it the hellos, the losses its links and its daemons report, the adoption requests and the clock;
// it answers which hosts are lost (their ranks are then announced failed) and whether an adoption stands.
// tests/unit/launcher_tree_test.cpp drives it through every case with a fake clock.
//
// Model. As tree_liveness.h: the origin (node 0, never lost) and one daemon per host; a node crashes or a
// link is cut (silence, possibly one way). Every node knows the endpoints of its ancestors. Daemons close
// their parent link only when they fence (after killing their ranks) or once their adoption elsewhere was
// acknowledged; so a link that *closes* under its current parent means the daemon is gone.
//
// Algorithm.
//  * Daemon side (tree_liveness.h): a daemon that loses its parent (EOF, or no echo for the detector timeout
//    T) keeps its ranks and tries its ancestors nearest first (grandparent, ..., origin) for at most R (the
//    re-attach budget); an ancestor relays its "adopt" request to the origin, which decides here; on
//    "adopted" the daemon goes on under its new parent, otherwise at R it fences (kills its ranks, exits).
//  * Origin side (here), for a daemon X with current parent Y:
//    - Y reports X's link closed: X is lost now; X's children become orphans with deadline now + W.
//    - Y reports X silent: X becomes an orphan with deadline now + W (it may be re-attaching elsewhere),
//      unless Y is the origin: X has no other ancestor (it fences without trying, R = 0 for it), so it is
//      lost now, after T + P, as tree_liveness.h argues.
//    - A report from a node that is not X's current parent is ignored (X moved away from it).
//    - X asks adoption by Z: granted iff X is up or an orphan and Z is neither lost nor below X; then X's
//      parent is Z, X is up again, its own subtree follows it unchanged.
//    - An orphan whose deadline passes is lost; its children become orphans with deadline now + W.
//  The origin announces failed the ranks of lost hosts only: the loss of an inner daemon costs its own
//  host, not its subtree.
//
// Safety (two halves never both go on: a host whose ranks are announced failed has fenced first). Let d be
// the delivery and scheduling delay (d < P, the period, as in tree_liveness.h). A daemon X that is lost by
// a closed link has fenced already (see Model). Otherwise X is lost at the deadline of an orphan window,
// opened at time o when the origin learned that X's link to its parent Y failed (Y silent towards X is
// reported no earlier than Y's last hearing of X plus T + P) or that Y itself was lost. X noticed the same
// failure by o + d: its parent's echoes stop at the latest when Y fences or dies, which precedes the
// origin's verdict on Y (tree_liveness.h), and X's own silence towards Y is judged by X's missing echoes
// within T of Y's last hearing, i.e. before Y's report at + T + P. From then X either is adopted (the
// origin's decision is the single linearization point: adopted before the deadline means never lost) or
// fences by its notice time + R. With W >= R + P > R + d, X has fenced before o + W. A refused adoption
// (X already lost) only happens after X's deadline, by which X has fenced. Cost: nothing on the normal
// path; per loss O(children) work and one adopt round trip per orphan; detection of a cut-off host grows
// from T + P to T + P + W for hosts below another daemon (hosts directly under the origin: T + P).
#pragma once
#include <chrono>
#include <vector>

namespace ftmpi::mpiexec {

// The budgets the launcher uses, from the detector period P: a daemon re-attaches within R = 3P; the
// origin keeps an orphan's place for W = R + 2P (W >= R + P, see Safety).
inline std::chrono::milliseconds reattach_budget(std::chrono::milliseconds period) { return 3 * period; }
inline std::chrono::milliseconds adopt_window(std::chrono::milliseconds period) { return 5 * period; }

class TreeMembership {
 public:
  using Clock = std::chrono::steady_clock;
  using Duration = std::chrono::milliseconds;
  enum class State { absent, up, orphan, lost, done };

  // Nodes 0..nodes-1; node 0 (the origin) is always up. `window`: W above.
  TreeMembership(int nodes, Duration window);

  // `node` said hello under `parent` (first attachment).
  void joined(int node, int parent);
  // `reporter` says its link to `node` closed (`closed`) or fell silent. Returns the nodes lost now (at
  // most `node`; empty when ignored or when `node` only became an orphan).
  std::vector<int> link_lost(int node, int reporter, bool closed, Clock::time_point now);
  // `node` asks to be adopted by `parent`. True: granted (parent changed).
  bool adopt(int node, int parent, Clock::time_point now);
  // The job ends in order: `node` is never lost afterwards.
  void done(int node);
  // Orphans whose window has passed are lost now (each reported once).
  std::vector<int> tick(Clock::time_point now);
  Clock::time_point next_deadline() const;

  State state(int node) const { return nodes_[static_cast<std::size_t>(node)].state; }
  int parent(int node) const { return nodes_[static_cast<std::size_t>(node)].parent; }
  // True when `node` is `top` or below it in the current tree.
  bool below(int node, int top) const;

 private:
  struct Node {
    State state = State::absent;
    int parent = -1;
    Clock::time_point deadline{};  // orphan: lost at
  };
  void lose(int node, Clock::time_point now);

  Duration window_;
  std::vector<Node> nodes_;
};

}  // namespace ftmpi::mpiexec
