// Intercommunicator collectives in the C API (MPI-3.1 §5.2.2, §5.2.3; api/coll_inter.cpp): argument checks
// as the standard states them for intercommunicators, then the plan of coll/inter.h, shared by the blocking
// (run to the end) and non-blocking (started as a request) forms. The C functions of api/coll*.cpp call
// these when their communicator is an intercommunicator.
//
// Roots: MPI_ROOT at the root, MPI_PROC_NULL at the other members of the root's group, the root's rank (in
// the remote group) in the other group; anything else is MPI_ERR_ROOT. MPI_IN_PLACE is MPI_ERR_BUFFER.
// Vector arguments have one entry per remote rank, except Reduce_scatter's recvcounts (one per local rank).
// `comm` must be a valid intercommunicator. Each prepare_inter_X returns the built plan or the error the
// call must report, without having started anything.
#pragma once
#include <memory>

#include "coll/index_array.h"
#include "coll/inter_plan.h"
#include "mpi.h"
#include "util/status.h"

namespace ftmpi::api {

using InterPlanPtr = std::unique_ptr<coll::InterPlan>;

Result<InterPlanPtr> prepare_inter_barrier(MPI_Comm comm);
Result<InterPlanPtr> prepare_inter_bcast(void* buf, int count, MPI_Datatype type, int root, MPI_Comm comm);
Result<InterPlanPtr> prepare_inter_reduce(const void* sendbuf, void* recvbuf, int count, MPI_Datatype type,
                                          MPI_Op op, int root, MPI_Comm comm);
Result<InterPlanPtr> prepare_inter_allreduce(const void* sendbuf, void* recvbuf, int count, MPI_Datatype type,
                                             MPI_Op op, MPI_Comm comm);
Result<InterPlanPtr> prepare_inter_gather(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                                          int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm);
Result<InterPlanPtr> prepare_inter_gatherv(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                                           coll::IndexArray recvcounts, coll::IndexArray displs, MPI_Datatype recvtype, int root,
                                           MPI_Comm comm);
Result<InterPlanPtr> prepare_inter_scatter(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                                           int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm);
Result<InterPlanPtr> prepare_inter_scatterv(const void* sendbuf, coll::IndexArray sendcounts, coll::IndexArray displs,
                                            MPI_Datatype sendtype, void* recvbuf, int recvcount,
                                            MPI_Datatype recvtype, int root, MPI_Comm comm);
Result<InterPlanPtr> prepare_inter_allgather(const void* sendbuf, int sendcount, MPI_Datatype sendtype,
                                             void* recvbuf, int recvcount, MPI_Datatype recvtype, MPI_Comm comm);
Result<InterPlanPtr> prepare_inter_allgatherv(const void* sendbuf, int sendcount, MPI_Datatype sendtype,
                                              void* recvbuf, coll::IndexArray recvcounts, coll::IndexArray displs,
                                              MPI_Datatype recvtype, MPI_Comm comm);
Result<InterPlanPtr> prepare_inter_alltoall(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                                            int recvcount, MPI_Datatype recvtype, MPI_Comm comm);
Result<InterPlanPtr> prepare_inter_alltoallv(const void* sendbuf, coll::IndexArray sendcounts, coll::IndexArray sdispls,
                                             MPI_Datatype sendtype, void* recvbuf, coll::IndexArray recvcounts,
                                             coll::IndexArray rdispls, MPI_Datatype recvtype, MPI_Comm comm);
Result<InterPlanPtr> prepare_inter_alltoallw(const void* sendbuf, coll::IndexArray sendcounts, coll::IndexArray sdispls,
                                             const MPI_Datatype* sendtypes, void* recvbuf, coll::IndexArray recvcounts,
                                             coll::IndexArray rdispls, const MPI_Datatype* recvtypes, MPI_Comm comm);
Result<InterPlanPtr> prepare_inter_reduce_scatter(const void* sendbuf, void* recvbuf, coll::IndexArray recvcounts,
                                                  MPI_Datatype type, MPI_Op op, MPI_Comm comm);
Result<InterPlanPtr> prepare_inter_reduce_scatter_block(const void* sendbuf, void* recvbuf, int recvcount,
                                                        MPI_Datatype type, MPI_Op op, MPI_Comm comm);

// Blocking form: report `r`'s error, or run the plan to the end and report its outcome (through comm's
// error handler, as ret() does).
int run_collective(MPI_Comm comm, Result<InterPlanPtr> r, const char* fn);
// Non-blocking form: report `r`'s error, or start the plan and store its request in *request. Process
// failures and revokes are reported at completion (Wait/Test), never here.
int start_collective(MPI_Comm comm, Result<InterPlanPtr> r, MPI_Request* request, const char* fn);

}  // namespace ftmpi::api
