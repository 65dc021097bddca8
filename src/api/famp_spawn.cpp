// FA-MPI fault-aware process creation (seed 001 §7.5.2; API.md "FA-MPI"): MPI_Comm_spawn_local,
// MPI_Comm_ispawn_local/_sync, MPI_Comm_spawn_merge_local, MPI_Comm_ispawn_merge_local/_sync, on top of
// the dynamic-process layer (dpm/dpm.h) and the fault-tolerant agreement (ft/agreement.h).
//
// Model: dpm.h's (one mpiexec, one host) with the FT layer's failure detector. `numroots` roots
// (list_of_roots, ranks of comm) hold identical arguments; "the origin group is allowed to shrink".
//
// Algorithm (every step run by every member whatever happened before it, so nobody waits for a member that
// skipped one):
//  1. *survivors*: one agreement on `comm` (the split encoding of models/famp/split.h, one color) decides a
//     failed set F and a context id; every survivor builds the same communicator S = comm \ F and the same
//     root: the first of list_of_roots not in F (none left: MPI_ERR_ROOT at every survivor).
//  2. *spawn*: dpm's spawn over S from that root (Dpm::spawn: the launcher starts the children, the root
//     meets them at a private port, MPI_Intercomm_create over S — uniform over both groups in FT mode).
//     The children's parent group is S: they never see the members that failed before the call.
//  3. *sync forms only*: one agreement on S over every member's outcome of step 2 (AND of "no error of
//     kind k" bits); its decision is the outcome everywhere: MPI_SUCCESS, MPI_GROUP_SHRUNK (F not empty:
//     the intercommunicator's local group is the survivors), or an error class (MPI_ERR_SPAWN the children
//     could not start, e.g. one was killed at start; MPI_ERR_PROC_FAILED a parent failed during steps 2-3;
//     a member that got an intercommunicator while the outcome is an error revokes it, so the children
//     learn it too, and frees it). Local forms skip step 3: each member returns its own outcome of step 2,
//     MPI_SUCCESS when only F is not empty (the failure is for the enclosing TryBlock to report).
//  4. *merge forms*: MPI_Intercomm_merge(intercomm, high = 0) (uniform over both groups in FT mode); the
//     parents' intercommunicator is freed. The children get the same intracommunicator by calling
//     MPI_Intercomm_merge(parent, 1, &comm) on MPI_Comm_get_parent's communicator (their MPI_COMM_WORLD
//     stays the children's own: ftmpi does not swap a process's WORLD after MPI_Init).
// Safety: S and the root are functions of step 1's decision (same at every survivor); the sync outcome
// is a function of step 3's decision. array_of_errcodes: the root's codes (step 2 broadcasts them); after a
// failed sync outcome every entry is that outcome's class, at every survivor.
// Timeouts: the agreements (steps 1, 3) wait at most until the deadline (then MPI_TIMEOUT, nothing
// returned; a member that timed out in step 3 revokes its intercommunicator). Step 2 itself is bounded by
// the launcher and the failure detector (mpiexec answers a meeting whose children died; a failed parent
// fails the intercommunicator creation), not by the timeout.
// The nonblocking forms run the steps inside the call (dpm's spawn is blocking) and return a request that
// is already complete, carrying the outcome (MPI_Wait/MPI_Wait_local/a TryBlock commit report it).
// Cost: two agreements on comm/S (one for the local forms) on top of MPI_Comm_spawn.
#include <algorithm>
#include <memory>

#include "api/famp_state.h"
#include "api/info_object.h"
#include "comm/comm_ctors.h"
#include "comm/comm_ops.h"
#include "comm/context_alloc.h"
#include "comm/pool_rounds.h"
#include "dpm/dpm.h"
#include "ft/ft_manager.h"
#include "models/famp/split.h"
#include "runtime/runtime.h"

using ftmpi::Errc;
using ftmpi::Status;
using ftmpi::api::ret;
using ftmpi::api::rt;
using ftmpi::api::famp::Deadline;
using ftmpi::famp::SplitRequest;
using ftmpi::p2p::Request;

