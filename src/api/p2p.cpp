// Point-to-point C functions: sends of every mode, receives, Sendrecv(_replace), probes, buffered-send
// buffers, persistent requests.
#include <climits>
#include <cstdlib>
#include <cstring>

#include "api/buffer_attach.h"
#include "api/common.h"
#include "api/p2p_args.h"

using ftmpi::Errc;
using ftmpi::Status;
using ftmpi::api::check_buffer;
using ftmpi::api::fill_status;
using ftmpi::api::recv_args;
using ftmpi::api::ret;
using ftmpi::api::rt;
using ftmpi::api::send_args;
using ftmpi::p2p::Request;
using ftmpi::p2p::SendMode;

// Matched-probe messages (MPI_Message handles).
struct ftmpi_message_s {
  std::uint32_t magic = ftmpi::kMagicMessage;
  ftmpi::p2p::Message* msg = nullptr;  // nullptr for MPI_MESSAGE_NO_PROC
};
FTMPI_API ftmpi_message_s ftmpi_message_no_proc;

namespace {

int blocking_send(const void* buf, MPI_Count count, MPI_Datatype type, int dest, int tag, MPI_Comm comm, SendMode mode,
                  const char* fn) {
  FTMPI_ENTER(fn);
  FTMPI_CHECK_COMM(comm, fn);
  Status st = check_buffer(buf, count, type);
  if (!st.ok()) return ret(comm, st, fn);
  // An eager message the transport takes at once needs no request (ftmpi::p2p::Engine::send_now).
  if ((mode == SendMode::standard || mode == SendMode::ready) &&
      rt().engine().send_now(send_args(buf, count, type, dest, tag, comm, mode)))
    return MPI_SUCCESS;
  Request* r = nullptr;
  st = rt().engine().isend(send_args(buf, count, type, dest, tag, comm, mode), &r);
  if (!st.ok()) return ret(comm, st, fn);
  if (mode == SendMode::buffered) {  // the data is copied: complete locally, let the engine finish it
    rt().engine().release(r);
    return MPI_SUCCESS;
  }
  if (!r->complete) rt().wait(r);  // an eager send the transport took is complete already: no progress pass
  st = r->error;
  rt().engine().release(r);
  return ret(comm, st, fn);
}

int nonblocking_send(const void* buf, MPI_Count count, MPI_Datatype type, int dest, int tag, MPI_Comm comm,
                     SendMode mode, MPI_Request* request, const char* fn) {
  FTMPI_ENTER(fn);
  FTMPI_CHECK_COMM(comm, fn);
  if (!request) return ret(comm, Status(Errc::arg, "request is NULL"), fn);
  Status st = check_buffer(buf, count, type);
  if (!st.ok()) return ret(comm, st, fn);
  Request* r = nullptr;
  st = rt().engine().isend(send_args(buf, count, type, dest, tag, comm, mode), &r);
  if (!st.ok()) return ret(comm, st, fn);
  if (mode == SendMode::buffered) {
    rt().engine().release(r);
    r = rt().engine().completed_request();
    ftmpi::p2p::set_comm(r, comm);
  }
  *request = r;
  return MPI_SUCCESS;
}

int persistent_send(const void* buf, MPI_Count count, MPI_Datatype type, int dest, int tag, MPI_Comm comm,
                    SendMode mode, MPI_Request* request, const char* fn) {
  FTMPI_ENTER(fn);
  FTMPI_CHECK_COMM(comm, fn);
  if (!request) return ret(comm, Status(Errc::arg, "request is NULL"), fn);
  Status st = check_buffer(buf, count, type);
  if (!st.ok()) return ret(comm, st, fn);
  Request* r = nullptr;
  st = rt().engine().send_init(send_args(buf, count, type, dest, tag, comm, mode), &r);
  if (!st.ok()) return ret(comm, st, fn);
  *request = r;
  return MPI_SUCCESS;
}

}  // namespace

