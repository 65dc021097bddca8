// Intercommunicators: create, merge, dup (see comm_ctors.h).
#include <algorithm>
#include <cstring>

#include "coll/coll.h"
#include "coll/mask_allreduce.h"
#include "coll/schedule.h"
#include "comm/comm_ctors.h"
#include "comm/context_alloc.h"
#include "ft/ft_manager.h"
#include "mpi.h"
#include "runtime/runtime.h"

namespace ftmpi::comm {
namespace {

using Mask = ContextAllocator::Mask;

// Send `out` to `peer` and receive `in` from it over `comm` (user context with `tag`, or the collective
// context when coll). Both requests complete before returning; the first error wins.
Status exchange(Runtime& rt, Communicator* comm, int peer, int tag, bool coll, const void* out, std::size_t out_len,
                void* in, std::size_t in_len) {
  p2p::Request* rr = nullptr;
  p2p::Request* sr = nullptr;
  p2p::RecvArgs ra{in, in_len, &ftmpi_dt_byte, peer, tag, comm, coll};
  FTMPI_TRY(rt.engine().irecv(ra, &rr));
  p2p::SendArgs sa{out, out_len, &ftmpi_dt_byte, peer, tag, comm};
  sa.coll = coll;
  Status st = rt.engine().isend(sa, &sr);
  if (!st.ok()) {
    Status c = rt.engine().cancel(rr);
    (void)c;
    rt.wait(rr);
    rt.engine().release(rr);
    return st;
  }
  rt.wait(sr);
  rt.wait(rr);
  Status result = !sr->error.ok() ? sr->error : rr->error;
  rt.engine().release(sr);
  rt.engine().release(rr);
  return result;
}

// The leaders' header: the AND of their side's free masks, the side's size, a flag.
struct Header {
  Mask mask;
  std::int32_t size;
  std::int32_t flag;
  std::int32_t leader_world;
};

// Everything one side learns about the other, at every member (bcast over the local side's `local`).
struct Remote {
  Header hdr{};
  std::vector<int> world;
};

// The shared protocol of create, merge and dup: each side ANDs its free masks over `local` (an
// intracommunicator over the side's group), the leaders swap (header, member list) through `talk`
// (`talk_peer`, `tag`, `coll`), and each leader broadcasts what it got over `local`.
Status swap_sides(Runtime& rt, Communicator* local, int local_leader, Communicator* talk, int talk_peer, int tag,
                  bool coll, std::int32_t flag, Header* mine_out, Remote* remote) {
  Header mine{};
  mine.mask = rt.contexts().free_mask();
  FTMPI_TRY(coll::allreduce_band(rt, local, std::span<std::uint64_t>(mine.mask)));
  mine.size = local->size;
  mine.flag = flag;
  mine.leader_world = local->world_rank(local_leader);
  if (local->rank == local_leader) {
    FTMPI_TRY(exchange(rt, talk, talk_peer, tag, coll, &mine, sizeof mine, &remote->hdr, sizeof remote->hdr));
    remote->world.resize(static_cast<std::size_t>(remote->hdr.size));
    FTMPI_TRY(exchange(rt, talk, talk_peer, tag, coll, local->group->world_ranks.data(),
                       local->group->world_ranks.size() * sizeof(int), remote->world.data(),
                       remote->world.size() * sizeof(int)));
  }
  FTMPI_TRY(coll::bcast(rt, local, &remote->hdr, sizeof remote->hdr, &ftmpi_dt_byte, local_leader));
  remote->world.resize(static_cast<std::size_t>(remote->hdr.size));
  FTMPI_TRY(coll::bcast(rt, local, remote->world.data(), remote->world.size(), &ftmpi_dt_int, local_leader));
  *mine_out = mine;
  return {};
}

// Claim the lowest slot free on both sides.
Status claim_common(Runtime& rt, const Header& a, const Header& b, std::uint32_t* ctx) {
  Mask common;
  for (std::size_t i = 0; i < common.size(); ++i) common[i] = a.mask[i] & b.mask[i];
  auto lowest = ContextAllocator::lowest_common(common);
  if (!lowest.ok()) return lowest.status();
  FTMPI_TRY(rt.contexts().claim(*lowest));
  *ctx = *lowest;
  return {};
}

Communicator* make_inter(Runtime& rt, Communicator* local_hidden, std::vector<int> remote_world, std::uint32_t ctx,
                         const Communicator* errhandler_from) {
  Communicator* c = make_comm(make_group(local_hidden->group->world_ranks, rt.world_rank()), ctx, errhandler_from);
  c->remote_group = make_group(std::move(remote_world), rt.world_rank());
  c->local_comm = local_hidden;
  rt.ft().register_comm(c);
  return c;
}

}  // namespace

Status intercomm_create(Runtime& rt, Communicator* local_comm, int local_leader, Communicator* peer_comm,
                        int remote_leader, int tag, Communicator** out) {
  *out = nullptr;
  Communicator* hidden = nullptr;
  FTMPI_TRY(dup(rt, local_comm, &hidden));
  Header mine{};
  Remote remote;
  Status st = swap_sides(rt, hidden, local_leader, peer_comm, remote_leader, tag, false, 0, &mine, &remote);
  if (st.ok()) {
    for (int w : remote.world)
      if (hidden->group->rank_of_world(w) >= 0) st = Status(Errc::comm, "the local and remote groups overlap");
  }
  std::uint32_t ctx = 0;
  if (st.ok()) st = claim_common(rt, mine, remote.hdr, &ctx);
  if (!st.ok()) {
    Status f = free(rt, hidden);
    (void)f;
    return st;
  }
  *out = make_inter(rt, hidden, std::move(remote.world), ctx, local_comm);
  return {};
}

Status inter_allocate_context(Runtime& rt, Communicator* inter, std::uint32_t* ctx) {
  const int tag = coll::next_coll_tag(inter);
  Header mine{};
  Remote remote;
  FTMPI_TRY(swap_sides(rt, inter->local_comm, 0, inter, 0, tag, true, 0, &mine, &remote));
  return claim_common(rt, mine, remote.hdr, ctx);
}

Status intercomm_dup(Runtime& rt, Communicator* inter, Communicator** out) {
  *out = nullptr;
  Communicator* hidden = nullptr;
  FTMPI_TRY(dup(rt, inter->local_comm, &hidden));
  std::uint32_t ctx = 0;
  Status st = inter_allocate_context(rt, inter, &ctx);
  if (!st.ok()) {
    Status f = free(rt, hidden);
    (void)f;
    return st;
  }
  *out = make_inter(rt, hidden, inter->remote_group->world_ranks, ctx, inter);
  return {};
}

Status intercomm_merge(Runtime& rt, Communicator* inter, bool high, Communicator** out) {
  *out = nullptr;
  const int tag = coll::next_coll_tag(inter);
  Header mine{};
  Remote remote;
  FTMPI_TRY(swap_sides(rt, inter->local_comm, 0, inter, 0, tag, true, high ? 1 : 0, &mine, &remote));
  std::uint32_t ctx = 0;
  FTMPI_TRY(claim_common(rt, mine, remote.hdr, &ctx));
  // Order: low side first; equal flags: the side whose leader has the lower world rank first.
  bool local_first = mine.flag != remote.hdr.flag ? mine.flag == 0 : mine.leader_world < remote.hdr.leader_world;
  const std::vector<int>& local_world = inter->group->world_ranks;
  std::vector<int> world;
  world.reserve(local_world.size() + remote.world.size());
  const auto& first = local_first ? local_world : remote.world;
  const auto& second = local_first ? remote.world : local_world;
  world.insert(world.end(), first.begin(), first.end());
  world.insert(world.end(), second.begin(), second.end());
  *out = make_comm(make_group(std::move(world), rt.world_rank()), ctx, inter);
  rt.ft().register_comm(*out);
  return {};
}

}  // namespace ftmpi::comm
