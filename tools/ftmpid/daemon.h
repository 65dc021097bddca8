// ftmpid: the host daemon of a several-hosts job (docs/architecture.md, "Launcher"). mpiexec (the origin)
// starts its children through the rsh agent and each daemon starts its own (daemon_launch.h); the daemon
// connects to its parent in the launcher tree (the origin or another daemon, tree_shape.h), forks its
// host's ranks when told (they are its children), forwards mpiexec's stdin to rank 0,
// relays their PMI requests up the tree and the replies down, forwards their output line-safely, watches
// them with pidfd and reports every end, judges their heartbeats (FT mode), relays frames between its
// parent and its children, and keeps the tree alive (tree_liveness.h): a parent it cannot hear within the
// detector timeout makes it ask its ancestors to adopt it, and kill its ranks and exit if none does within
// the re-attach budget (re-parenting and split brain: tree_membership.h, seed 002 §8.1.3).
//
// Reinit (--with-ft reinit, launch reinit=1): the ranks' Reinit control lines go up as "ctrl rank=R", the
// origin's lines to a rank come down as "tell rank=R", and "restart rank=R epoch=E" (payload: the failed
// ranks) forks a new process for rank R — which may never have run here (a lost host's rank moved to this
// spare host). A rank's kill(getppid(), SIGTERM), as Reinit++ programs use it, ends this daemon (default
// action) and its ranks with it (PR_SET_PDEATHSIG): the origin sees a lost host.
//
// Frames (tree_wire.h). Down (to= a node or *, seq= numbered by the origin): launch, pmi rank=R, notice
// (broadcast failure notice), signal rank=R|-1 sig=S, die (inject host loss), stdin rank=0 [eof=1], adopted,
// refuse node=N, end; Reinit: restart rank=R epoch=E, tell rank=R, replenish (top the spares up).
// Up: hello [adopt=1 nodes=.. seen=SEQ] by=PARENT, pmi rank=R, out rank=R fd=1|2,
// suspect rank=R by=Q, exit rank=R status=W verdict=V, lost node=N why=W by=PARENT, stdin_ack n=BYTES;
// Reinit: ctrl rank=R, restarted rank=R pid=P spare=0|1, spare ev=up|gone pid=P node=N (daemon_reinit.cpp).
// Both ways: hb.
#pragma once
#include <memory>
#include <utility>
#include <string>
#include <vector>

#include "boot/pmi_wire.h"
#include "control_channel.h"
#include "daemon_launch.h"
#include "output_forwarder.h"
#include "silence_judge.h"
#include "spare_pool.h"
#include "stop_judge.h"
#include "template_process.h"
#include "stall_meter.h"
#include "tree_liveness.h"
#include "tree_shape.h"
#include "tree_wire.h"

namespace ftmpi::mpiexec {

struct DaemonOptions {
  int node = 1;             // this daemon's node number (host index + 1)
  std::string parent;       // "addr,addr:port"
  std::string key;          // the job's link key (every hello carries it)
  TreeShape shape;
  int period_ms = 100;
  int timeout_ms = 1000;
  int startup_ms = 60000;   // a child daemon must connect within this
  std::string ancestors;    // "NODE@EP+..." from the parent up to the origin (re-attach candidates)
};

class Daemon {
 public:
  explicit Daemon(DaemonOptions o);
  ~Daemon();
  Daemon(const Daemon&) = delete;
  Daemon& operator=(const Daemon&) = delete;
  // Connect, serve until the origin says end (0) or the parent is lost (3). Errors before that: 1.
  int run();

 private:
  struct Rank {
    int rank = -1;
    pid_t pid = -1;
    int pidfd = -1;
    int pmi_fd = -1;
    boot::pmi::LineSplitter pmi_in;
    std::string pmi_out;
    ControlConn ctrl;
    std::unique_ptr<RankStream> out, err;
    bool alive = false;
    bool finalized = false, said_bye = false, heartbeating = false;
    bool hung = false;  // killed on our verdict
    int stdin_fd = -1;  // rank 0 with stdin forwarded: the write end of its stdin pipe, non-blocking
    std::string stdin_buf;
    bool stdin_eof = false;
    std::chrono::steady_clock::time_point last_hb{};
    // The start-up watch (FT mode, as mpiexec's on one host: docs/mpiexec.md "Start-up watch"): PMI init
    // sent, inside a PMI barrier (barrier_in relayed up, its barrier_out not yet down), last PMI exchange.
    bool pmi_init = false, in_barrier = false;
    std::chrono::steady_clock::time_point last_pmi{};
    SilenceWatch silence;  // a silence beyond the timeout: hang or starvation (silence_judge.h)
    StopWatch stop;        // before the first heartbeat, after the goodbye: a stop (stop_judge.h)
  };
  struct Child {
    int node = -1;  // -1 until its hello
    TreeLink link;
    std::string host;    // set when this daemon starts it (not for a daemon of the origin's machine)
    pid_t agent = -1;    // the rsh agent we forked for it, until reaped
    int agent_pidfd = -1;
    // An orphan that asked us to adopt it, until the origin's "adopted" for it passes through here: only
    // the origin's replay (replay=1) reaches it meanwhile, so that it gets every frame in seq order
    // (live frames sent before the origin's decision are in that replay; tree_membership.h).
    bool adopting = false;
  };

