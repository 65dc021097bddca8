// child_setup.h — the steps a freshly made rank process takes before it runs the program, shared by the
// launcher's fork+exec child (tools/launch/spawn.cpp) and the Reinit respawn template's child
// (models/reinit/respawn_template.cpp), so both give a rank the same signals, descriptors and binding.
//
// Contract: async-signal-safe only (they run between fork and exec, or in a clone of a single-threaded
// process); none allocates or fails loudly: a failure leaves the process as it was (best effort), which the
// callers accept (an unbound rank, a descriptor left open).
#pragma once

#include <csignal>
#include <fcntl.h>
#include <sched.h>
#include <unistd.h>

namespace ftmpi::util {

// The signals a launcher catches go back to their default action, and nothing is blocked.
inline void reset_launcher_signals() {
  for (int s : {SIGPIPE, SIGINT, SIGTERM, SIGHUP, SIGCHLD, SIGQUIT}) signal(s, SIG_DFL);
  sigset_t none;
  sigemptyset(&none);
  sigprocmask(SIG_SETMASK, &none, nullptr);
}

// Descriptors `a` and `b` (either may be -1) stay open across exec; every other one from 3 up is closed
// (descriptors the launcher inherited — a make jobserver, a test harness's pipes — are not the rank's).
inline void keep_only_fds(int a, int b) {
  int keep[2] = {a, b};
  if (keep[1] >= 0 && (keep[0] < 0 || keep[1] < keep[0])) {
    keep[0] = b;
    keep[1] = a;
  }
  unsigned next = 3;  // first descriptor not yet known to be closed or kept
  for (int fd : keep) {
    if (fd < 0) continue;
    fcntl(fd, F_SETFD, 0);
    if (static_cast<unsigned>(fd) > next) close_range(next, static_cast<unsigned>(fd) - 1, 0);
    next = static_cast<unsigned>(fd) + 1;
  }
  close_range(next, ~0U, 0);
}

// Bound to `cpu` when it is >= 0 (best effort: a failure leaves the process unbound).
inline void bind_to_cpu(int cpu) {
  if (cpu < 0) return;
  cpu_set_t set;
  CPU_ZERO(&set);
  CPU_SET(cpu, &set);
  sched_setaffinity(0, sizeof set, &set);
}

}  // namespace ftmpi::util
