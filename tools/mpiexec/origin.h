// The origin of a several-hosts job: mpiexec when --host/--hostfile name another machine. It runs no
// rank itself: it starts one ftmpid per host (daemon.h) through the rsh agent, the daemons connect back
// into a tree of fan-out k (tree_shape.h: mpiexec holds at most k sockets), and the origin then keeps the
// job's single source of truth: the PMI key-value space and barrier (PmiServer; the daemons relay their
// ranks' requests), the rank table, which hosts are up, lost or cut off, and the failure judgement
// (failure_judge.h). The same failure path as on one host: a rank's end (reported by its daemon) or a
// host's loss (a closed link at once, a silent one after the detector timeout plus one period,
// tree_liveness.h) becomes failure notices to every survivor in FT mode, or the end of the job with a
// message naming the rank or the host without FT.
//
// Reinit (--with-ft reinit, origin_reinit.cpp): the origin drives the epoch change (respawn.h) for the
// whole job. The daemons relay the ranks' Reinit control lines up ("ctrl" frames) and the driver's lines
// down ("tell"); a failed rank is restarted by a daemon ("restart" frame). A rank whose host was lost is
// restarted on a spare host (one holding no ranks, else the least loaded): the rank table's host is the
// per-epoch host map, and the epoch's PMI_process_mapping (key "e<E>.PMI_process_mapping") tells the
// ranks which of them share a host in that epoch.
//
// Lifecycle: start the top-level daemons (each daemon starts the level below it); each hello launches the
// host's ranks; an orphaned daemon's adoption request is decided here (TreeMembership);
// supervise (poll loop over the signalfd, the listening socket, the child links, the job-control socket)
// until every rank has ended; tell the daemons to end; wait (bounded) for them; exit.
#pragma once
#include <sys/types.h>

#include <deque>
#include <memory>
#include <string>
#include <vector>

#include "boot/pmi_server.h"
#include "daemon_launch.h"
#include "dpm_broker.h"
#include "host_layout.h"
#include "job_end.h"
#include "options.h"
#include "rank_table.h"
#include "remote_failures.h"
#include "respawn.h"
#include "stall_meter.h"
#include "tree_liveness.h"
#include "tree_membership.h"
#include "tree_shape.h"
#include "tree_wire.h"

namespace ftmpi::mpiexec {

class Origin final : private RankRestarter {
 public:
  Origin(Options options, HostLayout layout);
  ~Origin();
  Origin(const Origin&) = delete;
  Origin& operator=(const Origin&) = delete;
  int run();

 private:
  struct Host {
    enum class State { waiting, starting, up, lost, done } state = State::waiting;
    pid_t agent = -1;        // the rsh agent (or the local ftmpid) we forked
    int daemon_pid = 0;
    std::string ep;          // where its children connect
    double lost_at = 0;      // realtime
    std::string why;         // why it was lost
    bool cut_off = false;
    int spares = 0;          // Reinit --spares: warm processes its daemon holds (its reports, less what we gave out)
  };
  struct Control {  // a --status/--halt client
    int fd = -1;
    std::string in;
    bool halt_waiter = false;
  };

  bool start();
  void start_daemon(int node, const std::string& parent_ep);
  void supervise();
  void on_signalfd();
  void reap_agents();
  void accept_links();
  void on_link_readable(std::size_t slot);
  void drain_links();  // read every link that has input now (no wait), before judging silence
  void on_pending_readable(std::size_t i);
  void on_frame(Frame& f, int via_slot);
  void on_hello(const Frame& f, int via_slot);
  void on_pmi(int rank, const std::string& line);
  void on_rank_exit(int rank, int wait_status, bool hung);
  void on_suspect(int rank, int by);
  void send_to(int node, const Frame& f);
  void broadcast(const Frame& f);
  void send_pmi_replies(const boot::PmiServer::Outcome& o, int base = 0);
  // Dynamic processes across hosts (origin_dpm.cpp; src/dpm/dpm.h): the broker's requests, spawns placed
  // on the hosts' slots and started by their daemons ("spawn" frames, daemon_spawn.cpp).
  struct Part {  // a job part: the job (base 0), then one per spawn; its own PMI key-value space
    int base = 0;
    int size = 0;
    std::unique_ptr<boot::PmiServer> server;
  };
  Part& part_of(int gid);
  void on_dpm_line(int gid, const std::string& line);
  void do_spawn(int gid, const boot::pmi::Message& m);
  void on_spawn_failed(const Frame& f);
  void send_line(int gid, const std::string& line);  // a PMI reply to process `gid` (through its daemon)
  void send_dpm_replies(const std::vector<DpmBroker::Reply>& replies);
  std::vector<int> ranks_on_host(int host) const;   // process ids placed on host index `host`
  // A spawn asked for while some host is not up yet waits (it is placed over every host of the job).
  std::vector<std::pair<int, boot::pmi::Message>> spawns_waiting_;
  void retry_spawns();
  void announce_failure(int rank);
  // A failure notice about a process of another job (src/dpm/failure_board.h) to every rank.
  void announce_remote(const std::string& line);
  // `node`'s subtree is lost (or, not started yet, cannot be started: `detail` says why).
  void hosts_lost(int node, TreeLiveness::Why why, const std::string& detail = "");
  // `by` (its parent, 0: the origin) reports its link to `node` lost: the membership decides whether the
  // host is lost now or an orphan that may re-attach (tree_membership.h).
  void link_lost(int node, int by, TreeLiveness::Why why, const std::string& detail = "");
  void orphans_expired(std::chrono::steady_clock::time_point now);
  // A daemon asks to be adopted (its parent was lost): grant or refuse.
  void on_adopt(const Frame& f, int via_slot);
  void learn_routes(const Frame& hello, int via_slot);
  std::string ancestors_of(int node) const;  // "P@EP+...+0@EP" from node's tree parent up
  void fail_job(int status, const std::string& message);
  void signal_ranks(int sig, bool halt);
  void check_timers(std::chrono::steady_clock::time_point now);
  // FT mode: a rank of the job that has not sent PMI init for the start-up timeout since its launch, while
  // another has waited for the start-up timeout in a PMI barrier (which cannot complete without it), is
  // killed as hung (a program stuck before MPI_Init held every rank in MPI_Init forever). Its host's daemon
  // judges the ranks that did send init (daemon.h).
  void check_never_initialized(std::chrono::steady_clock::time_point now);
  // stdin to rank 0 (origin_stdin.cpp): read mpiexec's stdin while rank 0's host is up and fewer than
  // kStdinInFlight bytes wait unwritten on the way (its daemon acknowledges what rank 0's pipe took).
  bool stdin_wanted() const;
  void on_stdin_readable();
  bool all_ranks_ended() const;
  void on_control_readable(std::size_t i);
  std::string status_text() const;
  std::string host_name(int host) const { return layout_.hosts[static_cast<std::size_t>(host)].name; }
  int slot_of(int node) const;  // index among the origin's children, -1

