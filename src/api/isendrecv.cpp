// MPI_Isendrecv and MPI_Isendrecv_replace (MPI-4.0 §3.10): a receive and a send started together,
// completed as one request.
//
// Model: one p2p::GenericOp (SendrecvOp) owns the two engine requests (the receive posted first, as the
// blocking form does) and, for _replace, the packed copy of the outgoing data (taken at the call: the
// buffer is then free to be overwritten by the incoming message). It finishes when both have completed;
// the request's status is the receive's, its error the send's if that failed, else the receive's.
//
// Faults: a dead peer fails its engine request (MPI_ERR_PROC_FAILED at completion, as for Isend/Irecv).
// An MPI_ANY_SOURCE receive that an unacknowledged failure blocks would wait forever inside the pair (the
// caller cannot see it to acknowledge), so once the send is done it is abandoned with MPI_ERR_PROC_FAILED,
// as the blocking MPI_Recv does — the request completes, never hangs. Revokes complete both parts with
// MPI_ERR_REVOKED through the engine's purge.
// Cost: one extra pool request and a small heap object per call; the fast path of Isend/Irecv is untouched.
#include <cstdlib>
#include <memory>

#include "api/common.h"
#include "api/p2p_args.h"

using ftmpi::Errc;
using ftmpi::Status;
using ftmpi::api::check_buffer;
using ftmpi::api::recv_args;
using ftmpi::api::ret;
using ftmpi::api::rt;
using ftmpi::api::send_args;
using ftmpi::p2p::Request;
using ftmpi::p2p::SendMode;

namespace {

class SendrecvOp final : public ftmpi::p2p::GenericOp {
 public:
  SendrecvOp(ftmpi::Runtime& rt, Request* recv, Request* send, void* staging)
      : rt_(rt), recv_(recv), send_(send), staging_(staging) {}
  ~SendrecvOp() override {  // called once both parts completed (the engine deletes finished ops only)
    rt_.engine().release(recv_);
    rt_.engine().release(send_);
    std::free(staging_);
  }
  SendrecvOp(const SendrecvOp&) = delete;
  SendrecvOp& operator=(const SendrecvOp&) = delete;

  bool progress() override {
    if (!recv_->complete && send_->complete && rt_.pending_by_failure(recv_))
      rt_.engine().abandon_recv(recv_, Status(Errc::proc_failed, "a potential sender failed (MPI_ANY_SOURCE receive "
                                                                 "of MPI_Isendrecv)"));
    if (!recv_->complete || !send_->complete) return false;
    result = !send_->error.ok() ? send_->error : recv_->error;
    status = recv_->status;
    return true;
  }

