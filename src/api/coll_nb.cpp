// Non-blocking collectives (MPI-3.1 §5.12): Ibarrier ... Iexscan (all but Iscan/Iexscan also on
// intercommunicators, through api/coll_inter.h). Each checks its
// arguments like its blocking form (api/coll_prepare.cpp), builds the same schedule and hands it to the
// progress loop (coll::start); failures of members and revokes are reported at completion (Wait/Test).
#include "api/coll_inter.h"
#include "api/coll_prepare.h"
#include "api/common.h"

using namespace ftmpi::api;

namespace {
ftmpi::Status no_request() { return ftmpi::Status(ftmpi::Errc::arg, "request is NULL"); }
}  // namespace

extern "C" int PMPI_Ibarrier(MPI_Comm comm, MPI_Request* request) {
  static constexpr const char* fn = "MPI_Ibarrier";
  FTMPI_ENTER(fn);
  FTMPI_CHECK_COMM(comm, fn);
  if (!request) return ret(comm, no_request(), fn);
  if (comm->is_inter()) return start_collective(comm, prepare_inter_barrier(comm), request, fn);
  return start_collective(comm, prepare_barrier(comm), request, fn);
}
FTMPI_ALIAS(Ibarrier)

extern "C" int PMPI_Ibcast(void* buffer, int count, MPI_Datatype datatype, int root, MPI_Comm comm, MPI_Request* request) {
  static constexpr const char* fn = "MPI_Ibcast";
  FTMPI_ENTER(fn);
  FTMPI_CHECK_COMM(comm, fn);
  if (!request) return ret(comm, no_request(), fn);
  if (comm->is_inter()) return start_collective(comm, prepare_inter_bcast(buffer, count, datatype, root, comm), request, fn);
  return start_collective(comm, prepare_bcast(buffer, count, datatype, root, comm), request, fn);
}
FTMPI_ALIAS(Ibcast)

extern "C" int PMPI_Igather(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf, int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm, MPI_Request* request) {
  static constexpr const char* fn = "MPI_Igather";
  FTMPI_ENTER(fn);
  FTMPI_CHECK_COMM(comm, fn);
  if (!request) return ret(comm, no_request(), fn);
  if (comm->is_inter()) return start_collective(comm, prepare_inter_gather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm), request, fn);
  return start_collective(comm, prepare_gather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm), request, fn);
}
FTMPI_ALIAS(Igather)

extern "C" int PMPI_Igatherv(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf, const int recvcounts[], const int displs[], MPI_Datatype recvtype, int root, MPI_Comm comm, MPI_Request* request) {
  static constexpr const char* fn = "MPI_Igatherv";
  FTMPI_ENTER(fn);
  FTMPI_CHECK_COMM(comm, fn);
  if (!request) return ret(comm, no_request(), fn);
  if (comm->is_inter()) return start_collective(comm, prepare_inter_gatherv(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, root, comm), request, fn);
  return start_collective(comm, prepare_gatherv(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, root, comm), request, fn);
}
FTMPI_ALIAS(Igatherv)

extern "C" int PMPI_Iscatter(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf, int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm, MPI_Request* request) {
  static constexpr const char* fn = "MPI_Iscatter";
  FTMPI_ENTER(fn);
  FTMPI_CHECK_COMM(comm, fn);
  if (!request) return ret(comm, no_request(), fn);
  if (comm->is_inter()) return start_collective(comm, prepare_inter_scatter(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm), request, fn);
  return start_collective(comm, prepare_scatter(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm), request, fn);
}
FTMPI_ALIAS(Iscatter)

extern "C" int PMPI_Iscatterv(const void* sendbuf, const int sendcounts[], const int displs[], MPI_Datatype sendtype, void* recvbuf, int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm, MPI_Request* request) {
  static constexpr const char* fn = "MPI_Iscatterv";
  FTMPI_ENTER(fn);
  FTMPI_CHECK_COMM(comm, fn);
  if (!request) return ret(comm, no_request(), fn);
  if (comm->is_inter()) return start_collective(comm, prepare_inter_scatterv(sendbuf, sendcounts, displs, sendtype, recvbuf, recvcount, recvtype, root, comm), request, fn);
  return start_collective(comm, prepare_scatterv(sendbuf, sendcounts, displs, sendtype, recvbuf, recvcount, recvtype, root, comm), request, fn);
}
FTMPI_ALIAS(Iscatterv)

