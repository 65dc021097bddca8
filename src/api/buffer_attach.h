// Buffered-send buffers of MPI-4.1 §3.6 in the C API: the process's (MPI_Buffer_attach ..., owner nullptr),
// a communicator's (MPI_Comm_attach_buffer ..., owner the communicator) and a session's
// (MPI_Session_attach_buffer ..., owner the session). The engine keeps one pool per owner
// (p2p::Engine::buffer_attach); a buffered send uses its communicator's, else its session's, else the
// process's. These helpers hold what the three families share; errors as values, the callers report them.
#pragma once
#include "api/common.h"

namespace ftmpi::api {

// MPI_BUFFER_AUTOMATIC, or `size` >= 0 bytes at `buffer` (NULL only with size 0); Errc::buffer otherwise
// and when `owner` has a buffer already.
Status attach_buffer(const void* owner, void* buffer, long long size);
// Waits until every message buffered in `owner`'s buffer is transmitted, then detaches it: *buffer_addr
// (a void**) gets its address (MPI_BUFFER_AUTOMATIC for an automatic one), *size its size (0 when
// automatic). Errc::arg for NULL arguments; Errc::buffer when `owner` has no buffer.
Status detach_buffer(const void* owner, void* buffer_addr, long long* size);
// Waits until every message buffered in `owner`'s buffer is transmitted (nothing to do without one).
void flush_buffer(const void* owner);
// The request of a non-blocking flush of `owner`'s buffer (MPI_*_iflush_buffer); errors of its completion go
// to `comm`'s handler.
MPI_Request iflush_buffer(const void* owner, MPI_Comm comm);

}  // namespace ftmpi::api
