// Job, fault-tolerant mode: the control channels, the heartbeat watch, failure notices, failure-aware
// PMI barriers, the exit status and the summary line (rules: docs/ft-protocol.md).
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <string>

#include "failure_judge.h"
#include "job.h"
#include "proc_state.h"
#include "say.h"
#include "util/log.h"

namespace ftmpi::mpiexec {

bool Job::heartbeat_watched(const RankRecord& rec) const {
  return rec.alive() && rec.heartbeating && !rec.said_bye && !rec.pmi_finalized &&
         rec.verdict == RankRecord::Verdict::none;
}

bool Job::startup_watched(const RankRecord& rec) const {
  return rec.alive() && !rec.heartbeating && !rec.said_bye && !rec.pmi_finalized &&
         rec.verdict == RankRecord::Verdict::none;
}

bool Job::goodbye_watched(const RankRecord& rec) const {
  return rec.alive() && (rec.said_bye || rec.pmi_finalized) && rec.verdict == RankRecord::Verdict::none;
}

bool Job::check_stopped(int r, Clock::time_point now, const char* why) {
  RankRecord& rec = ranks_[static_cast<std::size_t>(r)];
  if (!rec.stop.sample(rec.pid, now, std::chrono::milliseconds(opt_.ft.timeout_ms()))) return false;
  condemn(r, RankRecord::Verdict::hung, why);
  return true;
}

void Job::check_startup(int r, Clock::time_point now) {
  // A stopped rank cannot heartbeat: judged by the detector timeout from the start, whenever it stopped.
  if (check_stopped(r, now, "stopped before its first heartbeat")) return;
  RankRecord& rec = ranks_[static_cast<std::size_t>(r)];
  // A rank inside MPI_Init (PMI init sent) heartbeats once its library is up: its silence beyond the
  // start-up timeout, not counting time spent waiting for the others in a PMI barrier, is a hang.
  if (rec.pmi_initialized && !part_of(r).server->in_barrier(r - part_of(r).base) &&
      now >= rec.last_pmi + std::chrono::duration_cast<Clock::duration>(
                                std::chrono::duration<double>(opt_.ft.startup_seconds)))
    condemn(r, RankRecord::Verdict::hung, "no heartbeat within the start-up timeout");
}

void Job::on_ctrl_readable(int r) {
  ControlConn& c = ctrl_[static_cast<std::size_t>(r)];
  RankRecord& rec = ranks_[static_cast<std::size_t>(r)];
  char buf[4096];
  for (;;) {
    if (c.fd < 0) return;
    ssize_t n = ::read(c.fd, buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0 && errno == EAGAIN) return;
    if (n <= 0) {  // the rank closed its channel (it is exiting) or died
      c.close();
      return;
    }
    c.in.append(buf, static_cast<std::size_t>(n));
    while (auto line = c.in.next()) {
      ControlMessage m = parse_control_line(*line);
      switch (m.kind) {
        case ControlMessage::Kind::hb:
          rec.heartbeating = true;
          rec.last_heartbeat = Clock::now();
          rec.silence.on_heartbeat();
          rec.stop.reset();
          break;
        case ControlMessage::Kind::bye: rec.said_bye = true; break;
        case ControlMessage::Kind::suspect: on_suspect(r, m.rank); break;
        case ControlMessage::Kind::unknown:
          if (reinit_ && reinit_->on_control_line(r, *line)) break;
          log::debug("mpiexec: rank %d sent an unknown control line '%.80s'", r, line->c_str());
          break;
      }
    }
    if (c.in.overflowed()) {
      say("warning: rank %d sent an over-long control line; closing its control channel", r);
      c.close();
      return;
    }
  }
}

void Job::on_ctrl_writable(int r) {
  ControlConn& c = ctrl_[static_cast<std::size_t>(r)];
  if (!c.flush()) c.close();
}

void Job::on_suspect(int reporter, int suspect) {
  if (!end_.running()) return;
  // Reinit: ranks close the transports of an epoch they leave, which a peer still in it may take for a
  // lost process; on this host every real death is seen by waitpid, so suspicions are not needed.
  if (reinit_) return;
  if (remote_ && remote_->is_remote(suspect)) {
    // A process of another job (name service): its connection with `reporter` ended. Every process of
    // this universe learns it now, not only those connected to it (src/dpm/failure_board.h).
    if (auto line = remote_->on_reported(suspect)) send_notice(*line, -1);
    return;
  }
  if (suspect < 0 || suspect >= static_cast<int>(ranks_.size()) || suspect == reporter) {
    log::debug("mpiexec: rank %d suspects rank %d: ignored", reporter, suspect);
    return;
  }
  const RankRecord& rec = ranks_[static_cast<std::size_t>(suspect)];
  if (!rec.alive() || rec.pmi_finalized || rec.verdict != RankRecord::Verdict::none) return;
  log::debug("mpiexec: rank %d reports rank %d lost", reporter, suspect);
  condemn(suspect, RankRecord::Verdict::disappeared, "suspected by a peer");
}

bool Job::reap_if_dead(int r) {
  siginfo_t info{};
  const RankRecord& rec = ranks_[static_cast<std::size_t>(r)];
  // WNOWAIT: only look; reap_children() collects it (and any other child that ended meanwhile).
  if (waitid(P_PID, static_cast<id_t>(rec.pid), &info, WEXITED | WNOHANG | WNOWAIT) != 0 || info.si_pid == 0)
    return false;
  reap_children();
  return true;
}

void Job::check_never_initialized(Clock::time_point now) {
  if (reinit_ || parts_.empty()) return;
  const auto limit = std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(opt_.ft.startup_seconds));
  const Part& job = parts_.front();
  auto in_barrier = [&job](int q) { return job.server->in_barrier(q - job.base); };
  for (int r : never_initialized(ranks_, job.base, job.size, in_barrier, now, limit)) {
    say("rank %d did not call MPI_Init within the start-up timeout (%.1f s) while the other ranks waited for it "
        "there; killing it", r, opt_.ft.startup_seconds);
    condemn(r, RankRecord::Verdict::hung, "never called MPI_Init");
  }
}

