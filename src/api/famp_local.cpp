// FA-MPI timeouts and local completion (seed 001 §7.1-7.2): MPI_Timeout's accessors, MPI_Test_local,
// Testall_local, Testsome_local, Wait_local (both argument orders), Waitall_local, Waitsome_local.
//
// Local completion reports a request's completion (status, its own error) like MPI_Wait/MPI_Test but does
// not free it: the request stays valid for the TryBlock commit (which frees it), MPI_Wait/MPI_Test (which
// report it again and free it) or MPI_Request_free. When the timeout runs out first the blocking forms
// return MPI_TIMEOUT (the test forms too, when given a non-zero timeout; a zero timeout checks once and
// returns MPI_SUCCESS with flag 0, as MPI_Test). MPI_TIMEOUT is an outcome, returned without calling the
// error handler. Waitsome_local/Testsome_local report each request once (it stays complete and valid).
#include <cmath>

#include "api/famp_state.h"
#include "api/p2p_args.h"

using ftmpi::Errc;
using ftmpi::Status;
using ftmpi::api::fill_status;
using ftmpi::api::ret;
using ftmpi::api::rt;
using ftmpi::api::famp::Deadline;
using ftmpi::api::famp::inert;
using ftmpi::api::famp::registry;
using ftmpi::api::famp::valid_request;
using ftmpi::p2p::Request;

namespace ftmpi::api::famp {
Registry g_registry;  // (a plain global: the per-call path reads it without a guard variable)
}  // namespace ftmpi::api::famp

