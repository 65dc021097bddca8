// Persistent collectives (MPI-4.0 §6.13): MPI_Barrier_init ... MPI_Exscan_init, on intra- and (where the
// blocking form allows it: all but Scan/Exscan) intercommunicators. Each checks its arguments like its
// blocking form (by building one plan now, api/coll_persistent.h) and keeps them; every MPI_Start builds
// and runs a fresh plan (coll/persistent.h). The neighbourhood forms are in api/coll_neighbor.cpp.
#include "api/coll_inter.h"
#include "api/coll_persistent.h"
#include "api/coll_prepare.h"

using namespace ftmpi::api;
using ftmpi::coll::is_in_place;

namespace {
std::size_t members(MPI_Comm comm) { return static_cast<std::size_t>(comm->peer_size()); }
// Is a root-only argument significant at this process?
bool at_root(MPI_Comm comm, int root) { return comm->is_inter() ? root == MPI_ROOT : comm->rank == root; }
}  // namespace

extern "C" int PMPI_Barrier_init(MPI_Comm comm, MPI_Info info, MPI_Request* request) {
  static constexpr const char* fn = "MPI_Barrier_init";
  FTMPI_ENTER(fn);
  FTMPI_CHECK_COMM(comm, fn);
  if (comm->is_inter()) return init_collective(comm, info, [=] { return prepare_inter_barrier(comm); }, request, fn);
  return init_collective(comm, info, [=] { return prepare_barrier(comm); }, request, fn);
}
FTMPI_ALIAS(Barrier_init)

extern "C" int PMPI_Bcast_init(void* buffer, int count, MPI_Datatype datatype, int root, MPI_Comm comm, MPI_Info info,
                               MPI_Request* request) {
  static constexpr const char* fn = "MPI_Bcast_init";
  FTMPI_ENTER(fn);
  FTMPI_CHECK_COMM(comm, fn);
  if (comm->is_inter())
    return init_collective(
        comm, info, [=] { return prepare_inter_bcast(buffer, count, datatype, root, comm); }, request, fn);
  return init_collective(comm, info, [=] { return prepare_bcast(buffer, count, datatype, root, comm); }, request, fn);
}
FTMPI_ALIAS(Bcast_init)

extern "C" int PMPI_Reduce_init(const void* sendbuf, void* recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
                                int root, MPI_Comm comm, MPI_Info info, MPI_Request* request) {
  static constexpr const char* fn = "MPI_Reduce_init";
  FTMPI_ENTER(fn);
  FTMPI_CHECK_COMM(comm, fn);
  if (comm->is_inter())
    return init_collective(
        comm, info, [=] { return prepare_inter_reduce(sendbuf, recvbuf, count, datatype, op, root, comm); }, request,
        fn);
  return init_collective(
      comm, info, [=] { return prepare_reduce(sendbuf, recvbuf, count, datatype, op, root, comm); }, request, fn);
}
FTMPI_ALIAS(Reduce_init)

extern "C" int PMPI_Allreduce_init(const void* sendbuf, void* recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
                                   MPI_Comm comm, MPI_Info info, MPI_Request* request) {
  static constexpr const char* fn = "MPI_Allreduce_init";
  FTMPI_ENTER(fn);
  FTMPI_CHECK_COMM(comm, fn);
  if (comm->is_inter())
    return init_collective(
        comm, info, [=] { return prepare_inter_allreduce(sendbuf, recvbuf, count, datatype, op, comm); }, request,
        fn);
  return init_collective(
      comm, info, [=] { return prepare_allreduce(sendbuf, recvbuf, count, datatype, op, comm); }, request, fn);
}
FTMPI_ALIAS(Allreduce_init)

extern "C" int PMPI_Gather_init(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                                int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm, MPI_Info info,
                                MPI_Request* request) {
  static constexpr const char* fn = "MPI_Gather_init";
  FTMPI_ENTER(fn);
  FTMPI_CHECK_COMM(comm, fn);
  if (comm->is_inter())
    return init_collective(
        comm, info,
        [=] { return prepare_inter_gather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm); },
        request, fn);
  return init_collective(
      comm, info,
      [=] { return prepare_gather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm); },
      request, fn);
}
FTMPI_ALIAS(Gather_init)

extern "C" int PMPI_Gatherv_init(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                                 const int recvcounts[], const int displs[], MPI_Datatype recvtype, int root,
                                 MPI_Comm comm, MPI_Info info, MPI_Request* request) {
  static constexpr const char* fn = "MPI_Gatherv_init";
  FTMPI_ENTER(fn);
  FTMPI_CHECK_COMM(comm, fn);
  const bool sig = at_root(comm, root);
  KeptArray<int> rc(recvcounts, members(comm), sig), dp(displs, members(comm), sig);
  if (comm->is_inter())
    return init_collective(
        comm, info,
        [=] {
          return prepare_inter_gatherv(sendbuf, sendcount, sendtype, recvbuf, rc.get(), dp.get(), recvtype, root,
                                       comm);
        },
        request, fn);
  return init_collective(
      comm, info,
      [=] {
        return prepare_gatherv(sendbuf, sendcount, sendtype, recvbuf, rc.get(), dp.get(), recvtype, root, comm);
      },
      request, fn);
}
FTMPI_ALIAS(Gatherv_init)