extern "C" int PMPI_Send(const void* buf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm) {
  return blocking_send(buf, count, type, dest, tag, comm, SendMode::standard, "MPI_Send");
}
FTMPI_ALIAS(Send)
extern "C" int PMPI_Ssend(const void* buf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm) {
  return blocking_send(buf, count, type, dest, tag, comm, SendMode::sync, "MPI_Ssend");
}
FTMPI_ALIAS(Ssend)
extern "C" int PMPI_Rsend(const void* buf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm) {
  return blocking_send(buf, count, type, dest, tag, comm, SendMode::ready, "MPI_Rsend");
}
FTMPI_ALIAS(Rsend)
extern "C" int PMPI_Bsend(const void* buf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm) {
  return blocking_send(buf, count, type, dest, tag, comm, SendMode::buffered, "MPI_Bsend");
}
FTMPI_ALIAS(Bsend)

namespace {
// MPI_Isend / MPI_Irecv's common case (an eager send the transport takes at once, a receive posted ahead of
// its message): the entry and argument checks of FTMPI_ENTER / FTMPI_CHECK_COMM / check_buffer, then one
// engine call that returns the request or nullptr having done nothing. Anything else, errors included, takes
// the general function (which checks again and reports). Saves the Status values and argument copies of
// the general path: ~50 instructions per call of ~400 (docs/performance.md, msgrate13f).
[[gnu::always_inline]] inline bool plain_call() {
  return ftmpi::api::g_api.rt != nullptr && !__builtin_expect(ftmpi::api::g_inject.armed, 0);
}
[[gnu::always_inline]] inline bool plain_args(const void* buf, int count, MPI_Datatype type, MPI_Comm comm,
                                              const MPI_Request* request) {
  return request != nullptr && ftmpi::api::valid_comm(comm) && ftmpi::api::buffer_ok(buf, count, type);
}
}  // namespace

extern "C" int PMPI_Isend(const void* buf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm,
                          MPI_Request* request) {
  if (plain_call()) [[likely]] {
    ftmpi::api::ApiLock lock;  // as FTMPI_ENTER: the THREAD_MULTIPLE lock, the Reinit gate
    if (plain_args(buf, count, type, comm, request)) [[likely]] {
      if (Request* r = rt().engine().isend_now(send_args(buf, count, type, dest, tag, comm, SendMode::standard))) {
        *request = r;
        return MPI_SUCCESS;
      }
    }
  }
  return nonblocking_send(buf, count, type, dest, tag, comm, SendMode::standard, request, "MPI_Isend");
}
FTMPI_ALIAS(Isend)
extern "C" int PMPI_Issend(const void* buf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm,
                           MPI_Request* request) {
  return nonblocking_send(buf, count, type, dest, tag, comm, SendMode::sync, request, "MPI_Issend");
}
FTMPI_ALIAS(Issend)
extern "C" int PMPI_Irsend(const void* buf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm,
                           MPI_Request* request) {
  return nonblocking_send(buf, count, type, dest, tag, comm, SendMode::ready, request, "MPI_Irsend");
}
FTMPI_ALIAS(Irsend)
extern "C" int PMPI_Ibsend(const void* buf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm,
                           MPI_Request* request) {
  return nonblocking_send(buf, count, type, dest, tag, comm, SendMode::buffered, request, "MPI_Ibsend");
}
FTMPI_ALIAS(Ibsend)