namespace {

Status check_requests(int count, MPI_Request reqs[]) {
  if (count < 0) return Status(Errc::count, "negative request count");
  if (count > 0 && !reqs) return Status(Errc::arg, "request array is NULL");
  for (int i = 0; i < count; ++i)
    if (reqs[i] && !valid_request(reqs[i])) return Status(Errc::request, "invalid or freed request");
  return Status::Ok();
}

bool settled(const Request* r) { return inert(r) || r->complete || rt().pending_by_failure(r); }

// Status of a request completed locally (or empty for inert ones); MPI_ERROR = its own class.
void local_status(MPI_Status* s, const Request* r) {
  if (!s) return;
  if (inert(r)) {
    ftmpi::api::empty_status(s);
    return;
  }
  fill_status(s, r);
  s->MPI_ERROR = r->complete ? ftmpi::api::error_class_of(r->error.code()) : MPI_ERR_PROC_FAILED_PENDING;
}

bool already_reported(const Request* r) {
  auto& rep = registry().reported;
  auto it = rep.find(r);
  return it != rep.end() && it->second == r->incarnation;
}

int wait_local(MPI_Timeout timeout, MPI_Request* request, MPI_Status* status, const char* fn) {
  FTMPI_ENTER(fn);
  if (!request) return ret(nullptr, Status(Errc::request, "request is NULL"), fn);
  if (*request && !valid_request(*request)) return ret(nullptr, Status(Errc::request, "invalid or freed request"), fn);
  if (timeout.ftmpi_ns < 0) return ret(nullptr, Status(Errc::arg, "negative timeout"), fn);
  Request* r = *request;
  if (!inert(r) && !ftmpi::api::famp::wait_until(Deadline(timeout), [r] { return settled(r); }))
    return MPI_TIMEOUT;
  const int keep = status ? status->MPI_ERROR : 0;
  local_status(status, r);
  if (status) status->MPI_ERROR = keep;  // single completion: MPI_ERROR untouched (MPI-3.1 §3.2.5)
  if (inert(r)) return MPI_SUCCESS;
  if (!r->complete) return ret(r->comm, Status(Errc::proc_failed_pending, "a potential sender failed"), fn);
  return ret(r->comm, r->error, fn);
}

int test_local(MPI_Request* request, int* flag, MPI_Timeout timeout, MPI_Status* status, const char* fn) {
  FTMPI_ENTER(fn);
  if (!request || !flag) return ret(nullptr, Status(Errc::arg, "NULL argument"), fn);
  if (*request && !valid_request(*request)) return ret(nullptr, Status(Errc::request, "invalid or freed request"), fn);
  if (timeout.ftmpi_ns < 0) return ret(nullptr, Status(Errc::arg, "negative timeout"), fn);
  Request* r = *request;
  *flag = 0;
  if (!inert(r)) {
    rt().progress().poll();
    if (!r->complete && timeout.ftmpi_ns > 0 &&
        !ftmpi::api::famp::wait_until(Deadline(timeout), [r] { return r->complete; }))
      return MPI_TIMEOUT;
    if (!r->complete) return MPI_SUCCESS;
  }
  *flag = 1;
  const int keep = status ? status->MPI_ERROR : 0;
  local_status(status, r);
  if (status) status->MPI_ERROR = keep;
  return inert(r) ? MPI_SUCCESS : ret(r->comm, r->error, fn);
}

// Statuses of all requests; MPI_ERR_IN_STATUS when one of them failed.
int all_statuses(int count, MPI_Request reqs[], MPI_Status statuses[], const char* fn) {
  bool err = false;
  MPI_Comm c = nullptr;
  for (int i = 0; i < count; ++i) {
    MPI_Status tmp;
    local_status(statuses ? &statuses[i] : &tmp, reqs[i]);
    if (!inert(reqs[i]) && (!reqs[i]->complete || !reqs[i]->error.ok())) {
      if (!err) c = reqs[i]->comm;
      err = true;
    }
  }
  return err ? ret(c, Status(Errc::in_status, "a request failed (see the statuses)"), fn) : MPI_SUCCESS;
}

int waitall_local(MPI_Timeout timeout, int count, MPI_Request reqs[], MPI_Status statuses[], const char* fn) {
  FTMPI_ENTER(fn);
  if (Status st = check_requests(count, reqs); !st.ok()) return ret(nullptr, st, fn);
  if (timeout.ftmpi_ns < 0) return ret(nullptr, Status(Errc::arg, "negative timeout"), fn);
  auto all = [&] {
    for (int i = 0; i < count; ++i)
      if (!settled(reqs[i])) return false;
    return true;
  };
  if (!ftmpi::api::famp::wait_until(Deadline(timeout), all)) return MPI_TIMEOUT;
  return all_statuses(count, reqs, statuses, fn);
}

int testall_local(int count, MPI_Request reqs[], int* flag, MPI_Timeout timeout, MPI_Status statuses[], const char* fn) {
  FTMPI_ENTER(fn);
  if (!flag) return ret(nullptr, Status(Errc::arg, "flag is NULL"), fn);
  if (Status st = check_requests(count, reqs); !st.ok()) return ret(nullptr, st, fn);
  if (timeout.ftmpi_ns < 0) return ret(nullptr, Status(Errc::arg, "negative timeout"), fn);
  auto all = [&] {
    for (int i = 0; i < count; ++i)
      if (!inert(reqs[i]) && !reqs[i]->complete) return false;
    return true;
  };
  *flag = 0;
  rt().progress().poll();
  if (!all()) {
    if (timeout.ftmpi_ns == 0) return MPI_SUCCESS;
    if (!ftmpi::api::famp::wait_until(Deadline(timeout), all)) return MPI_TIMEOUT;
  }
  *flag = 1;
  return all_statuses(count, reqs, statuses, fn);
}

// Requests completed and not reported before: reported now (they stay valid).
int collect_some(int incount, MPI_Request reqs[], int* outcount, int indices[], MPI_Status statuses[], const char* fn) {
  int n = 0;
  bool any_active = false;
  bool err = false;
  MPI_Comm c = nullptr;
  for (int i = 0; i < incount; ++i) {
    Request* r = reqs[i];
    if (inert(r) || already_reported(r)) continue;
    any_active = true;
    if (!r->complete) continue;
    registry().reported[r] = r->incarnation;
    if (indices) indices[n] = i;
    if (statuses) local_status(&statuses[n], r);
    if (!r->error.ok()) {
      if (!err) c = r->comm;
      err = true;
    }
    ++n;
  }
  *outcount = any_active ? n : MPI_UNDEFINED;
  return err ? ret(c, Status(Errc::in_status, "a request failed (see the statuses)"), fn) : MPI_SUCCESS;
}

bool some_ready(int incount, MPI_Request reqs[]) {
  bool any_active = false;
  for (int i = 0; i < incount; ++i) {
    const Request* r = reqs[i];
    if (inert(r) || already_reported(r)) continue;
    any_active = true;
    if (r->complete) return true;
  }
  return !any_active;
}

int waitsome_local(MPI_Timeout timeout, int incount, MPI_Request reqs[], int* outcount, int indices[],
                   MPI_Status statuses[], const char* fn) {
  FTMPI_ENTER(fn);
  if (!outcount) return ret(nullptr, Status(Errc::arg, "outcount is NULL"), fn);
  if (Status st = check_requests(incount, reqs); !st.ok()) return ret(nullptr, st, fn);
  if (timeout.ftmpi_ns < 0) return ret(nullptr, Status(Errc::arg, "negative timeout"), fn);
  *outcount = 0;
  if (!ftmpi::api::famp::wait_until(Deadline(timeout), [&] { return some_ready(incount, reqs); })) return MPI_TIMEOUT;
  return collect_some(incount, reqs, outcount, indices, statuses, fn);
}

int testsome_local(MPI_Timeout timeout, int incount, MPI_Request reqs[], int* outcount, int indices[],
                   MPI_Status statuses[], const char* fn) {
  FTMPI_ENTER(fn);
  if (!outcount) return ret(nullptr, Status(Errc::arg, "outcount is NULL"), fn);
  if (Status st = check_requests(incount, reqs); !st.ok()) return ret(nullptr, st, fn);
  if (timeout.ftmpi_ns < 0) return ret(nullptr, Status(Errc::arg, "negative timeout"), fn);
  *outcount = 0;
  rt().progress().poll();
  if (!some_ready(incount, reqs) && timeout.ftmpi_ns > 0 &&
      !ftmpi::api::famp::wait_until(Deadline(timeout), [&] { return some_ready(incount, reqs); }))
    return MPI_TIMEOUT;
  return collect_some(incount, reqs, outcount, indices, statuses, fn);
}

}  // namespace

