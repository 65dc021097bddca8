// split_type(SHARED) and create_group (see comm_ctors.h).
#include <algorithm>
#include <array>
#include <cstring>

#include "coll/coll.h"
#include "comm/comm_ctors.h"
#include "comm/comm_ops.h"
#include "comm/context_alloc.h"
#include "comm/group_algebra.h"
#include "ft/ft_manager.h"
#include "mpi.h"
#include "runtime/runtime.h"

namespace ftmpi::comm {
namespace {
constexpr std::uint32_t kSaltCreateGroup = 0x43475250u;      // agreement channel of create_group ("CGRP")
constexpr std::uint32_t kSaltCreateFromGroup = 0x43524647u;  // ... of create_from_group ("CRFG")
}

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

Status create_group(Runtime& rt, Communicator* parent, const Group* group, int tag, Communicator** out,
                    std::string_view stringtag) {
  *out = nullptr;
  if (tag < 0 || tag >= (1 << 28)) return Status(Errc::tag, "tag out of range for MPI_Comm_create_group");
  for (int w : group->world_ranks)
    if (parent->group->rank_of_world(w) < 0) return Status(Errc::group, "group is not a subset of the communicator's group");
  const int me = group->rank_of_world(rt.world_rank());
  if (me < 0) return Status(Errc::group, "the calling process is not a member of the group");
  if (rt.ft().ft_mode()) {
    // Uniform (issue 12): agree on the id with the fault-tolerant agreement over a channel of exactly the
    // group's members (ft/ft_manager.h); every survivor gets the communicator or every survivor the error.
    // The channel is this call's: the member set, the parent (its context id and lowest member, which no
    // other live communicator of a member shares) and the tag — calls that may run at once from several
    // threads (MPI: distinct parents or tags) never share one, and calls on one channel are made one after
    // the other by every member, so their agreement rounds line up (ft/creation_keys.h).
    // The key is exact (ft/channel_key.h). create_group's channel has the parent as its parent: the parent's
    // revoke reaches it. create_from_group's (`stringtag`) has none: it is no operation on MPI_COMM_WORLD,
    // whose machinery carries it, so a revoke of MPI_COMM_WORLD does not end it; only a failure does.
    ft::ChannelKey ck;
    ck.members = group->world_ranks;
    std::sort(ck.members.begin(), ck.members.end());
    const AllocKey key{parent->ctx_pt2pt, ContextAllocator::lowest_member(parent),
                       (1u << 29) | static_cast<std::uint32_t>(tag)};
    Status before;
    if (stringtag.empty()) {
      if (parent->revoked.load()) before = Status(Errc::revoked, "the communicator has been revoked");
      ck.parent_ctx = key.ctx;
      ck.parent_witness = key.witness;
      ck.words = {kSaltCreateGroup, key.kind};
    } else {
      ck.words = {kSaltCreateFromGroup, static_cast<std::uint32_t>(stringtag.size())};
      for (std::size_t i = 0; i < stringtag.size(); i += 4) {
        std::uint32_t w = 0;
        std::memcpy(&w, stringtag.data() + i, std::min<std::size_t>(4, stringtag.size() - i));
        ck.words.push_back(w);
      }
    }
    std::uint32_t ctx = 0;
    FTMPI_TRY(agree_context(rt, rt.ft().channel(ck), before, &ctx, key));
    *out = make_comm(make_group(group->world_ranks, rt.world_rank()), ctx, parent);
    rt.ft().register_comm(*out);
    return {};
  }
  // Agree on a context id among the group's members only, over a transient communicator that numbers the
  // processes as parent does and borrows parent's collective context with a tag range (2^29 + tag) parent's
  // own collectives never reach (they use their sequence number, which would need 2^29 collectives to get
  // there). Parent's numbering, not the group's: a member that already runs the next create_group with the
  // same tag over another group must not be taken for a member of this one (context_alloc.h).
  std::vector<int> peers;
  peers.reserve(group->world_ranks.size());
  for (int w : group->world_ranks) peers.push_back(parent->group->rank_of_world(w));
  Communicator tmp;
  tmp.group = parent->group;
  tmp.rank = parent->rank;
  tmp.size = parent->size;
  tmp.ctx_pt2pt = parent->ctx_pt2pt;
  tmp.ctx_coll = parent->ctx_coll;
  tmp.errhandler = parent->errhandler;
  tmp.revoked.store(parent->revoked.load());
  tmp.magic = kMagicComm;
  std::uint32_t ctx = 0;
  const int borrowed_tag = static_cast<int>((1u << 29) | static_cast<std::uint32_t>(tag));
  Status st = rt.contexts().allocate_among(rt, &tmp, peers, me, borrowed_tag, &ctx);
  tmp.magic = kMagicFreed;
  tmp.group = nullptr;  // parent's (a transient communicator owns nothing)
  if (!st.ok()) return st;
  Group* g = make_group(group->world_ranks, rt.world_rank());
  *out = make_comm(g, ctx, parent);
  rt.ft().register_comm(*out);
  return {};
}

}  // namespace ftmpi::comm
