// The MPI-4.0 large-count (_c) forms of the one-sided functions (MPI-4.0 §12): Put_c, Get_c, Accumulate_c,
// Get_accumulate_c and their request forms, and the window constructors / Win_shared_query_c whose
// displacement unit is an MPI_Aint.
//
// Counts: unlike the point-to-point and collective _c forms (api/large_count.h: a stand-in type for a count
// beyond INT_MAX), the RMA operations need no stand-in: the int forms and these end in the same do_put /
// do_get (api/rma_ops.cpp), which take MPI_Count, and the Window and its wire format carry 64-bit counts
// (rma/window.h, rma/wire.h). So a count beyond INT_MAX moves as that many elements of the user's type
// (accumulate included: the op sees the user's predefined type). A negative count is MPI_ERR_COUNT.
//
// Displacement units: the window keeps an int per rank (rma/window.h). A unit beyond INT_MAX is refused
// with MPI_ERR_DISP (stated, never truncated); zero or negative units reach the int form, which refuses
// them with MPI_ERR_DISP too.
#include <climits>

#include "api/rma_common.h"

using ftmpi::Errc;
using ftmpi::Status;
using ftmpi::api::do_get;
using ftmpi::api::do_put;
using ftmpi::api::ret;

namespace {

// Error of a unit beyond INT_MAX, raised on the communicator (window creation); MPI_SUCCESS otherwise.
int check_unit(MPI_Comm comm, MPI_Aint disp_unit, const char* fn) {
  if (disp_unit <= INT_MAX) return MPI_SUCCESS;
  FTMPI_CHECK_COMM(comm, fn);
  return ret(comm, Status(Errc::disp, "displacement unit beyond INT_MAX is not supported by ftmpi windows"), fn);
}

// A unit the int form checks: itself, or 0 (refused there as not positive) for a negative one.
int unit_int(MPI_Aint disp_unit) { return disp_unit < 0 ? 0 : static_cast<int>(disp_unit); }

}  // namespace

extern "C" int PMPI_Win_create_c(void* base, MPI_Aint size, MPI_Aint disp_unit, MPI_Info info, MPI_Comm comm,
                                 MPI_Win* win) {
  FTMPI_ENTER("MPI_Win_create_c");
  if (int rc = check_unit(comm, disp_unit, "MPI_Win_create_c"); rc) return rc;
  return PMPI_Win_create(base, size, unit_int(disp_unit), info, comm, win);
}
FTMPI_ALIAS(Win_create_c)

extern "C" int PMPI_Win_allocate_c(MPI_Aint size, MPI_Aint disp_unit, MPI_Info info, MPI_Comm comm, void* baseptr,
                                   MPI_Win* win) {
  FTMPI_ENTER("MPI_Win_allocate_c");
  if (int rc = check_unit(comm, disp_unit, "MPI_Win_allocate_c"); rc) return rc;
  return PMPI_Win_allocate(size, unit_int(disp_unit), info, comm, baseptr, win);
}
FTMPI_ALIAS(Win_allocate_c)

extern "C" int PMPI_Win_allocate_shared_c(MPI_Aint size, MPI_Aint disp_unit, MPI_Info info, MPI_Comm comm,
                                          void* baseptr, MPI_Win* win) {
  FTMPI_ENTER("MPI_Win_allocate_shared_c");
  if (int rc = check_unit(comm, disp_unit, "MPI_Win_allocate_shared_c"); rc) return rc;
  return PMPI_Win_allocate_shared(size, unit_int(disp_unit), info, comm, baseptr, win);
}
FTMPI_ALIAS(Win_allocate_shared_c)

extern "C" int PMPI_Win_shared_query_c(MPI_Win win, int rank, MPI_Aint* size, MPI_Aint* disp_unit, void* baseptr) {
  FTMPI_ENTER("MPI_Win_shared_query_c");
  int unit = 0;
  const int rc = PMPI_Win_shared_query(win, rank, size, disp_unit ? &unit : nullptr, baseptr);
  if (rc == MPI_SUCCESS) *disp_unit = unit;
  return rc;
}
FTMPI_ALIAS(Win_shared_query_c)

extern "C" int PMPI_Put_c(const void* obuf, MPI_Count ocount, MPI_Datatype otype, int trank, MPI_Aint tdisp,
                          MPI_Count tcount, MPI_Datatype ttype, MPI_Win win) {
  FTMPI_ENTER("MPI_Put_c");
  return do_put(obuf, ocount, otype, trank, tdisp, tcount, ttype, MPI_OP_NULL, win, nullptr, "MPI_Put_c");
}
FTMPI_ALIAS(Put_c)

