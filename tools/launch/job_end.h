// How a job ends, the same for every launcher (mpiexec's Job on one host and the Origin of a several-hosts
// job): the first cause wins and keeps its exit status (a failed rank, an abort, the timeout, a signal to
// mpiexec, a halt); the ranks then get SIGTERM (or the signal mpiexec received) and, after a grace period,
// SIGKILL; a second signal to mpiexec skips the grace. The caller owns the ranks and sends the signals this
// answers with; JobEnd keeps the phase, the exit status and the deadline.
#pragma once
#include <sys/types.h>

#include <chrono>
#include <optional>
#include <string>
#include <vector>

namespace ftmpi::mpiexec {

// Ignores SIGPIPE, blocks SIGCHLD, SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGUSR1 and SIGUSR2 and returns a
// non-blocking signalfd for them, or -1 (errno set).
int open_job_signalfd();
// Signals mpiexec passes on to every rank without ending the job, as Open MPI's mpirun and MPICH's Hydra do
// (a batch system's "time is nearly up" SIGUSR1, for a checkpoint).
inline bool forwarded_signal(int sig) { return sig == 10 /* SIGUSR1 */ || sig == 12 /* SIGUSR2 */; }
// A terminating signal mpiexec received, and who sent it (the sender's pid; 0 from the kernel or unknown).
struct JobSignal {
  int sig = 0;
  pid_t from = 0;
};
// Reads every pending signal of that fd: the terminating ones, in order, go to `terminate`, the forwarded ones
// (forwarded_signal) to `forward`; a SIGCHLD among them sets `child`.
void read_job_signals(int fd, std::vector<JobSignal>& terminate, std::vector<int>& forward, bool& child);

class JobEnd {
 public:
  using Clock = std::chrono::steady_clock;
  static constexpr std::chrono::milliseconds kGrace{1000};  // SIGTERM -> SIGKILL

  bool running() const { return running_; }
  // A cause of the end was recorded (then exit_status() is final).
  bool status_set() const { return status_set_; }
  int exit_status() const { return exit_status_; }
  // The status when no cause ended the job (the ranks' own, computed by the caller at the end).
  void set_final_status(int status) {
    if (!status_set_) exit_status_ = status;
  }

  // Start ending the job with `status` (kept only if no cause was recorded before) and say `message`
  // when not empty. Returns false, doing nothing, when the job is already ending: the first cause wins.
  // On true the caller sends SIGTERM to every rank.
  bool terminate(int status, const std::string& message, Clock::time_point now);
  // mpiexec received `sig` (SIGINT, SIGTERM, SIGHUP, SIGQUIT). The first one ends the job with status
  // 128+sig and answers the signal to send the ranks (SIGTERM for SIGHUP); a later one answers SIGKILL.
  int on_signal(int sig, Clock::time_point now);
  // The grace period has passed: true once per terminate(); the caller then sends SIGKILL.
  bool kill_due(Clock::time_point now);
  // When kill_due() will turn true, if it is pending.
  std::optional<Clock::time_point> kill_deadline() const;

  // --timeout SECONDS (> 0), counted from `now`.
  void set_timeout(double seconds, Clock::time_point now);
  // The timeout has expired while the job runs (the caller then ends it with timeout_message()).
  bool timeout_due(Clock::time_point now) const;
  std::optional<Clock::time_point> timeout_deadline() const;
  // "job timed out after S seconds; terminating the job"
  std::string timeout_message() const;

 private:
  bool running_ = true;
  bool status_set_ = false;
  int exit_status_ = 0;
  bool have_kill_deadline_ = false;
  Clock::time_point kill_deadline_{};
  double timeout_seconds_ = 0;
  Clock::time_point timeout_deadline_{};
};

}  // namespace ftmpi::mpiexec
