// The launcher's side of the Reinit model (seed 003; docs/fault-tolerance.md "Reinit"): restart failed
// ranks and drive the epoch change (models/reinit/epoch_change.h) over the control channels.
//
// The one operation a launcher or host daemon must offer is RankRestarter::restart — "restart rank R
// with epoch E". Job implements it for a single-host job (job_reinit.cpp); the origin of a several-hosts
// job (origin_reinit.cpp) implements it by a "restart" frame to a host daemon, which forks the process.
// Everything else (who fails, which epoch, when a fence is complete, what is fatal) is the
// EpochCoordinator's decision, driven by ReinitDriver.
#pragma once
#include <sys/types.h>

#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "models/reinit/epoch_change.h"
#include "util/status.h"

namespace ftmpi::mpiexec {

class RankRestarter {
 public:
  virtual ~RankRestarter() = default;
  // Start a new process for world rank `rank` that joins epoch `epoch` from its MPI_Init
  // (FTMPI_REINIT_EPOCH), knowing which ranks failed (FTMPI_REINIT_FAILED). Returns its pid (0: started
  // by a host daemon, pid not known to the caller).
  virtual Result<pid_t> restart(int rank, int epoch, const std::vector<int>& failed) = 0;
  // How the last restart started its process, for the timeline ("a warm spare", "the respawn template",
  // "fork+exec"); empty: not known here (a host daemon's restart).
  virtual std::string last_restart_how() const { return {}; }
};

// Reinit bookkeeping of one job: feeds deaths and control lines to the coordinator, carries out its
// actions, and prints the rollback timeline (one line per failure and per committed epoch).
class ReinitDriver {
 public:
  struct Hooks {
    RankRestarter* restarter = nullptr;
    std::function<void(int rank, const std::string& line)> tell;  // one control line to a rank
    std::function<void(const std::string& why)> fatal;             // end the job
    std::function<void(int epoch)> committed;                      // optional: an epoch change completed
    // Optional: fence 1 runs on a shared-memory board among the ranks (models/reinit/fence_board.h): the
    // board starts each new epoch before any rank is told of it, and no `fence_out seq=1` is sent.
    std::function<void(int epoch, int members)> board_begin;
    // Optional: how many of the next restarts are only a line to a warm spare already running on this
    // host (no fork): those restarts go out BEFORE the notices, so that a spare — a member every survivor
    // will wait for in fence 1 — is woken first and does not queue behind n-1 woken survivors.
    std::function<int()> cheap_restarts;
  };
  ReinitDriver(int np, int max_restarts, Hooks hooks, double start_realtime);

  // A rank died (reaped; `how` says how, for the timeline).
  void on_death(int rank, const std::string& how);
  // Ranks died together (a lost host): one epoch change for all of them.
  void on_deaths(const std::vector<int>& ranks, const std::string& how);
  // A rank ended cleanly (after MPI_Finalize).
  void on_finalized(int rank);
  // A control line the generic FT code does not know. Returns true when it was a Reinit line.
  bool on_control_line(int rank, std::string_view line);

  // A card of the launcher's for the epoch being built (EpochCoordinator::publish).
  void publish(std::string key, std::string value) { coord_.publish({std::move(key), std::move(value)}); }
  int restarts() const { return coord_.restarts(); }
  // One summary line for the end of the job ("" when nothing happened).
  std::string summary() const;

 private:
  void run(const std::vector<reinit::CoordAction>& actions);
  double since_start() const;

  reinit::EpochCoordinator coord_;
  Hooks hooks_;
  double start_realtime_;
  // Timeline of the change in progress (CLOCK_REALTIME seconds): mpiexec's own events, and the latest
  // of each rank-side stage reported with fence 1 (survivors: notice read, landed in MPI_Reinit, old
  // layer dropped; restarted processes: libmpi loaded, MPI_Init entered).
  double t_death_ = 0, t_restarted_ = 0, t_fence1_ = 0;
  double t_notice_ = 0, t_landed_ = 0, t_dropped_ = 0, t_loaded_ = 0, t_init_ = 0, t_board_ = 0;
  void note_fence1(std::string_view line);
  std::vector<double> recoveries_ms_;
  std::vector<std::string> failures_;  // for the summary (first 16)
  int failure_count_ = 0;
};

}  // namespace ftmpi::mpiexec
