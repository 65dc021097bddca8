// C-API helpers of the events / LAM functions (api/events.cpp) used by other API files.
#pragma once
#include <vector>

#include "mpi.h"

namespace ftmpi::api {
// True on the event thread (inside an event callback).
bool called_from_event_callback();
// World ranks of a communicator's members (local group, then the remote group of an intercommunicator).
std::vector<int> member_world_ranks(const ftmpi_comm_s* c);
// Value of the MPI_FAILED_SIZE / MPI_FAILED_LIST attribute of `comm` (docs/lam.md).
int* failed_attr(ftmpi_comm_s* comm, int keyval);
// MPI_Comm_free: the communicator's callbacks, subscriptions and attribute values end.
void forget_comm(ftmpi_comm_s* comm);
}  // namespace ftmpi::api
