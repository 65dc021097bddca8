// Argument checking shared by the point-to-point C functions.
#pragma once
#include "api/common.h"
#include "p2p/engine.h"

namespace ftmpi::api {

// Counts are MPI_Count so that the large-count (_c) forms share these with the int ones.
// Checks common to every send/receive: count >= 0, a usable datatype, a buffer when count > 0.
// (The checks inline, their errors out of line: this runs on every send and receive.)
[[gnu::cold, gnu::noinline]] inline Status bad_buffer(const void* buf, MPI_Count count, MPI_Datatype type) {
  if (count < 0) return Status(Errc::count, "count must be non-negative");
  if (!valid_type(type)) return Status(Errc::type, "invalid or uncommitted datatype");
  (void)buf;
  return Status(Errc::buffer, "NULL buffer with a non-zero count");
}
// A valid (buf, count, type) triple: the test check_buffer reports on (MPI_Isend/Irecv's fast entry uses it bare).
[[gnu::always_inline]] inline bool buffer_ok(const void* buf, MPI_Count count, MPI_Datatype type) {
  return count >= 0 && valid_type(type) && (buf != nullptr || count == 0 || type->size == 0 || type->true_lb != 0);
}
[[gnu::always_inline]] inline Status check_buffer(const void* buf, MPI_Count count, MPI_Datatype type) {
  if (!buffer_ok(buf, count, type)) [[unlikely]]
    return bad_buffer(buf, count, type);
  return Status::Ok();
}

inline p2p::SendArgs send_args(const void* buf, MPI_Count count, MPI_Datatype type, int dest, int tag, MPI_Comm comm,
                               p2p::SendMode mode) {
  return p2p::SendArgs{buf, static_cast<std::size_t>(count), type, dest, tag, comm, mode, false};
}

inline p2p::RecvArgs recv_args(void* buf, MPI_Count count, MPI_Datatype type, int source, int tag, MPI_Comm comm) {
  return p2p::RecvArgs{buf, static_cast<std::size_t>(count), type, source, tag, comm, false};
}

// Copy a completed request's outcome into an MPI_Status (MPI_ERROR untouched: only the multiple-completion
// functions set it).
inline void fill_status(MPI_Status* s, const p2p::Request* r) {
  if (!s) return;
  s->MPI_SOURCE = r->status.source;
  s->MPI_TAG = r->status.tag;
  s->ftmpi_count = static_cast<MPI_Count>(r->status.bytes);
  s->ftmpi_cancelled = r->status.cancelled;
}

inline void empty_status(MPI_Status* s) {
  if (!s) return;
  s->MPI_SOURCE = MPI_ANY_SOURCE;
  s->MPI_TAG = MPI_ANY_TAG;
  s->MPI_ERROR = MPI_SUCCESS;  // MPI-3.1 §3.7.3: the empty status
  s->ftmpi_count = 0;
  s->ftmpi_cancelled = 0;
}

}  // namespace ftmpi::api
