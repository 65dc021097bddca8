// Completion: Wait/Test and their any/all/some forms, Request_free, Request_get_status, Cancel,
// Test_cancelled, Start/Startall.
//
// Request life cycle as the application sees it: a non-persistent request is released by the call that
// reports its completion and the handle set to MPI_REQUEST_NULL; a persistent one becomes inactive and
// keeps its handle until MPI_Request_free.
#include <vector>

#include "api/common.h"
#include "api/famp_state.h"
#include "api/grequest.h"
#include "api/p2p_args.h"
#include "p2p/partitioned.h"

using ftmpi::Errc;
using ftmpi::Status;
using ftmpi::api::empty_status;
using ftmpi::api::fill_status;
using ftmpi::api::ret;
using ftmpi::api::rt;
using ftmpi::p2p::Request;

namespace {
// MPI-4.0 §4.2.2: freeing or cancelling a partitioned request that is active (started, not completed) is
// erroneous. MPI_Cancel of one always fails with a message (ignored, it would leave the following MPI_Wait
// hanging). MPI_Request_free fails where the operation could never end by itself: a send some of whose
// partitions are not marked ready (the receiver would wait for them forever); an active receive, or a send
// whose partitions are all ready, is released when it completes, as any persistent request is
// (open-mpi/ompi-tests-public test_order0 frees such a receive and expects to run on).
bool active_partitioned(const Request* r) {
  return (ftmpi::p2p::part::is_psend(r) || ftmpi::p2p::part::is_precv(r)) && r->active && !r->complete;
}


bool valid_request(const Request* r) { return r && r->magic == ftmpi::kMagicRequest; }

// A request that Wait/Test treat as "nothing to wait for": null or an inactive persistent request.
bool inert(const Request* r) { return !r || (r->persistent && !r->active); }

// Completion of one request already known to be complete: status out, handle released or deactivated.
// Returns the request's own error (a generalized request's: its callbacks', see ReportedError).
ftmpi::api::ReportedError finish(MPI_Request* handle, MPI_Status* status) {
  Request* r = *handle;
  ftmpi::api::Grequest* g = r->kind == ftmpi::p2p::ReqKind::generic ? ftmpi::api::as_grequest(r) : nullptr;
  if (g != nullptr) {  // query_fn gives the status, then free_fn
    MPI_Status q;
    const int qrc = g->query(&q);
    if (status) {
      const int keep = status->MPI_ERROR;  // only the multiple-completion calls set MPI_ERROR
      *status = q;
      status->MPI_ERROR = keep;
    }
    const int frc = g->free_once();
    rt().engine().release(r);
    *handle = MPI_REQUEST_NULL;
    if (qrc != MPI_SUCCESS) return ftmpi::api::reported_callback_code(qrc, "query function");
    return ftmpi::api::reported_callback_code(frc, "free function");
  }
  fill_status(status, r);
  Status st = r->error;
  if (r->persistent) {
    r->active = false;
  } else {
    rt().engine().release(r);
    *handle = MPI_REQUEST_NULL;
  }
  return ftmpi::api::reported(std::move(st));
}

// The return of Waitall/Testall/Waitsome/Testsome when a request failed: MPI_ERR_IN_STATUS, each status
// holding its own error. The communicator's error handler is called once, for the first failed request:
// when that failure is a process failure or a revoke (MPI_ERR_PROC_FAILED, _PENDING, MPI_ERR_REVOKED), the
// handler gets that class -- what a ULFM handler must see to act on it (ack, revoke, shrink), and what Open
// MPI's ULFM passes -- otherwise MPI_ERR_IN_STATUS. The caller gets MPI_ERR_IN_STATUS either way.
int ret_in_status(MPI_Comm comm, const Status& first, const char* fn) {
  const Errc e = first.code();
  if (e == Errc::proc_failed || e == Errc::proc_failed_pending || e == Errc::revoked) {
    ftmpi::api::ret_error(comm, first, fn);  // aborts under a fatal handler
    return MPI_ERR_IN_STATUS;
  }
  return ret(comm, Status(Errc::in_status, "an operation failed: see the statuses"), fn);
}

Status check_requests(int count, MPI_Request reqs[]) {
  if (count < 0) return Status(Errc::count, "negative request count");
  if (count > 0 && !reqs) return Status(Errc::arg, "request array is NULL");
  for (int i = 0; i < count; ++i)
    if (reqs[i] && !valid_request(reqs[i])) return Status(Errc::request, "invalid or freed request");
  return Status::Ok();
}

MPI_Comm comm_of(MPI_Request r) { return r ? r->comm : nullptr; }

Status pending_error() {
  return Status(Errc::proc_failed_pending,
                "a potential sender of this MPI_ANY_SOURCE receive failed; acknowledge it (MPIX_Comm_failure_ack) "
                "to continue");
}

// Done for the purpose of a multiple-completion wait: complete, or blocked by a failure (pending).
bool settled(MPI_Request r) { return inert(r) || r->complete || rt().pending_by_failure(r); }

}  // namespace

