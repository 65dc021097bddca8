// Reinit (seed 003, global restart): MPI_Reinit, MPI_Test_failure, the error handlers
// MPI_ERRORS_REINIT_ASYNC / _SYNC, MPIX_Reinit_state, and the Reinit++ names OMPI_Reinit,
// OMPI_Reinit_state (mpi-ext.h). The model itself: models/reinit/ (epoch change, jumps); the launcher's
// side: tools/mpiexec/job_reinit.cpp.

#include <csetjmp>
#include <cstdio>
#include <vector>

#include "api/common.h"
#include "api/errors.h"
#include "api/famp_state.h"
#include "models/reinit/reinit_control.h"
#include "mpi-ext.h"
#include "util/log.h"

namespace {
ftmpi_errhandler_s make_reinit(ftmpi_errhandler_s::Kind k) {
  ftmpi_errhandler_s e;
  e.kind = k;
  e.predefined = true;
  return e;
}
}  // namespace

FTMPI_API ftmpi_errhandler_s ftmpi_errors_reinit_async = make_reinit(ftmpi_errhandler_s::Kind::reinit_async);
FTMPI_API ftmpi_errhandler_s ftmpi_errors_reinit_sync = make_reinit(ftmpi_errhandler_s::Kind::reinit_sync);

using ftmpi::Errc;
using ftmpi::Status;
using ftmpi::api::g_api;
using ftmpi::api::ret;
using ftmpi::reinit::Handler;
using ftmpi::reinit::Origin;
using ftmpi::reinit::ReinitControl;

namespace ftmpi::api {

namespace {
ReinitControl* control() { return g_api.rt ? g_api.rt->reinit() : nullptr; }

bool is_failure_class(int code) {
  return code == MPI_ERR_PROC_FAILED || code == MPI_ERR_PROC_FAILED_PENDING || code == MPI_ERR_REVOKED;
}
}  // namespace

ftmpi_errhandler_s::Kind reinit_errhandler_outcome(bool async, int code) {
  using K = ftmpi_errhandler_s::Kind;
  ReinitControl* rc = control();
  // Seed 003 §1.4.2: a Reinit handler without an active rollback location behaves as ERRORS_ARE_FATAL.
  if (!rc || !rc->active()) return K::fatal;
  if (!async || !is_failure_class(code)) return K::return_;  // SYNC: errors return until MPI_Test_failure
  // ASYNC and a process failure: mpiexec announces the rollback right after the failure (or ends the job);
  // wait for it (woken by the notice itself), then the exit of this MPI call jumps.
  while (!rc->wait_rollback_due(1000)) {
  }
  return K::return_;
}

Status check_reinit_errhandler(ftmpi_comm_s* comm, ftmpi_errhandler_s* eh) {
  using K = ftmpi_errhandler_s::Kind;
  const bool reinit_kind = eh->kind == K::reinit_async || eh->kind == K::reinit_sync;
  if (!reinit_kind) return Status::Ok();
  if (comm != &ftmpi_comm_world)
    return Status(Errc::arg,
                  "MPI_ERRORS_REINIT_ASYNC and MPI_ERRORS_REINIT_SYNC may be set only on MPI_COMM_WORLD (seed 003 "
                  "section 1.4)");
  K old = comm->errhandler ? comm->errhandler->kind : K::fatal;
  if ((old == K::reinit_async || old == K::reinit_sync) && old != eh->kind)
    return Status(Errc::arg,
                  "MPI_COMM_WORLD already has the other Reinit error handler; switching between "
                  "MPI_ERRORS_REINIT_ASYNC and MPI_ERRORS_REINIT_SYNC is not allowed (seed 003 section 1.4.1)");
  if (ReinitControl* rc = control()) rc->set_handler(eh->kind == K::reinit_async ? Handler::async : Handler::sync);
  return Status::Ok();
}

namespace {

// The rollback location: MPI_Reinit's frame stays on the stack while the resilient function runs, so
// jumping back to it is defined (siglongjmp to a live frame).
int run_reinit(MPI_Reinit_function* fn, void* data, const char* name) {
  if (!g_api.rt) return ret(nullptr, not_initialized(name), name);
  if (!fn) return ret(nullptr, Status(Errc::arg, std::string(name) + ": the resilient function is NULL"), name);
  ReinitControl* rc = control();
  if (!rc) {
    // Not started with --with-ft reinit: nothing can be recovered; run the function once (failures are
    // handled as without Reinit).
    fn(data);
    return MPI_SUCCESS;
  }
  if (rc->used())
    return ret(nullptr, Status(Errc::other, std::string(name) + " may be called only once (seed 003 section 1.3)"), name);
  if (g_api.rt->thread_level() == MPI_THREAD_MULTIPLE)
    return ret(nullptr, Status(Errc::unsupported, std::string(name) + " is not supported with MPI_THREAD_MULTIPLE"),
               name);
  if (rc->handler() == Handler::none)
    return ret(nullptr,
               Status(Errc::errhandler, std::string(name) +
                                            ": set MPI_ERRORS_REINIT_ASYNC or MPI_ERRORS_REINIT_SYNC on "
                                            "MPI_COMM_WORLD first (seed 003 section 1.4.1)"),
               name);
  if (reinit::g_gate.depth != 0)
    return ret(nullptr, Status(Errc::other, std::string(name) + " called from inside another MPI call"), name);

  static sigjmp_buf location;
  if (sigsetjmp(location, 1) == 0) {
    rc->activate(&location);
  } else {
    rc->set_origin(Origin::reinited);  // landed: a survivor rolled back
  }
  // Build the epoch announced before or during this call (also: the landing of a rollback). Signals defer
  // meanwhile (depth > 0); a newer announcement is built by enter_epoch itself.
  while (rc->rollback_due()) {
    reinit::gate_enter();
    Status st = g_api.rt->enter_epoch();
    reinit::gate_leave();
    if (!st.ok()) {
      log::error("%s: cannot rebuild MPI_COMM_WORLD after a failure: %s", name, st.message().c_str());
      abort_job(MPI_ERR_OTHER, "Reinit: recovery failed");
    }
    ftmpi::api::famp::forget_epoch();  // FA-MPI blocks and raised errors of the left epoch (famp_state.h)
  }
  fn(data);
  rc->deactivate();
  return MPI_SUCCESS;
}

// Reinit++ restart points (mpi-ext.h): called with the state and the failed ranks.
struct RestartPoint {
  int argc;
  char** argv;
  MPI_Restart_point three;
  MPIX_Restart_point_failed five;
  int result;
};

void call_restart_point(void* arg) {
  auto* p = static_cast<RestartPoint*>(arg);
  ReinitControl* rc = control();
  auto state = static_cast<OMPI_reinit_state_t>(rc ? static_cast<int>(rc->origin()) : OMPI_REINIT_NEW);
  if (p->five) {
    std::vector<int> failed = rc ? rc->failed() : std::vector<int>{};
    if (rc && rc->origin() == Origin::fresh) failed.clear();
    p->result = p->five(p->argc, p->argv, state, static_cast<int>(failed.size()), failed.empty() ? nullptr : failed.data());
  } else {
    p->result = p->three(p->argc, p->argv, state);
  }
}

int ompi_reinit(int argc, char** argv, MPI_Restart_point three, MPIX_Restart_point_failed five) {
  const char* name = "OMPI_Reinit";
  if (!g_api.rt) return ret(nullptr, not_initialized(name), name);
  if (!three && !five) return ret(nullptr, Status(Errc::arg, "OMPI_Reinit: the restart point is NULL"), name);
  // Reinit++ is always asynchronous.
  if (ReinitControl* rc = control(); rc && rc->handler() == Handler::none) {
    ftmpi_comm_world.errhandler = &ftmpi_errors_reinit_async;
    rc->set_handler(Handler::async);
  }
  static RestartPoint point;
  point = RestartPoint{argc, argv, three, five, 0};
  int rc = run_reinit(call_restart_point, &point, name);
  return rc == MPI_SUCCESS ? point.result : rc;
}

}  // namespace
}  // namespace ftmpi::api

