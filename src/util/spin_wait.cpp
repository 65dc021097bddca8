#include "util/spin_wait.h"

#include <algorithm>

namespace ftmpi::util {

void SpinWait::idle() {
  switch (phase_) {
    case Phase::spin:
      if (passes_ < spins_) {
        ++passes_;
#if defined(__x86_64__) || defined(__i386__)
        __builtin_ia32_pause();
#endif
        return;
      }
      phase_ = Phase::yield;
      yield_until_ns_ = mono_ns() + kYieldPhaseNs;
      [[fallthrough]];
    case Phase::yield: {
      const long long now = mono_ns();
      if (now < yield_until_ns_ && rule_.may_yield(now)) {
        ++yields_;
        if (rule_.yield()) phase_ = Phase::sleep;  // a CPU-bound program shares our core: sleep from now on
        return;
      }
      phase_ = Phase::sleep;
      [[fallthrough]];
    }
    case Phase::sleep: {
      timespec nap{0, static_cast<long>(sleep_ns_)};
      nanosleep(&nap, nullptr);
      sleep_ns_ = std::min(2 * sleep_ns_, kMaxSleepNs);
      return;
    }
  }
}

}  // namespace ftmpi::util