namespace {

// Step 1 as a GenericOp. The output lives in a shared box: a caller that timed out abandons it, and the
// communicator built afterwards is freed here. Its context id comes from the non-blocking pool, reserved round
// by round (comm/pool_rounds.h): another thread's blocking creation may run while the agreement is in flight
// (MPI_ERR_INTERN "context id already in use" when it offered the blocking allocator's slots unreserved).
struct SurvivorsBox {
  ftmpi_comm_s* comm = nullptr;
  ftmpi::ft::RankSet failed;
  bool abandoned = false;
};

class SurvivorsOp final : public ftmpi::p2p::GenericOp {
 public:
  SurvivorsOp(ftmpi_comm_s* c, std::shared_ptr<SurvivorsBox> box)
      : c_(c), box_(std::move(box)), rounds_(rt().contexts(), rt().ft(), c, c, 1) {
    start_round();
  }
  bool progress() override {
    for (;;) {
      if (!a_->decided()) return false;
      rt().ft().adopt_failed(c_, a_->failed());
      const auto o = ftmpi::famp::decode_split(a_->value(), a_->failed(), Alloc::kWords, c_->size, MPI_UNDEFINED);
      box_->failed = a_->failed();
      if (o.ok && o.groups.size() == 1) return build(o.groups[0]);
      if (o.ok) {  // (cannot happen: one color, every survivor asks for it)
        result = Status(Errc::intern, "the survivors' agreement decided no single group");
        return true;
      }
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
      return ftmpi::famp::encode_split(std::vector<std::uint64_t>(m.begin(), m.end()), c_->rank, c_->size, {SplitRequest{0, c_->rank}});
    });
  }

  bool build(const ftmpi::famp::SplitGroup& g) {
    Alloc::Mask give = rounds_.take();
    Alloc::mask_drop(give, g.context);
    rt().contexts().give_back_async_mask(give);
    std::vector<int> world;
    for (int r : g.members) world.push_back(c_->world_rank(r));
    ftmpi_comm_s* n = ftmpi::comm::make_comm(ftmpi::comm::make_group(std::move(world), rt().world_rank()), Alloc::async_id_of(g.context), c_);
    rt().ft().register_comm(n);
    if (box_->abandoned) {
      (void)ftmpi::comm::free(rt(), n);
    } else {
      box_->comm = n;
    }
    return true;
  }

  ftmpi_comm_s* c_;
  std::shared_ptr<SurvivorsBox> box_;
  ftmpi::comm::PoolRounds rounds_;  // counted on c_ (as MPI_Comm_idup on it)
  const ftmpi::ft::Agreement* a_ = nullptr;
};

// Step 3's value: bit k set = "no member had an error of kind k" (AND over the members).
enum : std::uint64_t { kNoSpawnError = 1u << 0, kNoProcFailure = 1u << 1, kNoOtherError = 1u << 2, kAllClear = 7 };

std::uint64_t outcome_bits(const Status& st) {
  if (st.ok()) return kAllClear;
  switch (st.code()) {
    case Errc::spawn: return kAllClear & ~std::uint64_t{kNoSpawnError};
    case Errc::proc_failed:
    case Errc::proc_failed_pending:
    case Errc::revoked: return kAllClear & ~std::uint64_t{kNoProcFailure};
    default: return kAllClear & ~std::uint64_t{kNoOtherError};
  }
}

// A request already complete with `st` (the nonblocking forms).
class DoneOp final : public ftmpi::p2p::GenericOp {
 public:
  explicit DoneOp(Status st) { result = std::move(st); }
  bool progress() override { return true; }
};

Status make_command(const char* command, char** argv, int maxprocs, MPI_Info info, ftmpi::dpm::SpawnCommand* out) {
  if (command == nullptr || *command == '\0') return Status(Errc::arg, "the command is NULL or empty");
  if (maxprocs <= 0) return Status(Errc::arg, "maxprocs must be positive");
  if (info != MPI_INFO_NULL && !ftmpi::api::valid_info(info)) return Status(Errc::info, "invalid info object");
  out->command = command;
  out->maxprocs = maxprocs;
  if (argv != MPI_ARGV_NULL)
    for (char** a = argv; *a; ++a) out->args.emplace_back(*a);
  if (info != MPI_INFO_NULL) {
    if (const std::string* v = info->info.get("host")) out->host = *v;
    if (const std::string* v = info->info.get("wdir")) out->wdir = *v;
    if (const std::string* v = info->info.get("path")) out->path = *v;
  }
  return {};
}

struct SpawnArgs {
  char* command;
  char** argv;
  int maxprocs;
  MPI_Info info;
  int numroots;
  int* roots;
  MPI_Timeout timeout;
  int* errcodes;
};