extern "C" int PMPI_Rput_c(const void* obuf, MPI_Count ocount, MPI_Datatype otype, int trank, MPI_Aint tdisp,
                           MPI_Count tcount, MPI_Datatype ttype, MPI_Win win, MPI_Request* request) {
  FTMPI_ENTER("MPI_Rput_c");
  if (!request) return ret(nullptr, Status(Errc::arg, "request is NULL"), "MPI_Rput_c");
  return do_put(obuf, ocount, otype, trank, tdisp, tcount, ttype, MPI_OP_NULL, win, request, "MPI_Rput_c");
}
FTMPI_ALIAS(Rput_c)

extern "C" int PMPI_Accumulate_c(const void* obuf, MPI_Count ocount, MPI_Datatype otype, int trank, MPI_Aint tdisp,
                                 MPI_Count tcount, MPI_Datatype ttype, MPI_Op op, MPI_Win win) {
  FTMPI_ENTER("MPI_Accumulate_c");
  if (op == MPI_OP_NULL) return ret(nullptr, Status(Errc::op, "MPI_OP_NULL"), "MPI_Accumulate_c");
  return do_put(obuf, ocount, otype, trank, tdisp, tcount, ttype, op, win, nullptr, "MPI_Accumulate_c");
}
FTMPI_ALIAS(Accumulate_c)

extern "C" int PMPI_Raccumulate_c(const void* obuf, MPI_Count ocount, MPI_Datatype otype, int trank, MPI_Aint tdisp,
                                  MPI_Count tcount, MPI_Datatype ttype, MPI_Op op, MPI_Win win,
                                  MPI_Request* request) {
  FTMPI_ENTER("MPI_Raccumulate_c");
  if (!request) return ret(nullptr, Status(Errc::arg, "request is NULL"), "MPI_Raccumulate_c");
  if (op == MPI_OP_NULL) return ret(nullptr, Status(Errc::op, "MPI_OP_NULL"), "MPI_Raccumulate_c");
  return do_put(obuf, ocount, otype, trank, tdisp, tcount, ttype, op, win, request, "MPI_Raccumulate_c");
}
FTMPI_ALIAS(Raccumulate_c)

extern "C" int PMPI_Get_c(void* obuf, MPI_Count ocount, MPI_Datatype otype, int trank, MPI_Aint tdisp,
                          MPI_Count tcount, MPI_Datatype ttype, MPI_Win win) {
  FTMPI_ENTER("MPI_Get_c");
  return do_get(nullptr, 0, MPI_DATATYPE_NULL, obuf, ocount, otype, trank, tdisp, tcount, ttype, MPI_OP_NULL, win,
                nullptr, "MPI_Get_c");
}
FTMPI_ALIAS(Get_c)

extern "C" int PMPI_Rget_c(void* obuf, MPI_Count ocount, MPI_Datatype otype, int trank, MPI_Aint tdisp,
                           MPI_Count tcount, MPI_Datatype ttype, MPI_Win win, MPI_Request* request) {
  FTMPI_ENTER("MPI_Rget_c");
  if (!request) return ret(nullptr, Status(Errc::arg, "request is NULL"), "MPI_Rget_c");
  return do_get(nullptr, 0, MPI_DATATYPE_NULL, obuf, ocount, otype, trank, tdisp, tcount, ttype, MPI_OP_NULL, win,
                request, "MPI_Rget_c");
}
FTMPI_ALIAS(Rget_c)

extern "C" int PMPI_Get_accumulate_c(const void* obuf, MPI_Count ocount, MPI_Datatype otype, void* rbuf,
                                     MPI_Count rcount, MPI_Datatype rtype, int trank, MPI_Aint tdisp,
                                     MPI_Count tcount, MPI_Datatype ttype, MPI_Op op, MPI_Win win) {
  FTMPI_ENTER("MPI_Get_accumulate_c");
  if (op == MPI_OP_NULL) return ret(nullptr, Status(Errc::op, "MPI_OP_NULL"), "MPI_Get_accumulate_c");
  return do_get(obuf, ocount, otype, rbuf, rcount, rtype, trank, tdisp, tcount, ttype, op, win, nullptr,
                "MPI_Get_accumulate_c");
}
FTMPI_ALIAS(Get_accumulate_c)

extern "C" int PMPI_Rget_accumulate_c(const void* obuf, MPI_Count ocount, MPI_Datatype otype, void* rbuf,
                                      MPI_Count rcount, MPI_Datatype rtype, int trank, MPI_Aint tdisp,
                                      MPI_Count tcount, MPI_Datatype ttype, MPI_Op op, MPI_Win win,
                                      MPI_Request* request) {
  FTMPI_ENTER("MPI_Rget_accumulate_c");
  if (!request) return ret(nullptr, Status(Errc::arg, "request is NULL"), "MPI_Rget_accumulate_c");
  if (op == MPI_OP_NULL) return ret(nullptr, Status(Errc::op, "MPI_OP_NULL"), "MPI_Rget_accumulate_c");
  return do_get(obuf, ocount, otype, rbuf, rcount, rtype, trank, tdisp, tcount, ttype, op, win, request,
                "MPI_Rget_accumulate_c");
}
FTMPI_ALIAS(Rget_accumulate_c)
