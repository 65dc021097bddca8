// FA-MPI fault-aware communicator creation (seed 001 §7.5.1, §8.3) on models/famp/split.h: one agreement
// on the parent, every survivor builds the same communicators. sync forms: MPI_GROUP_SHRUNK when members
// failed (the communicators hold the survivors); local forms: the same communicators, MPI_SUCCESS (the
// failure is for the enclosing TryBlock's commit to report, seed: "use in TryBlock"). MPI_TIMEOUT when the
// timeout runs out first (the agreement goes on for the others: the caller should treat its parent as
// broken, e.g. revoke it). The spawn/merge forms are in api/famp_spawn.cpp.
#include <algorithm>

#include "api/famp_state.h"
#include "comm/comm_ops.h"
#include "comm/context_alloc.h"
#include "comm/pool_rounds.h"
#include "ft/ft_manager.h"
#include "models/famp/split.h"

using ftmpi::Errc;
using ftmpi::Status;
using ftmpi::api::ret;
using ftmpi::api::rt;
using ftmpi::api::famp::Deadline;
using ftmpi::famp::SplitRequest;
using ftmpi::p2p::Request;

namespace {

// The agreement runs on `c`: the parent communicator, or an agreement channel over a strict subset of it
// (create_group on a subset, ft/ft_manager.h), or the span of both groups of an intercommunicator parent
// (FtManager::span; split.h); `parent` gives the new communicators their error handler. A channel
// (`on_channel`) is held while the operation lives: it keeps `c` and an instance of it across progress
// passes, and a pass may make another channel live and compact an idle one (FtManager::hold_channel).
//
// Context ids: each round reserves slots of the non-blocking pool and agrees on them (comm/pool_rounds.h: why,
// and how rounds are keyed); the members keep the slots of their own new communicators and give the rest back.
class SplitOp final : public ftmpi::p2p::GenericOp {
 public:
  SplitOp(ftmpi_comm_s* c, bool on_channel, ftmpi_comm_s* parent, std::vector<SplitRequest> asks, MPI_Comm* out, bool sync)
      : hold_(rt().ft(), on_channel ? c : nullptr), c_(c), parent_(parent), asks_(std::move(asks)), out_(out), sync_(sync),
        inter_(parent->is_inter()),
        // (counted on the channel, or the parent: an intercommunicator's idups count on it too)
        rounds_(rt().contexts(), rt().ft(), c, on_channel ? c : parent, static_cast<std::size_t>(c->size) * (inter_ ? 2 : 1)) {
    for (std::size_t i = 0; i < asks_.size(); ++i) out_[i] = MPI_COMM_NULL;
    start_round();
  }
  bool progress() override {
    for (;;) {
      if (!a_->decided()) return false;
      rt().ft().adopt_failed(c_, a_->failed());
      const ftmpi::famp::SplitOutcome o =
          ftmpi::famp::decode_split(a_->value(), a_->failed(), Alloc::kWords, c_->size, MPI_UNDEFINED, inter_ ? 2 : 1);
      if (o.ok) return build(o);
      if (Status st = rounds_.retry(); !st.ok()) {  // too few common slots: the next round, elsewhere
        result = std::move(st);
        return true;
      }
      start_round();
    }
  }

 private:
  using Alloc = ftmpi::comm::ContextAllocator;

  void start_round() {
    a_ = &rounds_.begin([this](const Alloc::Mask& m) {
      return ftmpi::famp::encode_split(std::vector<std::uint64_t>(m.begin(), m.end()), c_->rank, c_->size, asks_);
    });
  }

  // The decided communicators this member belongs to, from the decided (async mask) ids; every other reserved
  // slot goes back to the pool.
  bool build(const ftmpi::famp::SplitOutcome& o) {
    Alloc::Mask give = rounds_.take();
    for (std::size_t i = 0; i < asks_.size(); ++i) {
      if (asks_[i].color == MPI_UNDEFINED) continue;
      auto g = std::find_if(o.groups.begin(), o.groups.end(), [&](const auto& x) { return x.color == asks_[i].color; });
      if (g == o.groups.end()) continue;  // cannot happen for a survivor
      if (inter_) {
        if (!build_inter(*g, &out_[i])) continue;  // MPI_COMM_NULL: no slot kept
        Alloc::mask_drop(give, g->context);
        Alloc::mask_drop(give, g->local_context);
        continue;
      }
      Alloc::mask_drop(give, g->context);
      std::vector<int> world;
      for (int r : g->members) world.push_back(c_->world_rank(r));
      ftmpi_comm_s* n = ftmpi::comm::make_comm(ftmpi::comm::make_group(std::move(world), rt().world_rank()),
                                               Alloc::async_id_of(g->context), parent_);
      rt().ft().register_comm(n);
      out_[i] = n;
    }
    rt().contexts().give_back_async_mask(give);
    if (sync_ && o.shrunk) result = Status(Errc::group_shrunk, "members of the parent communicator failed; the new communicators hold the survivors");
    return true;
  }

