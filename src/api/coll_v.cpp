// Collective C functions added by issue 4 (MPI-3.1 §5, blocking; intercommunicators through api/coll_inter.h
// except Scan/Exscan, which MPI defines on intracommunicators only): Gatherv, Scatterv,
// Allgatherv, Alltoall, Alltoallv, Alltoallw, Reduce_scatter, Reduce_scatter_block, Scan, Exscan.
// Argument checks and schedules in api/coll_prepare.cpp, algorithms in src/coll/. The foundation's
// collectives are in api/coll.cpp, the non-blocking forms in api/coll_nb.cpp.
#include "api/coll_inter.h"
#include "api/coll_prepare.h"
#include "api/common.h"

using namespace ftmpi::api;

extern "C" int PMPI_Gatherv(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf, const int recvcounts[], const int displs[], MPI_Datatype recvtype, int root, MPI_Comm comm) {
  static constexpr const char* fn = "MPI_Gatherv";
  FTMPI_ENTER(fn);
  FTMPI_CHECK_COMM(comm, fn);
  if (comm->is_inter()) return run_collective(comm, prepare_inter_gatherv(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, root, comm), fn);
  return run_collective(comm, prepare_gatherv(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, root, comm), fn);
}
FTMPI_ALIAS(Gatherv)

extern "C" int PMPI_Scatterv(const void* sendbuf, const int sendcounts[], const int displs[], MPI_Datatype sendtype, void* recvbuf, int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm) {
  static constexpr const char* fn = "MPI_Scatterv";
  FTMPI_ENTER(fn);
  FTMPI_CHECK_COMM(comm, fn);
  if (comm->is_inter()) return run_collective(comm, prepare_inter_scatterv(sendbuf, sendcounts, displs, sendtype, recvbuf, recvcount, recvtype, root, comm), fn);
  return run_collective(comm, prepare_scatterv(sendbuf, sendcounts, displs, sendtype, recvbuf, recvcount, recvtype, root, comm), fn);
}
FTMPI_ALIAS(Scatterv)

extern "C" int PMPI_Allgatherv(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf, const int recvcounts[], const int displs[], MPI_Datatype recvtype, MPI_Comm comm) {
  static constexpr const char* fn = "MPI_Allgatherv";
  FTMPI_ENTER(fn);
  FTMPI_CHECK_COMM(comm, fn);
  if (comm->is_inter()) return run_collective(comm, prepare_inter_allgatherv(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, comm), fn);
  return run_collective(comm, prepare_allgatherv(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, comm), fn);
}
FTMPI_ALIAS(Allgatherv)

extern "C" int PMPI_Alltoall(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf, int recvcount, MPI_Datatype recvtype, MPI_Comm comm) {
  static constexpr const char* fn = "MPI_Alltoall";
  FTMPI_ENTER(fn);
  FTMPI_CHECK_COMM(comm, fn);
  if (comm->is_inter()) return run_collective(comm, prepare_inter_alltoall(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm), fn);
  return run_collective(comm, prepare_alltoall(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm, &rt()), fn);
}
FTMPI_ALIAS(Alltoall)

extern "C" int PMPI_Alltoallv(const void* sendbuf, const int sendcounts[], const int sdispls[], MPI_Datatype sendtype, void* recvbuf, const int recvcounts[], const int rdispls[], MPI_Datatype recvtype, MPI_Comm comm) {
  static constexpr const char* fn = "MPI_Alltoallv";
  FTMPI_ENTER(fn);
  FTMPI_CHECK_COMM(comm, fn);
  if (comm->is_inter()) return run_collective(comm, prepare_inter_alltoallv(sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts, rdispls, recvtype, comm), fn);
  return run_collective(comm, prepare_alltoallv(sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts, rdispls, recvtype, comm, &rt()), fn);
}
FTMPI_ALIAS(Alltoallv)

extern "C" int PMPI_Alltoallw(const void* sendbuf, const int sendcounts[], const int sdispls[], const MPI_Datatype sendtypes[], void* recvbuf, const int recvcounts[], const int rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm) {
  static constexpr const char* fn = "MPI_Alltoallw";
  FTMPI_ENTER(fn);
  FTMPI_CHECK_COMM(comm, fn);
  if (comm->is_inter()) return run_collective(comm, prepare_inter_alltoallw(sendbuf, sendcounts, sdispls, sendtypes, recvbuf, recvcounts, rdispls, recvtypes, comm), fn);
  return run_collective(comm, prepare_alltoallw(sendbuf, sendcounts, sdispls, sendtypes, recvbuf, recvcounts, rdispls, recvtypes, comm, &rt()), fn);
}
FTMPI_ALIAS(Alltoallw)

extern "C" int PMPI_Reduce_scatter(const void* sendbuf, void* recvbuf, const int recvcounts[], MPI_Datatype datatype, MPI_Op op, MPI_Comm comm) {
  static constexpr const char* fn = "MPI_Reduce_scatter";
  FTMPI_ENTER(fn);
  FTMPI_CHECK_COMM(comm, fn);
  if (comm->is_inter()) return run_collective(comm, prepare_inter_reduce_scatter(sendbuf, recvbuf, recvcounts, datatype, op, comm), fn);
  return run_collective(comm, prepare_reduce_scatter(sendbuf, recvbuf, recvcounts, datatype, op, comm), fn);
}
FTMPI_ALIAS(Reduce_scatter)

extern "C" int PMPI_Reduce_scatter_block(const void* sendbuf, void* recvbuf, int recvcount, MPI_Datatype datatype, MPI_Op op, MPI_Comm comm) {
  static constexpr const char* fn = "MPI_Reduce_scatter_block";
  FTMPI_ENTER(fn);
  FTMPI_CHECK_COMM(comm, fn);
  if (comm->is_inter()) return run_collective(comm, prepare_inter_reduce_scatter_block(sendbuf, recvbuf, recvcount, datatype, op, comm), fn);
  return run_collective(comm, prepare_reduce_scatter_block(sendbuf, recvbuf, recvcount, datatype, op, comm), fn);
}
FTMPI_ALIAS(Reduce_scatter_block)

extern "C" int PMPI_Scan(const void* sendbuf, void* recvbuf, int count, MPI_Datatype datatype, MPI_Op op, MPI_Comm comm) {
  static constexpr const char* fn = "MPI_Scan";
  FTMPI_ENTER(fn);
  FTMPI_CHECK_COMM(comm, fn);
  return run_collective(comm, prepare_scan(sendbuf, recvbuf, count, datatype, op, comm), fn);
}
FTMPI_ALIAS(Scan)

extern "C" int PMPI_Exscan(const void* sendbuf, void* recvbuf, int count, MPI_Datatype datatype, MPI_Op op, MPI_Comm comm) {
  static constexpr const char* fn = "MPI_Exscan";
  FTMPI_ENTER(fn);
  FTMPI_CHECK_COMM(comm, fn);
  return run_collective(comm, prepare_exscan(sendbuf, recvbuf, count, datatype, op, comm), fn);
}
FTMPI_ALIAS(Exscan)