extern "C" int PMPI_Iallgather(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf, int recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Request* request) {
  static constexpr const char* fn = "MPI_Iallgather";
  FTMPI_ENTER(fn);
  FTMPI_CHECK_COMM(comm, fn);
  if (!request) return ret(comm, no_request(), fn);
  if (comm->is_inter()) return start_collective(comm, prepare_inter_allgather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm), request, fn);
  return start_collective(comm, prepare_allgather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm), request, fn);
}
FTMPI_ALIAS(Iallgather)

extern "C" int PMPI_Iallgatherv(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf, const int recvcounts[], const int displs[], MPI_Datatype recvtype, MPI_Comm comm, MPI_Request* request) {
  static constexpr const char* fn = "MPI_Iallgatherv";
  FTMPI_ENTER(fn);
  FTMPI_CHECK_COMM(comm, fn);
  if (!request) return ret(comm, no_request(), fn);
  if (comm->is_inter()) return start_collective(comm, prepare_inter_allgatherv(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, comm), request, fn);
  return start_collective(comm, prepare_allgatherv(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, comm), request, fn);
}
FTMPI_ALIAS(Iallgatherv)

extern "C" int PMPI_Ialltoall(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf, int recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Request* request) {
  static constexpr const char* fn = "MPI_Ialltoall";
  FTMPI_ENTER(fn);
  FTMPI_CHECK_COMM(comm, fn);
  if (!request) return ret(comm, no_request(), fn);
  if (comm->is_inter()) return start_collective(comm, prepare_inter_alltoall(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm), request, fn);
  return start_collective(comm, prepare_alltoall(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm), request, fn);
}
FTMPI_ALIAS(Ialltoall)

extern "C" int PMPI_Ialltoallv(const void* sendbuf, const int sendcounts[], const int sdispls[], MPI_Datatype sendtype, void* recvbuf, const int recvcounts[], const int rdispls[], MPI_Datatype recvtype, MPI_Comm comm, MPI_Request* request) {
  static constexpr const char* fn = "MPI_Ialltoallv";
  FTMPI_ENTER(fn);
  FTMPI_CHECK_COMM(comm, fn);
  if (!request) return ret(comm, no_request(), fn);
  if (comm->is_inter()) return start_collective(comm, prepare_inter_alltoallv(sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts, rdispls, recvtype, comm), request, fn);
  return start_collective(comm, prepare_alltoallv(sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts, rdispls, recvtype, comm), request, fn);
}
FTMPI_ALIAS(Ialltoallv)

extern "C" int PMPI_Ialltoallw(const void* sendbuf, const int sendcounts[], const int sdispls[], const MPI_Datatype sendtypes[], void* recvbuf, const int recvcounts[], const int rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm, MPI_Request* request) {
  static constexpr const char* fn = "MPI_Ialltoallw";
  FTMPI_ENTER(fn);
  FTMPI_CHECK_COMM(comm, fn);
  if (!request) return ret(comm, no_request(), fn);
  if (comm->is_inter()) return start_collective(comm, prepare_inter_alltoallw(sendbuf, sendcounts, sdispls, sendtypes, recvbuf, recvcounts, rdispls, recvtypes, comm), request, fn);
  return start_collective(comm, prepare_alltoallw(sendbuf, sendcounts, sdispls, sendtypes, recvbuf, recvcounts, rdispls, recvtypes, comm), request, fn);
}
FTMPI_ALIAS(Ialltoallw)

