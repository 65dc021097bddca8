// Schedule builders: each appends one collective algorithm to a Schedule without running it. The
// blocking collectives (coll.h) are build + run(); the non-blocking ones (issue 4) will be build + a
// GenericOp that advances the schedule from the progress loop. Arguments as in coll.h; the schedule's
// communicator is the collective's communicator. Builders may copy local data into the user's buffers
// at build time (an MPI caller may not touch them until the collective completes anyway).
#pragma once
#include <cstddef>

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

}  // namespace ftmpi::coll