extern "C" int PMPI_Send_init(const void* buf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm,
                              MPI_Request* request) {
  return persistent_send(buf, count, type, dest, tag, comm, SendMode::standard, request, "MPI_Send_init");
}
FTMPI_ALIAS(Send_init)
extern "C" int PMPI_Ssend_init(const void* buf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm,
                               MPI_Request* request) {
  return persistent_send(buf, count, type, dest, tag, comm, SendMode::sync, request, "MPI_Ssend_init");
}
FTMPI_ALIAS(Ssend_init)
extern "C" int PMPI_Rsend_init(const void* buf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm,
                               MPI_Request* request) {
  return persistent_send(buf, count, type, dest, tag, comm, SendMode::ready, request, "MPI_Rsend_init");
}
FTMPI_ALIAS(Rsend_init)
extern "C" int PMPI_Bsend_init(const void* buf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm,
                               MPI_Request* request) {
  return persistent_send(buf, count, type, dest, tag, comm, SendMode::buffered, request, "MPI_Bsend_init");
}
FTMPI_ALIAS(Bsend_init)

namespace {
// Receives of every form; counts are MPI_Count for the large-count (_c) functions.
int blocking_recv(void* buf, MPI_Count count, MPI_Datatype type, int source, int tag, MPI_Comm comm,
                  MPI_Status* status, const char* fn) {
  FTMPI_ENTER(fn);
  FTMPI_CHECK_COMM(comm, fn);
  Status st = check_buffer(buf, count, type);
  if (!st.ok()) return ret(comm, st, fn);
  Request* r = nullptr;
  st = rt().engine().irecv(recv_args(buf, count, type, source, tag, comm), &r);
  if (!st.ok()) return ret(comm, st, fn);
  // (a receive matched at once, to a message already here, needs no progress pass)
  if (!r->complete && !rt().wait_or_pending(r)) {  // blocking ANY_SOURCE receive with an unacknowledged failure
    rt().engine().abandon_recv(r, Status(Errc::proc_failed, "a potential sender failed (MPI_ANY_SOURCE receive)"));
  }
  fill_status(status, r);
  st = r->error;
  rt().engine().release(r);
  return ret(comm, st, fn);
}

int nonblocking_recv(void* buf, MPI_Count count, MPI_Datatype type, int source, int tag, MPI_Comm comm,
                     MPI_Request* request, bool persistent, const char* fn) {
  FTMPI_ENTER(fn);
  FTMPI_CHECK_COMM(comm, fn);
  if (!request) return ret(comm, Status(Errc::arg, "request is NULL"), fn);
  Status st = check_buffer(buf, count, type);
  if (!st.ok()) return ret(comm, st, fn);
  Request* r = nullptr;
  st = persistent ? rt().engine().recv_init(recv_args(buf, count, type, source, tag, comm), &r)
                  : rt().engine().irecv(recv_args(buf, count, type, source, tag, comm), &r);
  if (!st.ok()) return ret(comm, st, fn);
  *request = r;
  return MPI_SUCCESS;
}
}  // namespace

extern "C" int PMPI_Recv(void* buf, int count, MPI_Datatype type, int source, int tag, MPI_Comm comm,
                         MPI_Status* status) {
  return blocking_recv(buf, count, type, source, tag, comm, status, "MPI_Recv");
}
FTMPI_ALIAS(Recv)

extern "C" int PMPI_Irecv(void* buf, int count, MPI_Datatype type, int source, int tag, MPI_Comm comm,
                          MPI_Request* request) {
  if (plain_call()) [[likely]] {  // as PMPI_Isend
    ftmpi::api::ApiLock lock;
    if (plain_args(buf, count, type, comm, request)) [[likely]] {
      if (Request* r = rt().engine().irecv_now(recv_args(buf, count, type, source, tag, comm))) {
        *request = r;
        return MPI_SUCCESS;
      }
    }
  }
  return nonblocking_recv(buf, count, type, source, tag, comm, request, false, "MPI_Irecv");
}
FTMPI_ALIAS(Irecv)

extern "C" int PMPI_Recv_init(void* buf, int count, MPI_Datatype type, int source, int tag, MPI_Comm comm,
                              MPI_Request* request) {
  return nonblocking_recv(buf, count, type, source, tag, comm, request, true, "MPI_Recv_init");
}
FTMPI_ALIAS(Recv_init)

