// MPI_Buffer_flush and MPI_Buffer_iflush (MPI-4.1 §3.6.1): wait until every message buffered in the
// process's MPI_Buffer_attach buffer has been handed to a transport (the condition MPI_Buffer_detach waits
// for), without detaching the buffer. The per-communicator and per-session buffers of MPI-4.1
// (MPI_Comm_attach_buffer ...) are not implemented (api/unsupported.cpp).
#include <memory>

#include "api/common.h"

using ftmpi::Errc;
using ftmpi::Status;
using ftmpi::api::ret;
using ftmpi::api::rt;

namespace {
// Finishes once no buffered send is waiting for a transport. Buffered sends to a failed peer are dropped by
// the engine, so a failure cannot keep it pending.
class FlushOp final : public ftmpi::p2p::GenericOp {
 public:
  explicit FlushOp(ftmpi::p2p::Engine& engine) : engine_(engine) {}
  bool progress() override { return !engine_.bsend_pending(); }

 private:
  ftmpi::p2p::Engine& engine_;
};
}  // namespace

extern "C" int PMPI_Buffer_flush(void) {
  FTMPI_ENTER("MPI_Buffer_flush");
  rt().progress().wait_until([] { return !rt().engine().bsend_pending(); });
  return MPI_SUCCESS;
}
FTMPI_ALIAS(Buffer_flush)

extern "C" int PMPI_Buffer_iflush(MPI_Request* request) {
  FTMPI_ENTER("MPI_Buffer_iflush");
  if (!request) return ret(nullptr, Status(Errc::arg, "request is NULL"), "MPI_Buffer_iflush");
  ftmpi::p2p::Request* r = rt().engine().start_generic(std::make_unique<FlushOp>(rt().engine()));
  r->comm = MPI_COMM_WORLD;  // errors of completion calls go to MPI_COMM_WORLD's handler
  *request = r;
  return MPI_SUCCESS;
}
FTMPI_ALIAS(Buffer_iflush)