  // MPI_Comm_split semantics on an intercommunicator: the new local group = this side's members of the
  // color, the remote group = the other side's; MPI_COMM_NULL (false) when either is empty (both sides see the
  // same decision, so both agree on that). Every member of the color keeps both contexts.
  bool build_inter(const ftmpi::famp::SplitGroup& g, MPI_Comm* out) {
    std::vector<int> local, remote;
    for (int r : g.members) {
      const int w = c_->world_rank(r);
      (parent_->group->rank_of_world(w) >= 0 ? local : remote).push_back(w);
    }
    if (local.empty() || remote.empty()) return false;
    ftmpi_comm_s* hidden = ftmpi::comm::make_comm(ftmpi::comm::make_group(local, rt().world_rank()),
                                                  Alloc::async_id_of(g.local_context), parent_);
    rt().ft().register_comm(hidden);
    ftmpi_comm_s* n = ftmpi::comm::make_comm(ftmpi::comm::make_group(std::move(local), rt().world_rank()),
                                             Alloc::async_id_of(g.context), parent_);
    n->remote_group = ftmpi::comm::make_group(std::move(remote), rt().world_rank());
    n->local_comm = hidden;
    rt().ft().register_comm(n);
    *out = n;
    return true;
  }

  ftmpi::ft::ChannelHold hold_;
  ftmpi_comm_s* c_;
  ftmpi_comm_s* parent_;
  std::vector<SplitRequest> asks_;
  MPI_Comm* out_;
  bool sync_;
  bool inter_;
  ftmpi::comm::PoolRounds rounds_;
  const ftmpi::ft::Agreement* a_ = nullptr;
};

// An outcome code (MPI_GROUP_SHRUNK, MPI_TIMEOUT) is returned as is; other errors through the handler.
int outcome(MPI_Comm comm, const Status& st, const char* fn) {
  if (st.code() == Errc::group_shrunk) return MPI_GROUP_SHRUNK;
  return ret(comm, st, fn);
}

Status check_parent(MPI_Comm comm, MPI_Timeout timeout) {
  if (timeout.ftmpi_ns < 0) return Status(Errc::arg, "negative timeout");
  return Status::Ok();
}

// The split over `comm`'s agreement, or over `on` (an agreement channel) when given; the caller has checked
// `comm` (FTMPI_ENTER and FTMPI_CHECK_COMM done).
int run_split(MPI_Comm comm, ftmpi_comm_s* on, std::vector<SplitRequest> asks, MPI_Timeout timeout, MPI_Comm* out,
              MPI_Request* request, bool sync, const char* fn) {
  ftmpi_comm_s* c = on ? on : comm->is_inter() ? rt().ft().span(comm) : comm;
  Request* r = rt().engine().start_generic(std::make_unique<SplitOp>(c, on != nullptr, comm, std::move(asks), out, sync));
  ftmpi::p2p::set_comm(r, comm);
  if (request) {
    *request = r;
    return MPI_SUCCESS;
  }
  ftmpi::api::CommHold hold(comm);
  if (!ftmpi::api::famp::wait_until(Deadline(timeout), [r] { return r->complete; })) {
    rt().engine().release(r);  // completes (and builds nothing visible) in the background
    return MPI_TIMEOUT;
  }
  Status st = r->error;
  rt().engine().release(r);
  return outcome(comm, st, fn);
}

int isplit(MPI_Comm comm, std::vector<SplitRequest> asks, MPI_Timeout timeout, MPI_Comm* out, MPI_Request* request,
           bool sync, const char* fn) {
  FTMPI_ENTER(fn);
  FTMPI_CHECK_COMM(comm, fn);
  if (!out) return ret(comm, Status(Errc::arg, "newcomm is NULL"), fn);
  if (Status st = check_parent(comm, timeout); !st.ok()) return ret(comm, st, fn);
  for (const auto& a : asks)
    if (a.color < 0 && a.color != MPI_UNDEFINED) return ret(comm, Status(Errc::arg, "negative color"), fn);
  return run_split(comm, nullptr, std::move(asks), timeout, out, request, sync, fn);
}

// create_group (seed 001 §7.5.1, MPI_Comm_create_group semantics): called by the members of `group`, a
// subset of the parent's group, e.g. the survivors named by a TryBlock's outcome. The whole group: a split
// of the parent (every member of the parent calls). A strict subset: the same split over an agreement
// channel of the group's members alone (ft/ft_manager.h; salted with the tag, so calls with different tags
// over the same members stay apart); a caller outside the group gets MPI_COMM_NULL at once. Members of one
// group must make their calls with the same (group, tag) in the same order, as MPI requires.
constexpr std::uint32_t kSaltFampGroup = 0x46475250u;  // "FGRP"

int igroup(MPI_Comm comm, int tag, MPI_Group group, MPI_Timeout timeout, MPI_Comm* out, MPI_Request* request,
           bool sync, const char* fn) {
  FTMPI_ENTER(fn);
  FTMPI_CHECK_COMM(comm, fn);
  if (!out) return ret(comm, Status(Errc::arg, "newcomm is NULL"), fn);
  if (Status st = check_parent(comm, timeout); !st.ok()) return ret(comm, st, fn);
  if (comm->is_inter())  // as MPI_Comm_create_group (MPI-3.1 §6.4.2): intracommunicators only
    return ret(comm, Status(Errc::comm, std::string(fn) + " needs an intracommunicator (MPI_Comm_create_group is defined on intracommunicators only; split the intercommunicator instead)"), fn);
  if (tag < 0) return ret(comm, Status(Errc::tag, "negative tag"), fn);
  if (!ftmpi::api::valid_group(group)) return ret(comm, Status(Errc::group, "invalid group"), fn);
  int my = -1;
  std::vector<int> world;
  for (int k = 0; k < group->size(); ++k) {
    const int w = group->world_ranks[static_cast<std::size_t>(k)];
    const int pr = comm->group->rank_of_world(w);
    if (pr < 0) return ret(comm, Status(Errc::group, "the group has processes outside the communicator"), fn);
    if (pr == comm->rank) my = k;
    world.push_back(w);
  }
  if (group->size() == comm->size)
    return run_split(comm, nullptr, {SplitRequest{my >= 0 ? 0 : MPI_UNDEFINED, my}}, timeout, out, request, sync, fn);
  if (my < 0) {  // not a member: nothing to agree on
    *out = MPI_COMM_NULL;
    if (request) *request = rt().engine().completed_request();
    return MPI_SUCCESS;
  }
  std::sort(world.begin(), world.end());
  ftmpi_comm_s* channel = rt().ft().channel(world, kSaltFampGroup ^ (static_cast<std::uint32_t>(tag) * 0x9e3779b9u));
  return run_split(comm, channel, {SplitRequest{0, my}}, timeout, out, request, sync, fn);
}

}  // namespace

