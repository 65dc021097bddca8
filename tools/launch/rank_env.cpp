#include "rank_env.h"

#include <algorithm>

namespace ftmpi::mpiexec {
namespace {

constexpr const char* kPerProcess[] = {"OMPI_COMM_WORLD_RANK=", "OMPI_COMM_WORLD_LOCAL_RANK=",
                                       "OMPI_COMM_WORLD_NODE_RANK=", "MPI_LOCALRANKID="};

void set(std::vector<std::string>& env, const std::string& name, int value) {
  const std::string prefix = name + "=";
  std::erase_if(env, [&](const std::string& e) { return e.rfind(prefix, 0) == 0; });
  env.push_back(prefix + std::to_string(value));
}

}  // namespace

void set_foreign_rank_env(std::vector<std::string>& env, int rank, int size, int local_rank, int local_size) {
  set(env, "OMPI_COMM_WORLD_RANK", rank);
  set(env, "OMPI_COMM_WORLD_SIZE", size);
  set(env, "OMPI_COMM_WORLD_LOCAL_RANK", local_rank);
  set(env, "OMPI_COMM_WORLD_LOCAL_SIZE", local_size);
  set(env, "OMPI_COMM_WORLD_NODE_RANK", local_rank);
  set(env, "MPI_LOCALRANKID", local_rank);
  set(env, "MPI_LOCALNRANKS", local_size);
}

bool is_foreign_rank_env(const std::string& entry) {
  return std::any_of(std::begin(kPerProcess), std::end(kPerProcess),
                     [&](const char* p) { return entry.rfind(p, 0) == 0; });
}

}  // namespace ftmpi::mpiexec
