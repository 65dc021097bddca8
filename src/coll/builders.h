// Schedule builders: each appends one collective algorithm to a Schedule without running it. The
// blocking collectives (coll.h) are build + run(); the non-blocking ones are build + start() (coll/start.h),
// a GenericOp that advances the schedule from the progress loop. Arguments as in coll.h; the schedule's
// communicator is the collective's communicator. Builders may copy local data into the user's buffers
// at build time (an MPI caller may not touch them until the collective completes anyway).
#pragma once
#include <cstddef>

#include "coll/index_array.h"
#include "coll/schedule.h"
#include "datatype/datatype.h"
#include "datatype/op.h"

namespace ftmpi::coll {

void build_barrier(Schedule& s);
void build_bcast(Schedule& s, void* buf, std::size_t count, const ftmpi_datatype_s* type, int root);
void build_reduce(Schedule& s, const void* sendbuf, void* recvbuf, std::size_t count, const ftmpi_datatype_s* type,
                  const ftmpi_op_s* op, int root);
void build_allreduce(Schedule& s, const void* sendbuf, void* recvbuf, std::size_t count,
                     const ftmpi_datatype_s* type, const ftmpi_op_s* op);
void build_gather(Schedule& s, const void* sendbuf, std::size_t sendcount, const ftmpi_datatype_s* sendtype,
                  void* recvbuf, std::size_t recvcount, const ftmpi_datatype_s* recvtype, int root);
void build_scatter(Schedule& s, const void* sendbuf, std::size_t sendcount, const ftmpi_datatype_s* sendtype,
                   void* recvbuf, std::size_t recvcount, const ftmpi_datatype_s* recvtype, int root);
void build_allgather(Schedule& s, const void* sendbuf, std::size_t sendcount, const ftmpi_datatype_s* sendtype,
                     void* recvbuf, std::size_t recvcount, const ftmpi_datatype_s* recvtype);

// ---- issue 4: the rest of MPI-3.1 §5 on intracommunicators ----
// Vector arguments (counts, displacements, types) have comm()->size entries and are read at build time
// only (a non-blocking caller may reuse them at once). Displacements are in elements of the matching type
// except for Alltoallw (bytes), as in MPI. Counts are non-negative. MPI_IN_PLACE where MPI allows it:
// Gatherv (root's sendbuf), Scatterv (root's recvbuf), Allgatherv / Alltoall* (sendbuf: the data is
// already in recvbuf), Reduce_scatter* / Scan / Exscan (sendbuf: the input is in recvbuf).
using Dt = ftmpi_datatype_s;
void build_gatherv(Schedule& s, const void* sendbuf, std::size_t sendcount, const Dt* sendtype, void* recvbuf,
                   IndexArray recvcounts, IndexArray displs, const Dt* recvtype, int root);
void build_scatterv(Schedule& s, const void* sendbuf, IndexArray sendcounts, IndexArray displs, const Dt* sendtype,
                    void* recvbuf, std::size_t recvcount, const Dt* recvtype, int root);
void build_allgatherv(Schedule& s, const void* sendbuf, std::size_t sendcount, const Dt* sendtype, void* recvbuf,
                      IndexArray recvcounts, IndexArray displs, const Dt* recvtype);
void build_alltoall(Schedule& s, const void* sendbuf, std::size_t sendcount, const Dt* sendtype, void* recvbuf,
                    std::size_t recvcount, const Dt* recvtype);
void build_alltoallv(Schedule& s, const void* sendbuf, IndexArray sendcounts, IndexArray sdispls, const Dt* sendtype,
                     void* recvbuf, IndexArray recvcounts, IndexArray rdispls, const Dt* recvtype);
void build_alltoallw(Schedule& s, const void* sendbuf, IndexArray sendcounts, IndexArray sdispls,
                     const Dt* const* sendtypes, void* recvbuf, IndexArray recvcounts, IndexArray rdispls,
                     const Dt* const* recvtypes);
void build_reduce_scatter(Schedule& s, const void* sendbuf, void* recvbuf, IndexArray recvcounts, const Dt* type,
                          const ftmpi_op_s* op);
void build_reduce_scatter_block(Schedule& s, const void* sendbuf, void* recvbuf, std::size_t recvcount,
                                const Dt* type, const ftmpi_op_s* op);
void build_scan(Schedule& s, const void* sendbuf, void* recvbuf, std::size_t count, const Dt* type,
                const ftmpi_op_s* op);
// Exscan: rank 0's recvbuf is left untouched (MPI leaves it undefined).
void build_exscan(Schedule& s, const void* sendbuf, void* recvbuf, std::size_t count, const Dt* type,
                  const ftmpi_op_s* op);

// Algorithm variants the dispatching builders above choose from (tuning.h); exposed for tests.
void build_gather_linear(Schedule& s, const void* sendbuf, std::size_t sendcount, const Dt* sendtype, void* recvbuf,
                         std::size_t recvcount, const Dt* recvtype, int root);
void build_gather_binomial(Schedule& s, const void* sendbuf, std::size_t sendcount, const Dt* sendtype,
                           void* recvbuf, std::size_t recvcount, const Dt* recvtype, int root);
void build_scatter_linear(Schedule& s, const void* sendbuf, std::size_t sendcount, const Dt* sendtype, void* recvbuf,
                          std::size_t recvcount, const Dt* recvtype, int root);
void build_scatter_binomial(Schedule& s, const void* sendbuf, std::size_t sendcount, const Dt* sendtype,
                            void* recvbuf, std::size_t recvcount, const Dt* recvtype, int root);
void build_allgather_ring(Schedule& s, const void* sendbuf, std::size_t sendcount, const Dt* sendtype, void* recvbuf,
                          std::size_t recvcount, const Dt* recvtype);
// Requires comm()->size to be a power of two.
void build_allgather_recursive_doubling(Schedule& s, const void* sendbuf, std::size_t sendcount, const Dt* sendtype,
                                        void* recvbuf, std::size_t recvcount, const Dt* recvtype);
void build_allreduce_recursive_doubling(Schedule& s, const void* sendbuf, void* recvbuf, std::size_t count,
                                        const Dt* type, const ftmpi_op_s* op);
// Requires a commutative op.
void build_allreduce_rabenseifner(Schedule& s, const void* sendbuf, void* recvbuf, std::size_t count, const Dt* type,
                                  const ftmpi_op_s* op);
void build_alltoall_pairwise(Schedule& s, const void* sendbuf, std::size_t sendcount, const Dt* sendtype,
                             void* recvbuf, std::size_t recvcount, const Dt* recvtype);
void build_alltoall_bruck(Schedule& s, const void* sendbuf, std::size_t sendcount, const Dt* sendtype,
                          void* recvbuf, std::size_t recvcount, const Dt* recvtype);
void build_alltoall_post_all(Schedule& s, const void* sendbuf, std::size_t sendcount, const Dt* sendtype,
                             void* recvbuf, std::size_t recvcount, const Dt* recvtype);
void build_reduce_scatter_via_reduce(Schedule& s, const void* sendbuf, void* recvbuf, IndexArray recvcounts,
                                     const Dt* type, const ftmpi_op_s* op);
void build_reduce_scatter_direct(Schedule& s, const void* sendbuf, void* recvbuf, IndexArray recvcounts,
                                   const Dt* type, const ftmpi_op_s* op);

}  // namespace ftmpi::coll