// Steps 1-4. Returns the outcome as a Status (Errc::group_shrunk, Errc::timeout are outcomes) and sets *out.
Status run(ftmpi_comm_s* comm, const SpawnArgs& a, bool sync, bool merge, ftmpi_comm_s** out) {
  *out = nullptr;
  const Deadline d(a.timeout);
  auto fill_codes = [&](int cls) {
    if (a.errcodes != MPI_ERRCODES_IGNORE)
      for (int i = 0; i < a.maxprocs; ++i) a.errcodes[i] = cls;
  };
  // 1.
  auto box = std::make_shared<SurvivorsBox>();
  Request* r = rt().engine().start_generic(std::make_unique<SurvivorsOp>(comm, box));
  ftmpi::p2p::set_comm(r, comm);
  if (!ftmpi::api::famp::wait_until(d, [r] { return r->complete; })) {
    box->abandoned = true;
    rt().engine().release(r);
    return Status(Errc::timeout, "the survivors' agreement did not end before the timeout");
  }
  Status st1 = r->error;
  rt().engine().release(r);
  if (!st1.ok()) return st1;
  ftmpi_comm_s* s = box->comm;
  ftmpi::api::CommHold hold_s(s);
  const bool shrunk = !box->failed.empty();
  int root = -1;
  for (int i = 0; i < a.numroots && root < 0; ++i)
    if (!box->failed.contains(a.roots[i])) root = s->group->rank_of_world(comm->world_rank(a.roots[i]));
  if (root < 0) {
    fill_codes(MPI_ERR_SPAWN);
    (void)ftmpi::comm::free(rt(), s);
    return Status(Errc::root, "every root in list_of_roots failed");
  }
  // 2.
  std::vector<ftmpi::dpm::SpawnCommand> cmds;
  Status before;
  if (s->rank == root) {
    cmds.resize(1);
    before = make_command(a.command, a.argv, a.maxprocs, a.info, &cmds[0]);
    if (!before.ok()) cmds.clear();
  }
  std::vector<int> codes;
  ftmpi_comm_s* inter = nullptr;
  Status st = rt().dpm().spawn(cmds, root, s, &inter, &codes, before);
  if (!st.ok()) inter = nullptr;
  if (a.errcodes != MPI_ERRCODES_IGNORE)
    for (int i = 0; i < a.maxprocs; ++i)
      a.errcodes[i] = static_cast<std::size_t>(i) < codes.size() ? codes[static_cast<std::size_t>(i)] : MPI_ERR_SPAWN;
  auto drop_inter = [&] {
    if (!inter) return;
    rt().ft().revoke(inter);
    (void)ftmpi::comm::free(rt(), inter);
    inter = nullptr;
  };
  // 3.
  if (sync) {
    const ftmpi::ft::Agreement& ag = rt().ft().start_agreement(s, ftmpi::ft::Bits{outcome_bits(st)});
    if (!ftmpi::api::famp::wait_until(d, [&ag] { return ag.decided(); })) {
      drop_inter();
      (void)ftmpi::comm::free(rt(), s);
      return Status(Errc::timeout, "the outcome agreement did not end before the timeout");
    }
    rt().ft().adopt_failed(s, ag.failed());
    const std::uint64_t v = ag.value().empty() ? 0 : ag.value()[0];
    if (!(v & kNoSpawnError)) st = Status(Errc::spawn, "the children could not be started (one failed at start?)");
    else if (!(v & kNoProcFailure) || !ag.failed().empty()) st = Status(Errc::proc_failed, "a process failed during the spawn");
    else if (!(v & kNoOtherError)) st = st.ok() ? Status(Errc::other, "the spawn failed at another member") : st;
    if (!st.ok()) {
      drop_inter();
      fill_codes(ftmpi::api::error_class_of(st.code()));
    }
  }
  (void)ftmpi::comm::free(rt(), s);
  if (!st.ok()) {
    drop_inter();
    return st;
  }
  // 4.
  if (merge) {
    ftmpi_comm_s* merged = nullptr;
    Status m = ftmpi::comm::intercomm_merge(rt(), inter, false, &merged);
    (void)ftmpi::comm::free(rt(), inter);
    if (!m.ok()) {
      if (sync) fill_codes(ftmpi::api::error_class_of(m.code()));
      return m;
    }
    inter = merged;
  }
  *out = inter;
  if (sync && shrunk) return Status(Errc::group_shrunk, "members of comm failed before the spawn; the new communicator holds the survivors");
  return Status::Ok();
}

int famp_spawn(char* command, char** argv, int maxprocs, MPI_Info info, int numroots, int* roots, MPI_Comm comm,
               MPI_Comm* out, MPI_Timeout timeout, int* errcodes, MPI_Request* request, bool sync, bool merge,
               const char* fn) {
  FTMPI_ENTER(fn);
  FTMPI_CHECK_COMM(comm, fn);
  if (comm->is_inter()) return ret(comm, Status(Errc::comm, "an intracommunicator is required"), fn);
  if (!out) return ret(comm, Status(Errc::arg, "the output communicator is NULL"), fn);
  *out = MPI_COMM_NULL;
  if (timeout.ftmpi_ns < 0) return ret(comm, Status(Errc::arg, "negative timeout"), fn);
  if (numroots <= 0 || !roots) return ret(comm, Status(Errc::root, "list_of_roots is empty or NULL"), fn);
  for (int i = 0; i < numroots; ++i)
    if (roots[i] < 0 || roots[i] >= comm->size) return ret(comm, Status(Errc::root, "a root is not a rank of comm"), fn);
  if (maxprocs <= 0) return ret(comm, Status(Errc::arg, "maxprocs must be positive"), fn);
  if (!rt().ft().ft_mode())
    return ret(comm, Status(Errc::unsupported, std::string(fn) + " needs the fault-tolerant mode (mpiexec --with-ft ulfm)"), fn);
  ftmpi::api::CommHold hold(comm);
  ftmpi_comm_s* made = nullptr;
  Status st = run(comm, SpawnArgs{command, argv, maxprocs, info, numroots, roots, timeout, errcodes}, sync, merge, &made);
  *out = made ? made : MPI_COMM_NULL;
  if (request) {
    Request* r = rt().engine().start_generic(std::make_unique<DoneOp>(st));
    ftmpi::p2p::set_comm(r, comm);
    *request = r;
    return MPI_SUCCESS;
  }
  if (st.code() == Errc::group_shrunk) return MPI_GROUP_SHRUNK;
  if (st.code() == Errc::timeout) return MPI_TIMEOUT;
  return ret(comm, st, fn);
}

}  // namespace

