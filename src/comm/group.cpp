// Group objects: construction, reference counting and rank lookup (see group.h).
#include "comm/group.h"

#include <algorithm>
#include <deque>

int ftmpi_group_s::rank_of_world(int world) const {
  auto it = std::find(world_ranks.begin(), world_ranks.end(), world);
  return it == world_ranks.end() ? -1 : static_cast<int>(it - world_ranks.begin());
}

namespace ftmpi::comm {

Group* make_group(std::vector<int> world_ranks, int my_world_rank) {
  auto* g = new Group;
  g->world_ranks = std::move(world_ranks);
  g->my_rank = g->rank_of_world(my_world_rank);
  return g;
}

void group_retain(Group* g) {
  if (g == nullptr || g->predefined) return;
  g->refs.fetch_add(1, std::memory_order_relaxed);
}

void group_release(Group* g) {
  if (g == nullptr || g->predefined) return;
  if (g->refs.fetch_sub(1, std::memory_order_acq_rel) == 1) {
    // Keep the object for a while (a stale user handle may still point here): drop the member list and
    // stamp it so valid_group() rejects it; delete it after the next kGraveyard releases, so memory stays
    // flat however many groups (one per communicator) a long-running code creates and frees.
    g->magic = kMagicFreed;
    std::vector<int>().swap(g->world_ranks);
    g->my_rank = -1;
    constexpr std::size_t kGraveyard = 64;
    static std::deque<Group*> graveyard;  // only dead objects; each is reachable from stale handles only
    graveyard.push_back(g);
    if (graveyard.size() > kGraveyard) {
      delete graveyard.front();
      graveyard.pop_front();
    }
  }
}

}  // namespace ftmpi::comm
