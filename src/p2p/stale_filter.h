// Recycling context ids safely: which incoming frames belong to a communicator this process has retired.
//
// Model. A context slot (the pair of ids 2s, 2s+1, comm/context_alloc.h) is given back as soon as the
// communicator that held it is retired here (freed by the user, no request left on it), and another
// communicator may get it at once. Frames of the old communicator can still arrive afterwards: a revoke
// forwarded late by a member that had not freed it yet, agreement messages of a member still answering
// late UPs, p2p frames of operations a revoke cut short. Such a frame must never reach the new
// communicator (a spurious revoke, a wrong match).
//
// Scheme (retire notices). When a process retires a communicator it sends every other member a `retire`
// frame on the slot, *after* everything it ever sent on that communicator (frames between two processes
// are delivered in order: one transport per peer, one FIFO backlog per peer in the engine), and it never
// sends on that communicator again. For every (slot s, peer q) a process keeps
//     pending(s, q) = (communicators on s that included q retired here) − (retire notices from q for s),
// and drops an incoming frame from q on s while pending(s, q) > 0.
// Safety: pending(s, q) > 0 means this process retired a communicator C on s whose notice from q has not
// arrived; everything q sent before that notice belongs to C or to an older communicator on s (q can only
// join a newer communicator on s after giving s back itself, i.e. after retiring C and sending the notice),
// so dropping is right. pending(s, q) <= 0: every communicator on s shared with q that this process
// retired has had q's notice, so the frame is for this process's current (or a future) communicator on s.
// A notice may arrive before the communicator is even created here (q was fast): pending goes to −1 and
// back to 0 at the local retirement, in between q sends nothing on s that this process can receive.
// A dead member never sends its notice: its later frames on s are dropped for good, which is harmless.
// Cost: n−1 notice frames per communicator freed (n members), and one branch per incoming frame while no
// notice is outstanding (a hash look-up otherwise).
#pragma once
#include <cstddef>
#include <cstdint>
#include <span>
#include <unordered_map>

namespace ftmpi::p2p {

class StaleFilter {
 public:
  // This process retired a communicator on the slot of context `ctx` whose other members are `peers`.
  void retired_here(std::uint32_t ctx, std::span<const int> peers) {
    for (int q : peers) add(key(ctx, q), +1);
  }
  // `peer`'s retire notice for the slot of `ctx`.
  void notice_from(std::uint32_t ctx, int peer) { add(key(ctx, peer), -1); }
  // True when a frame from `peer` on context `ctx` belongs to a communicator retired here.
  bool stale(std::uint32_t ctx, int peer) const {
    if (positive_ == 0) return false;
    auto it = pending_.find(key(ctx, peer));
    return it != pending_.end() && it->second > 0;
  }
  // Entries kept (tests, diagnostics).
  std::size_t size() const { return pending_.size(); }

 private:
  static std::uint64_t key(std::uint32_t ctx, int peer) {
    return (std::uint64_t{ctx / 2} << 32) | static_cast<std::uint32_t>(peer);
  }
  void add(std::uint64_t k, int d) {
    int& v = pending_[k];
    const bool was = v > 0;
    v += d;
    const bool is = v > 0;
    if (was && !is) --positive_;
    if (!was && is) ++positive_;
    if (v == 0) pending_.erase(k);
  }
  std::unordered_map<std::uint64_t, int> pending_;
  std::size_t positive_ = 0;  // entries > 0
};

}  // namespace ftmpi::p2p
