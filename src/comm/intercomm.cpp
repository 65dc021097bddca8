// Intercommunicators: create, merge, dup (see comm_ctors.h).
#include <algorithm>
#include <array>
#include <span>
#include <tuple>
#include <cstring>
#include <iterator>

#include "coll/coll.h"
#include "coll/mask_allreduce.h"
#include "coll/schedule.h"
#include "comm/comm_ctors.h"
#include "comm/context_alloc.h"
#include "comm/group_algebra.h"
#include "ft/ft_manager.h"
#include "mpi.h"
#include "runtime/runtime.h"

namespace ftmpi::comm {
namespace {

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

// The leaders' header: the side's size, a flag, its leader, and what the key of an MPI_Intercomm_create is
// made of (context_alloc.h AllocKey): the side's hidden communicator's context id and lowest member.
struct Header {
  std::int32_t size;
  std::int32_t flag;
  std::int32_t leader_world;
  std::uint32_t ctx;
  std::int32_t low;
};

// Everything one side learns about the other, at every member (bcast over the local side's `local`).
struct Remote {
  Header hdr{};
  std::vector<int> world;
};

// The leaders' exchange of create and merge: the leaders swap (header, member list) through `talk`
// (`talk_peer`, `tag`, `coll`), and each leader broadcasts what it got over `local` (an intracommunicator over
// the side's group).
Status swap_sides(Runtime& rt, Communicator* local, int local_leader, Communicator* talk, int talk_peer, int tag,
                  bool coll, std::int32_t flag, Header* mine_out, Remote* remote) {
  Header mine{};
  mine.size = local->size;
  mine.flag = flag;
  mine.leader_world = local->world_rank(local_leader);
  mine.ctx = local->ctx_pt2pt;
  mine.low = ContextAllocator::lowest_member(local);
  // A leader whose exchange fails (the other side lost a member, or its leader) still broadcasts, with a
  // negative size carrying the error, so that its side returns the error instead of waiting for it.
  Status ex;
  if (local->rank == local_leader) {
    ex = exchange(rt, talk, talk_peer, tag, coll, &mine, sizeof mine, &remote->hdr, sizeof remote->hdr);
    if (ex.ok()) {
      remote->world.resize(static_cast<std::size_t>(remote->hdr.size));
      ex = exchange(rt, talk, talk_peer, tag, coll, local->group->world_ranks.data(),
                    local->group->world_ranks.size() * sizeof(int), remote->world.data(),
                    remote->world.size() * sizeof(int));
    }
    if (!ex.ok()) remote->hdr.size = -static_cast<std::int32_t>(ex.code());
  }
  FTMPI_TRY(coll::bcast(rt, local, &remote->hdr, sizeof remote->hdr, &ftmpi_dt_byte, local_leader));
  if (!ex.ok()) return ex;
  if (remote->hdr.size < 0)
    return Status(static_cast<Errc>(-remote->hdr.size), "the leaders' exchange failed (a process of the other group failed?)");
  remote->world.resize(static_cast<std::size_t>(remote->hdr.size));
  FTMPI_TRY(coll::bcast(rt, local, remote->world.data(), remote->world.size(), &ftmpi_dt_int, local_leader));
  *mine_out = mine;
  return {};
}

// One round's AND over both groups of an intercommunicator (the `and_all` of ContextAllocator::run_rounds,
// context_alloc.h "Threads"): this side's AND over `local`, the leaders swap theirs through `talk` (`talk_peer`,
// `tag`, `coll`: the same channel in every round; messages between the two leaders on it stay in order), each
// leader broadcasts the other side's over `local`, and every member ANDs it in: every member of both groups
// gets the same AND. A leader whose exchange failed broadcasts the error (last word) so that its side returns it.
Status and_both_sides(Runtime& rt, Communicator* local, int local_leader, Communicator* talk, int talk_peer, int tag,
                      bool coll, ContextAllocator::Contribution& c) {
  FTMPI_TRY(coll::allreduce_band(rt, local, std::span<std::uint64_t>(c)));
  std::array<std::uint64_t, std::tuple_size_v<ContextAllocator::Contribution> + 1> theirs{};
  Status ex;
  if (local->rank == local_leader) {
    ex = exchange(rt, talk, talk_peer, tag, coll, c.data(), sizeof c, theirs.data(), sizeof c);
    theirs.back() = ex.ok() ? 0 : static_cast<std::uint64_t>(ex.code());
  }
  FTMPI_TRY(coll::bcast(rt, local, theirs.data(), sizeof theirs, &ftmpi_dt_byte, local_leader));
  if (!ex.ok()) return ex;
  if (theirs.back() != 0)
    return Status(static_cast<Errc>(theirs.back()), "the leaders' exchange failed (a process of the other group failed?)");
  for (std::size_t i = 0; i < c.size(); ++i) c[i] &= theirs[i];
  return {};
}

// FT mode (issue 12): the intercommunicator constructors below end with one fault-tolerant agreement over
// both groups (on the intercommunicator's span, FtManager::span: its own context, so constructors on
// different intercommunicators over the same processes, from several threads, never share an agreement) on
// the new context id, with every member's outcome of the earlier steps, so every survivor of both groups
// gets the new communicator or every one the error (also when a revoke races it: ft/creation_keys.h). Each
// earlier step runs at every member whatever happened before (so nobody waits for a member that skipped
// it); the first error is carried to the agreement.
bool uniform(Runtime& rt) { return rt.ft().ft_mode(); }

Status inter_agree_context(Runtime& rt, Communicator* inter, Status before, std::uint32_t* ctx) {
  if (before.ok() && inter->revoked.load()) before = Status(Errc::revoked, "the communicator has been revoked");
  const AllocKey key{inter->ctx_pt2pt, ContextAllocator::lowest_member(inter), AllocKey::kKindInter};
  return agree_context(rt, rt.ft().span(inter), before, ctx, key);
}

Communicator* make_inter(Runtime& rt, Communicator* local_hidden, std::vector<int> remote_world, std::uint32_t ctx,
                         const Communicator* errhandler_from) {
  Communicator* c = make_comm(make_group(local_hidden->group->world_ranks, rt.world_rank()), ctx, errhandler_from);
  c->remote_group = make_group(std::move(remote_world), rt.world_rank());
  c->local_comm = local_hidden;
  rt.ft().register_comm(c);
  return c;
}

// FT mode: MPI_Intercomm_create uniform over both groups (ft/bridge.h has the protocol and its safety
// argument). Steps, each run by every member whatever happened before:
//  1. take this side's name in the bridge (FtManager::take_bridge_side: local_comm's context id and lowest
//     member, the count of earlier calls over it, the sorted members) and dup local_comm into the hidden local
//     communicator (uniform over the local group: everyone has it, or nobody);
//  2. the leader swaps {ok, size, this side's name} and the member list with the other leader over peer_comm;
//  3. the leader broadcasts what it got (or the error) over the hidden communicator;
//  4. a member that has the other side's list, with both sides ok and the groups disjoint, is a *knower*:
//     it agrees on the context id over the union (a bridge named by both sides, FtManager::bridge, with
//     agree_context); any other member is a *refuser*: it returns the error and, from then on, answers the
//     greetings of the bridge its side is in with a refusal (FtManager::refuse_bridge), so every knower fails too.
// Outcome: every survivor of both groups gets the intercommunicator, or every survivor an error —
// Errc::proc_failed when a member failed or refused, or this process's own error when it refused.
struct FtHeader {
  std::int32_t ok;
  std::int32_t size;
  std::uint64_t count;       // the side's name (ft/bridge_key.h): the count, local_comm's context id and lowest member
  std::uint32_t hidden_ctx;  // the side's hidden local communicator: the allocation's key (context_alloc.h)
  std::int32_t hidden_low;
  std::uint32_t local_ctx;
  std::int32_t local_low;
};

Status intercomm_create_ft(Runtime& rt, Communicator* local_comm, int local_leader, Communicator* peer_comm,
                           int remote_leader, int tag, Communicator** out) {
  std::vector<int> mine_sorted = local_comm->group->world_ranks;
  std::sort(mine_sorted.begin(), mine_sorted.end());
  // Counted per (local_comm's context id, lowest member, members): concurrent creations from several threads
  // over the same side use different local communicators (MPI), and each member counts the creations on one
  // local_comm in order.
  const ft::BridgeSide mine =
      rt.ft().take_bridge_side(local_comm->ctx_pt2pt, ContextAllocator::lowest_member(local_comm), mine_sorted);
  // 1.
  Communicator* hidden = nullptr;
  Status st = dup(rt, local_comm, &hidden);
  // 2.
  FtHeader hdr{st.ok() ? 1 : 0, local_comm->size, mine.count, st.ok() ? hidden->ctx_pt2pt : 0u,
               st.ok() ? ContextAllocator::lowest_member(hidden) : 0, mine.ctx, mine.low};
  FtHeader theirs{};
  std::vector<int> remote_world;
  Status ex;
  if (local_comm->rank == local_leader) {
    ex = exchange(rt, peer_comm, remote_leader, tag, false, &hdr, sizeof hdr, &theirs, sizeof theirs);
    if (ex.ok() && (theirs.size <= 0 || theirs.size > (1 << 24)))
      ex = Status(Errc::intern, "MPI_Intercomm_create: bad header from the remote leader");
    if (ex.ok()) {
      remote_world.resize(static_cast<std::size_t>(theirs.size));
      ex = exchange(rt, peer_comm, remote_leader, tag, false, local_comm->group->world_ranks.data(),
                    local_comm->group->world_ranks.size() * sizeof(int), remote_world.data(), remote_world.size() * sizeof(int));
    }
    if (!ex.ok()) theirs.ok = -static_cast<std::int32_t>(ex.code());
  }
  // 3. (skipped by everybody when the dup failed: nobody has `hidden`)
  if (st.ok()) {
    Status b = coll::bcast(rt, hidden, &theirs, sizeof theirs, &ftmpi_dt_byte, local_leader);
    if (b.ok() && theirs.ok == 1) {
      remote_world.resize(static_cast<std::size_t>(theirs.size));
      b = coll::bcast(rt, hidden, remote_world.data(), remote_world.size(), &ftmpi_dt_int, local_leader);
    }
    if (!b.ok()) st = b;
    else if (!ex.ok()) st = ex;
    else if (theirs.ok < 0) st = Status(static_cast<Errc>(-theirs.ok), "the leaders' exchange failed (a process of the other group failed?)");
    else if (theirs.ok == 0) st = Status(Errc::proc_failed, "the other group could not take part in MPI_Intercomm_create (a process failed?)");
  }
  std::vector<int> remote_sorted = remote_world;
  std::sort(remote_sorted.begin(), remote_sorted.end());
  if (st.ok() && !std::binary_search(remote_sorted.begin(), remote_sorted.end(), theirs.local_low))
    st = Status(Errc::intern, "MPI_Intercomm_create: bad header from the remote leader (its lowest member)");
  if (st.ok()) {
    for (int w : remote_world)
      if (local_comm->group->rank_of_world(w) >= 0) {
        st = Status(Errc::comm, "the local and remote groups overlap");
        break;
      }
  }
  if (st.ok()) st = rt.open_for(remote_world);  // the bridge below: remote members send to us
  // 4.
  if (!st.ok()) {
    const ContextAllocator::Mask& m = rt.contexts().free_mask();
    ft::Bits refusal(m.size() + 1, 0);
    refusal.back() = ~std::uint64_t{1};  // "ok" cleared (comm::agree_context: Errc::proc_failed elsewhere)
    rt.ft().refuse_bridge(mine, std::move(refusal));
    if (hidden != nullptr) {
      Status f = free(rt, hidden);
      (void)f;
    }
    return st;
  }
  const ft::BridgeKey bridge =
      ft::BridgeKey::of(mine, ft::BridgeSide{theirs.local_ctx, theirs.local_low, theirs.count, std::move(remote_sorted)});
  std::uint32_t ctx = 0;
  const AllocKey key = std::min(AllocKey{hdr.hidden_ctx, hdr.hidden_low, AllocKey::kKindInterCreate},
                                AllocKey{theirs.hidden_ctx, theirs.hidden_low, AllocKey::kKindInterCreate});
  st = agree_context(rt, rt.ft().bridge(bridge), Status::Ok(), &ctx, key);
  if (!st.ok()) {
    Status f = free(rt, hidden);
    (void)f;
    return st;
  }
  rt.ft().bridge_succeeded(bridge);
  *out = make_inter(rt, hidden, std::move(remote_world), ctx, local_comm);
  return {};
}

}  // namespace

Status intercomm_create(Runtime& rt, Communicator* local_comm, int local_leader, Communicator* peer_comm,
                        int remote_leader, int tag, Communicator** out) {
  *out = nullptr;
  if (uniform(rt)) return intercomm_create_ft(rt, local_comm, local_leader, peer_comm, remote_leader, tag, out);
  Communicator* hidden = nullptr;
  FTMPI_TRY(dup(rt, local_comm, &hidden));
  Header mine{};
  Remote remote;
  Status st = swap_sides(rt, hidden, local_leader, peer_comm, remote_leader, tag, false, 0, &mine, &remote);
  if (st.ok()) {
    for (int w : remote.world)
      if (hidden->group->rank_of_world(w) >= 0) st = Status(Errc::comm, "the local and remote groups overlap");
  }
  if (st.ok()) st = rt.open_for(remote.world);  // the remote members will send to this process
  std::uint32_t ctx = 0;
  if (st.ok()) {
    // Both sides build the same key (context_alloc.h AllocKey) and run the allocation rounds together, the
    // leaders talking over peer_comm with the caller's tag.
    const AllocKey a{mine.ctx, mine.low, AllocKey::kKindInterCreate};
    const AllocKey b{remote.hdr.ctx, remote.hdr.low, AllocKey::kKindInterCreate};
    st = rt.contexts().run_rounds(
        rt, std::min(a, b),
        [&](ContextAllocator::Contribution& c) {
          return and_both_sides(rt, hidden, local_leader, peer_comm, remote_leader, tag, false, c);
        },
        &ctx);
  }
  if (!st.ok()) {
    Status f = free(rt, hidden);
    (void)f;
    return st;
  }
  *out = make_inter(rt, hidden, std::move(remote.world), ctx, local_comm);
  return {};
}

Status inter_allocate_context(Runtime& rt, Communicator* inter, std::uint32_t* ctx) {
  if (uniform(rt)) return inter_agree_context(rt, inter, Status::Ok(), ctx);
  // The intercommunicator's own key (context_alloc.h AllocKey); the leaders talk on its collective context.
  const int tag = coll::next_coll_tag(inter);
  const AllocKey key{inter->ctx_pt2pt, ContextAllocator::lowest_member(inter), AllocKey::kKindInter};
  return rt.contexts().run_rounds(
      rt, key,
      [&](ContextAllocator::Contribution& c) { return and_both_sides(rt, inter->local_comm, 0, inter, 0, tag, true, c); },
      ctx);
}

Status intercomm_dup(Runtime& rt, Communicator* inter, Communicator** out) {
  *out = nullptr;
  Communicator* hidden = nullptr;
  Status st = dup(rt, inter->local_comm, &hidden);
  if (!uniform(rt)) FTMPI_TRY(st);
  std::uint32_t ctx = 0;
  st = uniform(rt) ? inter_agree_context(rt, inter, st, &ctx) : inter_allocate_context(rt, inter, &ctx);
  if (!st.ok()) {
    if (hidden != nullptr) {  // null when the local side's dup failed here
      Status f = free(rt, hidden);
      (void)f;
    }
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
  std::uint32_t ctx = 0;
  Status st = swap_sides(rt, inter->local_comm, 0, inter, 0, tag, true, high ? 1 : 0, &mine, &remote);
  if (uniform(rt)) {
    FTMPI_TRY(inter_agree_context(rt, inter, st, &ctx));
  } else {
    FTMPI_TRY(st);
    FTMPI_TRY(inter_allocate_context(rt, inter, &ctx));
  }
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

// ---- split and create on an intercommunicator (MPI-2.2 §6.4.2) ----
//
// Both are collective over both groups and follow one pattern: each side learns the other side's inputs
// (the local side's inputs are gathered over the hidden local_comm, the leaders swap them over the
// intercommunicator's collective context, each leader broadcasts what it got), builds the new local side
// with the intracommunicator constructor on the hidden local_comm (which gives the new hidden local
// communicator, with its own context), and both sides agree on one intercommunicator context id
// (inter_allocate_context). Every member takes part in every step whatever its outcome, so the calls stay
// matched; a member whose local or remote side is empty gets nullptr (and both sides agree on that, since
// each one sees the other's inputs).
namespace {

// The leaders swap `mine` (this side's array, the same at every local member after the gather) for the
// other side's array of `theirs_len` ints; every local member gets it.
// A leader whose exchange failed still broadcasts (element 0 = the error), so that its side does not wait.
Status swap_arrays(Runtime& rt, Communicator* inter, const std::vector<int>& mine, std::vector<int>* theirs) {
  const int tag = coll::next_coll_tag(inter);
  Communicator* local = inter->local_comm;
  std::vector<int> buf(1 + theirs->size());
  Status ex;
  if (local->rank == 0) {
    ex = exchange(rt, inter, 0, tag, true, mine.data(), mine.size() * sizeof(int), buf.data() + 1,
                  theirs->size() * sizeof(int));
    buf[0] = static_cast<int>(ex.code());
  }
  FTMPI_TRY(coll::bcast(rt, local, buf.data(), buf.size(), &ftmpi_dt_int, 0));
  if (!ex.ok()) return ex;
  if (buf[0] != 0) return Status(static_cast<Errc>(buf[0]), "the leaders' exchange failed (a process of the other group failed?)");
  std::copy(buf.begin() + 1, buf.end(), theirs->begin());
  return {};
}

// Finish: `hidden` is the new local side (nullptr when this member is in none), `remote_world` the new
// remote side. Agrees on the context at everybody, then builds the intercommunicator or gives up the id.
Status finish_inter(Runtime& rt, Communicator* inter, Communicator* hidden, std::vector<int> remote_world,
                    Communicator** out, const Status& before = Status::Ok()) {
  std::uint32_t ctx = 0;
  Status st = uniform(rt) ? inter_agree_context(rt, inter, before, &ctx) : inter_allocate_context(rt, inter, &ctx);
  if (!st.ok() || hidden == nullptr || remote_world.empty()) {
    if (st.ok()) rt.contexts().release(ctx);
    if (hidden != nullptr) {
      Status f = free(rt, hidden);
      (void)f;
    }
    return st;
  }
  *out = make_inter(rt, hidden, std::move(remote_world), ctx, inter);
  return {};
}

}  // namespace

Status intercomm_split(Runtime& rt, Communicator* inter, int color, int key, Communicator** out) {
  *out = nullptr;
  if (color < 0 && color != kUndefined) return Status(Errc::arg, "color must be non-negative or MPI_UNDEFINED");
  Communicator* local = inter->local_comm;
  const bool u = uniform(rt);  // every step at every member, the first error carried (see inter_agree_context)
  std::vector<int> mine(2 * static_cast<std::size_t>(local->size));
  const int ck[2] = {color, key};
  Status st = coll::allgather(rt, local, ck, 2, &ftmpi_dt_int, mine.data(), 2, &ftmpi_dt_int);
  if (!u) FTMPI_TRY(st);
  std::vector<int> theirs(2 * static_cast<std::size_t>(inter->remote_group->size()));
  Status st2 = swap_arrays(rt, inter, mine, &theirs);
  if (!u) FTMPI_TRY(st2);
  if (st.ok()) st = st2;
  std::vector<int> remote_world;
  if (color != kUndefined && st.ok()) remote_world = split_members(theirs, inter->remote_group->world_ranks, color);
  // An empty remote side makes this color's result MPI_COMM_NULL on both sides: the local side of such a
  // color takes no part in the new local communicator either.
  Communicator* hidden = nullptr;
  st2 = split(rt, local, remote_world.empty() ? kUndefined : color, key, &hidden);
  if (!u) FTMPI_TRY(st2);
  if (st.ok()) st = st2;
  return finish_inter(rt, inter, hidden, std::move(remote_world), out, st);
}

Status intercomm_create_sub(Runtime& rt, Communicator* inter, const Group* group, Communicator** out) {
  *out = nullptr;
  for (int w : group->world_ranks)
    if (inter->group->rank_of_world(w) < 0)
      return Status(Errc::group, "group is not a subset of the intercommunicator's local group");
  Communicator* local = inter->local_comm;
  // The group's size first, then its members (the remote side's size is not known beforehand).
  const bool u = uniform(rt);  // every step at every member, the first error carried (see inter_agree_context)
  std::vector<int> mine{group->size()};
  std::vector<int> theirs(1, 0);
  Status st = swap_arrays(rt, inter, mine, &theirs);
  if (!u) FTMPI_TRY(st);
  std::vector<int> remote_world(st.ok() ? static_cast<std::size_t>(std::max(0, theirs[0])) : 0);
  Status st2 = swap_arrays(rt, inter, group->world_ranks, &remote_world);
  if (!u) FTMPI_TRY(st2);
  if (st.ok()) st = st2;
  Communicator* hidden = nullptr;
  st2 = create(rt, local, group, &hidden);
  if (!u) FTMPI_TRY(st2);
  if (st.ok()) st = st2;
  if (remote_world.empty() && hidden != nullptr) {  // nothing on the other side: MPI_COMM_NULL here too
    Status f = free(rt, hidden);
    (void)f;
    hidden = nullptr;
  }
  return finish_inter(rt, inter, hidden, std::move(remote_world), out, st);
}

}  // namespace ftmpi::comm
