// Process groups: an ordered list of world ranks. Immutable once built; shared by reference count.
#pragma once
#include <atomic>
#include <cstdint>
#include <vector>

#include "util/magic.h"

struct ftmpi_group_s {
  std::uint32_t magic = ftmpi::kMagicGroup;
  std::vector<int> world_ranks;  // group rank -> world rank
  int my_rank = -1;              // this process's rank in the group, or MPI_UNDEFINED-equivalent -1
  std::atomic<int> refs{1};      // predefined groups are never freed
  bool predefined = false;
  const void* session = nullptr;  // MPI_Group_from_session_pset: the session it comes from (its communicators' buffer)

  int size() const { return static_cast<int>(world_ranks.size()); }
  // Rank in this group of a world rank, or -1.
  int rank_of_world(int world) const;
};

namespace ftmpi::comm {
using Group = ftmpi_group_s;
// A new group holding `world_ranks` (order kept); my_rank computed against `my_world_rank`.
Group* make_group(std::vector<int> world_ranks, int my_world_rank);
void group_retain(Group* g);
void group_release(Group* g);  // frees at zero (stamps kMagicFreed; the object is deleted 64 releases later)
}  // namespace ftmpi::comm