extern "C" int PMPI_Comm_spawn_local(char* command, char* argv[], int maxprocs, MPI_Info info, int numroots, int roots[],
                                     MPI_Comm comm, MPI_Comm* intercomm, MPI_Timeout timeout, int errcodes[]) {
  return famp_spawn(command, argv, maxprocs, info, numroots, roots, comm, intercomm, timeout, errcodes, nullptr, false,
                    false, "MPI_Comm_spawn_local");
}
FTMPI_ALIAS(Comm_spawn_local)
extern "C" int PMPI_Comm_ispawn_local(char* command, char* argv[], int maxprocs, MPI_Info info, int numroots, int roots[],
                                      MPI_Comm comm, MPI_Comm* intercomm, MPI_Timeout timeout, int errcodes[],
                                      MPI_Request* request) {
  if (!request) return ret(comm, Status(Errc::arg, "request is NULL"), "MPI_Comm_ispawn_local");
  return famp_spawn(command, argv, maxprocs, info, numroots, roots, comm, intercomm, timeout, errcodes, request, false,
                    false, "MPI_Comm_ispawn_local");
}
FTMPI_ALIAS(Comm_ispawn_local)
extern "C" int PMPI_Comm_ispawn_sync(char* command, char* argv[], int maxprocs, MPI_Info info, int numroots, int roots[],
                                     MPI_Comm comm, MPI_Comm* intercomm, MPI_Timeout timeout, int errcodes[],
                                     MPI_Request* request) {
  if (!request) return ret(comm, Status(Errc::arg, "request is NULL"), "MPI_Comm_ispawn_sync");
  return famp_spawn(command, argv, maxprocs, info, numroots, roots, comm, intercomm, timeout, errcodes, request, true,
                    false, "MPI_Comm_ispawn_sync");
}
FTMPI_ALIAS(Comm_ispawn_sync)
extern "C" int PMPI_Comm_spawn_merge_local(char* command, char* argv[], int maxprocs, MPI_Info info, int numroots,
                                           int roots[], MPI_Comm comm, MPI_Comm* outcomm, MPI_Timeout timeout,
                                           int errcodes[]) {
  return famp_spawn(command, argv, maxprocs, info, numroots, roots, comm, outcomm, timeout, errcodes, nullptr, false,
                    true, "MPI_Comm_spawn_merge_local");
}
FTMPI_ALIAS(Comm_spawn_merge_local)
extern "C" int PMPI_Comm_ispawn_merge_local(char* command, char* argv[], int maxprocs, MPI_Info info, int numroots,
                                            int roots[], MPI_Comm comm, MPI_Comm* outcomm, MPI_Timeout timeout,
                                            int errcodes[], MPI_Request* request) {
  if (!request) return ret(comm, Status(Errc::arg, "request is NULL"), "MPI_Comm_ispawn_merge_local");
  return famp_spawn(command, argv, maxprocs, info, numroots, roots, comm, outcomm, timeout, errcodes, request, false,
                    true, "MPI_Comm_ispawn_merge_local");
}
FTMPI_ALIAS(Comm_ispawn_merge_local)
extern "C" int PMPI_Comm_ispawn_merge_sync(char* command, char* argv[], int maxprocs, MPI_Info info, int numroots,
                                           int roots[], MPI_Comm comm, MPI_Comm* outcomm, MPI_Timeout timeout,
                                           int errcodes[], MPI_Request* request) {
  if (!request) return ret(comm, Status(Errc::arg, "request is NULL"), "MPI_Comm_ispawn_merge_sync");
  return famp_spawn(command, argv, maxprocs, info, numroots, roots, comm, outcomm, timeout, errcodes, request, true,
                    true, "MPI_Comm_ispawn_merge_sync");
}
FTMPI_ALIAS(Comm_ispawn_merge_sync)
