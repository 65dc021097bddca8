// Belt and braces for killed jobs: remove /dev/shm entries a job left behind.
#pragma once
#include <string>

namespace ftmpi::mpiexec {

// Unlink every /dev/shm entry whose name starts with "ftmpi-<job_id>" or "<job_id>". Returns how many.
int remove_job_shm_segments(const std::string& job_id);

}  // namespace ftmpi::mpiexec