namespace {
// The common part of Sendrecv and Sendrecv_replace, once the arguments are checked: post the receive, then
// the send, wait for both. Counts are size_t here: Sendrecv_replace sends its packed copy as bytes, which may
// be more than INT_MAX of them.
int sendrecv(const ftmpi::p2p::SendArgs& sa, const ftmpi::p2p::RecvArgs& ra, MPI_Comm comm, MPI_Status* status,
             const char* fn) {
  Request *rr = nullptr, *sr = nullptr;
  Status st = rt().engine().irecv(ra, &rr);
  if (!st.ok()) return ret(comm, st, fn);
  st = rt().engine().isend(sa, &sr);
  if (!st.ok()) {
    (void)rt().engine().cancel(rr);
    rt().wait(rr);
    rt().engine().release(rr);
    return ret(comm, st, fn);
  }
  rt().progress().wait_until([&] { return rr->complete && sr->complete; });
  fill_status(status, rr);
  st = !sr->error.ok() ? sr->error : rr->error;
  rt().engine().release(rr);
  rt().engine().release(sr);
  return ret(comm, st, fn);
}
}  // namespace

namespace {
int sendrecv_checked(const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, int dest, int sendtag,
                     void* recvbuf, MPI_Count recvcount, MPI_Datatype recvtype, int source, int recvtag,
                     MPI_Comm comm, MPI_Status* status, const char* fn) {
  FTMPI_ENTER(fn);
  FTMPI_CHECK_COMM(comm, fn);
  Status st = check_buffer(sendbuf, sendcount, sendtype);
  if (st.ok()) st = check_buffer(recvbuf, recvcount, recvtype);
  if (!st.ok()) return ret(comm, st, fn);
  return sendrecv(send_args(sendbuf, sendcount, sendtype, dest, sendtag, comm, SendMode::standard),
                  recv_args(recvbuf, recvcount, recvtype, source, recvtag, comm), comm, status, fn);
}

int sendrecv_replace(void* buf, MPI_Count count, MPI_Datatype type, int dest, int sendtag, int source, int recvtag,
                     MPI_Comm comm, MPI_Status* status, const char* fn) {
  FTMPI_ENTER(fn);
  FTMPI_CHECK_COMM(comm, fn);
  Status st = check_buffer(buf, count, type);
  if (!st.ok()) return ret(comm, st, fn);
  // Send from a packed copy (as bytes: possibly more than INT_MAX of them), receive in place.
  std::size_t bytes = ftmpi::dt::packed_size(type, static_cast<std::size_t>(count));
  void* copy = std::malloc(bytes ? bytes : 1);
  if (!copy) return ret(comm, Status(Errc::no_mem, "out of memory"), fn);
  ftmpi::dt::pack(buf, static_cast<std::size_t>(count), type, copy);
  ftmpi::p2p::SendArgs sa{copy, bytes, MPI_BYTE, dest, sendtag, comm, SendMode::standard, false};
  int rc = sendrecv(sa, recv_args(buf, count, type, source, recvtag, comm), comm, status, fn);
  std::free(copy);
  return rc;
}
}  // namespace

extern "C" int PMPI_Sendrecv(const void* sendbuf, int sendcount, MPI_Datatype sendtype, int dest, int sendtag,
                             void* recvbuf, int recvcount, MPI_Datatype recvtype, int source, int recvtag,
                             MPI_Comm comm, MPI_Status* status) {
  return sendrecv_checked(sendbuf, sendcount, sendtype, dest, sendtag, recvbuf, recvcount, recvtype, source, recvtag,
                          comm, status, "MPI_Sendrecv");
}
FTMPI_ALIAS(Sendrecv)

extern "C" int PMPI_Sendrecv_replace(void* buf, int count, MPI_Datatype type, int dest, int sendtag, int source,
                                     int recvtag, MPI_Comm comm, MPI_Status* status) {
  return sendrecv_replace(buf, count, type, dest, sendtag, source, recvtag, comm, status, "MPI_Sendrecv_replace");
}
FTMPI_ALIAS(Sendrecv_replace)

