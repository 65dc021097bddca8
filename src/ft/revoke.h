// Revoke propagation (seed 000 §1.3.1 MPI_Comm_invalidate) as a state machine: a reliable broadcast by
// flooding. The first time a process learns of the revoke — from its own call or from any message — it
// marks the communicator revoked and forwards the revoke to every other member; later notices are ignored.
// Property (checked by tests/sim/revoke_sim_test.cpp with failures at every step): if any process that
// stays alive marks the communicator revoked, every process that stays alive does, whoever dies during
// the broadcast — because that survivor forwarded to all of them itself.
// Cost: each process sends size-1 messages once; one round when nobody fails.
#pragma once
#include <vector>

namespace ftmpi::ft {

class RevokeFlood {
 public:
  RevokeFlood(int me, int size) : me_(me), size_(size) {}
  // The local call (from = -1) or a revoke message from `from`. Returns the members to forward to: all
  // others on the first trigger, nothing afterwards.
  std::vector<int> trigger(int from) {
    if (revoked_) return {};
    revoked_ = true;
    std::vector<int> to;
    to.reserve(static_cast<std::size_t>(size_ > 0 ? size_ - 1 : 0));
    for (int r = 0; r < size_; ++r)
      if (r != me_ && r != from) to.push_back(r);
    return to;
  }
  bool revoked() const { return revoked_; }

 private:
  int me_;
  int size_;
  bool revoked_ = false;
};

}  // namespace ftmpi::ft
