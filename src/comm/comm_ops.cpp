// Communicator constructors and destructor (see comm_ops.h).
#include "comm/comm_ops.h"
#include "ft/ft_manager.h"

#include <algorithm>
#include <array>
#include <cstring>
#include <deque>
#include <span>
#include <vector>

#include "coll/coll.h"
#include "coll/shm_area.h"
#include "comm/comm_ctors.h"
#include "comm/context_alloc.h"
#include "comm/group_algebra.h"
#include "ft/comm_ft.h"
#include "mpi.h"
#include "runtime/runtime.h"

namespace ftmpi::comm {

Status allocate_context(Runtime& rt, Communicator* parent, const Status& before, std::uint32_t* ctx) {
  if (!rt.ft().ft_mode() || parent->is_inter()) {
    FTMPI_TRY(before);
    return rt.contexts().allocate(rt, parent, ctx);
  }
  return agree_context(rt, parent, before, ctx, AllocKey{parent->ctx_pt2pt, ContextAllocator::lowest_member(parent), AllocKey::kKindParent});
}

namespace {
static_assert(ft::kCreationWords == ContextAllocator::kWords + 1, "a creation round contributes the mask and the flags");

// One round of agree_context: `mask` and the flags word (ANDed): bit 0 "my earlier steps succeeded", bit 1
// "and did not fail because of a revoke" (cleared by a veto too, ft/creation_keys.h), bit 2 "mask is every
// free slot of mine" (context_alloc.h, whole). On success `mask` holds the decided AND and *whole the
// decided bit 2.
Status agree_once(Runtime& rt, Communicator* on, const Status& before, std::span<std::uint64_t> mask, bool* whole) {
  std::array<std::uint64_t, ft::kCreationWords> contribution{};
  std::copy(mask.begin(), mask.end(), contribution.begin());
  std::uint64_t flags = ~std::uint64_t{0};
  if (!before.ok()) flags &= ~std::uint64_t{1};
  if (before.code() == Errc::revoked) flags &= ~std::uint64_t{2};
  if (!*whole) flags &= ~std::uint64_t{4};
  contribution.back() = flags;
  const ft::Agreement* a = rt.ft().start_creation_round(on, contribution);
  if (a == nullptr) return Status(Errc::revoked, "the communicator was revoked (communicator creation)");
  // No way out but the decision, also when `on` is revoked meanwhile: every other member either took part
  // in this round or vetoes it when it sees the revoke (ft/creation_keys.h), so it decides, and alike
  // everywhere (before, a revoke ended the wait here while the others could still get the communicator).
  rt.progress().wait_until([a] { return a->decided(); });
  const ft::Bits& v = a->value();
  if (v.size() != mask.size() + 1) {
    rt.ft().end_creation_round(on, false);
    return Status(Errc::intern, "context id agreement: unexpected value size");
  }
  const std::uint64_t decided = v.back();
  const bool failed = !a->failed().empty();
  rt.ft().end_creation_round(on, (decided & 2u) == 0);
  FTMPI_TRY(before);
  if ((decided & 2u) == 0) return Status(Errc::revoked, "the communicator was revoked (communicator creation)");
  if ((decided & 1u) == 0)
    return Status(Errc::proc_failed, "another member could not complete this communicator creation (a process failed)");
  if (failed) return Status(Errc::proc_failed, "a member of the parent communicator has failed (communicator creation)");
  for (std::size_t i = 0; i < mask.size(); ++i) mask[i] = v[i];
  *whole = (decided & 4u) != 0;
  return {};
}

// Pins `on` (a channel is not dropped while a creation runs on it).
struct CreationPin {
  Runtime& rt;
  Communicator* on;
  CreationPin(Runtime& r, Communicator* c) : rt(r), on(c) { rt.ft().creation_pin(on, 1); }
  ~CreationPin() { rt.ft().creation_pin(on, -1); }
  CreationPin(const CreationPin&) = delete;
  CreationPin& operator=(const CreationPin&) = delete;
};
}  // namespace

Status agree_context(Runtime& rt, Communicator* on, const Status& before, std::uint32_t* ctx, const AllocKey& key) {
  // Every survivor sees the same decision in every round (the agreement is uniform), so all survivors run the
  // same rounds and claim the same slot, or return an error in the same round. `before` travels in round 0;
  // a failed member or a revoke ends the rounds with the error wherever it shows.
  CreationPin pin(rt, on);
  bool first = true;
  return rt.contexts().run_rounds(
      rt, key,
      [&](ContextAllocator::Contribution& c) -> Status {
        const Status mine = first ? before : Status::Ok();
        first = false;
        bool whole = (c[ContextAllocator::kWords] & 1u) != 0;
        FTMPI_TRY(agree_once(rt, on, mine, std::span<std::uint64_t>(c.data(), ContextAllocator::kWords), &whole));
        c[ContextAllocator::kWords] = whole ? ~std::uint64_t{0} : ~std::uint64_t{1};
        return {};
      },
      ctx);
}

Communicator* make_comm(Group* group, std::uint32_t ctx, const Communicator* parent) {
  auto* c = new Communicator;
  c->group = group;
  c->rank = group->my_rank;
  c->size = group->size();
  c->ctx_pt2pt = ctx;
  c->ctx_coll = ctx + 1;
  c->errhandler = parent->errhandler;
  c->session = parent->session;  // derived communicators keep the session (its buffered-send buffer)
  if (c->errhandler && !c->errhandler->predefined) ++c->errhandler->refs;
  c->magic = kMagicComm;
  c->counted = true;
  return c;
}

Status dup(Runtime& rt, Communicator* parent, Communicator** out) {
  if (parent->is_inter()) {
    FTMPI_TRY(intercomm_dup(rt, parent, out));
  } else {
    std::uint32_t ctx = 0;
    FTMPI_TRY(allocate_context(rt, parent, &ctx));
    Group* g = make_group(parent->group->world_ranks, rt.world_rank());
    *out = make_comm(g, ctx, parent);
    rt.ft().register_comm(*out);
  }
  (*out)->topo = parent->topo;    // MPI-3.1 §6.4.2: the duplicate keeps the topology
  (*out)->hints = parent->hints;  // and the info hints
  return {};
}

std::vector<int> split_members(std::span<const int> color_key, std::span<const int> parent_world, int color) {
  struct Member {
    int key, old_rank;
  };
  std::vector<Member> members;
  for (std::size_t r = 0; r < parent_world.size(); ++r)
    if (color_key[2 * r] == color) members.push_back({color_key[2 * r + 1], static_cast<int>(r)});
  std::sort(members.begin(), members.end(), [](const Member& a, const Member& b) {
    return a.key != b.key ? a.key < b.key : a.old_rank < b.old_rank;
  });
  std::vector<int> world;
  world.reserve(members.size());
  for (const Member& m : members) world.push_back(parent_world[static_cast<std::size_t>(m.old_rank)]);
  return world;
}

Status split(Runtime& rt, Communicator* parent, int color, int key, Communicator** out) {
  *out = nullptr;
  if (color < 0 && color != kUndefined) return Status(Errc::arg, "color must be non-negative or MPI_UNDEFINED");
  // Everybody learns everybody's (color, key).
  const auto p = static_cast<std::size_t>(parent->size);
  std::vector<int> all(2 * p);
  const int mine[2] = {color, key};
  Status gathered = coll::allgather(rt, parent, mine, 2, &ftmpi_dt_int, all.data(), 2, &ftmpi_dt_int);
  // One context id serves every color: the new communicators are disjoint. (Called also when the
  // allgather failed here: in FT mode the others' agreement needs this process; see allocate_context.)
  std::uint32_t ctx = 0;
  FTMPI_TRY(allocate_context(rt, parent, gathered, &ctx));
  if (color == kUndefined) {
    rt.contexts().release(ctx);
    return {};
  }
  std::vector<int> world = split_members(all, parent->group->world_ranks, color);
  *out = make_comm(make_group(std::move(world), rt.world_rank()), ctx, parent);
  rt.ft().register_comm(*out);
  return {};
}

Status create(Runtime& rt, Communicator* parent, const Group* group, Communicator** out) {
  *out = nullptr;
  for (int w : group->world_ranks)
    if (parent->group->rank_of_world(w) < 0) return Status(Errc::group, "group is not a subset of the communicator's group");
  std::uint32_t ctx = 0;
  FTMPI_TRY(allocate_context(rt, parent, &ctx));
  const int me = group->rank_of_world(rt.world_rank());
  if (me < 0) {
    rt.contexts().release(ctx);
    return {};
  }
  *out = make_comm(make_group(group->world_ranks, rt.world_rank()), ctx, parent);
  rt.ft().register_comm(*out);
  return {};
}

Status free(Runtime& rt, Communicator* comm) {
  if (comm->predefined) return Status(Errc::comm, "cannot free a predefined communicator");
  // The handle dies now; the object lives on while requests hold it (retire below).
  comm->magic = kMagicFreed;
  comm->retire_on_idle = true;
  if (comm->local_comm) {
    Status st = free(rt, comm->local_comm);  // a hidden intracommunicator: never predefined
    (void)st;
    comm->local_comm = nullptr;
  }
  if (!comm->counted || comm->holds == 0) retire(rt, comm);
  return {};
}

namespace {
// Objects of retired communicators: kept for a while, so that a stale handle still reads kMagicFreed
// (valid_comm rejects it) during the next kGraveyard frees, then deleted (memory stays flat however many
// communicators a long-running code creates and frees).
constexpr std::size_t kGraveyard = 64;
std::deque<Communicator*>& graveyard() {
  static std::deque<Communicator*> g;  // objects only: every resource of theirs is released already
  return g;
}
}  // namespace

void retire(Runtime& rt, Communicator* comm) {
  rt.ft().unregister_comm(comm);
  // Give the context slot back at once, and tell the other members that nothing more comes from here on
  // it (p2p/stale_filter.h: their late frames on the slot are dropped until they retire it too).
  std::vector<int> peers;
  for (const Group* g : {comm->group, comm->remote_group}) {
    if (!g) continue;
    for (int w : g->world_ranks)
      if (w != rt.world_rank()) peers.push_back(w);
  }
  rt.engine().retire_context(comm->ctx_pt2pt, peers);
  rt.engine().buffer_forget(comm);  // its MPI_Comm_attach_buffer buffer, if any
  rt.contexts().release(comm->ctx_pt2pt);
  coll::release_shm_area(comm);  // its shared-memory collective area (coll/shm_area.h), if any
  delete comm->ft;  // agreement records and acknowledgements (ft/comm_ft.h)
  comm->ft = nullptr;
  group_release(comm->group);
  comm->group = nullptr;
  if (comm->remote_group) group_release(comm->remote_group);
  comm->remote_group = nullptr;
  comm->topo.reset();
  comm->hints.reset();
  if (comm->errhandler && !comm->errhandler->predefined && --comm->errhandler->refs == 0)
    comm->errhandler->magic = kMagicFreed;
  comm->errhandler = nullptr;
  comm->session = nullptr;
  comm->rank = -1;
  comm->size = 0;
  comm->retire_on_idle = false;
  std::string().swap(comm->name);
  if (!comm->counted) return;
  auto& g = graveyard();
  g.push_back(comm);
  if (g.size() > kGraveyard) {
    delete g.front();
    g.pop_front();
  }
}

int compare(const Communicator* a, const Communicator* b) {
  if (a == b) return 0;
  if (a->is_inter() != b->is_inter()) return 3;
  auto level = [](const Group* x, const Group* y) {
    switch (group_compare(x->world_ranks, y->world_ranks)) {
      case Compare::ident: return 1;    // congruent
      case Compare::similar: return 2;  // similar
      case Compare::unequal: break;
    }
    return 3;
  };
  // Intercommunicators (MPI-3.1 §6.6.1): both the local and the remote groups are compared; the weaker
  // relation wins.
  int r = level(a->group, b->group);
  if (a->is_inter()) r = std::max(r, level(a->remote_group, b->remote_group));
  return r;
}

}  // namespace ftmpi::comm