extern "C" int PMPI_Wait(MPI_Request* request, MPI_Status* status) {
  FTMPI_ENTER("MPI_Wait");
  if (!request) return ret(nullptr, Status(Errc::request, "request is NULL"), "MPI_Wait");
  if (*request && !valid_request(*request))
    return ret(nullptr, Status(Errc::request, "invalid or freed request"), "MPI_Wait");
  if (inert(*request)) {
    empty_status(status);
    return MPI_SUCCESS;
  }
  Request* r = *request;
  // Already complete (an eager send the transport took, a receive matched by an earlier pass): no progress
  // pass. A non-persistent send or receive without error goes out as in MPI_Waitall's common case.
  if (r->complete && !r->persistent && r->kind != ftmpi::p2p::ReqKind::generic && r->error.ok()) [[likely]] {
    fill_status(status, r);
    rt().engine().release(r);
    *request = MPI_REQUEST_NULL;
    return MPI_SUCCESS;
  }
  MPI_Comm comm = r->comm;
  ftmpi::api::CommHold hold(comm);
  if (!r->complete && !rt().wait_or_pending(r)) return ret(comm, pending_error(), "MPI_Wait");  // stays valid
  return ftmpi::api::ret_reported(comm, finish(request, status), "MPI_Wait");
}
FTMPI_ALIAS(Wait)

extern "C" int PMPI_Test(MPI_Request* request, int* flag, MPI_Status* status) {
  FTMPI_ENTER("MPI_Test");
  if (!request || !flag) return ret(nullptr, Status(Errc::arg, "NULL argument"), "MPI_Test");
  if (*request && !valid_request(*request))
    return ret(nullptr, Status(Errc::request, "invalid or freed request"), "MPI_Test");
  if (inert(*request)) {
    *flag = 1;
    empty_status(status);
    return MPI_SUCCESS;
  }
  Request* r = *request;
  if (!r->complete) rt().progress().poll();
  *flag = r->complete;
  if (!r->complete) return rt().pending_by_failure(r) ? ret(r->comm, pending_error(), "MPI_Test") : MPI_SUCCESS;
  MPI_Comm comm = r->comm;
  ftmpi::api::CommHold hold(comm);
  return ftmpi::api::ret_reported(comm, finish(request, status), "MPI_Test");
}
FTMPI_ALIAS(Test)

