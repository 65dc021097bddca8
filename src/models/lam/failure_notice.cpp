#include "models/lam/failure_notice.h"

#include <chrono>

#include "comm/group.h"
#include "ft/failure_state.h"
#include "runtime/runtime.h"
#include "util/log.h"
#include "util/spin_wait.h"

namespace ftmpi::lam {

void await_failure_notice(Runtime& rt, const comm::Communicator* c) {
  if (c == nullptr || c->group == nullptr) return;
  const ft::FailureState& fs = rt.failures();
  auto known = [&] {
    for (int w : c->group->world_ranks)
      if (fs.failed(w)) return true;
    if (c->remote_group)
      for (int w : c->remote_group->world_ranks)
        if (fs.failed(w)) return true;
    return false;
  };
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
  // The service thread sets the bit; nothing to progress here. The shared back-off rule (a few timed yields,
  // then naps from 20 µs growing to 1 ms) instead of 10,000 wake-ups a second while the notice travels.
  util::SpinWait wait(0);
  while (!known()) {
    if (std::chrono::steady_clock::now() > deadline) {
      log::warn("an operation failed with a process failure but no failure notice for its communicator came within 30 s");
      return;
    }
    wait.idle();
  }
}

}  // namespace ftmpi::lam
