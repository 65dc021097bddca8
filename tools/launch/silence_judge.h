// Is a rank's heartbeat silence a hang, or is the machine too busy to run it? Shared by mpiexec (single
// host) and ftmpid (its host's ranks).
//
// Model. A rank's heartbeats come from its service thread (src/ft/service.cpp, thread name
// "ftmpi-service"), which sleeps in poll() between them and needs microseconds of CPU per heartbeat.
// Its main thread may compute, spin or block for as long as the program likes: that never delays a
// heartbeat. So a silence longer than the detector timeout means that the service thread did not run,
// and /proc/<pid>/task/<tid>/stat says why:
//   - T or t (stopped: SIGSTOP, ptrace) — the process is stopped: **hung** (as before: SIGSTOP is caught
//     within timeout + one period);
//   - R (runnable: its poll timed out and it waits for a CPU) or D (uninterruptible: a page fault under
//     memory pressure) — it wants to run and the machine does not let it: **starved**, not hung, as long
//     as its CPU time has not grown by more than kSpinTicks since the silence was first judged (more
//     would mean it runs but does not heartbeat: stuck in a loop) and the silence is shorter than
//     kStarvedTimeouts detector timeouts (a bound for every case nobody foresaw);
//   - S (sleeping) — every pass of its loop sends a heartbeat that is due before it sleeps again, so a
//     thread found asleep after the timeout is blocked somewhere else: **hung**.
// The thread is sampled *before* the launcher drains the rank's channel, so a heartbeat written between
// the sample and the drain is seen (a thread found S had run and not heartbeated before the sample).
// When the service thread cannot be found (not an ftmpi rank, /proc hidden), the process's own state is
// judged the same way with no CPU test.
//
// Cost: one /proc read per silent rank per detector period, only after the timeout has passed.
#pragma once
#include <sys/types.h>

#include <chrono>
#include <optional>

namespace ftmpi::mpiexec {

// The service thread's name (src/ft/service.cpp sets it; /proc/<pid>/task/<tid>/comm).
inline constexpr const char* kServiceThreadName = "ftmpi-service";
// A starved rank is declared hung anyway once silent for this many detector timeouts.
inline constexpr int kStarvedTimeouts = 20;
// CPU time (clock ticks, 10 ms each on Linux) the silent service thread may use before its silence counts
// as a hang although it is runnable.
inline constexpr unsigned long long kSpinTicks = 20;

struct ThreadSample {
  char state = '?';                  // R, S, D, T, t, Z, ...
  unsigned long long cpu_ticks = 0;  // utime + stime
};

// Per-rank memory of the current silence (reset by every heartbeat).
struct SilenceWatch {
  pid_t service_tid = 0;        // 0: not looked up yet; -1: looked up, not found
  bool judged = false;          // the current silence was judged at least once
  unsigned long long cpu0 = 0;  // the service thread's CPU ticks at the first judgement
  bool reported_starved = false;
  void on_heartbeat() {
    judged = false;
    reported_starved = false;
  }
};

enum class Silence { starved, hung };

// Pure: the verdict on a silence of `silence` (already longer than `timeout`), given the thread sample
// (`service` true: of the service thread; false: of the process) and the CPU ticks at the first judgement.
Silence judge_silence(std::chrono::milliseconds silence, std::chrono::milliseconds timeout,
                      const std::optional<ThreadSample>& sample, bool service, unsigned long long cpu0);

// /proc/<pid>/task/<tid>/stat (tid 0: /proc/<pid>/stat). nullopt when it does not exist.
std::optional<ThreadSample> read_thread_sample(pid_t pid, pid_t tid);
// The tid of pid's thread named kServiceThreadName, or -1.
pid_t find_service_thread(pid_t pid);

// Samples the rank (looking its service thread up on first use) and judges its silence; keeps the
// watch's memory. Call before draining the rank's channel: `sample_now` then `verdict`.
class SilenceCheck {
 public:
  SilenceCheck(SilenceWatch& w, pid_t pid);
  Silence verdict(std::chrono::milliseconds silence, std::chrono::milliseconds timeout);
  const std::optional<ThreadSample>& sample() const { return sample_; }

 private:
  SilenceWatch& w_;
  std::optional<ThreadSample> sample_;
};

}  // namespace ftmpi::mpiexec