extern "C" int PMPI_Waitall(int count, MPI_Request reqs[], MPI_Status statuses[]) {
  FTMPI_ENTER("MPI_Waitall");
  Status st = check_requests(count, reqs);
  if (!st.ok()) return ret(nullptr, st, "MPI_Waitall");
  int first = 0;  // reqs[0, first) are complete or inert: they stay so while this call runs, no need to look again
  // Requests complete already (a window of eager sends the transport took) need no progress pass at all.
  while (first < count && (inert(reqs[first]) || reqs[first]->complete)) ++first;
  if (first < count)
    rt().progress().wait_until([&] {
      while (first < count && (inert(reqs[first]) || reqs[first]->complete)) ++first;
      for (int i = first; i < count; ++i)
        if (!settled(reqs[i])) return false;
      return true;
    });
  bool any_error = false;
  MPI_Comm err_comm = nullptr;
  Status first_error;  // the first failed request's, for the error handler (ret_in_status)
  ftmpi::api::CommHold err_hold;
  for (int i = 0; i < count; ++i) {
    MPI_Status* s = statuses ? &statuses[i] : nullptr;
    if (inert(reqs[i])) {
      empty_status(s);
      if (s) s->MPI_ERROR = MPI_SUCCESS;
      continue;
    }
    if (!reqs[i]->complete) {  // pending because of a failure: stays valid
      if (s) s->MPI_ERROR = MPI_ERR_PROC_FAILED_PENDING;
      if (!any_error) {
        err_comm = reqs[i]->comm;
        err_hold.set(err_comm);
        first_error = pending_error();
      }
      any_error = true;
      continue;
    }
    Request* r = reqs[i];
    // The common case: a send or receive, not persistent, without error: out with its status (no hold on
    // its communicator needed, no error to raise on it).
    if (!r->persistent && r->kind != ftmpi::p2p::ReqKind::generic && r->error.ok()) [[likely]] {
      fill_status(s, r);
      if (s) s->MPI_ERROR = MPI_SUCCESS;
      rt().engine().release(r);
      reqs[i] = MPI_REQUEST_NULL;
      continue;
    }
    MPI_Comm c = r->comm;
    ftmpi::api::CommHold hold(c);
    const ftmpi::api::ReportedError e = finish(&reqs[i], s);
    if (s) s->MPI_ERROR = e.code;
    if (!e.status.ok() && !any_error) {
      any_error = true;
      err_comm = c;
      err_hold.set(c);
      first_error = e.status;
    }
  }
  if (any_error) return ret_in_status(err_comm, first_error, "MPI_Waitall");
  return MPI_SUCCESS;
}
FTMPI_ALIAS(Waitall)

extern "C" int PMPI_Testall(int count, MPI_Request reqs[], int* flag, MPI_Status statuses[]) {
  FTMPI_ENTER("MPI_Testall");
  if (!flag) return ret(nullptr, Status(Errc::arg, "flag is NULL"), "MPI_Testall");
  Status st = check_requests(count, reqs);
  if (!st.ok()) return ret(nullptr, st, "MPI_Testall");
  rt().progress().poll();
  for (int i = 0; i < count; ++i)
    if (!inert(reqs[i]) && !reqs[i]->complete) {
      *flag = 0;
      return MPI_SUCCESS;
    }
  *flag = 1;
  return PMPI_Waitall(count, reqs, statuses);  // all complete: Waitall only collects
}
FTMPI_ALIAS(Testall)

namespace {
// Index of a completed active request, -1 if some are active but none complete, MPI_UNDEFINED if none
// is active.
int find_completed(int count, MPI_Request reqs[]) {
  bool any_active = false;
  for (int i = 0; i < count; ++i) {
    if (inert(reqs[i])) continue;
    any_active = true;
    if (reqs[i]->complete) return i;
  }
  return any_active ? -1 : MPI_UNDEFINED;
}
}  // namespace

extern "C" int PMPI_Waitany(int count, MPI_Request reqs[], int* index, MPI_Status* status) {
  FTMPI_ENTER("MPI_Waitany");
  if (!index) return ret(nullptr, Status(Errc::arg, "index is NULL"), "MPI_Waitany");
  Status st = check_requests(count, reqs);
  if (!st.ok()) return ret(nullptr, st, "MPI_Waitany");
  int i = -1;
  int blocked = -1;
  rt().progress().wait_until([&] {
    if ((i = find_completed(count, reqs)) != -1) return true;
    for (int k = 0; k < count; ++k)
      if (!inert(reqs[k]) && rt().pending_by_failure(reqs[k])) {
        blocked = k;
        return true;
      }
    return false;
  });
  if (i == -1) {  // an ANY_SOURCE receive is blocked by an unacknowledged failure
    *index = blocked;
    return ret(reqs[blocked]->comm, pending_error(), "MPI_Waitany");
  }
  *index = i;
  if (i == MPI_UNDEFINED) {
    empty_status(status);
    return MPI_SUCCESS;
  }
  MPI_Comm comm = comm_of(reqs[i]);
  ftmpi::api::CommHold hold(comm);
  return ftmpi::api::ret_reported(comm, finish(&reqs[i], status), "MPI_Waitany");
}
FTMPI_ALIAS(Waitany)

