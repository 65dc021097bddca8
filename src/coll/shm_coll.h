// Small collectives through the communicator's shared-memory area (coll/shm_area.h): the algorithms.
// Each returns std::nullopt when the call is not for the area (payload over kShmMaxBytes packed bytes, the
// communicator not all on this host, set-up not done yet): the caller then runs its point-to-point
// algorithm. The choice depends only on what every member knows alike (the payload size, which MPI makes
// equal at every member, and the communicator), so all members take the same path.
#pragma once
#include <cstddef>
#include <optional>

#include "comm/communicator.h"
#include "datatype/datatype.h"
#include "datatype/op.h"
#include "util/status.h"

namespace ftmpi {
class Runtime;
}

namespace ftmpi::coll {

std::optional<Status> shm_barrier(Runtime& rt, ftmpi_comm_s* comm);
std::optional<Status> shm_bcast(Runtime& rt, ftmpi_comm_s* comm, void* buf, std::size_t count,
                                const ftmpi_datatype_s* type, int root);
std::optional<Status> shm_reduce(Runtime& rt, ftmpi_comm_s* comm, const void* sendbuf, void* recvbuf,
                                 std::size_t count, const ftmpi_datatype_s* type, const ftmpi_op_s* op, int root);
std::optional<Status> shm_allreduce(Runtime& rt, ftmpi_comm_s* comm, const void* sendbuf, void* recvbuf,
                                    std::size_t count, const ftmpi_datatype_s* type, const ftmpi_op_s* op);

}  // namespace ftmpi::coll
