#include "job_end.h"

#include <signal.h>
#include <sys/signalfd.h>
#include <unistd.h>

#include <cstdio>
#include <cstring>

#include "say.h"

namespace ftmpi::mpiexec {

int open_job_signalfd() {
  signal(SIGPIPE, SIG_IGN);
  sigset_t set;
  sigemptyset(&set);
  for (int s : {SIGCHLD, SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGUSR1, SIGUSR2}) sigaddset(&set, s);
  static_assert(SIGUSR1 == 10 && SIGUSR2 == 12, "forwarded_signal() spells them by number");
  if (sigprocmask(SIG_BLOCK, &set, nullptr) != 0) return -1;
  return signalfd(-1, &set, SFD_NONBLOCK | SFD_CLOEXEC);
}

void read_job_signals(int fd, std::vector<JobSignal>& terminate, std::vector<int>& forward, bool& child) {
  signalfd_siginfo si;
  while (::read(fd, &si, sizeof si) == static_cast<ssize_t>(sizeof si)) {
    int sig = static_cast<int>(si.ssi_signo);
    if (sig == SIGCHLD) child = true;
    else if (forwarded_signal(sig)) forward.push_back(sig);
    else terminate.push_back({sig, static_cast<pid_t>(si.ssi_pid)});
  }
}

bool JobEnd::terminate(int status, const std::string& message, Clock::time_point now) {
  if (!running_) return false;
  if (!message.empty()) say("%s", message.c_str());
  if (!status_set_) {
    status_set_ = true;
    exit_status_ = status;
  }
  running_ = false;
  have_kill_deadline_ = true;
  kill_deadline_ = now + kGrace;
  return true;
}

int JobEnd::on_signal(int sig, Clock::time_point now) {
  if (running_) {
    say("received signal %d (%s); terminating the job", sig, strsignal(sig));
    terminate(128 + sig, "", now);
    return sig == SIGHUP ? SIGTERM : sig;
  }
  have_kill_deadline_ = false;  // a second signal: no more grace
  return SIGKILL;
}

bool JobEnd::kill_due(Clock::time_point now) {
  if (running_ || !have_kill_deadline_ || now < kill_deadline_) return false;
  have_kill_deadline_ = false;
  return true;
}

std::optional<JobEnd::Clock::time_point> JobEnd::kill_deadline() const {
  if (running_ || !have_kill_deadline_) return std::nullopt;
  return kill_deadline_;
}

void JobEnd::set_timeout(double seconds, Clock::time_point now) {
  timeout_seconds_ = seconds;
  timeout_deadline_ = now + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(seconds));
}

bool JobEnd::timeout_due(Clock::time_point now) const {
  return running_ && timeout_seconds_ > 0 && now >= timeout_deadline_;
}

std::optional<JobEnd::Clock::time_point> JobEnd::timeout_deadline() const {
  if (!running_ || timeout_seconds_ <= 0) return std::nullopt;
  return timeout_deadline_;
}

std::string JobEnd::timeout_message() const {
  char msg[128];
  snprintf(msg, sizeof msg, "job timed out after %g seconds; terminating the job", timeout_seconds_);
  return msg;
}

}  // namespace ftmpi::mpiexec
