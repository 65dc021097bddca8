// Liveness of the launcher tree (issue 8 items 2-4; seed 002 §3.6, §8.1.3) as a plain state machine: the
// caller feeds it what happened on its links (heard a frame, the link closed, a child connected) and the
// clock; it answers when to send heartbeats, which children are lost and whether this daemon must fence
// itself. It knows no socket, process or time source, so tests/unit/tree_liveness_test.cpp drives it
// with a fake clock through every case (silence, EOF, a cut in either direction, slow start).
//
// Model. Nodes are the origin (mpiexec, the root) and one daemon per host, in a tree of fan-out k (node
// i > 0 has parent (i-1)/k in heap numbering, tree_shape.h). A node crashes (power loss, SIGKILL,
// SIGTERM) or a link is cut; a cut gives no EOF, only silence, possibly in one direction only. Clocks are
// local and monotonic; a live, scheduled node handles its events within a small delay d << period P.
// Frames on a live link are delivered in order.
//
// Algorithm. Each daemon sends a heartbeat frame to its parent every period P; a parent answers each
// heartbeat of a child at once with one of its own (an echo). Every node keeps the last time it heard
// each link: a child by any frame, the parent by its echoes only (data frames from a parent that has
// stopped hearing us must not keep us alive).
//  * Daemon, parent link: closed (EOF, reset) or no echo for the detector timeout T -> re-attach: for at
//    most the re-attach budget R the daemon keeps its ranks and asks its ancestors, nearest first, to adopt
//    it (tree_membership.h holds the origin's side and the argument); adopted -> it goes on; at R -> fence:
//    the daemon kills its ranks and exits (it can no longer reach the origin, so it must not go on;
//    §8.1.3). With R = 0 it fences at once.
//  * Any node, child link: closed -> that child's subtree is lost at once (a killed host's sockets close:
//    the fast path). Silent for T + P -> lost (the slow path: partition, hung host).
//  * A child that was launched but never connected within the start-up limit S is lost too.
// The origin turns "child subtree lost" into "every rank of those hosts failed" (failure_judge.h).
//
// Safety (two halves never both go on): let a link be cut, in one direction or both, at time c, and let
// t_p be the last time the parent heard the child. Echoes answer what the parent hears, so the child's
// last echo left the parent by t_p and arrives by t_p + d (d: delivery and scheduling delay); the child
// fences by t_p + d + T. The parent declares the subtree lost at t_p + T + P, or earlier only on a
// closed link, which the child's own fence causes (an up-only cut) or which closes the child's side too
// (then it fences at once). So the fence precedes the declaration whenever d < P: a daemon starved of CPU
// for longer than a period may overlap, and fail-stop holds again as soon as it runs, since its first act
// on waking is to see the silence and fence. A daemon whose parent died fences too: no subtree outlives
// its path to the origin. The origin never fences: it is the master node of §3.6; its loss ends the job
// (every daemon fences). tests/unit/launcher_tree_test.cpp checks the ordering for every heartbeat phase
// and each cut direction.
//
// Starvation. A node that was runnable but got no CPU for longer than a period (a loaded machine) sent no
// heartbeats meanwhile, so on waking it finds no echo and its children's frames may be missing too: without
// care it would fence itself (or declare its children lost) for its own starvation (3 of 80 runs at load 39,
// 2026-11-27). So the time it was kept off the CPU, as the scheduler counts it (run-queue wait, not time
// stopped or asleep), is taken off the silence it judges (stalled()), up to T per stall. Safety holds as
// before: a later declaration by a parent is never unsafe, and a child that credits a stall S fences at most
// min(S, T) later than it would have, which the parent bounds anyway: a parent that has declared the subtree
// lost closes the link, and the child fences at once on the EOF. Real loss is detected as fast as before on
// a closed link, and within T + P plus the judge's own starvation on silence.
//
// Cost. Two frames per link per period (heartbeat and echo); the origin holds k sockets whatever the
// number of hosts. Detection: a closed link at once; silence within T + P (children) or T (parent).
#pragma once
#include <chrono>
#include <vector>

namespace ftmpi::mpiexec {

class TreeLiveness {
 public:
  using Clock = std::chrono::steady_clock;
  using Duration = std::chrono::milliseconds;

  // `has_parent`: false for the origin. `startup`: how long a launched child may take to connect.
  TreeLiveness(Duration period, Duration timeout, Duration startup, bool has_parent, Clock::time_point now);

  enum class Why { none, closed, silent, never_connected };

  // A child slot (by the caller's index, 0..) was launched and is expected to connect.
  void expect_child(int child, Clock::time_point now);
  // The child connected (its hello arrived): heard from now on.
  void child_connected(int child, Clock::time_point now);
  // Any frame from the child. For its heartbeat frames, answer with an echo while this returns true.
  bool heard_child(int child, Clock::time_point now);
  void child_closed(int child);  // EOF or error on its link
  // The child's subtree ended in order (it said it is done): never lost afterwards.
  void child_done(int child);
  // An echo (heartbeat frame) from the parent.
  void heard_parent(Clock::time_point now);
  void parent_closed();
  // This node was kept off the CPU (runnable, not running: stall_meter.h) for `stall` since the last call.
  // A stall of at least half a period is not the others' silence: we could neither send our heartbeats (so
  // the parent had nothing to echo) nor read theirs. The parent's and the children's last-heard times move
  // forward by it, at most by one timeout per stall. Shorter stalls are the scheduling delay d the model
  // allows and change nothing. See "Starvation" above.
  void stalled(Duration stall);
  // Re-attach budget R (default 0: fence as soon as the parent is lost).
  void set_reattach(Duration budget) { reattach_ = budget; }
  // The origin granted our adoption under a new parent: heard from now on.
  void adopted(Clock::time_point now);
  bool reattaching() const { return reattaching_; }

  struct Actions {
    bool send_heartbeats = false;  // daemon: send a heartbeat to the parent now
    bool reattach = false;         // daemon: the parent is lost; try the ancestors now (once per loss)
    bool fence = false;            // daemon: the parent is lost; kill the ranks and exit (once)
    Why fence_why = Why::none;
    std::vector<int> lost;         // children lost at this tick (each reported once)
    std::vector<Why> lost_why;     // parallel to `lost`
  };
  // Everything due at `now`. Events (closed links) are reported at the next tick; callers tick after
  // every batch of events and at next_deadline().
  Actions tick(Clock::time_point now);
  // The earliest time tick() has something to do.
  Clock::time_point next_deadline() const;

  bool child_lost(int child) const;
  bool fenced() const { return fenced_; }
  Duration child_limit() const { return timeout_ + period_; }

 private:
  enum class State { unused, pending, up, closed, lost, done };
  struct Child {
    State state = State::unused;
    Clock::time_point since{};  // pending: launch time; up: last heard
  };
  Child& child(int i);

  Duration period_, timeout_, startup_;
  bool has_parent_;
  bool parent_closed_ = false;
  bool fenced_ = false;
  Duration reattach_{0};
  bool reattaching_ = false;
  Why parent_why_ = Why::none;
  Clock::time_point parent_lost_at_{};
  Clock::time_point parent_heard_;
  Clock::time_point next_beat_;
  std::vector<Child> children_;
};

}  // namespace ftmpi::mpiexec