extern "C" int PMPI_Buffer_attach(void* buffer, int size) {
  FTMPI_ENTER("MPI_Buffer_attach");
  return ret(nullptr, ftmpi::api::attach_buffer(nullptr, buffer, size), "MPI_Buffer_attach");
}
FTMPI_ALIAS(Buffer_attach)

// Without a buffer attached: NULL and 0, no error (as both peers do).
extern "C" int PMPI_Buffer_detach(void* buffer_addr, int* size) {
  FTMPI_ENTER("MPI_Buffer_detach");
  if (!buffer_addr || !size) return ret(nullptr, Status(Errc::arg, "NULL argument"), "MPI_Buffer_detach");
  long long n = 0;
  Status st = ftmpi::api::detach_buffer(nullptr, buffer_addr, &n);
  if (!st.ok() && st.code() == Errc::buffer) *static_cast<void**>(buffer_addr) = nullptr, n = 0, st = Status::Ok();
  if (st.ok()) *size = n > INT_MAX ? INT_MAX : static_cast<int>(n);
  return ret(nullptr, st, "MPI_Buffer_detach");
}
FTMPI_ALIAS(Buffer_detach)

// ---- probes ---------------------------------------------------------------------------------------------

namespace {
Status check_probe(int source, int tag, MPI_Comm comm) {
  if (source != MPI_ANY_SOURCE && source != MPI_PROC_NULL && (source < 0 || source >= comm->peer_size()))
    return Status(Errc::rank, "invalid source rank");
  if (tag < 0 && tag != MPI_ANY_TAG) return Status(Errc::tag, "invalid tag");
  return Status::Ok();
}
void probe_status(MPI_Status* status, const ftmpi::p2p::MsgStatus& m) {
  if (!status) return;
  status->MPI_SOURCE = m.source;
  status->MPI_TAG = m.tag;
  status->ftmpi_count = static_cast<MPI_Count>(m.bytes);
  status->ftmpi_cancelled = 0;
}
}  // namespace

extern "C" int PMPI_Iprobe(int source, int tag, MPI_Comm comm, int* flag, MPI_Status* status) {
  FTMPI_ENTER("MPI_Iprobe");
  FTMPI_CHECK_COMM(comm, "MPI_Iprobe");
  if (!flag) return ret(comm, Status(Errc::arg, "flag is NULL"), "MPI_Iprobe");
  Status st = check_probe(source, tag, comm);
  if (!st.ok()) return ret(comm, st, "MPI_Iprobe");
  bool f = false;
  ftmpi::p2p::MsgStatus m;
  st = rt().engine().iprobe(source, tag, comm, false, &f, &m);
  *flag = f;
  if (f) probe_status(status, m);
  return ret(comm, st, "MPI_Iprobe");
}
FTMPI_ALIAS(Iprobe)

extern "C" int PMPI_Probe(int source, int tag, MPI_Comm comm, MPI_Status* status) {
  FTMPI_ENTER("MPI_Probe");
  FTMPI_CHECK_COMM(comm, "MPI_Probe");
  Status st = check_probe(source, tag, comm);
  if (!st.ok()) return ret(comm, st, "MPI_Probe");
  bool f = false;
  ftmpi::p2p::MsgStatus m;
  rt().progress().wait_until([&] {
    st = rt().engine().iprobe(source, tag, comm, false, &f, &m);
    return f || !st.ok();
  });
  if (f) probe_status(status, m);
  return ret(comm, st, "MPI_Probe");
}
FTMPI_ALIAS(Probe)

