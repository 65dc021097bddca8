// Generalized requests (see grequest.h): MPI_Grequest_start, MPI_Grequest_complete.
#include "api/grequest.h"

#include <memory>
#include <string>

#include "api/common.h"
#include "api/error_class.h"
#include "api/errors.h"
#include "api/p2p_args.h"

using ftmpi::Errc;
using ftmpi::Status;
using ftmpi::api::ret;
using ftmpi::api::rt;

namespace ftmpi::api {

int Grequest::query(MPI_Status* out) {
  empty_status(out);
  out->MPI_ERROR = MPI_SUCCESS;
  return query_ ? query_(extra_, out) : MPI_SUCCESS;
}

int Grequest::free_once() {
  if (freed_) return MPI_SUCCESS;
  freed_ = true;
  return free_ ? free_(extra_) : MPI_SUCCESS;
}

Grequest* as_grequest(p2p::Request* r) {
  if (r == nullptr || r->kind != p2p::ReqKind::generic) return nullptr;
  return dynamic_cast<Grequest*>(r->generic);
}

Status status_of_callback_code(int code, const char* what) {
  if (code == MPI_SUCCESS) return {};
  for (int e = 1; e <= static_cast<int>(Errc::conversion); ++e)
    if (error_class_of(static_cast<Errc>(e)) == code)
      return Status(static_cast<Errc>(e), std::string("the generalized request's ") + what + " failed");
  return Status(Errc::other, std::string("the generalized request's ") + what + " returned error code " +
                                 std::to_string(code));
}

ReportedError reported(Status st) {
  const int code = error_class_of(st.code());
  return {std::move(st), code};
}

ReportedError reported_callback_code(int code, const char* what) {
  ReportedError e = reported(status_of_callback_code(code, what));
  if (!e.status.ok() && user_error_class(code) >= 0) e.code = code;  // the user's own class or code
  return e;
}

int ret_reported(ftmpi_comm_s* comm, const ReportedError& e, const char* fn) {
  if (e.status.ok()) return MPI_SUCCESS;
  if (e.code == error_class_of(e.status.code())) return ret(comm, e.status, fn);
  const std::string& detail = e.status.message();
  return invoke_errhandler(comm, e.code, detail.empty() ? std::string("error code from a callback") : detail, fn);
}

}  // namespace ftmpi::api

extern "C" int PMPI_Grequest_start(MPI_Grequest_query_function* query_fn, MPI_Grequest_free_function* free_fn,
                                   MPI_Grequest_cancel_function* cancel_fn, void* extra_state,
                                   MPI_Request* request) {
  FTMPI_ENTER("MPI_Grequest_start");
  if (request == nullptr) return ret(nullptr, Status(Errc::arg, "request is NULL"), "MPI_Grequest_start");
  auto op = std::make_unique<ftmpi::api::Grequest>(query_fn, free_fn, cancel_fn, extra_state);
  ftmpi::p2p::Request* r = rt().engine().start_generic(std::move(op));
  r->comm = nullptr;  // errors reported on it go to MPI_COMM_WORLD's handler
  *request = r;
  return MPI_SUCCESS;
}
FTMPI_ALIAS(Grequest_start)

extern "C" int PMPI_Grequest_complete(MPI_Request request) {
  FTMPI_ENTER("MPI_Grequest_complete");
  ftmpi::api::Grequest* g =
      request != nullptr && request->magic == ftmpi::kMagicRequest ? ftmpi::api::as_grequest(request) : nullptr;
  if (g == nullptr)
    return ret(nullptr, Status(Errc::request, "not a generalized request"), "MPI_Grequest_complete");
  if (!g->mark_complete())
    return ret(nullptr, Status(Errc::request, "MPI_Grequest_complete was already called on this request"),
               "MPI_Grequest_complete");
  rt().progress().poll();  // the engine sees it finished: a following MPI_Test reports it at once
  return MPI_SUCCESS;
}
FTMPI_ALIAS(Grequest_complete)
