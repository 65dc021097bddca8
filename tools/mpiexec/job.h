// One job: N ranks on this host, their PMI server, their output, their fate.
//
// Lifecycle: launch() forks every rank; supervise() is a poll(2) loop (never a busy spin) over the
// signalfd (SIGCHLD, SIGINT, SIGTERM, SIGHUP, SIGQUIT), each rank's PMI socket and stdout/stderr pipes,
// and mpiexec's stdin, with deadlines for --timeout, --inject and the SIGTERM→SIGKILL grace period.
// States: running → (first abnormal exit, abort, timeout or signal) terminating → every rank reaped →
// output drained → done. Nothing outlives the job: ranks run in their own process groups which are
// SIGKILLed at the end, and die with mpiexec (PR_SET_PDEATHSIG).
//
// Fault-tolerant mode (--with-ft, docs/ft-protocol.md): each rank also has a control channel, polled in
// the same loop. A rank's failure (signal, exit without PMI finalize, heartbeat silence, a peer's
// suspicion) does not end the job: it is recorded, announced at once to every rank still alive and not
// finalized, and PMI barriers stop waiting for it. Ranks mpiexec itself declares failed (hung, suspected)
// are SIGKILLed first and announced when the kernel confirms the death (fail-stop).
#pragma once
#include <chrono>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "adopted_process.h"
#include "boot/pmi_server.h"
#include "boot/pmi_wire.h"
#include "control_channel.h"
#include "job_end.h"
#include "dpm_broker.h"
#include "options.h"
#include "output_forwarder.h"
#include "remote_failures.h"
#include "rank_table.h"
#include "life_watch.h"
#include "respawn.h"
#include "spare_pool.h"
#include "template_process.h"
#include "models/reinit/fence_board.h"

namespace ftmpi::mpiexec {

// Exit statuses of mpiexec besides the ranks' own (documented in docs/mpiexec.md).
inline constexpr int kExitUsage = 2;      // bad command line, program not found, cannot launch
inline constexpr int kExitTimeout = 124;  // --timeout expired (as timeout(1))
inline constexpr int kExitNoFinalize = 1; // a rank exited 0 after PMI init without finalize

// The environment every rank of the job gets (mpiexec's own without PMI_*, -x, PMI_SIZE, FT settings);
// each launcher adds the per-rank variables (PMI_RANK, PMI_FD, FTMPI_LOCAL_RANK, ...).
std::vector<std::string> job_environment(const Options& opt);

class Job final : public RankRestarter {
 public:
  // Every application context's `path` is resolved (main); its argv[0] stays what the ranks see.
  explicit Job(Options options);
  ~Job() override;
  Job(const Job&) = delete;
  Job& operator=(const Job&) = delete;

  // Launch every rank and supervise them until all are gone. Returns mpiexec's exit status.
  int run();

  const RankTable& ranks() const { return ranks_; }
  const std::string& kvsname() const { return kvsname_; }

  // A process started for a rank (restart) or as a spare: its pid and mpiexec's ends of its channels.
  using Started = WarmProcess;  // spare_pool.h

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

  // One job part (src/dpm/dpm.h): the first is the job mpiexec started; each spawn adds one. Its processes
  // have ids base..base+size-1 (indexes of ranks_, pmi_, ctrl_; streams 2*id, 2*id+1) and their own PMI
  // key-value space and barriers.
  struct Part {
    int base = 0;
    int size = 0;
    std::unique_ptr<boot::PmiServer> server;
  };
  Part& part_of(int gid);