extern "C" int PMPI_Improbe(int source, int tag, MPI_Comm comm, int* flag, MPI_Message* message,
                            MPI_Status* status) {
  FTMPI_ENTER("MPI_Improbe");
  FTMPI_CHECK_COMM(comm, "MPI_Improbe");
  if (!flag || !message) return ret(comm, Status(Errc::arg, "NULL argument"), "MPI_Improbe");
  Status st = check_probe(source, tag, comm);
  if (!st.ok()) return ret(comm, st, "MPI_Improbe");
  bool f = false;
  ftmpi::p2p::MsgStatus m;
  ftmpi::p2p::Message* msg = nullptr;
  st = rt().engine().improbe(source, tag, comm, &f, &msg, &m);
  *flag = f;
  if (f) {
    probe_status(status, m);
    if (msg) {
      auto* h = new ftmpi_message_s;
      h->msg = msg;
      *message = h;
    } else {
      *message = MPI_MESSAGE_NO_PROC;
    }
  }
  return ret(comm, st, "MPI_Improbe");
}
FTMPI_ALIAS(Improbe)

extern "C" int PMPI_Mprobe(int source, int tag, MPI_Comm comm, MPI_Message* message, MPI_Status* status) {
  FTMPI_ENTER("MPI_Mprobe");
  FTMPI_CHECK_COMM(comm, "MPI_Mprobe");
  if (!message) return ret(comm, Status(Errc::arg, "message is NULL"), "MPI_Mprobe");
  int flag = 0;
  int rc = MPI_SUCCESS;
  rt().progress().wait_until([&] {
    rc = PMPI_Improbe(source, tag, comm, &flag, message, status);
    return flag || rc != MPI_SUCCESS;
  });
  return rc;
}
FTMPI_ALIAS(Mprobe)

namespace {
int imrecv(void* buf, MPI_Count count, MPI_Datatype type, MPI_Message* message, MPI_Request* request,
           const char* fn) {
  FTMPI_ENTER(fn);
  if (!message || !*message || (*message)->magic != ftmpi::kMagicMessage || !request)
    return ret(nullptr, Status(Errc::arg, "invalid message handle"), fn);
  Status st = check_buffer(buf, count, type);
  ftmpi_message_s* h = *message;
  MPI_Comm comm = h->msg ? h->msg->comm : nullptr;
  if (!st.ok()) return ret(comm, st, fn);
  Request* r = nullptr;
  st = rt().engine().imrecv(buf, static_cast<std::size_t>(count), type, h->msg, &r);
  if (!st.ok()) return ret(comm, st, fn);
  if (h != &ftmpi_message_no_proc) {
    h->magic = ftmpi::kMagicFreed;  // message handles are one-shot; the small object is leaked on purpose
  }
  *message = MPI_MESSAGE_NULL;
  *request = r;
  return MPI_SUCCESS;
}
}  // namespace

extern "C" int PMPI_Imrecv(void* buf, int count, MPI_Datatype type, MPI_Message* message, MPI_Request* request) {
  return imrecv(buf, count, type, message, request, "MPI_Imrecv");
}
FTMPI_ALIAS(Imrecv)

extern "C" int PMPI_Mrecv(void* buf, int count, MPI_Datatype type, MPI_Message* message, MPI_Status* status) {
  FTMPI_ENTER("MPI_Mrecv");
  MPI_Request req = MPI_REQUEST_NULL;
  int rc = PMPI_Imrecv(buf, count, type, message, &req);
  if (rc != MPI_SUCCESS) return rc;
  return PMPI_Wait(&req, status);
}
FTMPI_ALIAS(Mrecv)

// ---- MPI-4.0 large-count forms (§3): the same functions with MPI_Count counts (the engine counts in size_t)

