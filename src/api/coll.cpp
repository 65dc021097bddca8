// Collective C functions (MPI-3.1 §5): Barrier, Bcast, Reduce, Allreduce, Gather, Scatter, Allgather.
// Argument checking here; algorithms in src/coll/. Errors go through the communicator's handler.
#include "api/coll_inter.h"
#include "api/coll_prepare.h"
#include "api/common.h"
#include "coll/coll.h"
#include "coll/schedule.h"
#include "datatype/op.h"
#include "ft/failure_state.h"
#include "models/events/event_hub.h"

using ftmpi::Errc;
using ftmpi::Status;
using ftmpi::api::prepare_inter_allgather;
using ftmpi::api::prepare_inter_allreduce;
using ftmpi::api::prepare_inter_barrier;
using ftmpi::api::prepare_inter_bcast;
using ftmpi::api::prepare_inter_gather;
using ftmpi::api::prepare_inter_reduce;
using ftmpi::api::prepare_inter_scatter;
using ftmpi::api::ret;
using ftmpi::api::run_collective;
using ftmpi::api::rt;
using ftmpi::api::valid_type;
using ftmpi::coll::is_in_place;

namespace {

using ftmpi::api::coll_block;
using ftmpi::api::coll_check_alias;
using ftmpi::api::coll_check_data;
using ftmpi::api::coll_check_op;
using ftmpi::api::coll_check_root;

std::size_t sz(int n) { return static_cast<std::size_t>(n); }

#define FTMPI_COLL_TRY(expr, comm, fn)       \
  do {                                    \
    Status st_ = (expr);                  \
    if (!st_.ok()) return ret(comm, st_, fn); \
  } while (0)

}  // namespace

extern "C" int PMPI_Barrier(MPI_Comm comm) {
  FTMPI_ENTER("MPI_Barrier");
  FTMPI_CHECK_COMM(comm, "MPI_Barrier");
  if (comm->is_inter()) return run_collective(comm, prepare_inter_barrier(comm), "MPI_Barrier");
  Status st = ftmpi::coll::barrier(rt(), comm);
  // LAM (seed 002 §8.2 4d): the communicator's failure callback has run for every failure known here.
  // A failed barrier may have learned of the failure only from another member's give-up: wait for the notice.
  if (rt().events().has_comm_callbacks() && (rt().failures().epoch() != 0 || st.code() == ftmpi::Errc::proc_failed))
    rt().events().wait_comm_delivered(comm, st.code() == ftmpi::Errc::proc_failed);
  return ret(comm, st, "MPI_Barrier");
}
FTMPI_ALIAS(Barrier)

extern "C" int PMPI_Bcast(void* buffer, int count, MPI_Datatype type, int root, MPI_Comm comm) {
  static constexpr const char* fn = "MPI_Bcast";
  FTMPI_ENTER(fn);
  FTMPI_CHECK_COMM(comm, fn);
  if (comm->is_inter()) return run_collective(comm, prepare_inter_bcast(buffer, count, type, root, comm), fn);
  FTMPI_COLL_TRY(coll_check_data(buffer, count, type), comm, fn);
  FTMPI_COLL_TRY(coll_check_root(root, comm), comm, fn);
  return ret(comm, ftmpi::coll::bcast(rt(), comm, buffer, sz(count), type, root), fn);
}
FTMPI_ALIAS(Bcast)

extern "C" int PMPI_Reduce(const void* sendbuf, void* recvbuf, int count, MPI_Datatype type, MPI_Op op, int root,
                           MPI_Comm comm) {
  static constexpr const char* fn = "MPI_Reduce";
  FTMPI_ENTER(fn);
  FTMPI_CHECK_COMM(comm, fn);
  if (comm->is_inter()) return run_collective(comm, prepare_inter_reduce(sendbuf, recvbuf, count, type, op, root, comm), fn);
  FTMPI_COLL_TRY(coll_check_root(root, comm), comm, fn);
  const bool am_root = comm->rank == root;
  if (is_in_place(sendbuf) && !am_root)
    return ret(comm, Status(Errc::buffer, "MPI_IN_PLACE is only valid at the root"), fn);
  if (!is_in_place(sendbuf)) FTMPI_COLL_TRY(coll_check_data(sendbuf, count, type), comm, fn);
  if (am_root) FTMPI_COLL_TRY(coll_check_data(recvbuf, count, type), comm, fn);
  if (am_root && is_in_place(recvbuf)) return ret(comm, Status(Errc::buffer, "recvbuf is MPI_IN_PLACE"), fn);
  FTMPI_COLL_TRY(coll_check_data(nullptr, 0, type), comm, fn);  // the type must be valid before check_op reads it
  FTMPI_COLL_TRY(coll_check_op(op, type), comm, fn);
  if (am_root) FTMPI_COLL_TRY(coll_check_alias(sendbuf, count > 0, recvbuf, count > 0), comm, fn);
  return ret(comm, ftmpi::coll::reduce(rt(), comm, sendbuf, recvbuf, sz(count), type, op, root), fn);
}
FTMPI_ALIAS(Reduce)

