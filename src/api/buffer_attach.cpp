// MPI-4.1 §3.6 buffered-send buffers: the shared helpers (api/buffer_attach.h), the process buffer's flush
// (MPI_Buffer_flush, MPI_Buffer_iflush) and the communicator's buffer (MPI_Comm_attach_buffer ...). The
// session's are in api/session.cpp, MPI_Buffer_attach/detach in api/p2p.cpp.
#include "api/buffer_attach.h"

#include <climits>
#include <memory>

using ftmpi::Errc;
using ftmpi::Status;
using ftmpi::api::ret;
using ftmpi::api::rt;

namespace ftmpi::api {

namespace {
// Finishes once no message buffered in `owner`'s buffer is in flight. A buffered send to a failed peer
// completes with its error, so a failure cannot keep it pending.
class FlushOp final : public p2p::GenericOp {
 public:
  FlushOp(p2p::Engine& engine, const void* owner) : engine_(engine), owner_(owner) {}
  bool progress() override { return !engine_.bsend_pending(owner_); }

 private:
  p2p::Engine& engine_;
  const void* owner_;
};
}  // namespace

Status attach_buffer(const void* owner, void* buffer, long long size) {
  const bool automatic = buffer == MPI_BUFFER_AUTOMATIC;
  if (!automatic && (size < 0 || (!buffer && size > 0))) return Status(Errc::buffer, "invalid buffer or size");
  return rt().engine().buffer_attach(owner, automatic ? nullptr : buffer,
                                     automatic ? 0 : static_cast<std::size_t>(size), automatic);
}

Status detach_buffer(const void* owner, void* buffer_addr, long long* size) {
  if (!buffer_addr || !size) return Status(Errc::arg, "NULL argument");
  flush_buffer(owner);
  void* buf = nullptr;
  std::size_t n = 0;
  bool automatic = false;
  FTMPI_TRY(rt().engine().buffer_detach(owner, &buf, &n, &automatic));
  *static_cast<void**>(buffer_addr) = automatic ? MPI_BUFFER_AUTOMATIC : buf;
  *size = automatic ? 0 : static_cast<long long>(n);
  return {};
}

void flush_buffer(const void* owner) {
  rt().progress().wait_until([owner] { return !rt().engine().bsend_pending(owner); });
}

MPI_Request iflush_buffer(const void* owner, MPI_Comm comm) {
  p2p::Request* r = rt().engine().start_generic(std::make_unique<FlushOp>(rt().engine(), owner));
  r->comm = comm;  // errors of completion calls go to this communicator's handler (no hold: a predefined or
                   // the caller's, which MPI requires to outlive its pending operations)
  return r;
}

}  // namespace ftmpi::api

using ftmpi::api::attach_buffer;
using ftmpi::api::detach_buffer;
using ftmpi::api::flush_buffer;
using ftmpi::api::iflush_buffer;

// ---- the process's buffer (MPI_Buffer_attach): flush ----------------------------------------------------

extern "C" int PMPI_Buffer_flush(void) {
  FTMPI_ENTER("MPI_Buffer_flush");
  flush_buffer(nullptr);
  return MPI_SUCCESS;
}
FTMPI_ALIAS(Buffer_flush)

extern "C" int PMPI_Buffer_iflush(MPI_Request* request) {
  FTMPI_ENTER("MPI_Buffer_iflush");
  if (!request) return ret(nullptr, Status(Errc::arg, "request is NULL"), "MPI_Buffer_iflush");
  *request = iflush_buffer(nullptr, MPI_COMM_WORLD);
  return MPI_SUCCESS;
}
FTMPI_ALIAS(Buffer_iflush)

// ---- a communicator's buffer ------------------------------------------------------------------------------

extern "C" int PMPI_Comm_attach_buffer(MPI_Comm comm, void* buffer, int size) {
  static constexpr const char* fn = "MPI_Comm_attach_buffer";
  FTMPI_ENTER(fn);
  FTMPI_CHECK_COMM(comm, fn);
  return ret(comm, attach_buffer(comm, buffer, size), fn);
}
FTMPI_ALIAS(Comm_attach_buffer)

extern "C" int PMPI_Comm_attach_buffer_c(MPI_Comm comm, void* buffer, MPI_Count size) {
  static constexpr const char* fn = "MPI_Comm_attach_buffer_c";
  FTMPI_ENTER(fn);
  FTMPI_CHECK_COMM(comm, fn);
  return ret(comm, attach_buffer(comm, buffer, size), fn);
}
FTMPI_ALIAS(Comm_attach_buffer_c)

extern "C" int PMPI_Comm_detach_buffer(MPI_Comm comm, void* buffer_addr, int* size) {
  static constexpr const char* fn = "MPI_Comm_detach_buffer";
  FTMPI_ENTER(fn);
  FTMPI_CHECK_COMM(comm, fn);
  if (!size) return ret(comm, Status(Errc::arg, "NULL argument"), fn);
  long long n = 0;
  Status st = detach_buffer(comm, buffer_addr, &n);
  if (st.ok()) *size = n > INT_MAX ? INT_MAX : static_cast<int>(n);  // (attached with the _c form)
  return ret(comm, st, fn);
}
FTMPI_ALIAS(Comm_detach_buffer)

extern "C" int PMPI_Comm_detach_buffer_c(MPI_Comm comm, void* buffer_addr, MPI_Count* size) {
  static constexpr const char* fn = "MPI_Comm_detach_buffer_c";
  FTMPI_ENTER(fn);
  FTMPI_CHECK_COMM(comm, fn);
  if (!size) return ret(comm, Status(Errc::arg, "NULL argument"), fn);
  long long n = 0;
  Status st = detach_buffer(comm, buffer_addr, &n);
  if (st.ok()) *size = n;
  return ret(comm, st, fn);
}
FTMPI_ALIAS(Comm_detach_buffer_c)

extern "C" int PMPI_Comm_flush_buffer(MPI_Comm comm) {
  static constexpr const char* fn = "MPI_Comm_flush_buffer";
  FTMPI_ENTER(fn);
  FTMPI_CHECK_COMM(comm, fn);
  flush_buffer(comm);
  return MPI_SUCCESS;
}
FTMPI_ALIAS(Comm_flush_buffer)

extern "C" int PMPI_Comm_iflush_buffer(MPI_Comm comm, MPI_Request* request) {
  static constexpr const char* fn = "MPI_Comm_iflush_buffer";
  FTMPI_ENTER(fn);
  FTMPI_CHECK_COMM(comm, fn);
  if (!request) return ret(comm, Status(Errc::arg, "request is NULL"), fn);
  *request = iflush_buffer(comm, comm);
  return MPI_SUCCESS;
}
FTMPI_ALIAS(Comm_iflush_buffer)
