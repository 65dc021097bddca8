// What mpiexec knows about each rank of the job: the per-rank table the fault-tolerance issue uses to
// notify survivors instead of killing the job.
#pragma once
#include <sys/types.h>

#include <chrono>
#include <string>
#include <vector>

#include "silence_judge.h"
#include "stop_judge.h"

namespace ftmpi::mpiexec {

using Clock = std::chrono::steady_clock;

struct RankRecord {
  enum class State { running, exited, signaled };

  int rank = 0;
  pid_t pid = -1;  // also the rank's process group id
  State state = State::running;
  int exit_code = 0;    // State::exited
  int term_signal = 0;  // State::signaled
  bool pmi_initialized = false;  // sent cmd=init: it is an MPI process now
  bool pmi_finalized = false;    // sent cmd=finalize: its exit is never a failure
  bool aborted = false;          // sent cmd=abort
  bool exit_unknown = false;     // an adopted process (adopted_process.h) whose exit status was lost
  int abort_code = 0;
  Clock::time_point started{}, initialized_at{}, finalized_at{}, ended_at{};

  // Fault-tolerant mode (docs/ft-protocol.md).
  bool heartbeating = false;      // sent at least one cmd=hb: its silence can mean a hang
  bool said_bye = false;          // sent cmd=bye: heartbeats stop, silence is fine
  Clock::time_point last_heartbeat{};
  SilenceWatch silence;  // a silence beyond the timeout: hang or starvation (silence_judge.h)
  // Before the first heartbeat and after the goodbye, only a stop (SIGSTOP, ptrace) held for the detector
  // timeout says it hangs (stop_judge.h).
  StopWatch stop;
  // Its last PMI exchange (a request, or a barrier's release): the start-up watch's silence.
  Clock::time_point last_pmi{};
  // Set when mpiexec kills the rank on its own verdict (hung, or suspected by a peer): the cause its
  // notice gives once the kernel confirms the death. 0: none.
  // host_lost: its host's daemon died or fell silent (several-hosts jobs; cut_off says it was silence).
  enum class Verdict { none, hung, disappeared, host_lost } verdict = Verdict::none;
  int host = 0;          // index of its host in the job's host layout (0 on a single-host job)
  bool cut_off = false;  // Verdict::host_lost by silence (a partition), not by a closed connection
  bool failure_announced = false;  // its cmd=failed notice went out
  double failed_realtime = 0;      // CLOCK_REALTIME seconds when mpiexec saw the failure

  bool alive() const { return state == State::running; }
  // An exit that ends the job in non-FT mode: non-zero code, a signal, or exit 0 after PMI init without
  // PMI finalize. A program that never spoke PMI and exited 0 is fine.
  bool failed() const {
    if (state == State::signaled) return true;
    if (state == State::exited) return exit_code != 0 || (pmi_initialized && !pmi_finalized);
    return false;
  }
  // One phrase describing how the rank ended, e.g. "exited with code 3", "was killed by signal 9 (Killed)".
  std::string cause() const;
  // The exit status mpiexec reports for this failure: the code, 128+signal, or 1 for a missing finalize.
  int job_exit_status() const;
};

using RankTable = std::vector<RankRecord>;

}  // namespace ftmpi::mpiexec
