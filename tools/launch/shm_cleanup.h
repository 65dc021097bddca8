// Belt and braces for killed jobs: remove /dev/shm entries a job left behind.
#pragma once
#include <string>

namespace ftmpi::mpiexec {

// Unlink every /dev/shm entry whose name starts with "ftmpi-<job_id>" or "<job_id>". Returns how many.
int remove_job_shm_segments(const std::string& job_id);

// Segments of jobs whose mpiexec is dead (it was SIGKILLed while its ranks were in MPI_Init, before they
// unlinked their segments): our job ids are "ftmpi-<mpiexec pid>-<hex>", so every /dev/shm entry named
// "ftmpi-ftmpi-<pid>-..." or "ftmpi-<pid>-..." whose pid no longer exists is unlinked. So is a communicator's
// scratch segment ("ftmpi-coll-/-rma-/-rwin-<pid>-<n>", named by the rank that made it) whose creator is dead:
// its name is unlinked once every member mapped it, so only a creator killed during the set-up leaves one.
// Run at every start and at every job's end. A live pid (even reused by another program) keeps its entries.
// Returns how many were removed.
int remove_stale_shm_segments();

}  // namespace ftmpi::mpiexec
