// Collectives in the C API: argument checks plus the schedule they build, shared by the blocking (run to
// the end) and non-blocking (coll::start) forms. Each prepare_X checks X's arguments as MPI-3.1 §5 states
// them and returns the built schedule, or the error the call must report (Errc::count, type, buffer, root,
// op, arg, comm) without having started anything. `comm` must be a valid communicator (FTMPI_CHECK_COMM).
// Intracommunicators only: the C functions send intercommunicators to api/coll_inter.h instead; Scan and
// Exscan, which MPI defines on intracommunicators only, refuse them here with Errc::comm.
#pragma once
#include <memory>

#include "coll/index_array.h"
#include "coll/schedule.h"
#include "mpi.h"
#include "util/status.h"

namespace ftmpi::api {

// Argument checks shared by every collective's C function.
// count >= 0 and a usable datatype; a NULL buffer with data to move is MPI_ERR_BUFFER. `count` is wider than
// int because a Reduce_scatter input holds the sum of the int counts.
Status coll_check_data(const void* buf, long long count, MPI_Datatype type);
// 0 <= root < size (intracommunicators).
Status coll_check_root(int root, MPI_Comm comm);
// A live op that is defined for the type.
Status coll_check_op(MPI_Op op, MPI_Datatype type);
// A per-rank array of `n` counts (counts: every entry non-negative) or displacements; NULL is MPI_ERR_ARG.
Status coll_check_array(coll::IndexArray a, int n, const char* what, bool counts);
// Alltoallw's per-rank types: usable wherever the matching count (n entries) is positive.
Status coll_check_types(const MPI_Datatype* types, coll::IndexArray counts, int n, const char* what);
// MPI forbids aliasing an output argument with another argument (MPI-4.0 §2.3, §6.1.1: only MPI_IN_PLACE
// may share the buffers): `sendbuf` (not MPI_IN_PLACE, with data to send: `sends`) equal to `recvbuf` (with
// data to receive: `receives`), or to `own_block` (the place this rank's own block has in recvbuf, where
// MPI_IN_PLACE would leave it; nullptr if none), is MPI_ERR_BUFFER. Only identical pointers are caught: cheap,
// local, and the same on every rank for the common slips; partial overlaps are not looked for.
Status coll_check_alias(const void* sendbuf, bool sends, const void* recvbuf, bool receives,
                        const void* own_block = nullptr);
// Where element `index` of a `type` buffer starting at `buf` lies (index * extent bytes on).
const void* coll_block(const void* buf, long long index, MPI_Datatype type);

using SchedulePtr = std::unique_ptr<coll::Schedule>;
// `immediate` (blocking callers only, for the builders that allow it): the schedule runs while it is
// built (coll::Schedule::run_immediately); finish it with run_collective().

Result<SchedulePtr> prepare_barrier(MPI_Comm comm);
Result<SchedulePtr> prepare_bcast(void* buf, int count, MPI_Datatype type, int root, MPI_Comm comm);
Result<SchedulePtr> prepare_reduce(const void* sendbuf, void* recvbuf, int count, MPI_Datatype type, MPI_Op op,
                                   int root, MPI_Comm comm);
Result<SchedulePtr> prepare_allreduce(const void* sendbuf, void* recvbuf, int count, MPI_Datatype type, MPI_Op op,
                                      MPI_Comm comm);
Result<SchedulePtr> prepare_gather(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                                   int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm);
Result<SchedulePtr> prepare_gatherv(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                                    coll::IndexArray recvcounts, coll::IndexArray displs, MPI_Datatype recvtype, int root,
                                    MPI_Comm comm);
Result<SchedulePtr> prepare_scatter(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                                    int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm);
Result<SchedulePtr> prepare_scatterv(const void* sendbuf, coll::IndexArray sendcounts, coll::IndexArray displs,
                                     MPI_Datatype sendtype, void* recvbuf, int recvcount, MPI_Datatype recvtype,
                                     int root, MPI_Comm comm);
Result<SchedulePtr> prepare_allgather(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                                      int recvcount, MPI_Datatype recvtype, MPI_Comm comm);
Result<SchedulePtr> prepare_allgatherv(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                                       coll::IndexArray recvcounts, coll::IndexArray displs, MPI_Datatype recvtype,
                                       MPI_Comm comm);
Result<SchedulePtr> prepare_alltoall(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                                     int recvcount, MPI_Datatype recvtype, MPI_Comm comm,
                                     Runtime* immediate = nullptr);
Result<SchedulePtr> prepare_alltoallv(const void* sendbuf, coll::IndexArray sendcounts, coll::IndexArray sdispls,
                                      MPI_Datatype sendtype, void* recvbuf, coll::IndexArray recvcounts,
                                      coll::IndexArray rdispls, MPI_Datatype recvtype, MPI_Comm comm,
                                     Runtime* immediate = nullptr);
Result<SchedulePtr> prepare_alltoallw(const void* sendbuf, coll::IndexArray sendcounts, coll::IndexArray sdispls,
                                      const MPI_Datatype* sendtypes, void* recvbuf, coll::IndexArray recvcounts,
                                      coll::IndexArray rdispls, const MPI_Datatype* recvtypes, MPI_Comm comm,
                                     Runtime* immediate = nullptr);
Result<SchedulePtr> prepare_reduce_scatter(const void* sendbuf, void* recvbuf, coll::IndexArray recvcounts,
                                           MPI_Datatype type, MPI_Op op, MPI_Comm comm);
Result<SchedulePtr> prepare_reduce_scatter_block(const void* sendbuf, void* recvbuf, int recvcount,
                                                 MPI_Datatype type, MPI_Op op, MPI_Comm comm);
Result<SchedulePtr> prepare_scan(const void* sendbuf, void* recvbuf, int count, MPI_Datatype type, MPI_Op op,
                                 MPI_Comm comm);
Result<SchedulePtr> prepare_exscan(const void* sendbuf, void* recvbuf, int count, MPI_Datatype type, MPI_Op op,
                                   MPI_Comm comm);

// Neighbourhood collectives (api/coll_neighbor.cpp): the v/w forms, shared with their large-count _c forms.
// Arrays have in-degree (recv*) or out-degree (send*) entries; Neighbor_alltoallw's displacements are bytes.
Result<SchedulePtr> prepare_neighbor_allgatherv(const void* sendbuf, int sendcount, MPI_Datatype sendtype,
                                                void* recvbuf, coll::IndexArray recvcounts, coll::IndexArray displs,
                                                MPI_Datatype recvtype, MPI_Comm comm);
Result<SchedulePtr> prepare_neighbor_alltoallv(const void* sendbuf, coll::IndexArray sendcounts,
                                               coll::IndexArray sdispls, MPI_Datatype sendtype, void* recvbuf,
                                               coll::IndexArray recvcounts, coll::IndexArray rdispls,
                                               MPI_Datatype recvtype, MPI_Comm comm);
Result<SchedulePtr> prepare_neighbor_alltoallw(const void* sendbuf, coll::IndexArray sendcounts,
                                               coll::IndexArray sdispls, const MPI_Datatype* sendtypes,
                                               void* recvbuf, coll::IndexArray recvcounts, coll::IndexArray rdispls,
                                               const MPI_Datatype* recvtypes, MPI_Comm comm);

}  // namespace ftmpi::api

namespace ftmpi::api {
// Blocking form: report `r`'s error, or run the schedule to the end and report its outcome (through
// comm's error handler, as ret() does).
int run_collective(MPI_Comm comm, Result<SchedulePtr> r, const char* fn);
// Non-blocking form: report `r`'s error, or start the schedule and store its request in *request.
// Process failures and revokes are reported at completion (Wait/Test), never here.
int start_collective(MPI_Comm comm, Result<SchedulePtr> r, MPI_Request* request, const char* fn);
}  // namespace ftmpi::api
