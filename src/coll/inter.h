// Intercommunicator collectives (MPI-3.1 §5.2.2): Barrier, Bcast, Reduce, Allreduce, Gather, Scatter and
// Allgather between the two groups of an intercommunicator; results come from the remote group.
//
// Design: each group works on its hidden intracommunicator (comm->local_comm) with the intracommunicator
// schedules, and the two leaders (local rank 0 of each group; or the root for the rooted collectives) talk
// over the intercommunicator, whose p2p addresses the remote group. Every member of both groups builds
// exactly one schedule on the intercommunicator per collective (an empty one when it sends nothing), so the
// intercommunicator's collective tag counters stay equal everywhere; the local schedules agree inside a group.
// Blocking only: the phases run one after the other. Arguments are checked by the caller (api/coll_inter.cpp).
// Failures: a revoked intercommunicator fails the collective at once (Errc::revoked); otherwise every phase
// runs even after an earlier one failed (see Phases in inter.cpp) and the first error is the outcome. Known
// limit: a revoke arriving mid-collective does not interrupt a local phase (local_comm is not revoked).
#pragma once
#include <cstddef>

#include "comm/communicator.h"
#include "datatype/datatype.h"
#include "datatype/op.h"
#include "util/status.h"

namespace ftmpi {
class Runtime;
}

namespace ftmpi::coll {

// The root argument of a rooted intercommunicator collective, as the core sees it: a rank of the remote group
// (this group receives / sends to it), or one of these two for the root's group.
inline constexpr int kInterRootHere = -3;  // MPI_ROOT: this process is the root
inline constexpr int kInterRootIdle = -2;  // MPI_PROC_NULL: another process of this group is the root

Status inter_barrier(Runtime& rt, ftmpi_comm_s* comm);
Status inter_bcast(Runtime& rt, ftmpi_comm_s* comm, void* buf, std::size_t count, const ftmpi_datatype_s* type,
                   int root);
// The root receives the reduction of the remote group's sendbufs; the remote group's recvbuf is unused.
Status inter_reduce(Runtime& rt, ftmpi_comm_s* comm, const void* sendbuf, void* recvbuf, std::size_t count,
                    const ftmpi_datatype_s* type, const ftmpi_op_s* op, int root);
// recvbuf receives the reduction of the remote group's sendbufs.
Status inter_allreduce(Runtime& rt, ftmpi_comm_s* comm, const void* sendbuf, void* recvbuf, std::size_t count,
                       const ftmpi_datatype_s* type, const ftmpi_op_s* op);
// The root receives remote-size blocks of recvcount, one per remote rank.
Status inter_gather(Runtime& rt, ftmpi_comm_s* comm, const void* sendbuf, std::size_t sendcount,
                    const ftmpi_datatype_s* sendtype, void* recvbuf, std::size_t recvcount,
                    const ftmpi_datatype_s* recvtype, int root);
// The root sends remote-size blocks of sendcount, one per remote rank.
Status inter_scatter(Runtime& rt, ftmpi_comm_s* comm, const void* sendbuf, std::size_t sendcount,
                     const ftmpi_datatype_s* sendtype, void* recvbuf, std::size_t recvcount,
                     const ftmpi_datatype_s* recvtype, int root);
// recvbuf receives remote-size blocks of recvcount, block i from remote rank i.
Status inter_allgather(Runtime& rt, ftmpi_comm_s* comm, const void* sendbuf, std::size_t sendcount,
                       const ftmpi_datatype_s* sendtype, void* recvbuf, std::size_t recvcount,
                       const ftmpi_datatype_s* recvtype);

}  // namespace ftmpi::coll