extern "C" int PMPI_Testany(int count, MPI_Request reqs[], int* index, int* flag, MPI_Status* status) {
  FTMPI_ENTER("MPI_Testany");
  if (!index || !flag) return ret(nullptr, Status(Errc::arg, "NULL argument"), "MPI_Testany");
  Status st = check_requests(count, reqs);
  if (!st.ok()) return ret(nullptr, st, "MPI_Testany");
  rt().progress().poll();
  int i = find_completed(count, reqs);
  if (i == -1) {
    *flag = 0;
    *index = MPI_UNDEFINED;
    return MPI_SUCCESS;
  }
  *flag = 1;
  *index = i;
  if (i == MPI_UNDEFINED) {
    empty_status(status);
    return MPI_SUCCESS;
  }
  MPI_Comm comm = comm_of(reqs[i]);
  ftmpi::api::CommHold hold(comm);
  return ftmpi::api::ret_reported(comm, finish(&reqs[i], status), "MPI_Testany");
}
FTMPI_ALIAS(Testany)

namespace {
// Collect every completed active request (Waitsome/Testsome). outcount MPI_UNDEFINED if none is active.
int collect_some(int count, MPI_Request reqs[], int* outcount, int indices[], MPI_Status statuses[],
                 const char* fn) {
  int n = 0;
  bool any_active = false;
  bool any_error = false;
  MPI_Comm err_comm = nullptr;
  Status first_error;
  ftmpi::api::CommHold err_hold;
  for (int i = 0; i < count; ++i) {
    if (inert(reqs[i])) continue;
    any_active = true;
    if (!reqs[i]->complete) continue;
    MPI_Status* s = statuses ? &statuses[n] : nullptr;
    MPI_Comm c = reqs[i]->comm;
    ftmpi::api::CommHold hold(c);
    const ftmpi::api::ReportedError e = finish(&reqs[i], s);
    if (s) s->MPI_ERROR = e.code;
    if (!e.status.ok() && !any_error) {
      any_error = true;
      err_comm = c;
      err_hold.set(c);
      first_error = e.status;
    }
    indices[n++] = i;
  }
  *outcount = any_active ? n : MPI_UNDEFINED;
  if (any_error) return ret_in_status(err_comm, first_error, fn);
  return MPI_SUCCESS;
}
}  // namespace

extern "C" int PMPI_Waitsome(int incount, MPI_Request reqs[], int* outcount, int indices[],
                             MPI_Status statuses[]) {
  FTMPI_ENTER("MPI_Waitsome");
  if (!outcount || (incount > 0 && !indices))
    return ret(nullptr, Status(Errc::arg, "NULL argument"), "MPI_Waitsome");
  Status st = check_requests(incount, reqs);
  if (!st.ok()) return ret(nullptr, st, "MPI_Waitsome");
  int blocked = -1;
  rt().progress().wait_until([&] {
    if (find_completed(incount, reqs) != -1) return true;
    for (int k = 0; k < incount; ++k)
      if (!inert(reqs[k]) && rt().pending_by_failure(reqs[k])) {
        blocked = k;
        return true;
      }
    return false;
  });
  if (find_completed(incount, reqs) == -1 && blocked >= 0) {
    *outcount = 0;
    return ret(reqs[blocked]->comm, pending_error(), "MPI_Waitsome");
  }
  return collect_some(incount, reqs, outcount, indices, statuses, "MPI_Waitsome");
}
FTMPI_ALIAS(Waitsome)

extern "C" int PMPI_Testsome(int incount, MPI_Request reqs[], int* outcount, int indices[],
                             MPI_Status statuses[]) {
  FTMPI_ENTER("MPI_Testsome");
  if (!outcount || (incount > 0 && !indices))
    return ret(nullptr, Status(Errc::arg, "NULL argument"), "MPI_Testsome");
  Status st = check_requests(incount, reqs);
  if (!st.ok()) return ret(nullptr, st, "MPI_Testsome");
  rt().progress().poll();
  return collect_some(incount, reqs, outcount, indices, statuses, "MPI_Testsome");
}
FTMPI_ALIAS(Testsome)

