// split_type(SHARED) and create_group (see comm_ctors.h).
#include <array>
#include <cstring>

#include "coll/coll.h"
#include "comm/comm_ctors.h"
#include "comm/context_alloc.h"
#include "comm/group_algebra.h"
#include "ft/ft_manager.h"
#include "mpi.h"
#include "runtime/runtime.h"

namespace ftmpi::comm {

Status split_shared(Runtime& rt, Communicator* parent, bool undefined, int key, Communicator** out) {
  *out = nullptr;
  // Everybody learns everybody's host (the router's, the same one the transports chose shm by).
  constexpr std::size_t kName = 256;
  std::array<char, kName> mine{};
  const std::string& host = rt.router().host_id();
  std::memcpy(mine.data(), host.data(), std::min(host.size(), kName - 1));
  std::vector<char> all(kName * static_cast<std::size_t>(parent->size));
  FTMPI_TRY(coll::allgather(rt, parent, mine.data(), kName, &ftmpi_dt_byte, all.data(), kName, &ftmpi_dt_byte));
  // Color: the lowest parent rank on my host.
  int color = parent->rank;
  for (int r = 0; r < parent->rank; ++r)
    if (std::memcmp(all.data() + kName * static_cast<std::size_t>(r), mine.data(), kName) == 0) {
      color = r;
      break;
    }
  return split(rt, parent, undefined ? kUndefined : color, key, out);
}

Status create_group(Runtime& rt, Communicator* parent, const Group* group, int tag, Communicator** out) {
  *out = nullptr;
  if (tag < 0 || tag >= (1 << 28)) return Status(Errc::tag, "tag out of range for MPI_Comm_create_group");
  for (int w : group->world_ranks)
    if (parent->group->rank_of_world(w) < 0) return Status(Errc::group, "group is not a subset of the communicator's group");
  const int me = group->rank_of_world(rt.world_rank());
  if (me < 0) return Status(Errc::group, "the calling process is not a member of the group");
  // Agree on a context id among the group's members only, over a transient communicator that borrows
  // parent's collective context with a tag range (2^29 + tag) parent's own collectives never reach
  // (they use their sequence number, which would need 2^29 collectives to get there).
  Group* g = make_group(group->world_ranks, rt.world_rank());
  Communicator tmp;
  tmp.group = g;
  tmp.rank = g->my_rank;
  tmp.size = g->size();
  tmp.ctx_pt2pt = parent->ctx_pt2pt;
  tmp.ctx_coll = parent->ctx_coll;
  tmp.errhandler = parent->errhandler;
  tmp.coll_seq = (1u << 29) | static_cast<std::uint32_t>(tag);
  tmp.revoked.store(parent->revoked.load());
  tmp.magic = kMagicComm;
  std::uint32_t ctx = 0;
  Status st = rt.contexts().allocate(rt, &tmp, &ctx);
  tmp.magic = kMagicFreed;
  if (!st.ok()) {
    group_release(g);
    return st;
  }
  *out = make_comm(g, ctx, parent);
  rt.ft().register_comm(*out);
  return {};
}

}  // namespace ftmpi::comm
