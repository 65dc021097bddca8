// Process fault tolerance, both spellings (seed 000 §1.3 and Open MPI 5's MPIX_ in mpi-ext.h).
// Behavioural differences between the spellings are listed in docs/api.md:
//  * MPI_Comm_shrink rejects a communicator that was not invalidated (MPI_ERR_ARG); MPIX_Comm_shrink
//    accepts any communicator.
//  * MPI_Comm_agreement never reports a process failure; MPIX_Comm_agree returns MPI_ERR_PROC_FAILED, at
//    every process alike, when the agreed failed set holds a member not acknowledged before the call by
//    every contributor (ft/agree_outcome.h; the flag is still the agreed value).
#include <optional>
#include <vector>

#include "api/common.h"
#include "comm/comm_ops.h"
#include "comm/context_alloc.h"
#include "comm/pool_rounds.h"
#include "ft/agree_outcome.h"
#include "ft/ft_manager.h"
#include "mpi-ext.h"

using ftmpi::Errc;
using ftmpi::Status;
using ftmpi::api::ret;
using ftmpi::api::rt;
using ftmpi::ft::Agreement;
using ftmpi::ft::Bits;

namespace {

// Where the agreements of `c` run: `c` itself, or for an intercommunicator its span over both groups
// (FtManager::span: agree, shrink and their flags/failed sets are over every process of both groups).
ftmpi_comm_s* agreement_comm(ftmpi_comm_s* c) { return c->is_inter() ? rt().ft().span(c) : c; }

// `c`'s acknowledged failures, as ranks of agreement_comm(c) (= `on`).
std::vector<int> acked_on(ftmpi_comm_s* c, const ftmpi_comm_s* on) {
  std::vector<int> out;
  for (int i : rt().ft().acked_members(c)) out.push_back(on->group->rank_of_world(ftmpi::ft::FtManager::member_world(c, i)));
  return out;
}

// A group of member indices of `c` (FtManager::failed_members: on an intercommunicator, both groups).
MPI_Group group_of(const ftmpi_comm_s* c, const std::vector<int>& members) {
  if (members.empty()) return MPI_GROUP_EMPTY;
  std::vector<int> world;
  world.reserve(members.size());
  for (int r : members) world.push_back(ftmpi::ft::FtManager::member_world(c, r));
  return ftmpi::comm::make_group(std::move(world), rt().world_rank());
}

// --- agreement (flag) ---------------------------------------------------------------------------------

// A non-blocking agreement on an int flag: the request's generic op fills `outcome`; completion writes
// the flag and the error, both functions of the decision only (ft/agree_outcome.h), so uniform.
class FlagAgreement final : public ftmpi::p2p::GenericOp {
 public:
  FlagAgreement(ftmpi_comm_s* c, int* flag, bool report_failures)
      : c_(agreement_comm(c)),
        flag_(flag),
        report_(report_failures),
        a_(rt().ft().start_agreement(c_, ftmpi::ft::flag_contribution(*flag, acked_on(c, c_), c_->size))) {}
  bool progress() override {
    if (!a_.decided()) return false;
    const ftmpi::ft::FlagOutcome o = ftmpi::ft::flag_outcome(a_.value(), a_.failed());
    *flag_ = o.flag;
    rt().ft().adopt_failed(c_, a_.failed());
    if (report_ && o.proc_failed)
      result = Status(Errc::proc_failed, "processes of the communicator failed and were not acknowledged by all");
    return true;
  }

