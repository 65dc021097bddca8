// Shared helpers of the one-sided C API (api/rma_*.cpp): window handle checks and the window error path.
#pragma once
#include "api/common.h"
#include "rma/window.h"

namespace ftmpi::api {

inline bool valid_win(const ftmpi_win_s* w) { return w != nullptr && w->magic == rma::kMagicWin; }

// MPI_SUCCESS, or `st` raised on the window's error handler (MPI_ERRORS_ARE_FATAL unless set).
int win_ret(ftmpi_win_s* w, const Status& st, const char* fn);
// An error code (from a user callback) raised on the window's handler.
int win_raise(ftmpi_win_s* w, int code, const std::string& detail, const char* fn);

// Put / Accumulate (op != MPI_OP_NULL) and their request forms (request != null), checked and started
// (api/rma_ops.cpp). Counts are MPI_Count: the int forms and the _c forms both end here.
int do_put(const void* obuf, MPI_Count ocount, MPI_Datatype otype, int trank, MPI_Aint tdisp, MPI_Count tcount,
           MPI_Datatype ttype, MPI_Op op, MPI_Win win, MPI_Request* request, const char* fn);
// Get / Get_accumulate (op != MPI_OP_NULL; obuf unused for MPI_NO_OP) / Fetch_and_op, likewise.
int do_get(const void* obuf, MPI_Count ocount, MPI_Datatype otype, void* rbuf, MPI_Count rcount, MPI_Datatype rtype,
           int trank, MPI_Aint tdisp, MPI_Count tcount, MPI_Datatype ttype, MPI_Op op, MPI_Win win,
           MPI_Request* request, const char* fn);

}  // namespace ftmpi::api

#define FTMPI_CHECK_WIN(w_, fn)                     \
  if (!::ftmpi::api::valid_win(w_))                 \
  return ::ftmpi::api::ret(nullptr, ::ftmpi::Status(::ftmpi::Errc::win, "invalid window"), fn)