void Job::check_heartbeats(Clock::time_point now) {
  check_never_initialized(now);
  const auto timeout = std::chrono::milliseconds(opt_.ft.timeout_ms());
  for (std::size_t r = 0; r < ranks_.size(); ++r) {
    if (startup_watched(ranks_[r])) {
      on_ctrl_readable(static_cast<int>(r));  // a first heartbeat may be waiting
      if (startup_watched(ranks_[r])) check_startup(static_cast<int>(r), now);
      continue;
    }
    if (goodbye_watched(ranks_[r])) {  // in or after MPI_Finalize: no heartbeats, but mpiexec waits for it
      check_stopped(static_cast<int>(r), now, "stopped after its goodbye (in or after MPI_Finalize)");
      continue;
    }
    RankRecord& rec = ranks_[r];
    if (!heartbeat_watched(rec) || now < rec.last_heartbeat + timeout) continue;
    // Sample the rank's service thread first, then drain the channel (mpiexec itself may have been slow to
    // read): a heartbeat written after the sample is seen (silence_judge.h).
    SilenceCheck check(rec.silence, rec.pid);
    on_ctrl_readable(static_cast<int>(r));
    const auto t = Clock::now();
    if (!heartbeat_watched(rec) || t < rec.last_heartbeat + timeout) continue;
    const auto silence = std::chrono::duration_cast<std::chrono::milliseconds>(t - rec.last_heartbeat);
    if (check.verdict(silence, timeout) == Silence::hung) {
      condemn(static_cast<int>(r), RankRecord::Verdict::hung, "no heartbeat within the detector timeout");
    } else if (!rec.silence.reported_starved) {
      rec.silence.reported_starved = true;
      log::debug("mpiexec: rank %d silent for %lld ms but runnable (state %c): the machine is busy, not the rank",
                 static_cast<int>(r), static_cast<long long>(silence.count()), check.sample()->state);
    }
  }
}