extern "C" int PMPI_Scatter_init(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                                 int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm, MPI_Info info,
                                 MPI_Request* request) {
  static constexpr const char* fn = "MPI_Scatter_init";
  FTMPI_ENTER(fn);
  FTMPI_CHECK_COMM(comm, fn);
  if (comm->is_inter())
    return init_collective(
        comm, info,
        [=] {
          return prepare_inter_scatter(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm);
        },
        request, fn);
  return init_collective(
      comm, info,
      [=] { return prepare_scatter(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm); },
      request, fn);
}
FTMPI_ALIAS(Scatter_init)

extern "C" int PMPI_Scatterv_init(const void* sendbuf, const int sendcounts[], const int displs[],
                                  MPI_Datatype sendtype, void* recvbuf, int recvcount, MPI_Datatype recvtype, int root,
                                  MPI_Comm comm, MPI_Info info, MPI_Request* request) {
  static constexpr const char* fn = "MPI_Scatterv_init";
  FTMPI_ENTER(fn);
  FTMPI_CHECK_COMM(comm, fn);
  const bool sig = at_root(comm, root);
  KeptArray<int> sc(sendcounts, members(comm), sig), dp(displs, members(comm), sig);
  if (comm->is_inter())
    return init_collective(
        comm, info,
        [=] {
          return prepare_inter_scatterv(sendbuf, sc.get(), dp.get(), sendtype, recvbuf, recvcount, recvtype, root,
                                        comm);
        },
        request, fn);
  return init_collective(
      comm, info,
      [=] {
        return prepare_scatterv(sendbuf, sc.get(), dp.get(), sendtype, recvbuf, recvcount, recvtype, root, comm);
      },
      request, fn);
}
FTMPI_ALIAS(Scatterv_init)

extern "C" int PMPI_Allgather_init(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                                   int recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Info info,
                                   MPI_Request* request) {
  static constexpr const char* fn = "MPI_Allgather_init";
  FTMPI_ENTER(fn);
  FTMPI_CHECK_COMM(comm, fn);
  if (comm->is_inter())
    return init_collective(
        comm, info,
        [=] { return prepare_inter_allgather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm); },
        request, fn);
  return init_collective(
      comm, info, [=] { return prepare_allgather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm); },
      request, fn);
}
FTMPI_ALIAS(Allgather_init)

extern "C" int PMPI_Allgatherv_init(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                                    const int recvcounts[], const int displs[], MPI_Datatype recvtype, MPI_Comm comm,
                                    MPI_Info info, MPI_Request* request) {
  static constexpr const char* fn = "MPI_Allgatherv_init";
  FTMPI_ENTER(fn);
  FTMPI_CHECK_COMM(comm, fn);
  KeptArray<int> rc(recvcounts, members(comm)), dp(displs, members(comm));
  if (comm->is_inter())
    return init_collective(
        comm, info,
        [=] {
          return prepare_inter_allgatherv(sendbuf, sendcount, sendtype, recvbuf, rc.get(), dp.get(), recvtype, comm);
        },
        request, fn);
  return init_collective(
      comm, info,
      [=] { return prepare_allgatherv(sendbuf, sendcount, sendtype, recvbuf, rc.get(), dp.get(), recvtype, comm); },
      request, fn);
}
FTMPI_ALIAS(Allgatherv_init)

extern "C" int PMPI_Alltoall_init(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                                  int recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Info info,
                                  MPI_Request* request) {
  static constexpr const char* fn = "MPI_Alltoall_init";
  FTMPI_ENTER(fn);
  FTMPI_CHECK_COMM(comm, fn);
  if (comm->is_inter())
    return init_collective(
        comm, info,
        [=] { return prepare_inter_alltoall(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm); },
        request, fn);
  return init_collective(
      comm, info, [=] { return prepare_alltoall(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm); },
      request, fn);
}
FTMPI_ALIAS(Alltoall_init)

extern "C" int PMPI_Alltoallv_init(const void* sendbuf, const int sendcounts[], const int sdispls[],
                                   MPI_Datatype sendtype, void* recvbuf, const int recvcounts[], const int rdispls[],
                                   MPI_Datatype recvtype, MPI_Comm comm, MPI_Info info, MPI_Request* request) {
  static constexpr const char* fn = "MPI_Alltoallv_init";
  FTMPI_ENTER(fn);
  FTMPI_CHECK_COMM(comm, fn);
  const std::size_t n = members(comm);
  const bool send_sig = !is_in_place(sendbuf);
  KeptArray<int> sc(sendcounts, n, send_sig), sd(sdispls, n, send_sig), rc(recvcounts, n), rd(rdispls, n);
  if (comm->is_inter())
    return init_collective(
        comm, info,
        [=] {
          return prepare_inter_alltoallv(sendbuf, sc.get(), sd.get(), sendtype, recvbuf, rc.get(), rd.get(), recvtype,
                                         comm);
        },
        request, fn);
  return init_collective(
      comm, info,
      [=] {
        return prepare_alltoallv(sendbuf, sc.get(), sd.get(), sendtype, recvbuf, rc.get(), rd.get(), recvtype, comm);
      },
      request, fn);
}
FTMPI_ALIAS(Alltoallv_init)

