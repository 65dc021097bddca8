// The Runtime owns every component of a rank's MPI library: bootstrap, transports (router), p2p engine,
// progress loop, predefined communicators. No singletons: the C API reaches it through one pointer
// (api/context.h), set by MPI_Init and cleared by MPI_Finalize.
#pragma once
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "boot/bootstrap.h"
#include "comm/communicator.h"
#include "p2p/engine.h"
#include "progress/async_progress.h"
#include "progress/progress.h"
#include "transport/router.h"
#include "util/big_lock.h"
#include "util/scratch_pool.h"
#include "util/status.h"

namespace ftmpi::comm {
class ContextAllocator;
}
namespace ftmpi::reinit {
class ReinitControl;
}
namespace ftmpi::ft {
class FailureState;
class FtManager;
class Service;
class PeerWatch;
}
namespace ftmpi::events {
class EventHub;
}
namespace ftmpi::dpm {
class Dpm;
}

namespace ftmpi {

class Runtime {
 public:
  // Collective over the job. Brings up bootstrap, transports, engine; initialises MPI_COMM_WORLD/SELF.
  // On failure after the bootstrap is up, `on_failure` (if set) is called with it while it still works
  // (MPI_Init raises the error on the initial error handler: MPI_ERRORS_ARE_FATAL aborts the job through
  // the launcher, api/env.cpp); it may not return.
  using InitFailureHook = std::function<void(boot::Bootstrap& boot, const Status& why)>;
  static Result<std::unique_ptr<Runtime>> init(int required_thread_level, const InitFailureHook& on_failure = {});
  // The error handler MPI_COMM_WORLD starts with (FTMPI_INITIAL_ERRHANDLER, mpiexec -initial-errhandler).
  static ftmpi_errhandler_s* initial_errhandler();
  ~Runtime();

  // Collective: drain, fence, tell the launcher we finalized, tear down transports.
  Status finalize();

  // This process's id (src/dpm/dpm.h): its MPI_COMM_WORLD rank plus the base of its job part (0 unless
  // spawned). Groups and the engine name processes by it.
  int world_rank() const { return world_rank_; }
  int world_size() const { return world_size_; }
  // The process id of MPI_COMM_WORLD rank 0 (FTMPI_GID_BASE; 0 unless this process was spawned).
  int world_base() const { return world_base_; }
  // Dynamic processes (spawn, ports, names): made on first use.
  dpm::Dpm& dpm();
  // Before this process first shares a communicator with `members` (process ids): Dpm::open_for, so that
  // members of another job part can reach it (dpm/dpm.h). A hook set by MPI_Init, inline, so that the
  // communicator layer does not link the dynamic-process layer; a no-op before MPI_Init.
  Status open_for(const std::vector<int>& members) { return open_for_ ? open_for_(members) : Status::Ok(); }
  int thread_level() const { return thread_level_; }
  bool is_main_thread() const;

  boot::Bootstrap& boot() { return *boot_; }
  transport::Router& router() { return *router_; }
  p2p::Engine& engine() { return *engine_; }
  progress::Progress& progress() { return *progress_; }
  comm::ContextAllocator& contexts() { return *contexts_; }
  ft::FtManager& ft() { return *ft_; }
  ft::FailureState& failures() { return *failures_; }
  bool ft_mode() const { return ft_mode_; }
  // LAM's reliable mode (mpiexec --with-ft lam, src/models/lam/): FT mode plus seed 002's split/free rules.
  bool lam_mode() const { return lam_mode_; }
  // Asynchronous events (src/models/events/): the FailureState's observer.
  events::EventHub& events() { return *events_; }
  // Reinit model (mpiexec --with-ft reinit): the rank's control of rollbacks and epochs, else null.
  reinit::ReinitControl* reinit() { return reinit_.get(); }
  // Reinit: drop the communication layer of the current epoch (communicators other than WORLD/SELF and
  // every request become invalid, with a clear error) and build the one of the newest announced epoch,
  // again as long as newer ones are announced meanwhile. Application thread, outside any MPI call
  // (MPI_Reinit's landing point, or MPI_Init of a restarted rank). Collective with every member of the
  // epoch, through mpiexec (models/reinit/epoch_change.h).
  Status enter_epoch();