 private:
  ftmpi::Runtime& rt_;
  Request* recv_;
  Request* send_;
  void* staging_;  // owned (malloc), may be null
};

// Post the receive, then the send, and wrap both in one request. Takes ownership of `staging`.
int start_pair(const ftmpi::p2p::SendArgs& sa, const ftmpi::p2p::RecvArgs& ra, void* staging, MPI_Comm comm,
               MPI_Request* request, const char* fn) {
  Request *rr = nullptr, *sr = nullptr;
  Status st = rt().engine().irecv(ra, &rr);
  if (!st.ok()) {
    std::free(staging);
    return ret(comm, st, fn);
  }
  st = rt().engine().isend(sa, &sr);
  if (!st.ok()) {
    (void)rt().engine().cancel(rr);
    rt().engine().abort_recv(rr, st);
    rt().engine().release(rr);
    std::free(staging);
    return ret(comm, st, fn);
  }
  Request* r = rt().engine().start_generic(std::make_unique<SendrecvOp>(rt(), rr, sr, staging));
  ftmpi::p2p::set_comm(r, comm);  // the communicator lives as long as the request
  *request = r;
  return MPI_SUCCESS;
}


int isendrecv(const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, int dest, int sendtag, void* recvbuf,
              MPI_Count recvcount, MPI_Datatype recvtype, int source, int recvtag, MPI_Comm comm,
              MPI_Request* request, const char* fn) {
  FTMPI_ENTER(fn);
  FTMPI_CHECK_COMM(comm, fn);
  if (!request) return ret(comm, Status(Errc::arg, "request is NULL"), fn);
  Status st = check_buffer(sendbuf, sendcount, sendtype);
  if (st.ok()) st = check_buffer(recvbuf, recvcount, recvtype);
  if (!st.ok()) return ret(comm, st, fn);
  return start_pair(send_args(sendbuf, sendcount, sendtype, dest, sendtag, comm, SendMode::standard),
                    recv_args(recvbuf, recvcount, recvtype, source, recvtag, comm), nullptr, comm, request, fn);
}

int isendrecv_replace(void* buf, MPI_Count count, MPI_Datatype datatype, int dest, int sendtag, int source,
                      int recvtag, MPI_Comm comm, MPI_Request* request, const char* fn) {
  FTMPI_ENTER(fn);
  FTMPI_CHECK_COMM(comm, fn);
  if (!request) return ret(comm, Status(Errc::arg, "request is NULL"), fn);
  Status st = check_buffer(buf, count, datatype);
  if (!st.ok()) return ret(comm, st, fn);
  // The outgoing data is packed now (as bytes: possibly more than INT_MAX of them); the receive lands in place.
  const std::size_t bytes = ftmpi::dt::packed_size(datatype, static_cast<std::size_t>(count));
  void* staging = std::malloc(bytes ? bytes : 1);
  if (!staging) return ret(comm, Status(Errc::no_mem, "out of memory for the staging copy"), fn);
  ftmpi::dt::pack(buf, static_cast<std::size_t>(count), datatype, staging);
  ftmpi::p2p::SendArgs sa{staging, bytes, MPI_BYTE, dest, sendtag, comm, SendMode::standard, false};
  return start_pair(sa, recv_args(buf, count, datatype, source, recvtag, comm), staging, comm, request, fn);
}

}  // namespace

extern "C" int PMPI_Isendrecv(const void* sendbuf, int sendcount, MPI_Datatype sendtype, int dest, int sendtag,
                              void* recvbuf, int recvcount, MPI_Datatype recvtype, int source, int recvtag,
                              MPI_Comm comm, MPI_Request* request) {
  return isendrecv(sendbuf, sendcount, sendtype, dest, sendtag, recvbuf, recvcount, recvtype, source, recvtag, comm,
                   request, "MPI_Isendrecv");
}
FTMPI_ALIAS(Isendrecv)

extern "C" int PMPI_Isendrecv_replace(void* buf, int count, MPI_Datatype datatype, int dest, int sendtag, int source,
                                      int recvtag, MPI_Comm comm, MPI_Request* request) {
  return isendrecv_replace(buf, count, datatype, dest, sendtag, source, recvtag, comm, request,
                           "MPI_Isendrecv_replace");
}
FTMPI_ALIAS(Isendrecv_replace)

extern "C" int PMPI_Isendrecv_c(const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, int dest,
                                int sendtag, void* recvbuf, MPI_Count recvcount, MPI_Datatype recvtype, int source,
                                int recvtag, MPI_Comm comm, MPI_Request* request) {
  return isendrecv(sendbuf, sendcount, sendtype, dest, sendtag, recvbuf, recvcount, recvtype, source, recvtag, comm,
                   request, "MPI_Isendrecv_c");
}
FTMPI_ALIAS(Isendrecv_c)

extern "C" int PMPI_Isendrecv_replace_c(void* buf, MPI_Count count, MPI_Datatype datatype, int dest, int sendtag,
                                        int source, int recvtag, MPI_Comm comm, MPI_Request* request) {
  return isendrecv_replace(buf, count, datatype, dest, sendtag, source, recvtag, comm, request,
                           "MPI_Isendrecv_replace_c");
}
FTMPI_ALIAS(Isendrecv_replace_c)