extern "C" int PMPI_Reinit(MPI_Reinit_function* resilient_fn, void* data) {
  return ftmpi::api::run_reinit(resilient_fn, data, "MPI_Reinit");
}
FTMPI_ALIAS(Reinit)

extern "C" int PMPI_Test_failure(void) {
  if (!g_api.rt) return ret(nullptr, ftmpi::api::not_initialized("MPI_Test_failure"), "MPI_Test_failure");
  ReinitControl* rc = g_api.rt->reinit();
  // Seed 003 §1.3: with a failure detected and the location active, resume at the rollback location.
  if (rc && rc->active() && rc->rollback_due() && ftmpi::reinit::g_gate.depth == 0) rc->jump();
  return MPI_SUCCESS;
}
FTMPI_ALIAS(Test_failure)

extern "C" int PMPIX_Reinit_state(int* state, int* restarts) {
  if (!g_api.rt) return ret(nullptr, ftmpi::api::not_initialized("MPIX_Reinit_state"), "MPIX_Reinit_state");
  ReinitControl* rc = g_api.rt->reinit();
  if (state) *state = rc ? static_cast<int>(rc->origin()) : MPIX_REINIT_NEW;
  if (restarts) *restarts = rc ? rc->committed() : 0;
  return MPI_SUCCESS;
}
extern "C" __attribute__((weak, alias("PMPIX_Reinit_state"), visibility("default"))) decltype(PMPIX_Reinit_state)
    MPIX_Reinit_state;

#undef OMPI_Reinit
extern "C" int OMPI_Reinit(int argc, char** argv, const MPI_Restart_point point) {
  return ftmpi::api::ompi_reinit(argc, argv, point, nullptr);
}
extern "C" int OMPIX_Reinit_failed(int argc, char** argv, const MPIX_Restart_point_failed point) {
  return ftmpi::api::ompi_reinit(argc, argv, nullptr, point);
}
extern "C" int OMPI_Reinit_state(int* state) {
  if (!g_api.rt) return ret(nullptr, ftmpi::api::not_initialized("OMPI_Reinit_state"), "OMPI_Reinit_state");
  ReinitControl* rc = g_api.rt->reinit();
  if (state) *state = rc ? static_cast<int>(rc->origin()) : OMPI_REINIT_NEW;
  return MPI_SUCCESS;
}