extern "C" int PMPI_Ireduce(const void* sendbuf, void* recvbuf, int count, MPI_Datatype datatype, MPI_Op op, int root, MPI_Comm comm, MPI_Request* request) {
  static constexpr const char* fn = "MPI_Ireduce";
  FTMPI_ENTER(fn);
  FTMPI_CHECK_COMM(comm, fn);
  if (!request) return ret(comm, no_request(), fn);
  if (comm->is_inter()) return start_collective(comm, prepare_inter_reduce(sendbuf, recvbuf, count, datatype, op, root, comm), request, fn);
  return start_collective(comm, prepare_reduce(sendbuf, recvbuf, count, datatype, op, root, comm), request, fn);
}
FTMPI_ALIAS(Ireduce)

extern "C" int PMPI_Iallreduce(const void* sendbuf, void* recvbuf, int count, MPI_Datatype datatype, MPI_Op op, MPI_Comm comm, MPI_Request* request) {
  static constexpr const char* fn = "MPI_Iallreduce";
  FTMPI_ENTER(fn);
  FTMPI_CHECK_COMM(comm, fn);
  if (!request) return ret(comm, no_request(), fn);
  if (comm->is_inter()) return start_collective(comm, prepare_inter_allreduce(sendbuf, recvbuf, count, datatype, op, comm), request, fn);
  return start_collective(comm, prepare_allreduce(sendbuf, recvbuf, count, datatype, op, comm), request, fn);
}
FTMPI_ALIAS(Iallreduce)

extern "C" int PMPI_Ireduce_scatter(const void* sendbuf, void* recvbuf, const int recvcounts[], MPI_Datatype datatype, MPI_Op op, MPI_Comm comm, MPI_Request* request) {
  static constexpr const char* fn = "MPI_Ireduce_scatter";
  FTMPI_ENTER(fn);
  FTMPI_CHECK_COMM(comm, fn);
  if (!request) return ret(comm, no_request(), fn);
  if (comm->is_inter()) return start_collective(comm, prepare_inter_reduce_scatter(sendbuf, recvbuf, recvcounts, datatype, op, comm), request, fn);
  return start_collective(comm, prepare_reduce_scatter(sendbuf, recvbuf, recvcounts, datatype, op, comm), request, fn);
}
FTMPI_ALIAS(Ireduce_scatter)

extern "C" int PMPI_Ireduce_scatter_block(const void* sendbuf, void* recvbuf, int recvcount, MPI_Datatype datatype, MPI_Op op, MPI_Comm comm, MPI_Request* request) {
  static constexpr const char* fn = "MPI_Ireduce_scatter_block";
  FTMPI_ENTER(fn);
  FTMPI_CHECK_COMM(comm, fn);
  if (!request) return ret(comm, no_request(), fn);
  if (comm->is_inter()) return start_collective(comm, prepare_inter_reduce_scatter_block(sendbuf, recvbuf, recvcount, datatype, op, comm), request, fn);
  return start_collective(comm, prepare_reduce_scatter_block(sendbuf, recvbuf, recvcount, datatype, op, comm), request, fn);
}
FTMPI_ALIAS(Ireduce_scatter_block)

extern "C" int PMPI_Iscan(const void* sendbuf, void* recvbuf, int count, MPI_Datatype datatype, MPI_Op op, MPI_Comm comm, MPI_Request* request) {
  static constexpr const char* fn = "MPI_Iscan";
  FTMPI_ENTER(fn);
  FTMPI_CHECK_COMM(comm, fn);
  if (!request) return ret(comm, no_request(), fn);
  return start_collective(comm, prepare_scan(sendbuf, recvbuf, count, datatype, op, comm), request, fn);
}
FTMPI_ALIAS(Iscan)

extern "C" int PMPI_Iexscan(const void* sendbuf, void* recvbuf, int count, MPI_Datatype datatype, MPI_Op op, MPI_Comm comm, MPI_Request* request) {
  static constexpr const char* fn = "MPI_Iexscan";
  FTMPI_ENTER(fn);
  FTMPI_CHECK_COMM(comm, fn);
  if (!request) return ret(comm, no_request(), fn);
  return start_collective(comm, prepare_exscan(sendbuf, recvbuf, count, datatype, op, comm), request, fn);
}
FTMPI_ALIAS(Iexscan)
