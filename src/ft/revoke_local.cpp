#include "ft/revoke_local.h"

#include <vector>

#include "comm/communicator.h"
#include "ft/ft_manager.h"
#include "ft/revoke.h"
#include "transport/router.h"
#include "transport/shm/shm_transport.h"

namespace ftmpi::ft {
namespace {

int member_count(const ftmpi_comm_s* c) { return c->size + (c->is_inter() ? c->remote_group->size() : 0); }

// World ranks of `rel`'s children in the wake tree rooted at member `origin`.
void wake_children(const ftmpi_comm_s* c, int origin, int me, int members, std::vector<int>* worlds) {
  std::vector<int> kids;
  RevokeBroadcast::tree_children((me - origin + members) % members, members, kWakeRadix, &kids);
  worlds->clear();
  for (int k : kids) worlds->push_back(FtManager::member_world(c, (k + origin) % members));
}

}  // namespace

transport::ShmTransport* one_host_transport(transport::Router& router, const ftmpi_comm_s* c) {
  const int members = member_count(c);
  transport::ShmTransport* shm = nullptr;
  for (int i = 0; i < members; ++i) {
    if (i == c->rank) continue;
    const int w = FtManager::member_world(c, i);
    auto* t = dynamic_cast<transport::ShmTransport*>(&router.for_peer(w));
    if (t == nullptr || (shm != nullptr && t != shm) || t->peer_header(w) == nullptr) return nullptr;
    shm = t;
  }
  return shm;
}

int own_revoke_radix(transport::Router& router, const ftmpi_comm_s* c, int members, int radix) {
  return members > 2 && one_host_transport(router, c) != nullptr ? members : radix;
}

RevokeWakeBatch::RevokeWakeBatch(transport::Router& router, const ftmpi_comm_s* c, int me, int members)
    : shm_(one_host_transport(router, c)), c_(c), me_(me), members_(members) {
  if (shm_ != nullptr) shm_->hold_wakes();
}

RevokeWakeBatch::~RevokeWakeBatch() {
  if (shm_ == nullptr) return;
  std::vector<int> first;
  wake_children(c_, me_, me_, members_, &first);
  shm_->release_wakes(first);
}

void help_wake(transport::Router& router, const ftmpi_comm_s* c, int me, int origin, int radix, int members) {
  if (radix < members || origin == me || members <= kWakeRadix) return;  // not a star, or the root rings all
  transport::ShmTransport* shm = one_host_transport(router, c);
  if (shm == nullptr) return;
  std::vector<int> worlds;
  wake_children(c, origin, me, members, &worlds);
  for (int w : worlds) shm->ring_if_sleeping(w);
}

}  // namespace ftmpi::ft