// --- MPI_Timeout -------------------------------------------------------------------------------------
extern "C" int PMPI_Timeout_set_seconds(MPI_Timeout* timeout, double seconds) {
  if (!timeout) return ret(nullptr, Status(Errc::arg, "MPI_Timeout_set_seconds: timeout is NULL"), "MPI_Timeout_set_seconds");
  if (!(seconds >= 0) || seconds > 9.2e9)
    return ret(nullptr, Status(Errc::arg, "MPI_Timeout_set_seconds: seconds must be >= 0 and finite"), "MPI_Timeout_set_seconds");
  timeout->ftmpi_ns = static_cast<long long>(std::llround(seconds * 1e9));
  return MPI_SUCCESS;
}
FTMPI_ALIAS(Timeout_set_seconds)
extern "C" int PMPI_Timeout_get_time(MPI_Timeout timeout, double* seconds) {
  if (!seconds) return ret(nullptr, Status(Errc::arg, "MPI_Timeout_get_time: seconds is NULL"), "MPI_Timeout_get_time");
  *seconds = static_cast<double>(timeout.ftmpi_ns) * 1e-9;
  return MPI_SUCCESS;
}
FTMPI_ALIAS(Timeout_get_time)
// One tick is MPI_Wtick() (1 ns on Linux's monotonic clock).
extern "C" int PMPI_Timeout_set_ticks(MPI_Timeout* timeout, MPI_Aint ticks) {
  if (!timeout) return ret(nullptr, Status(Errc::arg, "MPI_Timeout_set_ticks: timeout is NULL"), "MPI_Timeout_set_ticks");
  if (ticks < 0) return ret(nullptr, Status(Errc::arg, "MPI_Timeout_set_ticks: negative ticks"), "MPI_Timeout_set_ticks");
  timeout->ftmpi_ns = static_cast<long long>(std::llround(static_cast<double>(ticks) * PMPI_Wtick() * 1e9));
  return MPI_SUCCESS;
}
FTMPI_ALIAS(Timeout_set_ticks)
extern "C" int PMPI_Timeout_get_ticks(MPI_Timeout timeout, MPI_Aint* ticks) {
  if (!ticks) return ret(nullptr, Status(Errc::arg, "MPI_Timeout_get_ticks: ticks is NULL"), "MPI_Timeout_get_ticks");
  *ticks = static_cast<MPI_Aint>(std::llround(static_cast<double>(timeout.ftmpi_ns) * 1e-9 / PMPI_Wtick()));
  return MPI_SUCCESS;
}
FTMPI_ALIAS(Timeout_get_ticks)

// --- local completion --------------------------------------------------------------------------------
extern "C" int PMPI_Test_local(MPI_Request* request, int* flag, MPI_Timeout timeout, MPI_Status* status) {
  return test_local(request, flag, timeout, status, "MPI_Test_local");
}
FTMPI_ALIAS(Test_local)
extern "C" int PMPI_Testall_local(int count, MPI_Request reqs[], int* flag, MPI_Timeout timeout, MPI_Status statuses[]) {
  return testall_local(count, reqs, flag, timeout, statuses, "MPI_Testall_local");
}
FTMPI_ALIAS(Testall_local)
extern "C" int PMPI_Testsome_local(MPI_Timeout timeout, int incount, MPI_Request reqs[], int* outcount, int indices[],
                                   MPI_Status statuses[]) {
  return testsome_local(timeout, incount, reqs, outcount, indices, statuses, "MPI_Testsome_local");
}
FTMPI_ALIAS(Testsome_local)
extern "C" int PMPI_Wait_local(MPI_Timeout timeout, MPI_Request* request, MPI_Status* status) {
  return wait_local(timeout, request, status, "MPI_Wait_local");
}
// Spelled out: in C++ MPI_Wait_local is overloaded (mpi.h), so FTMPI_ALIAS's decltype would be ambiguous.
extern "C" __attribute__((weak, alias("PMPI_Wait_local"), visibility("default"))) int MPI_Wait_local(
    MPI_Timeout, MPI_Request*, MPI_Status*);
extern "C" int PMPI_Wait_local_tl(MPI_Request* request, MPI_Status* status, MPI_Timeout timeout) {
  return wait_local(timeout, request, status, "MPI_Wait_local");
}
FTMPI_ALIAS(Wait_local_tl)
extern "C" int PMPI_Waitall_local(MPI_Timeout timeout, int count, MPI_Request reqs[], MPI_Status statuses[]) {
  return waitall_local(timeout, count, reqs, statuses, "MPI_Waitall_local");
}
FTMPI_ALIAS(Waitall_local)
extern "C" int PMPI_Waitsome_local(MPI_Timeout timeout, int incount, MPI_Request reqs[], int* outcount, int indices[],
                                   MPI_Status statuses[]) {
  return waitsome_local(timeout, incount, reqs, outcount, indices, statuses, "MPI_Waitsome_local");
}
FTMPI_ALIAS(Waitsome_local)