  void loop();
  void on_parent_frame(Frame& f);
  void handle_own(Frame& f);
  void on_child_frame(std::size_t ci, Frame& f);
  void read_parent();               // input (or EOF) on the parent link
  void read_child(std::size_t ci);  // input (or EOF) on a child's link
  void drain_links();               // both, for every link with input now (no wait), before silence is judged
  void accept_children();
  // Start the daemons below this one through the rsh agent (launch frame: agent=, child=NODE:HOST).
  void start_children(const std::string& agent, const std::vector<std::string>& kids);
  void on_agent_ended(std::size_t ci);
  void end_agents();
  // Re-parenting (tree_membership.h): the parent is lost; connect to the next ancestor from index `from`
  // and ask for adoption. The lost link is kept open (not read) until the adoption is granted.
  void try_reattach(std::size_t from, bool keep_old);
  void on_adopted();
  void set_reattach_budget();
  // Routes down: a descendant's node -> index in children_ (learned from the hellos relayed up).
  void learn_routes(const Frame& hello, std::size_t ci);
  std::string subtree_nodes() const;
  void launch(const Frame& f);
  // How one rank is started (launch: a rank of the job; spawn_part: a process of a spawned part).
  struct RankStart {
    const std::string& path;
    const std::vector<std::string>& argv;
    const std::vector<std::string>& env;
    const std::vector<std::string>& inject;  // "R:MPI_Func:N"
    const std::string& cwd;                  // empty: the daemon's
    bool pty = true, forward_stdin = false;
    int pmi_rank = 0;                        // PMI_RANK: its rank in its own MPI_COMM_WORLD
    int local_rank = 0, local_size = 1;      // among its part's processes on this host
    std::vector<std::string> extra = {};     // NAME=VALUE set last (Reinit: the epoch and failed ranks)
    bool from_template = false;              // Reinit restart: forked by the respawn template if it can
  };
  // Fork `r` (r.rank set); false (an exit frame sent up, status 127) if it could not be started.
  bool start_rank(Rank& r, const RankStart& how);
  // Fork one process of the program with its channels (`rank` -1: a spare, how.pmi_rank -1 too), and hand
  // a started process's channels to rank entry `r` (watched, relayed and forwarded from then on).
  Result<WarmProcess> spawn_process(const RankStart& how, int rank);
  void attach(Rank& r, WarmProcess p);
  // Reinit's warm spares on this host (daemon_reinit.cpp, spare_pool.h): top up to the target; a spare
  // that ended before it was used.
  void fill_spares();
  void on_spare_ended(pid_t pid);
  SparePool spares_;
  // Reinit's respawn template on this host (launch template=1; template_process.h): started after the
  // spares, forks restarted ranks; released with them.
  void start_template();
  // "replenish" (an epoch change committed): a template lost since it started is replaced (template_process.h).
  void renew_template();
  TemplateProcess template_;
  // MPI_Comm_spawn across hosts (daemon_spawn.cpp): the "spawn" frame starts processes of a spawned part
  // here, or answers "spawn_failed" when the program cannot be found on this host (nothing started).
  void spawn_part(const Frame& f);
  void restart_rank(const Frame& f);  // Reinit: "restart rank=R epoch=E", payload the failed ranks
  void on_rank_ended(Rank& r);
  void read_pmi(Rank& r);
  void read_ctrl(Rank& r);
  void flush_rank_pmi(Rank& r);
  // Write what waits for rank 0's stdin; acknowledge what the pipe took (stdin_ack n=BYTES); close the
  // pipe after the EOF or when the rank is gone.
  void flush_stdin(Rank& r);
  void close_stdin(Rank& r);
  void send_up(const Frame& f);
  void fence(const char* why);
  void kill_ranks(int sig);
  void check_heartbeats(std::chrono::steady_clock::time_point now);
  void lose_child(std::size_t ci, TreeLiveness::Why why);
  Rank* find_rank(int rank);
  int child_slot(int node) const;  // index in shape_.children(node_) or -1

  DaemonOptions o_;
  std::string host_;
  std::string ep_;     // where our children connect
  std::string agent_;  // the rsh agent (from the launch frame)
  TreeLink parent_;
  int listen_fd_ = -1;
  int sigfd_ = -1;
  std::vector<Child> children_;
  std::vector<Rank> ranks_;
  bool ft_ = false;
  bool reinit_ = false;
  bool launched_ = false;
  // One program of a job of several (mpiexec's `prog1 : prog2`): its ranks [first, first + n), and what
  // differs from the job's program: path, arguments, directory, NAME=VALUE settings (MPI_APPNUM's included).
  struct AppSpec {
    int first = 0, n = 0;
    std::string path, cwd;
    std::vector<std::string> argv, env;
  };
  struct LaunchSpec {  // from the launch frame, for restarts
    std::string path;
    std::vector<std::string> argv, env, inject;
    bool pty = true;
    std::vector<AppSpec> apps;  // empty: every rank runs path/argv
    // The program of `rank` (nullptr: path/argv, with no settings of its own).
    const AppSpec* app_of(int rank) const {
      for (const AppSpec& a : apps)
        if (rank >= a.first && rank < a.first + a.n) return &a;
      return nullptr;
    }
  } spec_;
  bool ending_ = false;   // the origin said end
  bool halting_ = false;
  std::unique_ptr<TreeLiveness> live_;
  StallMeter stall_;  // this (single-threaded) daemon's starvation, taken off the silence live_ judges
  std::vector<std::pair<int, std::string>> ancestors_;  // [0]: the parent
  std::size_t attach_idx_ = 0;                           // index of the current parent in ancestors_
  TreeLink stale_parent_;
  std::string reattach_buf_;
  long long last_seq_ = 0;  // the highest seq= received from a parent (frames are numbered by the origin)  // frames for the origin while no parent link is open (re-attaching)
  std::vector<int> route_;  // by node: index in children_, -1
  std::string ancestors_text(std::size_t from) const;
};

}  // namespace ftmpi::mpiexec
