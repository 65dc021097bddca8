#include "stop_judge.h"

#include "proc_state.h"

namespace ftmpi::mpiexec {

bool StopWatch::stopped_for(bool stopped_now, Clock::time_point now, Clock::duration limit) {
  if (!stopped_now) {
    seen = false;
    return false;
  }
  if (!seen) {
    seen = true;
    since = now;
  }
  return now >= since + limit;
}

bool StopWatch::sample(pid_t pid, Clock::time_point now, Clock::duration limit) {
  auto ps = read_proc_state(pid);
  return stopped_for(ps && ps->stopped(), now, limit);
}

}  // namespace ftmpi::mpiexec
