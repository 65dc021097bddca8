// One job: N ranks on this host, their PMI server, their output, their fate.
//
// Lifecycle: launch() forks every rank; supervise() is a poll(2) loop (never a busy spin) over the
// signalfd (SIGCHLD, SIGINT, SIGTERM, SIGHUP, SIGQUIT), each rank's PMI socket and stdout/stderr pipes,
// and mpiexec's stdin, with deadlines for --timeout, --inject and the SIGTERM→SIGKILL grace period.
// States: running → (first abnormal exit, abort, timeout or signal) terminating → every rank reaped →
// output drained → done. Nothing outlives the job: ranks run in their own process groups which are
// SIGKILLed at the end, and die with mpiexec (PR_SET_PDEATHSIG).
#pragma once
#include <chrono>
#include <memory>
#include <string>
#include <vector>

#include "boot/pmi_server.h"
#include "boot/pmi_wire.h"
#include "options.h"
#include "output_forwarder.h"
#include "rank_table.h"

namespace ftmpi::mpiexec {

// Exit statuses of mpiexec besides the ranks' own (documented in docs/mpiexec.md).
inline constexpr int kExitUsage = 2;      // bad command line, program not found, cannot launch
inline constexpr int kExitTimeout = 124;  // --timeout expired (as timeout(1))
inline constexpr int kExitNoFinalize = 1; // a rank exited 0 after PMI init without finalize

class Job {
 public:
  // `program_path` is the resolved executable; options.program[0] stays the argv[0] ranks see.
  Job(Options options, std::string program_path);
  ~Job();
  Job(const Job&) = delete;
  Job& operator=(const Job&) = delete;

  // Launch every rank and supervise them until all are gone. Returns mpiexec's exit status.
  int run();

  const RankTable& ranks() const { return ranks_; }
  const std::string& kvsname() const { return kvsname_; }

 private:
  struct PmiConn {
    int fd = -1;  // mpiexec's end, non-blocking
    boot::pmi::LineSplitter in;
    std::string out;  // replies not yet written
  };
  struct Timer {
    Clock::time_point when;
    int rank;
    int signal;
    bool done = false;
  };

  bool setup_signals();
  bool launch();
  std::vector<std::string> rank_environment(int rank, int cpu) const;
  void supervise();

  void on_signalfd();
  void reap_children();
  void on_rank_exit(int rank, int wait_status);
  void on_pmi_readable(int rank);
  void flush_pmi(int rank);
  void close_pmi(int rank);
  void on_stdin_readable();
  void on_stdin_writable();
  void close_stdin_forwarding();
  void check_timers(Clock::time_point now);

  // First failure wins: record the exit status, then terminate the remaining ranks.
  void fail_job(int status, const std::string& message);
  void signal_all(int sig);
  bool all_reaped() const;
  int find_rank_by_pid(pid_t pid) const;

  Options opt_;
  std::string program_path_;
  std::string kvsname_;
  std::unique_ptr<boot::PmiServer> server_;
  RankTable ranks_;
  std::vector<PmiConn> pmi_;
  std::vector<RankStream> streams_;  // 2 per rank: stdout at 2*r, stderr at 2*r+1

  int sigfd_ = -1;
  bool forward_stdin_ = false;
  bool stdin_eof_ = false;
  int stdin_pipe_ = -1;  // write end towards rank 0, non-blocking
  std::string stdin_buf_;

  enum class Phase { running, terminating } phase_ = Phase::running;
  bool status_set_ = false;
  int exit_status_ = 0;
  bool have_kill_deadline_ = false;
  Clock::time_point kill_deadline_{};
  bool have_timeout_ = false;
  Clock::time_point timeout_deadline_{};
  std::vector<Timer> timers_;  // --inject rank=R,after=S
};

}  // namespace ftmpi::mpiexec
