#include "runtime/runtime.h"

#include <pthread.h>
#include <unistd.h>

#include <cstdlib>
#include <cstring>
#include <numeric>

#include "comm/comm_ops.h"
#include "comm/context_alloc.h"
#include "ft/failure_state.h"
#include "ft/ft_manager.h"
#include "ft/service.h"
#include "mpi.h"
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
  return f && (std::strcmp(f, "ulfm") == 0 || std::strcmp(f, "mpi") == 0);
}

int env_int(const char* name, int dflt) {
  const char* v = std::getenv(name);
  return v ? std::atoi(v) : dflt;
}

ftmpi_errhandler_s* initial_errhandler() {
  const char* e = std::getenv("FTMPI_INITIAL_ERRHANDLER");
  if (!e) return &ftmpi_errors_are_fatal;
  if (std::strcmp(e, "mpi_errors_return") == 0) return &ftmpi_errors_return;
  if (std::strcmp(e, "mpi_errors_abort") == 0) return &ftmpi_errors_abort;
  return &ftmpi_errors_are_fatal;
}

int online_cores() {
  if (const char* c = std::getenv("FTMPI_NUM_CORES")) {
    int n = std::atoi(c);
    if (n > 0) return n;
  }
  long n = sysconf(_SC_NPROCESSORS_ONLN);
  return n > 0 ? static_cast<int>(n) : 1;
}

void init_predefined_comm(ftmpi_comm_s& c, std::vector<int> members, int my_world, std::uint32_t ctx,
                          const char* name) {
  c.group = comm::make_group(std::move(members), my_world);
  c.group->predefined = true;
  c.rank = c.group->my_rank;
  c.size = c.group->size();
  c.ctx_pt2pt = ctx;
  c.ctx_coll = ctx + 1;
  c.errhandler = initial_errhandler();
  c.name = name;
  c.predefined = true;
  c.coll_seq = 0;
  c.revoked.store(false);
  c.magic = kMagicComm;
}
}  // namespace

Result<std::unique_ptr<Runtime>> Runtime::init(int required_thread_level) {
  std::unique_ptr<Runtime> rt(new Runtime());
  rt->main_thread_ = static_cast<unsigned long>(pthread_self());
  rt->thread_level_ = std::min(std::max(required_thread_level, MPI_THREAD_SINGLE), MPI_THREAD_MULTIPLE);

  auto boot = boot::make_bootstrap();
  if (!boot.ok()) return boot.status();
  rt->boot_ = std::move(boot.value());
  rt->world_rank_ = rt->boot_->rank();
  rt->world_size_ = rt->boot_->size();
  log::set_rank(rt->world_rank_);

  rt->ft_mode_ = ft_mode_from_env();
  transport::RouterOptions ropts = router_options_from_env();
  ropts.tolerate_failed_peers = rt->ft_mode_;
  auto router = transport::Router::create(*rt->boot_, ropts);
  if (!router.ok()) return router.status();
  rt->router_ = std::move(router.value());
  rt->engine_ = std::make_unique<p2p::Engine>(*rt->router_, rt->world_rank_, rt->world_size_);
  rt->progress_ = std::make_unique<progress::Progress>(
      *rt->engine_, *rt->router_,
      progress::BackoffPolicy::for_load(rt->router_->local_ranks(), online_cores()));
  rt->contexts_ = std::make_unique<comm::ContextAllocator>();
  rt->failures_ = std::make_unique<ft::FailureState>(rt->world_size_);
  // Ranks that died during MPI_Init (FT mode): failed in MPI_COMM_WORLD from the start. mpiexec's notice
  // for each follows on the control channel and finds them already recorded.
  for (const transport::StartupFailure& f : rt->router_->failed_at_start()) {
    std::string_view how = f.how;
    std::size_t colon = how.find(':');
    std::string_view cause = how.substr(0, colon);
    int code = colon == std::string_view::npos ? 0 : std::atoi(std::string(how.substr(colon + 1)).c_str());
    ft::Cause c = cause == "signaled" ? ft::Cause::signaled
                  : cause == "hung"   ? ft::Cause::hung
                  : cause == "disappeared" || cause == "unreachable" ? ft::Cause::disappeared
                                           : ft::Cause::exited;
    rt->failures_->mark_failed({f.rank, c, code, 0.0});
    log::debug("MPI_Init: rank %d failed during start-up (%s)", f.rank, f.how.c_str());
  }
  rt->ft_ = std::make_unique<ft::FtManager>(*rt, *rt->failures_, rt->ft_mode_);
  rt->engine_->set_ft(rt->ft_.get(), rt->failures_.get());
  Runtime* self = rt.get();
  rt->engine_->set_idle_comm_hook([self](ftmpi_comm_s* c) { comm::retire(*self, c); });
  if (rt->ft_mode_ && std::getenv("FTMPI_CTRL_FD")) {
    ft::ServiceConfig cfg;
    cfg.ctrl_fd = env_int("FTMPI_CTRL_FD", -1);
    cfg.heartbeat_period_ms = env_int("FTMPI_DETECTOR_PERIOD_MS", 0);
    transport::Router* router_ptr = rt->router_.get();
    auto svc = ft::start_service(cfg, *rt->failures_, [router_ptr] { router_ptr->wake_all(); });
    if (!svc.ok()) return svc.status();
    rt->service_ = std::move(svc.value());
    rt->ft_->set_service(rt->service_.get());
  }
  if (rt->thread_level_ == MPI_THREAD_MULTIPLE) rt->progress_->set_lock(&rt->lock_);

  std::vector<int> all(static_cast<size_t>(rt->world_size_));
  std::iota(all.begin(), all.end(), 0);
  init_predefined_comm(ftmpi_comm_world, std::move(all), rt->world_rank_, comm::kCtxWorld, "MPI_COMM_WORLD");
  init_predefined_comm(ftmpi_comm_self, {rt->world_rank_}, rt->world_rank_, comm::kCtxSelf, "MPI_COMM_SELF");
  rt->ft_->register_comm(&ftmpi_comm_world);
  rt->ft_->register_comm(&ftmpi_comm_self);
  return rt;
}

Runtime::~Runtime() {
  if (service_) service_->stop();
}

bool Runtime::pending_by_failure(const p2p::Request* r) {
  return failures_->epoch() != 0 && ft_->any_source_blocked(r);
}

bool Runtime::wait_or_pending(p2p::Request* r) {
  bool pending = false;
  progress_->wait_until([&] { return r->complete || (pending = pending_by_failure(r)); });
  return !pending;
}

bool Runtime::is_main_thread() const { return static_cast<unsigned long>(pthread_self()) == main_thread_; }

Status Runtime::finalize() {
  // Drain: frames still waiting for a transport (and buffered sends) must reach their peers first.
  progress_->wait_until([this] { return !engine_->has_backlog() && !engine_->bsend_pending(); });
  FTMPI_TRY(boot_->fence());
  if (service_) service_->stop();
  Status st = boot_->finalize();
  ftmpi_comm_world.magic = kMagicFreed;
  ftmpi_comm_self.magic = kMagicFreed;
  return st;
}

}  // namespace ftmpi
