#include "models/lam/failure_notice.h"

#include <time.h>

#include <chrono>

#include "comm/group.h"
#include "ft/failure_state.h"
#include "runtime/runtime.h"
#include "util/log.h"

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
  while (!known()) {
    if (std::chrono::steady_clock::now() > deadline) {
      log::warn("an operation failed with a process failure but no failure notice for its communicator came within 30 s");
      return;
    }
    timespec ts{0, 100000};  // the service thread sets the bit; nothing to progress here
    nanosleep(&ts, nullptr);
  }
}

}  // namespace ftmpi::lam