extern "C" int PMPI_Send_c(const void* buf, MPI_Count count, MPI_Datatype type, int dest, int tag, MPI_Comm comm) {
  return blocking_send(buf, count, type, dest, tag, comm, SendMode::standard, "MPI_Send_c");
}
FTMPI_ALIAS(Send_c)
extern "C" int PMPI_Ssend_c(const void* buf, MPI_Count count, MPI_Datatype type, int dest, int tag, MPI_Comm comm) {
  return blocking_send(buf, count, type, dest, tag, comm, SendMode::sync, "MPI_Ssend_c");
}
FTMPI_ALIAS(Ssend_c)
extern "C" int PMPI_Rsend_c(const void* buf, MPI_Count count, MPI_Datatype type, int dest, int tag, MPI_Comm comm) {
  return blocking_send(buf, count, type, dest, tag, comm, SendMode::ready, "MPI_Rsend_c");
}
FTMPI_ALIAS(Rsend_c)
extern "C" int PMPI_Bsend_c(const void* buf, MPI_Count count, MPI_Datatype type, int dest, int tag, MPI_Comm comm) {
  return blocking_send(buf, count, type, dest, tag, comm, SendMode::buffered, "MPI_Bsend_c");
}
FTMPI_ALIAS(Bsend_c)
extern "C" int PMPI_Isend_c(const void* buf, MPI_Count count, MPI_Datatype type, int dest, int tag, MPI_Comm comm,
                            MPI_Request* request) {
  return nonblocking_send(buf, count, type, dest, tag, comm, SendMode::standard, request, "MPI_Isend_c");
}
FTMPI_ALIAS(Isend_c)
extern "C" int PMPI_Issend_c(const void* buf, MPI_Count count, MPI_Datatype type, int dest, int tag, MPI_Comm comm,
                             MPI_Request* request) {
  return nonblocking_send(buf, count, type, dest, tag, comm, SendMode::sync, request, "MPI_Issend_c");
}
FTMPI_ALIAS(Issend_c)
extern "C" int PMPI_Irsend_c(const void* buf, MPI_Count count, MPI_Datatype type, int dest, int tag, MPI_Comm comm,
                             MPI_Request* request) {
  return nonblocking_send(buf, count, type, dest, tag, comm, SendMode::ready, request, "MPI_Irsend_c");
}
FTMPI_ALIAS(Irsend_c)
extern "C" int PMPI_Ibsend_c(const void* buf, MPI_Count count, MPI_Datatype type, int dest, int tag, MPI_Comm comm,
                             MPI_Request* request) {
  return nonblocking_send(buf, count, type, dest, tag, comm, SendMode::buffered, request, "MPI_Ibsend_c");
}
FTMPI_ALIAS(Ibsend_c)
extern "C" int PMPI_Send_init_c(const void* buf, MPI_Count count, MPI_Datatype type, int dest, int tag, MPI_Comm comm,
                                MPI_Request* request) {
  return persistent_send(buf, count, type, dest, tag, comm, SendMode::standard, request, "MPI_Send_init_c");
}
FTMPI_ALIAS(Send_init_c)
extern "C" int PMPI_Ssend_init_c(const void* buf, MPI_Count count, MPI_Datatype type, int dest, int tag,
                                 MPI_Comm comm, MPI_Request* request) {
  return persistent_send(buf, count, type, dest, tag, comm, SendMode::sync, request, "MPI_Ssend_init_c");
}
FTMPI_ALIAS(Ssend_init_c)
extern "C" int PMPI_Rsend_init_c(const void* buf, MPI_Count count, MPI_Datatype type, int dest, int tag,
                                 MPI_Comm comm, MPI_Request* request) {
  return persistent_send(buf, count, type, dest, tag, comm, SendMode::ready, request, "MPI_Rsend_init_c");
}
FTMPI_ALIAS(Rsend_init_c)
extern "C" int PMPI_Bsend_init_c(const void* buf, MPI_Count count, MPI_Datatype type, int dest, int tag,
                                 MPI_Comm comm, MPI_Request* request) {
  return persistent_send(buf, count, type, dest, tag, comm, SendMode::buffered, request, "MPI_Bsend_init_c");
}
FTMPI_ALIAS(Bsend_init_c)
extern "C" int PMPI_Recv_c(void* buf, MPI_Count count, MPI_Datatype type, int source, int tag, MPI_Comm comm,
                           MPI_Status* status) {
  return blocking_recv(buf, count, type, source, tag, comm, status, "MPI_Recv_c");
}
FTMPI_ALIAS(Recv_c)
extern "C" int PMPI_Irecv_c(void* buf, MPI_Count count, MPI_Datatype type, int source, int tag, MPI_Comm comm,
                            MPI_Request* request) {
  return nonblocking_recv(buf, count, type, source, tag, comm, request, false, "MPI_Irecv_c");
}
FTMPI_ALIAS(Irecv_c)
extern "C" int PMPI_Recv_init_c(void* buf, MPI_Count count, MPI_Datatype type, int source, int tag, MPI_Comm comm,
                                MPI_Request* request) {
  return nonblocking_recv(buf, count, type, source, tag, comm, request, true, "MPI_Recv_init_c");
}
FTMPI_ALIAS(Recv_init_c)
extern "C" int PMPI_Sendrecv_c(const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, int dest,
                               int sendtag, void* recvbuf, MPI_Count recvcount, MPI_Datatype recvtype, int source,
                               int recvtag, MPI_Comm comm, MPI_Status* status) {
  return sendrecv_checked(sendbuf, sendcount, sendtype, dest, sendtag, recvbuf, recvcount, recvtype, source, recvtag,
                          comm, status, "MPI_Sendrecv_c");
}
FTMPI_ALIAS(Sendrecv_c)
extern "C" int PMPI_Sendrecv_replace_c(void* buf, MPI_Count count, MPI_Datatype type, int dest, int sendtag,
                                       int source, int recvtag, MPI_Comm comm, MPI_Status* status) {
  return sendrecv_replace(buf, count, type, dest, sendtag, source, recvtag, comm, status, "MPI_Sendrecv_replace_c");
}
FTMPI_ALIAS(Sendrecv_replace_c)
extern "C" int PMPI_Imrecv_c(void* buf, MPI_Count count, MPI_Datatype type, MPI_Message* message,
                             MPI_Request* request) {
  return imrecv(buf, count, type, message, request, "MPI_Imrecv_c");
}
FTMPI_ALIAS(Imrecv_c)
extern "C" int PMPI_Mrecv_c(void* buf, MPI_Count count, MPI_Datatype type, MPI_Message* message, MPI_Status* status) {
  FTMPI_ENTER("MPI_Mrecv_c");
  MPI_Request req = MPI_REQUEST_NULL;
  int rc = imrecv(buf, count, type, message, &req, "MPI_Mrecv_c");
  if (rc != MPI_SUCCESS) return rc;
  return PMPI_Wait(&req, status);
}
FTMPI_ALIAS(Mrecv_c)
extern "C" int PMPI_Buffer_attach_c(void* buffer, MPI_Count size) {
  FTMPI_ENTER("MPI_Buffer_attach_c");
  return ret(nullptr, ftmpi::api::attach_buffer(nullptr, buffer, size), "MPI_Buffer_attach_c");
}
FTMPI_ALIAS(Buffer_attach_c)
extern "C" int PMPI_Buffer_detach_c(void* buffer_addr, MPI_Count* size) {
  FTMPI_ENTER("MPI_Buffer_detach_c");
  if (!buffer_addr || !size) return ret(nullptr, Status(Errc::arg, "NULL argument"), "MPI_Buffer_detach_c");
  long long n = 0;
  Status st = ftmpi::api::detach_buffer(nullptr, buffer_addr, &n);
  if (!st.ok() && st.code() == Errc::buffer) *static_cast<void**>(buffer_addr) = nullptr, n = 0, st = Status::Ok();
  if (st.ok()) *size = n;
  return ret(nullptr, st, "MPI_Buffer_detach_c");
}
FTMPI_ALIAS(Buffer_detach_c)
