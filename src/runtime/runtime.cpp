#include "runtime/runtime.h"
#include "models/reinit/rollback_trace.h"

#include "dpm/dpm.h"

#include <pthread.h>
#include <signal.h>
#include <unistd.h>

#include <cstdlib>
#include <cstring>
#include <numeric>

#include "coll/shm_area.h"
#include "comm/comm_ops.h"
#include "comm/context_alloc.h"
#include "ft/failure_state.h"
#include "ft/ft_manager.h"
#include "ft/peer_watch.h"
#include "ft/service.h"
#include "models/events/event_hub.h"
#include "models/reinit/epoch_bootstrap.h"
#include "models/reinit/kept_links.h"
#include "models/reinit/reinit_control.h"
#include "models/reinit/spare.h"
#include "mpi.h"
#include "transport/shm/shm_segment.h"
#include "util/log.h"

// The predefined communicators (declared in mpi.h). Filled in by Runtime::init.
FTMPI_API ftmpi_comm_s ftmpi_comm_world;
FTMPI_API ftmpi_comm_s ftmpi_comm_self;

namespace ftmpi {

namespace {
transport::RouterOptions router_options_from_env() {
  transport::RouterOptions o;
  if (const char* t = std::getenv("FTMPI_TRANSPORT")) {
    if (std::strcmp(t, "tcp") == 0) o.choice = transport::Choice::tcp;
    else if (std::strcmp(t, "shm") == 0) o.choice = transport::Choice::shm;
  }
  return o;
}

bool ft_mode_from_env() {
  const char* f = std::getenv("FTMPI_FT");
  return f && (std::strcmp(f, "ulfm") == 0 || std::strcmp(f, "mpi") == 0 || std::strcmp(f, "lam") == 0 ||
               std::strcmp(f, "reinit") == 0);
}

bool lam_mode_from_env() {
  const char* f = std::getenv("FTMPI_FT");
  return f && std::strcmp(f, "lam") == 0;
}

bool reinit_mode_from_env() {
  const char* f = std::getenv("FTMPI_FT");
  return f && std::strcmp(f, "reinit") == 0;
}

// Reinit: survivors keep their links across a rollback (models/reinit/kept_links.h) unless
// FTMPI_REINIT_KEEP_LINKS=0 (every link rebuilt, as before; for comparison and as a fallback).
bool keep_links_enabled() {
  const char* v = std::getenv("FTMPI_REINIT_KEEP_LINKS");
  return !v || std::strcmp(v, "0") != 0;
}

int env_int(const char* name, int dflt) {
  const char* v = std::getenv(name);
  return v ? std::atoi(v) : dflt;
}

}  // namespace

ftmpi_errhandler_s* Runtime::initial_errhandler() {
  const char* e = std::getenv("FTMPI_INITIAL_ERRHANDLER");
  if (!e) return &ftmpi_errors_are_fatal;
  if (std::strcmp(e, "mpi_errors_return") == 0) return &ftmpi_errors_return;
  if (std::strcmp(e, "mpi_errors_abort") == 0) return &ftmpi_errors_abort;
  return &ftmpi_errors_are_fatal;
}

namespace {
int online_cores() {
  if (const char* c = std::getenv("FTMPI_NUM_CORES")) {
    int n = std::atoi(c);
    if (n > 0) return n;
  }
  long n = sysconf(_SC_NPROCESSORS_ONLN);
  return n > 0 ? static_cast<int>(n) : 1;
}

// `first`: at MPI_Init. A Reinit epoch change keeps the error handler and the name (the handler on
// MPI_COMM_WORLD is how the program chose its Reinit mode).
void init_predefined_comm(ftmpi_comm_s& c, std::vector<int> members, int my_world, std::uint32_t ctx,
                          const char* name, bool first) {
  c.group = comm::make_group(std::move(members), my_world);
  c.group->predefined = true;
  c.rank = c.group->my_rank;
  c.size = c.group->size();
  c.ctx_pt2pt = ctx;
  c.ctx_coll = ctx + 1;
  if (first || !c.errhandler) c.errhandler = Runtime::initial_errhandler();
  if (first) c.name = name;
  c.ft = nullptr;
  coll::release_shm_area(&c);  // a Reinit epoch starts without it (the set-up runs again)
  c.holds = 0;
  c.retire_on_idle = false;
  c.predefined = true;
  c.coll_seq = 0;
  c.revoked.store(false);
  c.magic = kMagicComm;
}
}  // namespace

Result<std::unique_ptr<Runtime>> Runtime::init(int required_thread_level, const InitFailureHook& on_failure) {
  double t_init = reinit::realtime_now();
  double t_loaded = reinit::library_loaded_at();
  // A warm spare (--spares) waits here, before anything names a rank, until it is given one.
  if (reinit::is_spare()) {
    auto adopted = reinit::wait_for_adoption();
    if (!adopted.ok()) return adopted.status();
    t_init = t_loaded = adopted.value();
  }
  std::unique_ptr<Runtime> rt(new Runtime());
  Status st = rt->init_body(required_thread_level, t_init, t_loaded);
  if (!st.ok()) {
    if (on_failure && rt->boot_) on_failure(*rt->boot_, st);
    return st;
  }
  return rt;
}

Status Runtime::init_body(int required_thread_level, double t_init, double t_loaded) {
  Runtime* rt = this;
  rt->main_thread_ = static_cast<unsigned long>(pthread_self());
  rt->thread_level_ = std::min(std::max(required_thread_level, MPI_THREAD_SINGLE), MPI_THREAD_MULTIPLE);
  rt->locking_ = rt->thread_level_ == MPI_THREAD_MULTIPLE;

  auto boot = boot::make_bootstrap();
  if (!boot.ok()) return boot.status();
  rt->boot_ = std::move(boot.value());
  rt->world_size_ = rt->boot_->size();
  if (const char* b = std::getenv("FTMPI_GID_BASE"); b && rt->boot_->launched_by_ftmpi()) {
    rt->world_base_ = std::atoi(b);
    if (rt->world_base_ < 0 || rt->world_base_ + rt->world_size_ > dpm::kIdsPerUniverse)
      return Status(Errc::other, std::string("MPI_Init: bad FTMPI_GID_BASE ") + b);
  }
  // A job with a name service (mpiexec --name-service): its universe's ids start at its slot's base
  // (dpm/universe.h); mpiexec numbers them from 0 and the boundaries with it translate.
  int ubase = 0;
  if (const char* s = std::getenv("FTMPI_UNIVERSE_SLOT"); s && rt->boot_->launched_by_ftmpi()) {
    const int slot = std::atoi(s);
    if (slot < 0 || slot >= dpm::kMaxSlots) return Status(Errc::other, std::string("MPI_Init: bad FTMPI_UNIVERSE_SLOT ") + s);
    ubase = dpm::universe_base(slot);
    rt->world_base_ += ubase;
  }
  rt->world_rank_ = rt->world_base_ + rt->boot_->rank();
  log::set_rank(rt->world_rank_);

  rt->ft_mode_ = ft_mode_from_env();
  rt->lam_mode_ = lam_mode_from_env();
  // Ids of this universe; with a name service, of every universe that may connect (a 512 KiB bitmap).
  rt->failures_ = std::make_unique<ft::FailureState>(
      rt->world_size_, std::getenv("FTMPI_UNIVERSE_SLOT") ? dpm::kMaxProcesses : dpm::kIdsPerUniverse);
  rt->events_ = std::make_unique<events::EventHub>(*rt->failures_);
  rt->failures_->set_observer(rt->events_.get());
  Runtime* self = rt;
  // Reinit: a restarted rank joins epoch FTMPI_REINIT_EPOCH (> 0) through the epoch coordinator, so its
  // service thread (which carries the fences) starts before the transports.
  const int start_epoch = rt->ft_mode_ && reinit_mode_from_env() ? std::max(0, env_int("FTMPI_REINIT_EPOCH", 0)) : 0;
  if (rt->ft_mode_ && reinit_mode_from_env()) {
    rt->reinit_ = std::make_unique<reinit::ReinitControl>(rt->world_rank_, start_epoch,
                                                         std::max(0, env_int("FTMPI_REINIT_RESTARTS", 0)));
    if (!rt->reinit_->board_status().ok())
      return Status(Errc::other, "MPI_Init: " + rt->reinit_->board_status().message());
    if (start_epoch > 0) {
      rt->reinit_->note_at(reinit::ReinitControl::Stage::loaded, t_loaded);
      rt->reinit_->note_at(reinit::ReinitControl::Stage::init, t_init);
    }
    rt->reinit_->set_old_epoch_killer([self](const std::vector<int>& failed) {
      // The old epoch is over for this process: whatever waits on a peer ends with an error (the peer
      // rolls back too), the failed ones first so their cause is right.
      for (int r : failed) self->failures_->mark_failed({r, ft::Cause::signaled, 9, 0.0});
      for (int r = 0; r < self->world_size_; ++r)
        if (r != self->world_rank_) self->failures_->mark_failed({r, ft::Cause::reported, 0, 0.0});
      self->wake();
    });
  }
  if (rt->ft_mode_ && std::getenv("FTMPI_CTRL_FD")) {
    ft::ServiceConfig cfg;
    cfg.ctrl_fd = env_int("FTMPI_CTRL_FD", -1);
    cfg.heartbeat_period_ms = env_int("FTMPI_DETECTOR_PERIOD_MS", 0);
    cfg.id_offset = ubase;
    if (rt->reinit_) {
      reinit::ReinitControl* rc = rt->reinit_.get();
      cfg.on_line = [rc](std::string_view line) { rc->on_control_line(line); };
      cfg.on_tick = [rc] { return rc->on_tick(); };
    }
    auto svc = ft::start_service(cfg, *rt->failures_, [self] { self->wake(); });
    if (!svc.ok()) return svc.status();
    rt->service_ = std::move(svc.value());
    if (rt->reinit_) {
      ft::Service* sv = rt->service_.get();
      rt->reinit_->set_send([sv](const char* line) { sv->send(line); });
    }
  } else if (rt->reinit_) {
    return Status(Errc::other, "FTMPI_FT=reinit needs ftmpi's mpiexec (--with-ft reinit): no control channel");
  }

  if (rt->ft_mode_ && !rt->boot_->launched_by_ftmpi()) {
    // MPICH's Hydra run with -disable-auto-cleanup sends SIGUSR1 to the survivors when a rank dies (its own
    // ranks catch it); its default action would end ours. Failures are detected by the ranks themselves
    // (lost connections), so the signal is ignored unless the application installed a handler.
    struct sigaction old{};
    if (sigaction(SIGUSR1, nullptr, &old) == 0 && old.sa_handler == SIG_DFL && !(old.sa_flags & SA_SIGINFO))
      signal(SIGUSR1, SIG_IGN);
  }
  if (rt->ft_mode_ && !rt->service_) {
    // No ftmpi daemon watches the ranks (Hydra, srun): they watch each other (ft/peer_watch.h). Its cards
    // go out with the transports' first fence.
    auto pw = ft::prepare_peer_watch(*rt->boot_);
    if (!pw.ok()) return pw.status();
    rt->peer_watch_ = std::move(pw.value());
  }
  if (start_epoch > 0) {
    FTMPI_TRY(rt->enter_epoch());
  } else {
    FTMPI_TRY(rt->build_layer(*rt->boot_, rt->ft_mode_, true, 0, nullptr));
  }
  if (rt->peer_watch_) FTMPI_TRY(rt->peer_watch_->start(*rt->boot_, *rt->failures_, [self] { self->wake(); }));
  rt->open_for_ = [r = rt](const std::vector<int>& members) { return r->dpm().open_for(members); };
  if (const char* port = std::getenv("FTMPI_PARENT_PORT"); port && *port && rt->boot_->launched_by_ftmpi()) {
    Status st = rt->dpm().init_child(port);
    if (!st.ok() && rt->ft_mode_) {
      // FT mode: the parents gave up on this spawn (one of them failed during MPI_Comm_spawn, which then
      // returned an error to them; dpm/dpm.cpp). This child has nobody to join: it leaves as a failed process
      // does. MPI_Abort through the error handler would end the parents' job too, which survives failures.
      log::error("MPI_Init: cannot connect to the parents (%s): the spawn failed at the parents; this process exits",
                 st.message().c_str());
      std::_Exit(1);
    }
    if (!st.ok()) return Status(st.code(), "MPI_Init: cannot connect to the parents: " + st.message());
  } else if (rt->boot_->launched_by_ftmpi()) {
    FTMPI_TRY(rt->dpm().open_if_shared());
  }
  if (progress::async_progress_requested()) {
    if (rt->reinit_) {
      log::warn("FTMPI_ASYNC_PROGRESS is ignored with --with-ft reinit (its rollbacks need a single-threaded library)");
    } else {
      rt->locking_ = true;  // from here on every API call takes the lock (progress/async_progress.h)
      rt->async_ = std::make_unique<progress::AsyncProgress>(rt->lock_, *rt->engine_, *rt->router_,
                                                             [self] { self->wake(); });
    }
  }
  if (!rt->async_ && rt->thread_level_ == MPI_THREAD_MULTIPLE) {
    // A thread waiting in MPI sleeps in the transports holding the lock: a thread that finds it taken wakes
    // it (progress/progress.h, set_lock), as the async thread's observer does.
    rt->contention_waker_ = std::make_unique<progress::Progress::ContentionWaker>(
        [](void* r) { static_cast<Runtime*>(r)->wake(); }, self);
    rt->lock_.set_observer(rt->contention_waker_.get());
  }
  // Long yields so far were the job's own start-up (progress/progress.h, forget_stolen_yields).
  if (rt->progress_) rt->progress_->forget_stolen_yields();
  return Status::Ok();
}

void Runtime::wake() {
  std::lock_guard g(wake_mu_);
  if (router_) router_->wake_all();
}

Status Runtime::build_layer(boot::Bootstrap& boot, bool tolerate_failed_peers, bool first, int epoch,
                            const std::vector<int>* replaced) {
  transport::RouterOptions ropts = router_options_from_env();
  ropts.tolerate_failed_peers = tolerate_failed_peers;
  // A Reinit epoch: fence 2 is entered without waiting (EpochBootstrap); the name goes when it is released.
  ropts.keep_segment_name = reinit_ && epoch > 0;
  ropts.rings_by_chunks = reinit_ && epoch > 0;  // the links a rollback builds (shm_transport.h)
  // A Reinit epoch of a one-host job (it has a fence board): every link is shared memory, so no TCP
  // listener is opened (and closed again unused) by each rank on the recovery's critical path.
  if (reinit_ && epoch > 0 && reinit_->has_board() && ropts.choice == transport::Choice::automatic)
    ropts.choice = transport::Choice::shm;
  if (replaced && router_) {
    // Reinit, a survivor: links with the replaced ranks only; the others are kept.
    auto links = transport::Router::create_links(boot, ropts, *replaced);
    if (!links.ok()) return links.status();
    std::vector<std::unique_ptr<transport::Transport>> retired;
    {
      std::lock_guard g(wake_mu_);
      router_->adopt_links(*links.value(), &retired);
    }
    for (auto& t : retired) {
      t->abandon_output();
      retired_links_.push_back(std::move(t));
    }
  } else {
    auto router = transport::Router::create(boot, ropts, world_base_);
    if (!router.ok()) return router.status();
    if (!first && !router.value()->failed_at_start().empty())
      return Status(Errc::other, "reinit: a rank failed while the epoch was built");
    std::lock_guard g(wake_mu_);
    router_ = std::move(router.value());
  }
  engine_ = std::make_unique<p2p::Engine>(*router_, world_rank_, world_size_);
  engine_->set_job_epoch(static_cast<std::uint32_t>(epoch));
  progress_ = std::make_unique<progress::Progress>(
      *engine_, *router_, progress::BackoffPolicy::for_load(router_->local_ranks(), online_cores()));
  contexts_ = std::make_unique<comm::ContextAllocator>();
  // Ranks that died during MPI_Init (FT mode): failed in MPI_COMM_WORLD from the start. mpiexec's notice
  // for each follows on the control channel and finds them already recorded.
  for (const transport::StartupFailure& f : router_->failed_at_start()) {
    std::string_view how = f.how;
    std::size_t colon = how.find(':');
    std::string_view cause = how.substr(0, colon);
    int code = colon == std::string_view::npos ? 0 : std::atoi(std::string(how.substr(colon + 1)).c_str());
    ft::Cause c = cause == "signaled" ? ft::Cause::signaled
                  : cause == "hung"   ? ft::Cause::hung
                  : cause == "disappeared" || cause == "unreachable" ? ft::Cause::disappeared
                                           : ft::Cause::exited;
    failures_->mark_failed({f.rank, c, code, 0.0});
    log::debug("MPI_Init: rank %d failed during start-up (%s)", f.rank, f.how.c_str());
  }
  ft_ = std::make_unique<ft::FtManager>(*this, *failures_, ft_mode_);
  engine_->set_ft(ft_.get(), failures_.get());
  // A foreign launcher in FT mode: failures are judged by the ranks themselves (lost connections), not
  // after the launcher reaped the process, and a rank leaves MPI_Finalize on its own: the split
  // rendezvous' safety and liveness argument (p2p/rndv_split.h) does not hold there.
  engine_->set_split_allowed(!ft_mode_ || boot_->launched_by_ftmpi());
  Runtime* self = this;
  engine_->set_idle_comm_hook([self](ftmpi_comm_s* c) { comm::retire(*self, c); });
  if (service_) ft_->set_service(service_.get());
  if (thread_level_ == MPI_THREAD_MULTIPLE) progress_->set_lock(&lock_);
  if (reinit_) {
    progress_->set_interrupt(&reinit::g_gate.jump_due, &reinit::ReinitControl::jump_if_due);
    progress_->set_no_yield(reinit_->resuming_flag());
  }

  std::vector<int> all(static_cast<size_t>(world_size_));
  std::iota(all.begin(), all.end(), world_base_);
  init_predefined_comm(ftmpi_comm_world, std::move(all), world_rank_, comm::kCtxWorld, "MPI_COMM_WORLD", first);
  init_predefined_comm(ftmpi_comm_self, {world_rank_}, world_rank_, comm::kCtxSelf, "MPI_COMM_SELF", first);
  ft_->register_comm(&ftmpi_comm_world);
  ft_->register_comm(&ftmpi_comm_self);
  return Status::Ok();
}

void Runtime::drop_layer(bool keep_links) {
  // Handles of the old epoch become invalid for good (seed 003 §1.3: after a rollback only
  // MPI_COMM_WORLD, MPI_COMM_SELF and MPI_COMM_NULL are valid). The old engine, FT manager, progress
  // loop and context allocator are not destroyed: stale handles point into them and must stay readable
  // (their magic says "rolled back"); one set per rollback, bounded by --max-restarts.
  if (ft_)
    for (ftmpi_comm_s* c : ft_->registered_comms()) {
      if (c->predefined) continue;
      c->magic = kMagicRolledBack;
      if (c->local_comm) c->local_comm->magic = kMagicRolledBack;
    }
  if (engine_) engine_->invalidate_all_requests();
  (void)engine_.release();
  (void)progress_.release();
  (void)ft_.release();
  (void)contexts_.release();
  if (keep_links) {
    // The transports stay (models/reinit/kept_links.h): only the links naming a replaced process are
    // rebuilt, by build_layer; what the kept links still carry of the old epoch is dropped by the new
    // engine's epoch check.
    retired_boots_.push_back(std::move(epoch_boot_));
    return;
  }
  {
    std::lock_guard g(wake_mu_);
    // The old epoch's transports are no longer polled by anyone; they are closed on a helper thread once
    // the new epoch is committed (enter_epoch): unmapping segments and closing connections is then off
    // the recovery's critical path.
    // Nothing queued on them is delivered either: no rank reads an old epoch's frames.
    if (router_) {
      router_->abandon_output();
      retired_routers_.push_back(std::move(router_));
    }
  }
  retired_boots_.push_back(std::move(epoch_boot_));
}

void Runtime::join_closer() {
  if (closer_.joinable()) closer_.join();
}

void Runtime::close_retired_in_background() {
  join_closer();  // the previous rollback's (long done in practice)
  if (retired_routers_.empty() && retired_links_.empty()) {
    // A survivor that kept its links (the usual rollback): only the left epoch's bootstrap (a few strings)
    // is retired. No thread for it: creating one took ~0.1 ms of CPU per rank right where the released
    // ranks queue for the 2 cores (16 ranks: 15 clones and exits inside the recovery's last millisecond).
    retired_boots_.clear();
    return;
  }
  closer_ = std::thread([routers = std::move(retired_routers_), links = std::move(retired_links_),
                         boots = std::move(retired_boots_)]() mutable {
    routers.clear();  // before the bootstraps they may refer to
    links.clear();
    boots.clear();
  });
  retired_routers_.clear();
  retired_links_.clear();
  retired_boots_.clear();
}

Status Runtime::enter_epoch() {
  join_closer();
  for (;;) {
    std::vector<int> replaced;
    const int e = reinit_->begin_change(&replaced);
    reinit_->note(reinit::ReinitControl::Stage::landed);
    reinit::trace::start();
    reinit::trace::mark("landed");
    // A survivor (it has a committed layer) keeps its links to the other survivors; a replacement
    // process builds everything. Not for a spawned job part (its router renumbers peers) or with
    // dynamic-process links.
    // A process the coordinator lists as new in this epoch builds every link even if it has links of an
    // epoch it resumed in but the coordinator never committed (kept_links.h, survivor_for).
    const bool keep = router_ && world_base_ == 0 && !router_->has_foreign() && keep_links_enabled() &&
                      reinit::survivor_for(true, replaced, world_rank_);
    drop_layer(keep);
    failures_->reset();
    reinit_->note(reinit::ReinitControl::Stage::dropped);
    reinit::trace::mark("dropped");
    reinit::ReinitControl* rc = reinit_.get();
    // Fence 1 (every member dropped its old engine; endpoints published) is waited for; fence 2 (every
    // member mapped the new segments) is only entered: this rank resumes as soon as its links are built
    // (models/reinit/epoch_change.h).
    epoch_boot_ = std::make_unique<reinit::EpochBootstrap>(
        *boot_, e,
        [rc, e](int seq, const std::vector<reinit::Card>& mine, std::vector<reinit::Card>* got) {
          if (seq >= 2) {
            rc->enter_fence(e, seq, mine);
            return Status::Ok();
          }
          return rc->fence(e, seq, mine, got);
        },
        [rc] { return rc->superseded(); });
    Status st = build_layer(*epoch_boot_, true, false, e, keep ? &replaced : nullptr);
    reinit_->unlink_when_attached(e, transport::shm::segment_name(epoch_boot_->job_id(), world_rank_));
    if (st.ok()) {
      reinit_->commit();
      reinit::trace::mark("built");
      reinit::trace::flush(world_rank_);
      close_retired_in_background();
      log::debug("reinit: epoch %d committed", e);
      if (!reinit_->rollback_due()) return st;
      continue;
    }
    if (reinit_->superseded()) continue;
    return st;
  }
}

Runtime::~Runtime() {
  if (async_) async_->stop();
  if (contention_waker_) lock_.set_observer(nullptr);
  join_closer();
  if (peer_watch_) peer_watch_->stop();
  if (service_) service_->stop();
  if (failures_) failures_->set_observer(nullptr);
  if (events_) events_->stop();
  router_.reset();  // before the epoch's bootstrap it may refer to
}

bool Runtime::pending_by_failure(const p2p::Request* r) {
  return failures_->epoch() != 0 && ft_->any_source_blocked(r);
}

bool Runtime::wait_or_pending(p2p::Request* r) {
  bool pending = false;
  progress_->wait_until([&] { return r->complete || (pending = pending_by_failure(r)); });
  return !pending;
}

dpm::Dpm& Runtime::dpm() {
  if (!dpm_) dpm_ = std::make_unique<dpm::Dpm>(*this);
  return *dpm_;
}

bool Runtime::is_main_thread() const { return static_cast<unsigned long>(pthread_self()) == main_thread_; }

Status Runtime::finalize() {
  if (async_) async_->stop();  // MPI_Finalize holds no lock; from here on the library is single-threaded again
  if (contention_waker_) lock_.set_observer(nullptr);
  join_closer();
  if (ft_) ft_->start_deferred_vetoes();  // a revoke's veto not started yet (ft/ft_manager.h defer_veto) goes out now
  // Drain: frames still waiting for a transport (and buffered sends) must reach their peers first.
  progress_->wait_until([this] { return !engine_->has_backlog() && !engine_->bsend_pending(); });
  // The launcher's barrier tells every rank that all are done. A foreign launcher (Hydra, srun) in FT mode
  // knows nothing of failed ranks and would wait for them forever: there, each rank leaves on its own (its
  // queued output is pushed out and each peer gets a goodbye when the transports close, so nothing sent
  // is lost and no departure looks like a failure).
  // Progress goes on while waiting: in FT mode a member that decided an agreement must still answer those
  // still deciding (a survivor whose tree parent died asks this process; ft/agreement.h), e.g. a spawned
  // sibling still inside MPI_Init's intercommunicator creation (ft_dpm_parent_dies hung ~1 run in 100).
  if (!ft_mode_ || boot_->launched_by_ftmpi()) FTMPI_TRY(boot_->fence_while([this] { progress_->poll(); }));
  if (dpm_) dpm_->leaving();
  if (peer_watch_) peer_watch_->stop();  // goodbyes: leaving is not a failure
  if (service_) service_->stop();
  failures_->set_observer(nullptr);
  events_->stop();
  if (reinit_) reinit_->leave_job();  // before the launcher hears of the finalize: not a death
  Status st = boot_->finalize();
  ftmpi_comm_world.magic = kMagicFreed;
  ftmpi_comm_self.magic = kMagicFreed;
  return st;
}

}  // namespace ftmpi