  bool setup_signals();
  bool launch();
  // --singleton: rank 0 is the process that started this mpiexec (adopted_process.h); its PMI connection is
  // opt_.singleton_fd. False (after saying why) if it is gone already.
  bool adopt_singleton();
  // The adopted rank 0 ended (its pidfd turned readable).
  void on_adopted_end();
  bool is_adopted(int gid) const { return gid == 0 && opt_.singleton_pid > 0; }
  // Fork process `gid` (ranks_/pmi_/ctrl_ hold its slot already) with `env` (PMI_FD and FTMPI_CTRL_FD
  // filled in here). False (after saying why) if it could not be started.
  bool start_process(int gid, const std::string& path, const std::vector<std::string>& argv,
                     std::vector<std::string> env, int cpu, bool give_stdin, const std::string& cwd);
  // Dynamic processes: a dpm_* request line from process `gid`.
  void on_dpm_request(int gid, const boot::pmi::Message& m);
  void do_spawn(int gid, const boot::pmi::Message& m);
  void send_dpm_replies(const std::vector<DpmBroker::Reply>& replies);
  void send_line(int gid, const std::string& line);
  std::vector<std::string> rank_environment(int rank, int cpu) const;
  void supervise();

  void on_signalfd();
  void reap_children();
  void on_rank_exit(int rank, int wait_status);
  void on_pmi_readable(int rank);
  // Replies of part `base`'s server (its ranks are process ids base + rank).
  void send_pmi_replies(const boot::PmiServer::Outcome& o, int base = 0);
  void flush_pmi(int rank);
  void close_pmi(int rank);
  void on_stdin_readable();
  void on_stdin_writable();
  void close_stdin_forwarding();
  void check_timers(Clock::time_point now);

  // Fault-tolerant mode.
  void on_ctrl_readable(int rank);
  void on_ctrl_writable(int rank);
  void on_suspect(int reporter, int suspect);
  void check_heartbeats(Clock::time_point now);
  bool heartbeat_watched(const RankRecord& rec) const;
  // Not heartbeating yet but alive and not done: judged by its process state and the start-up timeout.
  bool startup_watched(const RankRecord& rec) const;
  void check_startup(int rank, Clock::time_point now);
  // A rank that never sent PMI init while another waited in a PMI barrier, both for the start-up timeout,
  // is killed as hung (failure_judge.h never_initialized; the several-hosts origin applies the same rule).
  void check_never_initialized(Clock::time_point now);
  // Said its goodbye (or PMI finalize) but not ended yet: judged by its process state only (stop_judge.h).
  bool goodbye_watched(const RankRecord& rec) const;
  // Samples `rank`'s stop watch; condemns it (hung, `why`) and returns true once stopped for the timeout.
  bool check_stopped(int rank, Clock::time_point now, const char* why);
  // If `rank` has already ended (a zombie), reap it now with its own cause and return true.
  bool reap_if_dead(int rank);
  // Kill `rank` on mpiexec's own verdict; it is announced once reaped.
  void condemn(int rank, RankRecord::Verdict verdict, const char* why);
  // A rank was reaped while the job runs: failure or clean end, notices, barrier release.
  void on_rank_exit_ft(int rank);
  void announce_failure(int rank);
  // Send a failure notice line to every live process except `except`.
  void send_notice(const std::string& line, int except);
  void on_board_readable();
  void on_life_readable();  // job_reinit.cpp
  int ft_exit_status() const;
  void print_ft_summary() const;
  // First failure wins: record the exit status, then terminate the remaining ranks.
  void fail_job(int status, const std::string& message);
  void signal_all(int sig);
  bool all_reaped() const;
  int find_rank_by_pid(pid_t pid) const;

