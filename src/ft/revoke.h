// Revoke propagation (seed 000 §1.3.1 MPI_Comm_invalidate) as a plain state machine: a reliable broadcast
// over a k-nomial tree rooted at the revoker, which falls back to a flood only when a failure could have cut
// the tree. The same code runs inside the library (FtManager::revoke drives it) and in the deterministic
// simulator (tests/sim/revoke_sim_test.cpp), which kills processes at every step.
//
// Model. As in ft/agreement.h: fail-stop processes, a perfect failure detector (every notice is true and
// every survivor eventually receives every notice), messages between live processes eventually delivered
// in any order; a dead process's messages may be delivered late (after its notice) or not at all.
//
// Messages. TREE(o, k): "o revoked; pass it down o's k-nomial tree" (the radix k is o's choice, carried by
// the message, so every process forwards down the same tree whatever its own radix: FTMPI_REVOKE_RADIX is
// read by each process, and the members of an intercommunicator between two separately launched jobs
// (MPI_Comm_connect/accept) need not share an environment; with each process forwarding down its own radix's
// tree, a subtree could be missed). FLOOD: "revoked" (the sender sends it to every member itself). K is the
// set of members this process knows to have failed.
// Rules (one instance per communicator and process):
//  A. On the local call, or on the first TREE(o, k) for a given origin o (the local call is TREE(me, my
//     radix)): mark revoked; if o is in K, flood; otherwise send TREE(o, k) to my children in o's k-nomial
//     tree, replacing every child in K by its own children (recursively: the tree routes around known
//     failures). In a star (k ≥ size) only o has children: a leaf forwards nothing.
//  B. On FLOOD from p: mark revoked; flood if p is in K.
//  C. On a failure notice of a member not in K while revoked: flood.
//  D. When this process stops serving the broadcast (it frees the communicator: later notices would find
//     nobody to act on them) while revoked: flood.
//  E. A member that freed the communicator (its retire notice, p2p/stale_filter.h: after everything it
//     sent) without having sent me anything counts as failed from then on (it may have freed it unrevoked
//     and dropped a TREE meant for its subtree); one that sent me a frame was revoked, so flooded (D) and
//     needs nothing.
//  Flooding (FLOOD to every member not in K) happens at most once; after it, nothing more is sent.
// Reliability: if a process that stays alive (survivor) s is revoked, every survivor t that keeps the
// communicator is (a member that freed it unrevoked is "failed" for this argument, by E). If some survivor
// ever floods, t receives its FLOOD. Otherwise (no survivor floods) every revoked survivor knew, when it was
// first revoked, every failure F it will ever learn (C) — and notices are eventually complete, so its K is
// exactly F from then on (and none stopped serving, D). s was revoked by its own call, by a FLOOD from a dead p (then s knows p is dead and
// floods by B: excluded), or by TREE(o) — with o alive, else s floods by A. So o is a survivor and revoked.
// Induction on the depth in o's tree (one tree: every TREE(o, k) names the same k, o's): t's nearest live
// ancestor a received TREE(o, k) (or is o) and forwarded it around K = F, and every node between a and t is
// in F, so a sent TREE(o, k) to t itself.
// Termination: each process forwards each origin's tree once and floods at most once.
// Cost without failures: size-1 messages in all (every process but the revoker receives one), at most
// (radix-1)·log_radix(size) sent by any process, log_radix(size) hops. With a failure known to all before
// the revoke: the same, routed around it. A failure learnt during the broadcast: one flood per revoked process,
// and freeing a revoked communicator costs a flood (off the revoke's critical path).
#pragma once
#include <cstdint>
#include <vector>

namespace ftmpi::ft {

struct RevokeOut {
  static constexpr int kFlood = -1;
  int dest;    // member index
  int origin;  // TREE(origin, radix), or kFlood
  int radix;   // the tree's radix (origin's choice); 0 for kFlood
};

class RevokeBroadcast {
 public:
  // `me` and `size` number the members (an intercommunicator's: both groups, see FtManager); `radix` ≥ 2
  // is the fan-out per level of this process's own tree, the one its local call starts (radix ≥ size: the
  // revoker sends to everybody, a one-hop star).
  RevokeBroadcast(int me, int size, int radix);

  void start() { on_tree(me_, radix_); }               // the local call
  // TREE(origin, radix) or FLOOD (origin == kFlood, radix ignored) from `from`. A radix below 2 is taken as 2.
  void on_message(int from, int origin, int radix);
  void on_failure(int member);                         // a failure notice (any time, revoked or not)
  void on_retired(int member);                         // rule E: `member` freed the communicator
  void retire() { if (revoked_) flood(); }             // rule D: the last call on this instance
  std::vector<RevokeOut> take_outgoing();

  bool revoked() const { return revoked_; }
  bool flooded() const { return flooded_; }

  // o's k-nomial tree, in o-relative ranks: the children of relative rank `rel` among `size`, largest
  // subtree first. Exposed for tests.
  static void tree_children(int rel, int size, int radix, std::vector<int>* out);

 private:
  void on_tree(int origin, int radix);
  void forward(int origin, int rel, int radix);  // TREE(origin, radix) to rel's live children, around K
  void flood();
  bool known_failed(int m) const { return failed_[static_cast<std::size_t>(m)]; }

  int me_;
  int size_;
  int radix_;
  bool revoked_ = false;
  bool flooded_ = false;
  std::vector<bool> failed_;     // K, by member index
  std::vector<bool> forwarded_;  // origins whose tree this process has forwarded
  std::vector<bool> heard_;      // members that sent me a revoke frame
  std::vector<RevokeOut> out_;
};

}  // namespace ftmpi::ft