void Job::condemn(int r, RankRecord::Verdict verdict, const char* why) {
  // What the kernel says wins over a peer's suspicion or a silence: a rank that already ended (exit(3),
  // a signal it raised) is reported with its own cause, not as one mpiexec killed.
  if (reap_if_dead(r)) return;
  RankRecord& rec = ranks_[static_cast<std::size_t>(r)];
  if (!rec.alive()) return;
  if (auto ps = read_proc_state(rec.pid); ps && ps->exiting()) {
    log::debug("mpiexec: rank %d (pid %d) would be declared failed (%s) but is already exiting", r,
               static_cast<int>(rec.pid), why);
    return;  // its SIGCHLD follows: reaped then, with its own cause
  }
  rec.verdict = verdict;
  rec.failed_realtime = realtime_seconds();
  log::debug("mpiexec: rank %d (pid %d) declared failed: %s; killing it", r, static_cast<int>(rec.pid), why);
  // Fail-stop: the rank is announced only once reaped, so a suspect never comes back.
  // Its process group, and the rank itself: one that left its group (setsid) while children stayed in it
  // would otherwise survive a verdict that takes it off every watch.
  kill(-rec.pid, SIGKILL);
  kill(rec.pid, SIGKILL);
}

void Job::on_rank_exit_ft(int r) {
  RankRecord& rec = ranks_[static_cast<std::size_t>(r)];
  if (is_ft_failure(rec)) {
    if (rec.failed_realtime == 0) rec.failed_realtime = realtime_seconds();
    failed_order_.push_back(r);
    announce_failure(r);
  } else if (first_survivor_error_ < 0 && (rec.state == RankRecord::State::signaled || rec.exit_code != 0)) {
    first_survivor_error_ = r;
  }
  // Barriers no longer wait for it, and one it held up completes now; ranks still in MPI_Init can ask
  // the PMI server whether it is gone, and how (key ftmpi-gone.<r>).
  FailureCause cause;
  int code;
  failure_cause(rec, cause, code);
  Part& part = part_of(r);
  send_pmi_replies(part.server->rank_gone(r - part.base, std::string(cause_name(cause)) + ":" + std::to_string(code)),
                   part.base);
  reinit_on_exit(r, is_ft_failure(rec));
}

void Job::announce_failure(int r) {
  RankRecord& rec = ranks_[static_cast<std::size_t>(r)];
  FailureCause cause;
  int code;
  failure_cause(rec, cause, code);
  send_notice(format_failed_notice(r, cause, code, rec.failed_realtime), r);
  rec.failure_announced = true;
  if (remote_) remote_->post_local(r);
}

void Job::send_notice(const std::string& line, int except) {
  for (std::size_t q = 0; q < ranks_.size(); ++q) {
    const RankRecord& other = ranks_[q];
    ControlConn& c = ctrl_[q];
    if (static_cast<int>(q) == except || !other.alive() || other.pmi_finalized || other.said_bye || c.fd < 0) continue;
    c.out += line;
    if (!c.flush()) c.close();
  }
}

void Job::on_board_readable() {
  for (const std::string& line : remote_->on_board_readable()) send_notice(line, -1);
}

int Job::ft_exit_status() const {
  if (first_survivor_error_ >= 0) {
    const RankRecord& rec = ranks_[static_cast<std::size_t>(first_survivor_error_)];
    return rec.state == RankRecord::State::signaled ? 128 + rec.term_signal : rec.exit_code;
  }
  if (!reinit_ && !failed_order_.empty() && failed_order_.size() == ranks_.size())  // nobody survived
    return ranks_[static_cast<std::size_t>(failed_order_.front())].job_exit_status();
  return 0;
}

void Job::print_ft_summary() const {
  say_ft_summary({.ranks = &ranks_, .failed_order = &failed_order_, .terminated = end_.status_set(),
                  .first_survivor_error = first_survivor_error_, .start_realtime = start_realtime_});
}

}  // namespace ftmpi::mpiexec
