// Intercommunicator collectives (MPI-3.1 §5.2.2, §5.2.3): every collective of §5 except Scan/Exscan
// (defined on intracommunicators only), between the two groups of an intercommunicator; results come from
// the remote group. Each function adds the phases of its algorithm to an InterPlan (coll/inter_plan.h),
// which the blocking form runs to the end and the non-blocking form starts as a request.
//
// Design: each group works on its hidden intracommunicator (comm->local_comm) with the intracommunicator
// builders, and the two leaders (local rank 0 of each group; or the root for the rooted collectives) talk
// over the intercommunicator, whose p2p addresses the remote group. Gatherv, Scatterv and Alltoall(v,w)
// talk directly to the remote processes instead (one phase). Every function adds exactly one inter()
// phase.
//
// Contracts (checked by the caller, api/coll_inter.cpp): counts non-negative, types usable, op valid for
// the type, no MPI_IN_PLACE, roots encoded as below. Vector arguments (counts, displacements, types) have
// one entry per rank of the group they describe (remote group unless said otherwise) and are read during
// the call only (copied into the plan): a non-blocking caller may reuse them at once. Data buffers must stay
// valid until the plan finished.
#pragma once
#include <cstddef>

#include "coll/index_array.h"
#include "coll/inter_plan.h"
#include "datatype/datatype.h"
#include "datatype/op.h"

namespace ftmpi::coll {

// The root argument of a rooted intercommunicator collective, as the core sees it: a rank of the remote group
// (this group receives / sends to it), or one of these two for the root's group.
inline constexpr int kInterRootHere = -3;  // MPI_ROOT: this process is the root
inline constexpr int kInterRootIdle = -2;  // MPI_PROC_NULL: another process of this group is the root

using Dt = ftmpi_datatype_s;

void inter_barrier(InterPlan& p);
void inter_bcast(InterPlan& p, void* buf, std::size_t count, const Dt* type, int root);
// The root receives the reduction of the remote group's sendbufs; the remote group's recvbuf is unused.
void inter_reduce(InterPlan& p, const void* sendbuf, void* recvbuf, std::size_t count, const Dt* type,
                  const ftmpi_op_s* op, int root);
// recvbuf receives the reduction of the remote group's sendbufs.
void inter_allreduce(InterPlan& p, const void* sendbuf, void* recvbuf, std::size_t count, const Dt* type,
                     const ftmpi_op_s* op);
// The root receives remote-size blocks of recvcount, one per remote rank.
void inter_gather(InterPlan& p, const void* sendbuf, std::size_t sendcount, const Dt* sendtype, void* recvbuf,
                  std::size_t recvcount, const Dt* recvtype, int root);
// The root sends remote-size blocks of sendcount, one per remote rank.
void inter_scatter(InterPlan& p, const void* sendbuf, std::size_t sendcount, const Dt* sendtype, void* recvbuf,
                   std::size_t recvcount, const Dt* recvtype, int root);
// recvbuf receives remote-size blocks of recvcount, block i from remote rank i.
void inter_allgather(InterPlan& p, const void* sendbuf, std::size_t sendcount, const Dt* sendtype, void* recvbuf,
                     std::size_t recvcount, const Dt* recvtype);

// ---- inter_v.cpp ----
// The root receives recvcounts[i] elements from remote rank i at displs[i] (in recvtype extents); the
// arrays are read at the root only.
void inter_gatherv(InterPlan& p, const void* sendbuf, std::size_t sendcount, const Dt* sendtype, void* recvbuf,
                   IndexArray recvcounts, IndexArray displs, const Dt* recvtype, int root);
// The root sends sendcounts[i] elements at displs[i] to remote rank i; the arrays are read at the root only.
void inter_scatterv(InterPlan& p, const void* sendbuf, IndexArray sendcounts, IndexArray displs, const Dt* sendtype,
                    void* recvbuf, std::size_t recvcount, const Dt* recvtype, int root);
// recvbuf receives recvcounts[i] elements from remote rank i at displs[i].
void inter_allgatherv(InterPlan& p, const void* sendbuf, std::size_t sendcount, const Dt* sendtype, void* recvbuf,
                      IndexArray recvcounts, IndexArray displs, const Dt* recvtype);

// ---- inter_alltoall.cpp ----
// Block j of sendbuf goes to remote rank j; block i of recvbuf comes from remote rank i.
void inter_alltoall(InterPlan& p, const void* sendbuf, std::size_t sendcount, const Dt* sendtype, void* recvbuf,
                    std::size_t recvcount, const Dt* recvtype);
void inter_alltoallv(InterPlan& p, const void* sendbuf, IndexArray sendcounts, IndexArray sdispls,
                     const Dt* sendtype, void* recvbuf, IndexArray recvcounts, IndexArray rdispls, const Dt* recvtype);
// Displacements in bytes, one type per remote rank.
void inter_alltoallw(InterPlan& p, const void* sendbuf, IndexArray sendcounts, IndexArray sdispls,
                     const Dt* const* sendtypes, void* recvbuf, IndexArray recvcounts, IndexArray rdispls,
                     const Dt* const* recvtypes);

// ---- inter_reduce_scatter.cpp ----
// sendbuf holds local-size × recvcount elements; the reduction of the remote group's sendbufs (the same
// count of elements, as MPI requires) is scattered over this group in blocks of recvcount.
void inter_reduce_scatter_block(InterPlan& p, const void* sendbuf, void* recvbuf, std::size_t recvcount,
                                const Dt* type, const ftmpi_op_s* op);
// recvcounts has one entry per rank of THIS group; sendbuf holds their sum; the reduction of the remote
// group's sendbufs is scattered over this group, recvcounts[i] elements to local rank i.
void inter_reduce_scatter(InterPlan& p, const void* sendbuf, void* recvbuf, IndexArray recvcounts, const Dt* type,
                          const ftmpi_op_s* op);

}  // namespace ftmpi::coll