extern "C" int PMPI_Allreduce(const void* sendbuf, void* recvbuf, int count, MPI_Datatype type, MPI_Op op,
                              MPI_Comm comm) {
  static constexpr const char* fn = "MPI_Allreduce";
  FTMPI_ENTER(fn);
  FTMPI_CHECK_COMM(comm, fn);
  if (comm->is_inter()) return run_collective(comm, prepare_inter_allreduce(sendbuf, recvbuf, count, type, op, comm), fn);
  if (is_in_place(recvbuf)) return ret(comm, Status(Errc::buffer, "recvbuf is MPI_IN_PLACE"), fn);
  if (!is_in_place(sendbuf)) FTMPI_COLL_TRY(coll_check_data(sendbuf, count, type), comm, fn);
  FTMPI_COLL_TRY(coll_check_data(recvbuf, count, type), comm, fn);
  FTMPI_COLL_TRY(coll_check_op(op, type), comm, fn);
  FTMPI_COLL_TRY(coll_check_alias(sendbuf, count > 0, recvbuf, count > 0), comm, fn);
  return ret(comm, ftmpi::coll::allreduce(rt(), comm, sendbuf, recvbuf, sz(count), type, op), fn);
}
FTMPI_ALIAS(Allreduce)

extern "C" int PMPI_Gather(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf, int recvcount,
                           MPI_Datatype recvtype, int root, MPI_Comm comm) {
  static constexpr const char* fn = "MPI_Gather";
  FTMPI_ENTER(fn);
  FTMPI_CHECK_COMM(comm, fn);
  if (comm->is_inter())
    return run_collective(comm, prepare_inter_gather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm), fn);
  FTMPI_COLL_TRY(coll_check_root(root, comm), comm, fn);
  const bool am_root = comm->rank == root;
  if (is_in_place(sendbuf) && !am_root)
    return ret(comm, Status(Errc::buffer, "MPI_IN_PLACE is only valid at the root"), fn);
  if (!is_in_place(sendbuf)) FTMPI_COLL_TRY(coll_check_data(sendbuf, sendcount, sendtype), comm, fn);
  if (am_root) {
    if (is_in_place(recvbuf)) return ret(comm, Status(Errc::buffer, "recvbuf is MPI_IN_PLACE"), fn);
    FTMPI_COLL_TRY(coll_check_data(recvbuf, recvcount, recvtype), comm, fn);
    FTMPI_COLL_TRY(coll_check_alias(sendbuf, sendcount > 0, recvbuf, recvcount > 0,
                                    coll_block(recvbuf, static_cast<long long>(comm->rank) * recvcount, recvtype)),
                   comm, fn);
  }
  return ret(comm,
             ftmpi::coll::gather(rt(), comm, sendbuf, sz(sendcount), sendtype, recvbuf, sz(recvcount), recvtype, root),
             fn);
}
FTMPI_ALIAS(Gather)

extern "C" int PMPI_Scatter(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf, int recvcount,
                            MPI_Datatype recvtype, int root, MPI_Comm comm) {
  static constexpr const char* fn = "MPI_Scatter";
  FTMPI_ENTER(fn);
  FTMPI_CHECK_COMM(comm, fn);
  if (comm->is_inter())
    return run_collective(comm, prepare_inter_scatter(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm), fn);
  FTMPI_COLL_TRY(coll_check_root(root, comm), comm, fn);
  const bool am_root = comm->rank == root;
  if (is_in_place(recvbuf) && !am_root)
    return ret(comm, Status(Errc::buffer, "MPI_IN_PLACE is only valid at the root"), fn);
  if (am_root) {
    if (is_in_place(sendbuf)) return ret(comm, Status(Errc::buffer, "sendbuf is MPI_IN_PLACE"), fn);
    FTMPI_COLL_TRY(coll_check_data(sendbuf, sendcount, sendtype), comm, fn);
  }
  if (!is_in_place(recvbuf)) FTMPI_COLL_TRY(coll_check_data(recvbuf, recvcount, recvtype), comm, fn);
  if (am_root)
    FTMPI_COLL_TRY(coll_check_alias(recvbuf, recvcount > 0, sendbuf, sendcount > 0,
                                    coll_block(sendbuf, static_cast<long long>(comm->rank) * sendcount, sendtype)),
                   comm, fn);
  return ret(comm,
             ftmpi::coll::scatter(rt(), comm, sendbuf, sz(sendcount), sendtype, recvbuf, sz(recvcount), recvtype, root),
             fn);
}
FTMPI_ALIAS(Scatter)

extern "C" int PMPI_Allgather(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                              int recvcount, MPI_Datatype recvtype, MPI_Comm comm) {
  static constexpr const char* fn = "MPI_Allgather";
  FTMPI_ENTER(fn);
  FTMPI_CHECK_COMM(comm, fn);
  if (comm->is_inter())
    return run_collective(comm, prepare_inter_allgather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm), fn);
  if (is_in_place(recvbuf)) return ret(comm, Status(Errc::buffer, "recvbuf is MPI_IN_PLACE"), fn);
  if (!is_in_place(sendbuf)) FTMPI_COLL_TRY(coll_check_data(sendbuf, sendcount, sendtype), comm, fn);
  FTMPI_COLL_TRY(coll_check_data(recvbuf, recvcount, recvtype), comm, fn);
  FTMPI_COLL_TRY(coll_check_alias(sendbuf, sendcount > 0, recvbuf, recvcount > 0,
                                  coll_block(recvbuf, static_cast<long long>(comm->rank) * recvcount, recvtype)),
                 comm, fn);
  return ret(comm, ftmpi::coll::allgather(rt(), comm, sendbuf, sz(sendcount), sendtype, recvbuf, sz(recvcount), recvtype),
             fn);
}
FTMPI_ALIAS(Allgather)
