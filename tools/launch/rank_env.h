// The rank-identity variables other MPIs' launchers export, which job scripts and libraries read before (or
// without) MPI_Init — a wrapper picking a GPU by OMPI_COMM_WORLD_LOCAL_RANK, a framework reading
// OMPI_COMM_WORLD_RANK/SIZE, MPICH users' MPI_LOCALRANKID — so that such scripts work under ftmpi's mpiexec
// unchanged. ftmpi's own (PMI_RANK, PMI_SIZE, FTMPI_LOCAL_RANK/SIZE) are set by the launchers themselves.
#pragma once
#include <string>
#include <vector>

namespace ftmpi::mpiexec {

// Set in `env` (NAME=VALUE strings, an existing NAME replaced) for the process of rank `rank` among `size`,
// `local_rank` of the `local_size` processes of its MPI_COMM_WORLD on its host:
//   OMPI_COMM_WORLD_RANK, _SIZE, _LOCAL_RANK, _LOCAL_SIZE, _NODE_RANK (Open MPI), MPI_LOCALRANKID,
//   MPI_LOCALNRANKS (MPICH's Hydra).
void set_foreign_rank_env(std::vector<std::string>& env, int rank, int size, int local_rank, int local_size);

// Is `entry` (NAME=VALUE) one of the per-process variables above? (A warm spare or the respawn template has
// no rank yet: these are removed from its environment and set when it takes one.)
bool is_foreign_rank_env(const std::string& entry);

}  // namespace ftmpi::mpiexec