extern "C" int PMPI_Comm_split_sync(MPI_Comm comm, int color, int key, MPI_Timeout timeout, MPI_Comm* newcomm) {
  return isplit(comm, {SplitRequest{color, key}}, timeout, newcomm, nullptr, true, "MPI_Comm_split_sync");
}
FTMPI_ALIAS(Comm_split_sync)
extern "C" int PMPI_Comm_split_local(MPI_Comm comm, int color, int key, MPI_Timeout timeout, MPI_Comm* newcomm) {
  return isplit(comm, {SplitRequest{color, key}}, timeout, newcomm, nullptr, false, "MPI_Comm_split_local");
}
FTMPI_ALIAS(Comm_split_local)
extern "C" int PMPI_Comm_isplit_sync(MPI_Comm comm, int color, int key, MPI_Timeout timeout, MPI_Comm* newcomm,
                                     MPI_Request* request) {
  if (!request) return ret(comm, Status(Errc::arg, "request is NULL"), "MPI_Comm_isplit_sync");
  return isplit(comm, {SplitRequest{color, key}}, timeout, newcomm, request, true, "MPI_Comm_isplit_sync");
}
FTMPI_ALIAS(Comm_isplit_sync)
extern "C" int PMPI_Comm_isplit_local(MPI_Comm comm, int color, int key, MPI_Timeout timeout, MPI_Comm* newcomm,
                                      MPI_Request* request) {
  if (!request) return ret(comm, Status(Errc::arg, "request is NULL"), "MPI_Comm_isplit_local");
  return isplit(comm, {SplitRequest{color, key}}, timeout, newcomm, request, false, "MPI_Comm_isplit_local");
}
FTMPI_ALIAS(Comm_isplit_local)
extern "C" int PMPI_Comm_create_group_sync(MPI_Comm comm, int tag, MPI_Group group, MPI_Timeout timeout, MPI_Comm* out) {
  return igroup(comm, tag, group, timeout, out, nullptr, true, "MPI_Comm_create_group_sync");
}
FTMPI_ALIAS(Comm_create_group_sync)
extern "C" int PMPI_Comm_create_group_local(MPI_Comm comm, int tag, MPI_Group group, MPI_Timeout timeout, MPI_Comm* out) {
  return igroup(comm, tag, group, timeout, out, nullptr, false, "MPI_Comm_create_group_local");
}
FTMPI_ALIAS(Comm_create_group_local)
extern "C" int PMPI_Comm_igroup_sync(MPI_Comm comm, int tag, MPI_Group group, MPI_Timeout timeout, MPI_Comm* out,
                                     MPI_Request* request) {
  if (!request) return ret(comm, Status(Errc::arg, "request is NULL"), "MPI_Comm_igroup_sync");
  return igroup(comm, tag, group, timeout, out, request, true, "MPI_Comm_igroup_sync");
}
FTMPI_ALIAS(Comm_igroup_sync)
extern "C" int PMPI_Comm_igroup_local(MPI_Comm comm, int tag, MPI_Group group, MPI_Timeout timeout, MPI_Comm* out,
                                      MPI_Request* request) {
  if (!request) return ret(comm, Status(Errc::arg, "request is NULL"), "MPI_Comm_igroup_local");
  return igroup(comm, tag, group, timeout, out, request, false, "MPI_Comm_igroup_local");
}
FTMPI_ALIAS(Comm_igroup_local)