extern "C" int PMPI_Request_free(MPI_Request* request) {
  FTMPI_ENTER("MPI_Request_free");
  if (!request || !valid_request(*request))
    return ret(nullptr, Status(Errc::request, "invalid or freed request"), "MPI_Request_free");
  Request* r = *request;
  if (r->kind == ftmpi::p2p::ReqKind::generic && ftmpi::api::famp::free_try_request(r)) {  // a TryBlock's end
    *request = MPI_REQUEST_NULL;
    return MPI_SUCCESS;
  }
  if (ftmpi::p2p::part::psend_waits_for_pready(r))
    return ret(r->comm,
               Status(Errc::request, "freeing an active partitioned send whose partitions are not all marked "
                                     "ready is erroneous (MPI-4.0 §4.2.2): the receiver would wait forever"),
               "MPI_Request_free");
  r->persistent = false;  // an active persistent request is released when its operation completes
  rt().engine().release(r);
  *request = MPI_REQUEST_NULL;
  return MPI_SUCCESS;
}
FTMPI_ALIAS(Request_free)

extern "C" int PMPI_Request_get_status(MPI_Request request, int* flag, MPI_Status* status) {
  FTMPI_ENTER("MPI_Request_get_status");
  if (!flag) return ret(nullptr, Status(Errc::arg, "flag is NULL"), "MPI_Request_get_status");
  if (request && !valid_request(request))
    return ret(nullptr, Status(Errc::request, "invalid or freed request"), "MPI_Request_get_status");
  if (inert(request)) {
    *flag = 1;
    empty_status(status);
    return MPI_SUCCESS;
  }
  if (!request->complete) rt().progress().poll();
  *flag = request->complete;
  if (request->complete) {
    if (ftmpi::api::Grequest* g = ftmpi::api::as_grequest(request)) {  // status from query_fn; not freed
      MPI_Status q;
      const int qrc = g->query(&q);
      if (status) *status = q;
      return ftmpi::api::ret_reported(nullptr, ftmpi::api::reported_callback_code(qrc, "query function"),
                                      "MPI_Request_get_status");
    }
    fill_status(status, request);
    return ret(request->comm, request->error, "MPI_Request_get_status");
  }
  return MPI_SUCCESS;
}
FTMPI_ALIAS(Request_get_status)

extern "C" int PMPI_Cancel(MPI_Request* request) {
  FTMPI_ENTER("MPI_Cancel");
  if (!request || !valid_request(*request))
    return ret(nullptr, Status(Errc::request, "invalid or freed request"), "MPI_Cancel");
  if (ftmpi::api::Grequest* g = ftmpi::api::as_grequest(*request))
    return ftmpi::api::ret_reported(nullptr, ftmpi::api::reported_callback_code(g->cancel(), "cancel function"),
                                    "MPI_Cancel");
  if (active_partitioned(*request))
    return ret((*request)->comm,
               Status(Errc::request, "cancelling an active partitioned request is erroneous (MPI-4.0 §4.2.2): "
                                     "partitioned operations cannot be cancelled"),
               "MPI_Cancel");
  return ret((*request)->comm, rt().engine().cancel(*request), "MPI_Cancel");
}
FTMPI_ALIAS(Cancel)

extern "C" int PMPI_Test_cancelled(const MPI_Status* status, int* flag) {
  FTMPI_ENTER("MPI_Test_cancelled");
  if (!status || !flag) return ret(nullptr, Status(Errc::arg, "NULL argument"), "MPI_Test_cancelled");
  *flag = status->ftmpi_cancelled;
  return MPI_SUCCESS;
}
FTMPI_ALIAS(Test_cancelled)

extern "C" int PMPI_Start(MPI_Request* request) {
  FTMPI_ENTER("MPI_Start");
  if (!request || !valid_request(*request) || !(*request)->persistent)
    return ret(nullptr, Status(Errc::request, "not a persistent request"), "MPI_Start");
  Request* r = *request;
  if (r->active) return ret(r->comm, Status(Errc::request, "request is already active"), "MPI_Start");
  return ret(r->comm, rt().engine().start(r), "MPI_Start");
}
FTMPI_ALIAS(Start)

extern "C" int PMPI_Startall(int count, MPI_Request reqs[]) {
  FTMPI_ENTER("MPI_Startall");
  Status st = check_requests(count, reqs);
  if (!st.ok()) return ret(nullptr, st, "MPI_Startall");
  for (int i = 0; i < count; ++i) {
    int rc = PMPI_Start(&reqs[i]);
    if (rc != MPI_SUCCESS) return rc;
  }
  return MPI_SUCCESS;
}
FTMPI_ALIAS(Startall)