extern "C" int PMPI_Alltoallw_init(const void* sendbuf, const int sendcounts[], const int sdispls[],
                                   const MPI_Datatype sendtypes[], void* recvbuf, const int recvcounts[],
                                   const int rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm, MPI_Info info,
                                   MPI_Request* request) {
  static constexpr const char* fn = "MPI_Alltoallw_init";
  FTMPI_ENTER(fn);
  FTMPI_CHECK_COMM(comm, fn);
  const std::size_t n = members(comm);
  const bool send_sig = !is_in_place(sendbuf);
  KeptArray<int> sc(sendcounts, n, send_sig), sd(sdispls, n, send_sig), rc(recvcounts, n), rd(rdispls, n);
  KeptArray<MPI_Datatype> st(sendtypes, n, send_sig), rt_(recvtypes, n);
  if (comm->is_inter())
    return init_collective(
        comm, info,
        [=] {
          return prepare_inter_alltoallw(sendbuf, sc.get(), sd.get(), st.get(), recvbuf, rc.get(), rd.get(),
                                         rt_.get(), comm);
        },
        request, fn);
  return init_collective(
      comm, info,
      [=] {
        return prepare_alltoallw(sendbuf, sc.get(), sd.get(), st.get(), recvbuf, rc.get(), rd.get(), rt_.get(),
                                 comm);
      },
      request, fn);
}
FTMPI_ALIAS(Alltoallw_init)

extern "C" int PMPI_Reduce_scatter_init(const void* sendbuf, void* recvbuf, const int recvcounts[],
                                        MPI_Datatype datatype, MPI_Op op, MPI_Comm comm, MPI_Info info,
                                        MPI_Request* request) {
  static constexpr const char* fn = "MPI_Reduce_scatter_init";
  FTMPI_ENTER(fn);
  FTMPI_CHECK_COMM(comm, fn);
  KeptArray<int> rc(recvcounts, static_cast<std::size_t>(comm->size));  // one per local rank, also on intercomms
  if (comm->is_inter())
    return init_collective(
        comm, info, [=] { return prepare_inter_reduce_scatter(sendbuf, recvbuf, rc.get(), datatype, op, comm); },
        request, fn);
  return init_collective(
      comm, info, [=] { return prepare_reduce_scatter(sendbuf, recvbuf, rc.get(), datatype, op, comm); }, request,
      fn);
}
FTMPI_ALIAS(Reduce_scatter_init)

extern "C" int PMPI_Reduce_scatter_block_init(const void* sendbuf, void* recvbuf, int recvcount,
                                              MPI_Datatype datatype, MPI_Op op, MPI_Comm comm, MPI_Info info,
                                              MPI_Request* request) {
  static constexpr const char* fn = "MPI_Reduce_scatter_block_init";
  FTMPI_ENTER(fn);
  FTMPI_CHECK_COMM(comm, fn);
  if (comm->is_inter())
    return init_collective(
        comm, info,
        [=] { return prepare_inter_reduce_scatter_block(sendbuf, recvbuf, recvcount, datatype, op, comm); }, request,
        fn);
  return init_collective(
      comm, info, [=] { return prepare_reduce_scatter_block(sendbuf, recvbuf, recvcount, datatype, op, comm); },
      request, fn);
}
FTMPI_ALIAS(Reduce_scatter_block_init)

// Scan and Exscan: intracommunicators only (prepare_scan/prepare_exscan refuse an intercommunicator).
extern "C" int PMPI_Scan_init(const void* sendbuf, void* recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
                              MPI_Comm comm, MPI_Info info, MPI_Request* request) {
  static constexpr const char* fn = "MPI_Scan_init";
  FTMPI_ENTER(fn);
  FTMPI_CHECK_COMM(comm, fn);
  return init_collective(
      comm, info, [=] { return prepare_scan(sendbuf, recvbuf, count, datatype, op, comm); }, request, fn);
}
FTMPI_ALIAS(Scan_init)

extern "C" int PMPI_Exscan_init(const void* sendbuf, void* recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
                                MPI_Comm comm, MPI_Info info, MPI_Request* request) {
  static constexpr const char* fn = "MPI_Exscan_init";
  FTMPI_ENTER(fn);
  FTMPI_CHECK_COMM(comm, fn);
  return init_collective(
      comm, info, [=] { return prepare_exscan(sendbuf, recvbuf, count, datatype, op, comm); }, request, fn);
}
FTMPI_ALIAS(Exscan_init)