// One input communicator: the seed gives the several-communicator form only as an example ("not proposed",
// §8.3), and a process does not know the members of input communicators it is not in, which an agreement
// over their union needs (docs/famp.md explains);
// up to 8 output communicators per process, outcomms[i] for my_color_array[i] (MPI_COMM_NULL for
// MPI_UNDEFINED). colltag is accepted (the agreement's instance order already separates calls).
extern "C" int PMPI_Comm_isplit_multi_sync(int numcomms, MPI_Comm* incomms, int num_outcomms, int colors[], int keys[],
                                           MPI_Timeout timeout, MPI_Comm* outcomms, int colltag, MPI_Request* request) {
  const char* fn = "MPI_Comm_isplit_multi_sync";
  (void)colltag;
  if (numcomms != 1 || !incomms)
    return ret(nullptr, Status(Errc::unsupported, "MPI_Comm_isplit_multi_sync: only numcomms = 1 is implemented (several input communicators: the seed's example form, not proposed; docs/famp.md)"), fn);
  if (!request) return ret(incomms[0], Status(Errc::arg, "request is NULL"), fn);
  if (num_outcomms < 0 || num_outcomms > ftmpi::famp::kMaxSplits)
    return ret(incomms[0], Status(Errc::arg, "num_outcomms must be 0..8"), fn);
  if (num_outcomms > 0 && (!colors || !keys || !outcomms)) return ret(incomms[0], Status(Errc::arg, "NULL array"), fn);
  std::vector<SplitRequest> asks;
  for (int i = 0; i < num_outcomms; ++i) {
    for (int j = 0; j < i; ++j)
      if (colors[j] == colors[i] && colors[i] != MPI_UNDEFINED)
        return ret(incomms[0], Status(Errc::arg, "the same color twice"), fn);
    asks.push_back(SplitRequest{colors[i], keys[i]});
  }
  return isplit(incomms[0], std::move(asks), timeout, outcomms, request, true, fn);
}
FTMPI_ALIAS(Comm_isplit_multi_sync)

// The dynamic-process forms (MPI_Comm_spawn_local, ispawn_*, spawn_merge_*): api/famp_spawn.cpp.