  Options opt_;
  std::unique_ptr<OutputFiles> outfiles_;  // --output-filename (null without it): every host's ranks' lines
  HostLayout layout_;
  TreeShape shape_;
  std::string key_;
  std::string ep_;
  std::string kvsname_;
  DaemonLaunch launch_;
  std::vector<Part> parts_;
  std::unique_ptr<DpmBroker> broker_;
  int next_gid_ = 0;
  std::unique_ptr<TreeLiveness> live_;
  StallMeter stall_;  // mpiexec's own starvation, taken off the silence live_ judges (tree_liveness.h)
  RankTable ranks_;
  std::vector<Host> hosts_;
  std::vector<TreeLink> links_;    // by slot: shape_.children(0) first, then adopted daemons
  std::vector<int> link_node_;     // parallel to links_: the node on that link
  std::vector<int> route_;         // by node: the slot that leads to it, -1 (then shape_'s route)
  std::unique_ptr<TreeMembership> members_;
  std::vector<TreeLiveness::Why> orphan_why_;
  // Every frame sent down, numbered (seq=), kept for a while: an orphan's adoption replays what its
  // subtree missed (seq above the "seen" of its hello) before the "adopted" frame; daemons drop repeats.
  struct Sent {
    std::chrono::steady_clock::time_point at;
    int to;  // node, -1: every node
    Frame f;
  };
  std::deque<Sent> down_log_;
  long long down_seq_ = 0;
  void log_down(int to, Frame& f);
  void replay_to(int node, long long seen);  // by node: silent (cut) or closed (its parent was lost)
  std::vector<TreeLink> pending_;  // accepted, no hello yet
  std::vector<std::chrono::steady_clock::time_point> pending_since_;  // parallel to pending_
  std::vector<Control> controls_;
  std::vector<int> failed_order_;
  std::vector<int> lost_hosts_;
  int first_survivor_error_ = -1;
  int listen_fd_ = -1;
  int sigfd_ = -1;
  int control_fd_ = -1;
  std::string control_path_;
  bool ft_ = false;
  JobEnd end_;
  bool halted_ = false;
  bool forward_stdin_ = false;  // not when stdin is a terminal of another process group
  bool stdin_done_ = false;     // EOF sent, or rank 0 ended
  std::size_t stdin_in_flight_ = 0;
  struct Timer {
    std::chrono::steady_clock::time_point when;
    InjectSpec spec;
    bool done = false;
  };
  std::vector<Timer> timers_;
  double start_realtime_ = 0;
  std::string tag_prefix(int rank, int fd) const;

  // Reinit (origin_reinit.cpp).
  std::unique_ptr<ReinitDriver> reinit_;
  std::unique_ptr<RemoteFailures> remote_;  // other jobs of the name service (FT mode)
  std::vector<int> move_to_;  // by rank: the host chosen for it when its host was lost, -1
  void reinit_setup();
  void reinit_on_exit(int rank, bool failure);
  // A host was lost with these ranks (marked dead already): restart them together on one spare host.
  void reinit_host_lost(const std::string& host, const std::vector<int>& ranks);
  // The up host holding the fewest live ranks (none: the first such), -1 if no host is up.
  int least_loaded_host() const;
  // The same among the up hosts whose count in `spares` (by host) is above 0, their load counted with
  // `extra` (by host: ranks already sent there), -1 if none.
  int least_loaded_with_spare(const std::vector<int>& spares, const std::vector<int>& extra) const;
  int live_ranks_on(int host) const;
  // A daemon's report (daemon_reinit.cpp): "spare ev=up|gone", "restarted rank=R pid=P spare=0|1".
  void on_spare_frame(const Frame& f);
  void on_restarted(const Frame& f);
  std::string epoch_mapping() const;  // PMI_process_mapping from the rank table's hosts
  Result<pid_t> restart(int rank, int epoch, const std::vector<int>& failed) override;
};

}  // namespace ftmpi::mpiexec
