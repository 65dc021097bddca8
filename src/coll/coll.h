// The blocking collectives of the foundation (MPI-3.1 §5) on intracommunicators. Each one builds a
// Schedule (coll/schedule.h) with the algorithm of its own file and runs it to the end.
//
// Contracts (checked by the C API before calling, not here): `comm` is a live intracommunicator, counts
// are non-negative, types are usable, `op` is valid for `type` (dt::check_op), `root` is a rank of comm.
// Send buffers may be MPI_IN_PLACE ((void*)-1) where MPI allows it. Reductions keep intermediate values
// in scratch buffers laid out like the user's type, so any type dt::apply accepts works.
//
// Every function returns the first error a point-to-point operation of the collective completed with
// (e.g. Errc::proc_failed, Errc::revoked); it never waits forever on a failed peer.
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

using Datatype = ftmpi_datatype_s;
using Op = ftmpi_op_s;

Status barrier(Runtime& rt, ftmpi_comm_s* comm);
Status bcast(Runtime& rt, ftmpi_comm_s* comm, void* buf, std::size_t count, const Datatype* type, int root);
Status reduce(Runtime& rt, ftmpi_comm_s* comm, const void* sendbuf, void* recvbuf, std::size_t count,
              const Datatype* type, const Op* op, int root);
Status allreduce(Runtime& rt, ftmpi_comm_s* comm, const void* sendbuf, void* recvbuf, std::size_t count,
                 const Datatype* type, const Op* op);
Status gather(Runtime& rt, ftmpi_comm_s* comm, const void* sendbuf, std::size_t sendcount, const Datatype* sendtype,
              void* recvbuf, std::size_t recvcount, const Datatype* recvtype, int root);
Status scatter(Runtime& rt, ftmpi_comm_s* comm, const void* sendbuf, std::size_t sendcount,
               const Datatype* sendtype, void* recvbuf, std::size_t recvcount, const Datatype* recvtype, int root);
Status allgather(Runtime& rt, ftmpi_comm_s* comm, const void* sendbuf, std::size_t sendcount,
                 const Datatype* sendtype, void* recvbuf, std::size_t recvcount, const Datatype* recvtype);

}  // namespace ftmpi::coll