 private:
  ftmpi_comm_s* c_;  // agreement_comm of the user's communicator
  int* flag_;
  bool report_;
  const Agreement& a_;
};

int iagree(MPI_Comm comm, int* flag, MPI_Request* request, bool report, const char* fn) {
  FTMPI_ENTER(fn);
  FTMPI_CHECK_COMM(comm, fn);
  if (!flag || !request) return ret(comm, Status(Errc::arg, "NULL argument"), fn);
  auto op = std::make_unique<FlagAgreement>(comm, flag, report);
  ftmpi::p2p::Request* r = rt().engine().start_generic(std::move(op));
  ftmpi::p2p::set_comm(r, comm);
  *request = r;
  return MPI_SUCCESS;
}

// Blocking: the agreement instance is waited for directly (no request, no generic op: nothing allocated
// per call once the communicator's instances are reused, ft/ft_manager.h). Same outcome as iagree + wait.
int agree(MPI_Comm comm, int* flag, bool report, const char* fn) {
  FTMPI_ENTER(fn);
  FTMPI_CHECK_COMM(comm, fn);
  if (!flag) return ret(comm, Status(Errc::arg, "NULL argument"), fn);
  ftmpi_comm_s* on = agreement_comm(comm);
  const std::size_t words = ftmpi::ft::flag_words(on->size);
  std::uint64_t small[4];
  Bits big;
  std::span<std::uint64_t> contribution(small, words);
  if (words > std::size(small)) {
    big.resize(words);
    contribution = big;
  }
  // (No acknowledged failure, the common case: no list to build.)
  if (comm->ft == nullptr || comm->ft->acked.empty())
    ftmpi::ft::fill_flag_contribution(contribution, *flag, {}, on->size);
  else
    ftmpi::ft::fill_flag_contribution(contribution, *flag, acked_on(comm, on), on->size);
  // The decision is read right here, before anything else can start an agreement on `on` (reads_at_once);
  // no progress pass when the board decided during the start.
  const Agreement& a = rt().ft().start_agreement(on, contribution, /*waits_decided=*/true, /*reads_at_once=*/true);
  if (!a.decided()) rt().progress().wait_until([&a] { return a.decided(); });
  const ftmpi::ft::FlagOutcome o = ftmpi::ft::flag_outcome(a.value(), a.failed());
  *flag = o.flag;
  if (!a.failed().empty()) rt().ft().adopt_failed(on, a.failed());
  if (report && o.proc_failed)
    return ret(comm, Status(Errc::proc_failed, "processes of the communicator failed and were not acknowledged by all"), fn);
  return MPI_SUCCESS;
}

// --- shrink -------------------------------------------------------------------------------------------

// Agree on the failed set and on a context id, then build the same communicator everywhere: the survivors
// in their old order, the parent's error handler. The ids come from the non-blocking pool, reserved round by
// round (comm/pool_rounds.h): the shrink completes in the progress loop, and blocking creations may run
// meanwhile here (MPIX_Comm_ishrink pending; another thread's, next to a blocking shrink) — offering the blocking
// allocator's free slots unreserved gave MPI_ERR_INTERN "context id already in use" when one of them claimed
// the slot the shrink decided (ft_pending_shrink). A round's AND with too few common slots runs another round.
// Intercommunicator: one agreement over both groups (the span), two ids (the lowest two common slots: the new
// intercommunicator's, and its hidden local communicator's — the same on both sides, whose groups are
// disjoint); the result has the surviving local processes as its local group and the surviving remote ones as
// its remote group, in their old order. If no process of the remote group survived, no communicator can be
// built: MPI_ERR_PROC_FAILED (and MPI_COMM_NULL) at the survivors, who are all local.
class Shrink final : public ftmpi::p2p::GenericOp {
 public:
  Shrink(ftmpi_comm_s* c, MPI_Comm* out)
      : c_(c), on_(agreement_comm(c)), out_(out), rounds_(rt().contexts(), rt().ft(), on_, c, c->is_inter() ? 2 : 1) {
    start_round();
  }
  bool progress() override {
    for (;;) {
      if (!a_->decided()) return false;
      rt().ft().adopt_failed(on_, a_->failed());
      Alloc::Mask common{};
      for (std::size_t i = 0; i < common.size() && i < a_->value().size(); ++i) common[i] = a_->value()[i];
      auto first = Alloc::lowest_common(common);
      std::optional<std::uint32_t> second;
      if (first.ok() && c_->is_inter()) {
        Alloc::mask_drop(common, first.value());
        if (auto s = Alloc::lowest_common(common); s.ok()) second = s.value();
      }
      if (first.ok() && (second || !c_->is_inter())) return build(first.value(), second);
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
    a_ = &rounds_.begin([](const Alloc::Mask& m) { return Bits(m.begin(), m.end()); });
  }

  // The decided mask ids (`second`: an intercommunicator's hidden local communicator): kept; every other
  // reserved slot goes back to the pool.
  bool build(std::uint32_t first, std::optional<std::uint32_t> second) {
    Alloc::Mask give = rounds_.take();
    if (c_->is_inter()) {
      if (finish_inter(Alloc::async_id_of(first), Alloc::async_id_of(*second))) {
        Alloc::mask_drop(give, first);
        Alloc::mask_drop(give, *second);
      }
    } else {
      Alloc::mask_drop(give, first);
      std::vector<int> world;
      for (int r = 0; r < c_->size; ++r)
        if (!a_->failed().contains(r)) world.push_back(c_->world_rank(r));
      ftmpi_comm_s* n = ftmpi::comm::make_comm(ftmpi::comm::make_group(std::move(world), rt().world_rank()),
                                               Alloc::async_id_of(first), c_);
      rt().ft().register_comm(n);
      *out_ = n;
    }
    rt().contexts().give_back_async_mask(give);
    return true;
  }

  // False (no communicator, result set) when every remote process failed.
  bool finish_inter(std::uint32_t ctx, std::uint32_t local_ctx) {
    auto survivors = [this](const ftmpi_group_s* g) {
      std::vector<int> w;
      for (int x : g->world_ranks)
        if (!a_->failed().contains(on_->group->rank_of_world(x))) w.push_back(x);
      return w;
    };
    std::vector<int> local = survivors(c_->group), remote = survivors(c_->remote_group);
    if (remote.empty()) {
      result = Status(Errc::proc_failed, "every process of the intercommunicator's remote group failed (shrink)");
      return false;
    }
    ftmpi_comm_s* hidden = ftmpi::comm::make_comm(ftmpi::comm::make_group(local, rt().world_rank()), local_ctx, c_);
    rt().ft().register_comm(hidden);
    ftmpi_comm_s* n = ftmpi::comm::make_comm(ftmpi::comm::make_group(std::move(local), rt().world_rank()), ctx, c_);
    n->remote_group = ftmpi::comm::make_group(std::move(remote), rt().world_rank());
    n->local_comm = hidden;
    rt().ft().register_comm(n);
    *out_ = n;
    return true;
  }
  ftmpi_comm_s* c_;
  ftmpi_comm_s* on_;  // agreement_comm(c_)
  MPI_Comm* out_;
  ftmpi::comm::PoolRounds rounds_;  // counted on c_ (as MPI_Comm_idup on it)
  const Agreement* a_ = nullptr;
};

int ishrink(MPI_Comm comm, MPI_Comm* newcomm, MPI_Request* request, bool need_revoked, const char* fn) {
  FTMPI_ENTER(fn);
  FTMPI_CHECK_COMM(comm, fn);
  if (!newcomm || !request) return ret(comm, Status(Errc::arg, "NULL argument"), fn);
  if (need_revoked && !comm->revoked.load())
    return ret(comm, Status(Errc::arg, "MPI_Comm_shrink needs an invalidated communicator (seed 000 §1.3.1)"), fn);
  *newcomm = MPI_COMM_NULL;
  ftmpi::p2p::Request* r = rt().engine().start_generic(std::make_unique<Shrink>(comm, newcomm));
  ftmpi::p2p::set_comm(r, comm);
  *request = r;
  return MPI_SUCCESS;
}

int shrink(MPI_Comm comm, MPI_Comm* newcomm, bool need_revoked, const char* fn) {
  ftmpi::api::ApiLock lock;  // as agree()
  MPI_Request req = MPI_REQUEST_NULL;
  int rc = ishrink(comm, newcomm, &req, need_revoked, fn);
  if (rc != MPI_SUCCESS) return rc;
  rt().wait(req);
  Status st = req->error;
  rt().engine().release(req);
  return ret(comm, st, fn);
}

int revoke(MPI_Comm comm, const char* fn) {
  FTMPI_ENTER(fn);
  FTMPI_CHECK_COMM(comm, fn);
  rt().ft().revoke(comm);
  return MPI_SUCCESS;
}

int failure_ack(MPI_Comm comm, const char* fn) {
  FTMPI_ENTER(fn);
  FTMPI_CHECK_COMM(comm, fn);
  rt().ft().acknowledge(comm, -1);
  return MPI_SUCCESS;
}

int get_acked(MPI_Comm comm, MPI_Group* group, const char* fn) {
  FTMPI_ENTER(fn);
  FTMPI_CHECK_COMM(comm, fn);
  if (!group) return ret(comm, Status(Errc::arg, "group is NULL"), fn);
  *group = group_of(comm, rt().ft().acked_members(comm));
  return MPI_SUCCESS;
}

}  // namespace

// Seed 000 spelling (mpi.h).
extern "C" int PMPI_Comm_invalidate(MPI_Comm comm) { return revoke(comm, "MPI_Comm_invalidate"); }
FTMPI_ALIAS(Comm_invalidate)
extern "C" int PMPI_Comm_shrink(MPI_Comm comm, MPI_Comm* newcomm) {
  return shrink(comm, newcomm, true, "MPI_Comm_shrink");
}
FTMPI_ALIAS(Comm_shrink)
extern "C" int PMPI_Comm_failure_ack(MPI_Comm comm) { return failure_ack(comm, "MPI_Comm_failure_ack"); }
FTMPI_ALIAS(Comm_failure_ack)
extern "C" int PMPI_Comm_failure_get_acked(MPI_Comm comm, MPI_Group* g) {
  return get_acked(comm, g, "MPI_Comm_failure_get_acked");
}
FTMPI_ALIAS(Comm_failure_get_acked)
extern "C" int PMPI_Comm_agreement(MPI_Comm comm, int* flag) { return agree(comm, flag, false, "MPI_Comm_agreement"); }
FTMPI_ALIAS(Comm_agreement)
extern "C" int PMPI_Icomm_agreement(MPI_Comm comm, int* flag, MPI_Request* req) {
  return iagree(comm, flag, req, false, "MPI_Icomm_agreement");
}
FTMPI_ALIAS(Icomm_agreement)

// Open MPI 5 / ULFM spelling (mpi-ext.h).
#define FTMPIX_ALIAS(name) \
  extern "C" __attribute__((weak, alias("PMPIX_" #name), visibility("default"))) decltype(PMPIX_##name) MPIX_##name;

extern "C" int PMPIX_Comm_revoke(MPI_Comm comm) { return revoke(comm, "MPIX_Comm_revoke"); }
FTMPIX_ALIAS(Comm_revoke)
extern "C" int PMPIX_Comm_is_revoked(MPI_Comm comm, int* flag) {
  FTMPI_ENTER("MPIX_Comm_is_revoked");
  FTMPI_CHECK_COMM(comm, "MPIX_Comm_is_revoked");
  if (!flag) return ret(comm, Status(Errc::arg, "flag is NULL"), "MPIX_Comm_is_revoked");
  *flag = comm->revoked.load() ? 1 : 0;
  return MPI_SUCCESS;
}
FTMPIX_ALIAS(Comm_is_revoked)
extern "C" int PMPIX_Comm_shrink(MPI_Comm comm, MPI_Comm* newcomm) {
  return shrink(comm, newcomm, false, "MPIX_Comm_shrink");
}
FTMPIX_ALIAS(Comm_shrink)
extern "C" int PMPIX_Comm_ishrink(MPI_Comm comm, MPI_Comm* newcomm, MPI_Request* req) {
  return ishrink(comm, newcomm, req, false, "MPIX_Comm_ishrink");
}
FTMPIX_ALIAS(Comm_ishrink)
extern "C" int PMPIX_Comm_failure_ack(MPI_Comm comm) { return failure_ack(comm, "MPIX_Comm_failure_ack"); }
FTMPIX_ALIAS(Comm_failure_ack)
extern "C" int PMPIX_Comm_failure_get_acked(MPI_Comm comm, MPI_Group* g) {
  return get_acked(comm, g, "MPIX_Comm_failure_get_acked");
}
FTMPIX_ALIAS(Comm_failure_get_acked)
extern "C" int PMPIX_Comm_get_failed(MPI_Comm comm, MPI_Group* g) {
  FTMPI_ENTER("MPIX_Comm_get_failed");
  FTMPI_CHECK_COMM(comm, "MPIX_Comm_get_failed");
  if (!g) return ret(comm, Status(Errc::arg, "group is NULL"), "MPIX_Comm_get_failed");
  rt().progress().poll();  // pick up notices that arrived
  *g = group_of(comm, rt().ft().failed_members(comm, true));
  return MPI_SUCCESS;
}
FTMPIX_ALIAS(Comm_get_failed)
extern "C" int PMPIX_Comm_ack_failed(MPI_Comm comm, int num_to_ack, int* num_acked) {
  FTMPI_ENTER("MPIX_Comm_ack_failed");
  FTMPI_CHECK_COMM(comm, "MPIX_Comm_ack_failed");
  if (!num_acked || num_to_ack < 0) return ret(comm, Status(Errc::arg, "invalid argument"), "MPIX_Comm_ack_failed");
  *num_acked = rt().ft().acknowledge(comm, num_to_ack);
  return MPI_SUCCESS;
}
FTMPIX_ALIAS(Comm_ack_failed)
extern "C" int PMPIX_Comm_agree(MPI_Comm comm, int* flag) { return agree(comm, flag, true, "MPIX_Comm_agree"); }
FTMPIX_ALIAS(Comm_agree)
extern "C" int PMPIX_Comm_iagree(MPI_Comm comm, int* flag, MPI_Request* req) {
  return iagree(comm, flag, req, true, "MPIX_Comm_iagree");
}
FTMPIX_ALIAS(Comm_iagree)