  // Reinit mode (job_reinit.cpp).
  void reinit_setup();
  void reinit_on_exit(int rank, bool failure);
  // A terminating signal sent to mpiexec by one of WORLD's processes (present or restarted since) in
  // Reinit mode: Reinit++'s simulated node failure, `kill(getppid(), SIGTERM)`. Handled as the loss of this
  // host (every live rank fails at once and restarts here) and returns true; false for any other sender.
  bool reinit_signal_from_rank(const JobSignal& s);
  Result<pid_t> restart(int rank, int epoch, const std::vector<int>& failed) override;
  std::string last_restart_how() const override { return last_restart_how_; }
  std::string last_restart_how_;
  // `from_template`: forked by the respawn template when it can (template_process.h), else fork+exec.
  // A process of application context `app` (a restart of one of its ranks, or a spare: context 0).
  Result<Started> start_process(int app, std::vector<std::string> env, bool from_template = false);
  // --spares N: warm processes started with the job, waiting inside MPI_Init (models/reinit/spare.h)
  // until a failed rank's number is handed to one of them (`cmd=adopt`) instead of a fork+exec+init.
  void launch_spares();
  void add_restart_answers(std::vector<std::string>& env) const;
  bool reap_spare(pid_t pid, int wait_status);  // a spare ended before it was used: false if not a spare
  void release_spares();                         // end of the job: the unused spares go (SIGKILL, reaped)
  SparePool spares_;
  // The respawn template (Reinit, on by default, FTMPI_REINIT_TEMPLATE=0: off): started with the spares,
  // forks restarted ranks; released with them.
  void launch_template();
  // After a committed epoch change: a template lost since it started is replaced (template_process.h renew).
  void renew_template();
  TemplateProcess template_;

  Options opt_;
  std::string kvsname_;
  boot::PmiServer* server_ = nullptr;  // the first part's
  std::vector<Part> parts_;
  std::unique_ptr<DpmBroker> broker_;
  int next_gid_ = 0;  // the next process id to hand out
  RankTable ranks_;
  std::vector<PmiConn> pmi_;
  // --output-filename (null without it); declared before streams_, which point to it, so that it outlives them.
  std::unique_ptr<OutputFiles> outfiles_;
  std::vector<RankStream> streams_;  // 2 per rank: stdout at 2*r, stderr at 2*r+1

  int sigfd_ = -1;
  AdoptedProcess adopted_;  // --singleton: rank 0, watched by pidfd
  bool forward_stdin_ = false;
  bool stdin_eof_ = false;
  int stdin_pipe_ = -1;  // write end towards rank 0, non-blocking
  std::string stdin_buf_;

  JobEnd end_;
  std::vector<Timer> timers_;  // --inject rank=R,after=S

  // Fault-tolerant mode.
  bool ft_ = false;
  std::vector<ControlConn> ctrl_;   // one per rank (FT mode only)
  std::vector<int> failed_order_;   // failed ranks, in the order mpiexec saw them
  int first_survivor_error_ = -1;   // rank of the first survivor that exited non-zero
  double start_realtime_ = 0;       // CLOCK_REALTIME at launch, for the summary's times
  std::unique_ptr<ReinitDriver> reinit_;  // --with-ft reinit
  // Fence 1 of each epoch among the ranks (models/reinit/fence_board.h); named in FTMPI_REINIT_BOARD.
  std::optional<reinit::FenceBoard> board_;
  std::string board_name_;
  // Deaths seen on the board's life locks, before SIGCHLD (life_watch.h); destroyed before board_.
  std::unique_ptr<LifeWatch> life_;
  std::vector<pid_t> ended_early_;  // processes handled as ended from a life report, not reaped yet
  // Reinit: the pids of WORLD ranks' processes replaced by a restart (rank, pid), the latest 64: a signal
  // such a process sent before it died may be read after its restart (reinit_signal_from_rank).
  std::vector<std::pair<int, pid_t>> replaced_pids_;
  // Set while reinit_signal_from_rank fails every rank of the host: their deaths gather here and go to the
  // ReinitDriver as one epoch change.
  std::vector<int>* host_loss_batch_ = nullptr;
  // Such a process's teardown runs at SCHED_IDLE (reinit::demote_exit): opt-in, FTMPI_REINIT_DEMOTE_EXIT=1.
  bool demote_teardown_ = false;
  std::unique_ptr<RemoteFailures> remote_;  // other jobs of the name service (FT mode)
};

}  // namespace ftmpi::mpiexec
