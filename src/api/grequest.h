// Generalized requests (MPI-3.1 §12.2): MPI_Grequest_start / MPI_Grequest_complete.
//
// A generalized request is an ordinary engine request of kind ReqKind::generic whose GenericOp is a
// Grequest, so MPI_Wait/Test/Waitall/Testany/... treat it like any other request: they drive the same
// progress loop (which backs off to sleeping when idle: waiting on a grequest does not burn a core) until
// the engine sees the op finished, i.e. until some thread called MPI_Grequest_complete.
//
// Callbacks, as the standard orders them:
//  * query_fn fills the status when a completion call (Wait/Test/... and Request_get_status) reports the
//    request complete; its return value is the error the completion call reports.
//  * free_fn runs once when the request is freed: after query_fn in the completion call that frees it, or,
//    for a request freed with MPI_Request_free, when it is freed (complete) or completed later.
//  * cancel_fn runs on MPI_Cancel, with complete = whether MPI_Grequest_complete was already called.
// Error codes a callback returns are reported as their class when they are predefined classes; other
// values (user codes) become MPI_ERR_OTHER with the value in the message (the Status type carries classes).
//
// Thread safety: MPI_Grequest_complete may be called by any thread (the flag is atomic); callbacks run in
// the thread of the MPI call that triggers them, under the API lock.
#pragma once
#include <atomic>

#include "mpi.h"
#include "p2p/request.h"
#include "util/status.h"

namespace ftmpi::api {

class Grequest final : public p2p::GenericOp {
 public:
  Grequest(MPI_Grequest_query_function* query, MPI_Grequest_free_function* free,
           MPI_Grequest_cancel_function* cancel, void* extra)
      : query_(query), free_(free), cancel_(cancel), extra_(extra) {}
  ~Grequest() override { (void)free_once(); }

  bool progress() override { return done_.load(std::memory_order_acquire); }
  // MPI_Grequest_complete: false when it was called before.
  bool mark_complete() { return !done_.exchange(true, std::memory_order_acq_rel); }
  bool marked() const { return done_.load(std::memory_order_acquire); }

  // query_fn into *out (a full status; MPI_ERROR preset to MPI_SUCCESS). Returns its code.
  int query(MPI_Status* out);
  // free_fn, at most once. Returns its code (MPI_SUCCESS when it already ran or there is none).
  int free_once();
  // cancel_fn(extra, complete). Returns its code.
  int cancel() { return cancel_ ? cancel_(extra_, marked() ? 1 : 0) : MPI_SUCCESS; }

 private:
  MPI_Grequest_query_function* query_;
  MPI_Grequest_free_function* free_;
  MPI_Grequest_cancel_function* cancel_;
  void* extra_;
  bool freed_ = false;
  std::atomic<bool> done_{false};
};

// The Grequest behind `r`, or nullptr for any other request.
Grequest* as_grequest(p2p::Request* r);
// A callback's MPI error code as a Status (predefined class -> its Errc; anything else -> Errc::other).
Status status_of_callback_code(int code, const char* what);

// An error as a completion call reports it: `status` for the library, `code` for the caller (the return
// value or MPI_ERROR). Usually code is status's class; for a generalized request's callback it is the
// callback's own value when that is a class or code added with MPI_Add_error_class/code, which the caller
// must get back unchanged (MPI-4.1 §13.2: the callback's error code is returned by the MPI function that
// invoked it). Any other non-MPI value is reported as MPI_ERR_OTHER.
struct ReportedError {
  Status status;
  int code = MPI_SUCCESS;
};
ReportedError reported(Status st);
ReportedError reported_callback_code(int code, const char* what);
// ret() for a ReportedError: MPI_SUCCESS, or `code` through comm's error handler.
int ret_reported(ftmpi_comm_s* comm, const ReportedError& e, const char* fn);

}  // namespace ftmpi::api