  // Block until `r` completes (drives progress). Does not release the request.
  void wait(p2p::Request* r) {
    progress_->wait_until([r] { return r->complete; });
  }
  // Like wait(), but an unmatched ANY_SOURCE receive also stops waiting when a failure it cannot rule out
  // is not acknowledged (seed 000 §1.2.1). Returns false in that case (r still pending).
  bool wait_or_pending(p2p::Request* r);
  // True when `r` is an unmatched ANY_SOURCE receive blocked by an unacknowledged failure.
  bool pending_by_failure(const p2p::Request* r);

  // MPI_THREAD_MULTIPLE: the big lock every API entry takes (a no-op below MULTIPLE).
  BigLock& lock() { return lock_; }
  // True when API calls take lock(): MPI_THREAD_MULTIPLE, or the asynchronous progress thread is on.
  bool locking() const { return locking_; }
  // The asynchronous progress thread (FTMPI_ASYNC_PROGRESS=1, progress/async_progress.h), else null.
  progress::AsyncProgress* async_progress() { return async_.get(); }

  // Scratch buffers reused across collectives (used under the big lock).
  ScratchPool& scratch() { return scratch_; }

 private:
  std::function<Status(const std::vector<int>&)> open_for_;
  Runtime() = default;
  // t_init, t_loaded: when MPI_Init began and the library was loaded (a warm spare: when it was adopted),
  // for the Reinit timeline.
  Status init_body(int required_thread_level, double t_init, double t_loaded);
  // Router, engine, progress, contexts, FT manager and the predefined communicators over `boot`.
  // `epoch`: the job epoch (Reinit; 0 otherwise) the engine stamps on its frames. `replaced` (Reinit, a
  // survivor): keep the current router's links, rebuilding only those with these ranks.
  Status build_layer(boot::Bootstrap& boot, bool tolerate_failed_peers, bool first, int epoch,
                     const std::vector<int>* replaced);
  // `keep_links`: the router stays (its links are kept across the rollback).
  void drop_layer(bool keep_links);
  void wake();
  int world_rank_ = 0;
  int world_size_ = 1;
  int world_base_ = 0;
  std::unique_ptr<dpm::Dpm> dpm_;
  int thread_level_ = 0;
  std::unique_ptr<boot::Bootstrap> boot_;
  std::unique_ptr<transport::Router> router_;
  std::unique_ptr<p2p::Engine> engine_;
  std::unique_ptr<progress::Progress> progress_;
  std::unique_ptr<comm::ContextAllocator> contexts_;
  std::unique_ptr<ft::FailureState> failures_;
  std::unique_ptr<ft::FtManager> ft_;
  std::unique_ptr<ft::Service> service_;
  std::unique_ptr<ft::PeerWatch> peer_watch_;  // FT mode without an ftmpi daemon: rank-level detector
  std::unique_ptr<events::EventHub> events_;
  bool ft_mode_ = false;
  bool lam_mode_ = false;
  std::unique_ptr<reinit::ReinitControl> reinit_;
  std::unique_ptr<boot::Bootstrap> epoch_boot_;  // the current epoch's bootstrap (Reinit, epoch > 0)
  // Reinit: the layers of epochs being left, closed once the next epoch is committed (declared after
  // the bootstraps so that they go first).
  std::vector<std::unique_ptr<boot::Bootstrap>> retired_boots_;
  std::vector<std::unique_ptr<transport::Router>> retired_routers_;
  std::vector<std::unique_ptr<transport::Transport>> retired_links_;  // kept router's transports left unused
  std::thread closer_;  // closes the retired layers after a commit (joined at the next change / finalize)
  void close_retired_in_background();
  void join_closer();
  std::mutex wake_mu_;                           // the service thread's wake vs. replacing the router
  BigLock lock_;
  bool locking_ = false;
  std::unique_ptr<progress::Progress::ContentionWaker> contention_waker_;  // MPI_THREAD_MULTIPLE without async_
  std::unique_ptr<progress::AsyncProgress> async_;  // stopped first by finalize() and ~Runtime
  ScratchPool scratch_;
  unsigned long main_thread_ = 0;
};

}  // namespace ftmpi
