// FA-MPI TryBlocks (seed 001 §5-7.4) and the published implementation's names (Hassani 2013-14).
//
// A TryBlock is held by the GenericOp of its try request (TryOp): MPI_TryBlock_start/istart create it (the
// seed's forms run a start agreement that "admits or rejects the start of the block", gathering
// local_error_injection; the published MPI_Tryblock_start does not synchronise, and its try request is
// complete at once), the commit (waitall/testall/waitsome/testsome/multiple_waitall, MPI_Tryblock_finish)
// runs the uniform commit of models/famp/commit.h on the block's communicator's agreement, and
// MPI_Request_free ends it (the block object goes back to a pool with its buffers: a fault-free
// start-commit-free allocates nothing). A *plain* block (plain(): MPI_Tryblock_start's, nothing raised, no
// injection) commits without requests on a short path (commit_plain: the same contribution, agreement and
// decode), and its freed try request is kept with its block for the next one (free_try_request). The try
// request is complete once the start is decided: MPI_Wait_local/MPI_Test_local on it give the start's outcome
// and keep it valid.
//
// Outcomes (the commit's class, MPI_TIMEOUT, MPI_GROUP_SHRUNK ...) are results, returned without calling
// the communicator's error handler; wrong arguments are errors and go through it (MPI_ERR_REQUEST for a
// freed/foreign try request or a foreign request, MPI_ERR_ARG for NULL outputs, MPI_ERR_TYPE ...).
//
// Nesting: a block started while others are open (not yet committed) on this process has the innermost one
// as its parent; when a nested block's commit fails, its parent's commit reports a local error injection
// (kFlagInner) at every member of the parent — or a task fault if the failure was a process's.
#include <algorithm>
#include <cstring>
#include <typeinfo>

#include "api/famp_state.h"
#include "api/p2p_args.h"
#include "comm/comm_ops.h"
#include "ft/ft_manager.h"
#include "p2p/request_pool.h"

using ftmpi::Errc;
using ftmpi::Status;
using ftmpi::api::ret;
using ftmpi::api::rt;
using ftmpi::api::famp::Deadline;
using ftmpi::api::famp::inert;
using ftmpi::api::famp::registry;
using ftmpi::api::famp::valid_request;
using ftmpi::famp::CommitClass;
using ftmpi::famp::CommitOutcome;
using ftmpi::famp::Contribution;
using ftmpi::famp::TryCommit;
using ftmpi::ft::Agreement;
using ftmpi::p2p::Request;

namespace ftmpi::api::famp {

// Where a block's agreements run: its communicator, or an intercommunicator's span (both groups).
inline ftmpi_comm_s* agreement_comm(ftmpi_comm_s* c) { return c->is_inter() ? rt().ft().span(c) : c; }
inline ftmpi::famp::InterView view_of(ftmpi_comm_s* c, const ftmpi_comm_s* on) {
  if (!c->is_inter()) return {c->size, 0, true};
  return {c->size, c->remote_group->size(), c->group->rank_of_world(on->world_rank(0)) >= 0};
}

// A block's state. Block objects are reused: MPI_Request_free of the try request returns the block to a
// per-process pool (kPooledBlocks) with its buffers (the start's and the commit's outcomes, the gathered
// state), so that a fault-free block start-commit-free allocates nothing.
struct TryBlock {
  ftmpi_comm_s* comm = nullptr;
  ftmpi_comm_s* on = nullptr;  // agreement_comm(comm): span ranks in contributions and outcomes
  ftmpi::famp::InterView view; // how this member reads outcomes (local group first)
  std::size_t inj_bytes = 0;
  TryBlock* parent = nullptr;
  bool open = true;  // on the open stack (not committed yet)
  // start (seed forms): a commit machine of its own
  bool sync_start = false;
  TryCommit start{0, 0, 0};
  const Agreement* start_agreement = nullptr;
  void* start_gstate = nullptr;  // istart's group_error_state (written when the start decides)
  int start_rc = MPI_SUCCESS;
  // commit: the last decided outcome is commit.outcome() while have_outcome
  TryCommit commit{0, 0, 0};
  const Agreement* commit_agreement = nullptr;
  bool have_outcome = false;
  int last_rc = MPI_SUCCESS;
  // local state (raise_error on the block or its requests, nested failures)
  std::uint32_t flags = 0;
  int raised_code = 0;
  p2p::Request* req = nullptr;  // the try request
  TryBlock* next_live = nullptr;  // Registry::live (intrusive: no allocation per block)
  TryBlock* prev_live = nullptr;

  // A fresh block on `c` (a reused object keeps its buffers).
  void reset(ftmpi_comm_s* c, std::size_t inj) {
    comm = c;
    on = agreement_comm(c);
    view = view_of(c, on);
    inj_bytes = inj;
    parent = nullptr;
    open = true;
    sync_start = false;
    start.reset(on->rank, on->size, inj);
    start_agreement = nullptr;
    start_gstate = nullptr;
    start_rc = MPI_SUCCESS;
    commit.reset(on->rank, on->size, inj);
    commit_agreement = nullptr;
    have_outcome = false;
    last_rc = MPI_SUCCESS;
    flags = 0;
    raised_code = 0;
    req = nullptr;
  }
  const CommitOutcome& last() const { return commit.outcome(); }  // valid while have_outcome
  Status finish_start();  // the start agreement decided: the try request's result
};

// The try request's operation: a handle on its block (MPI_Request_free deletes it, which ends the block).
// Handles come from a free list (class operator new/delete): no heap allocation per block.
struct TryOp final : p2p::GenericOp {
  explicit TryOp(TryBlock* blk) : b(blk) {}
  ~TryOp() override;
  bool progress() override {
    if (!b->sync_start) return true;
    if (!b->start_agreement->decided()) return false;
    result = b->finish_start();
    return true;
  }
  static void* operator new(std::size_t n);
  static void operator delete(void* p) noexcept;
  TryBlock* b;
};

namespace {
constexpr std::size_t kPooledBlocks = 16;  // ended blocks (and handles) kept for reuse
// Ended blocks kept for reuse (constant-initialised: no guard variable on the per-block path).
struct SpareBlocks {
  TryBlock* p[kPooledBlocks];
  std::size_t n = 0;
  ~SpareBlocks() {
    while (n > 0) delete p[--n];
  }
};
SpareBlocks g_spare_blocks;
struct SpareOps {
  void* p[kPooledBlocks];
  std::size_t n = 0;
};
SpareOps& spare_ops() {
  static SpareOps v;
  return v;
}
}  // namespace

void* TryOp::operator new(std::size_t n) {
  auto& v = spare_ops();
  if (n == sizeof(TryOp) && v.n > 0) return v.p[--v.n];
  return ::operator new(n);
}
void TryOp::operator delete(void* p) noexcept {
  auto& v = spare_ops();
  if (v.n < kPooledBlocks) {
    v.p[v.n++] = p;
    return;
  }
  ::operator delete(p);
}

namespace {
// The block of a live try request (nullptr for any other request).
[[gnu::always_inline]] inline TryBlock* try_block(const p2p::Request* r) {
  if (r->kind != p2p::ReqKind::generic || !r->generic) return nullptr;
  // The exact type (TryOp is final): a type_info comparison, cheaper than a dynamic_cast.
  if (typeid(*r->generic) != typeid(TryOp)) return nullptr;
  return static_cast<TryOp*>(r->generic)->b;
}

// A block for a new try request: a pooled object or a new one, linked into Registry::live.
[[gnu::always_inline]] inline TryBlock* new_block(ftmpi_comm_s* c, std::size_t inj) {
  auto& pool = g_spare_blocks;
  TryBlock* b = pool.n > 0 ? pool.p[--pool.n] : new TryBlock;
  b->reset(c, inj);
  auto& reg = registry();
  b->prev_live = nullptr;
  b->next_live = reg.live;
  if (reg.live) reg.live->prev_live = b;
  reg.live = b;
  return b;
}

// The end of a block as its members see it: off the open stack, children re-parented to its parent, no parent
// and no communicator of its own any more (so that no other block's end re-parents it). It stays on the live
// list: end_block, or kept with its try request (free_try_request).
[[gnu::always_inline]] inline void detach_block(TryBlock* b) {
  auto& reg = registry();
  if (b->open) std::erase(reg.open, b);
  b->open = false;
  for (TryBlock* x = reg.live; x; x = x->next_live)
    if (x->parent == b) x->parent = b->parent;
  b->parent = nullptr;
  b->req = nullptr;
  b->comm = b->on = nullptr;
}

// The end of a block (its try request released): detached, off the live list, back to the pool.
[[gnu::always_inline]] inline void end_block(TryBlock* b) {
  detach_block(b);
  auto& reg = registry();
  if (b->prev_live) b->prev_live->next_live = b->next_live; else reg.live = b->next_live;
  if (b->next_live) b->next_live->prev_live = b->prev_live;
  b->next_live = b->prev_live = nullptr;
  auto& pool = g_spare_blocks;
  if (pool.n < kPooledBlocks) pool.p[pool.n++] = b; else delete b;
}

}  // namespace

TryOp::~TryOp() {
  if (b) end_block(b);
}

namespace {
// One freed try request of a plain block, kept for the next one (open_plain_block): its TryOp stays attached
// with its block, which has ended (detach_block: it stays on the live list, as nobody's parent or child), its
// communicator hold is given back, and it is marked freed, so a stale handle is refused like any freed
// request; the next use is a new incarnation of both. It belongs to the engine that made it: after a Reinit
// rollback (a new engine; old ones are never destroyed) it is not reused (its block goes back to the pool).
struct SpareTryRequest {
  Request* r = nullptr;
  const p2p::Engine* engine = nullptr;
};
SpareTryRequest g_spare_request;
}  // namespace

bool free_try_request(Request* r) {
  if (g_spare_request.r != nullptr || !r->complete || r->staging_owned || !r->error.ok() || r->persistent || !r->generic ||
      typeid(*r->generic) != typeid(TryOp))
    return false;
  ftmpi_comm_s* c = r->comm;
  // The last hold on a communicator freed meanwhile: the engine's release retires it.
  if (r->holds_comm && c != nullptr && c->counted && c->holds == 1) return false;
  auto* op = static_cast<TryOp*>(r->generic);
  // Only a plain block's request (complete from its start: never progressed, its status and error untouched);
  // a synchronising start's went through the engine's completion.
  if (op->b->sync_start) return false;
  detach_block(op->b);
  if (r->holds_comm) (void)comm::comm_unhold(c);
  r->comm = nullptr;
  r->holds_comm = false;
  r->magic = kMagicFreed;
  g_spare_request = {r, &rt().engine()};
  return true;
}

void forget_epoch() {
  auto& reg = registry();
  if (g_spare_request.r != nullptr) {  // its block goes back to the pool, the request stays with its engine
    auto* op = static_cast<TryOp*>(g_spare_request.r->generic);
    end_block(op->b);
    op->b = nullptr;
    g_spare_request = {};
  }
  for (TryBlock* b = reg.live; b != nullptr;) {
    TryBlock* next = b->next_live;
    b->open = false;
    b->parent = nullptr;
    b->next_live = b->prev_live = nullptr;
    b = next;
  }
  reg.live = nullptr;
  reg.open.clear();
  reg.comm_raised.clear();
  reg.world_declared_forall.clear();
  reg.marked.clear();
  reg.reported.clear();
  reg.clean_rank = reg.clean_size = -1;
}

// A new plain block on `c` and its try request, complete at once (nothing to wait for, no progress pass):
// the kept ones (free_try_request) or new ones.
[[gnu::always_inline]] inline Request* plain_try_request(ftmpi_comm_s* c, TryBlock** block) {
  Request* r = g_spare_request.r;
  g_spare_request.r = nullptr;
  if (r != nullptr && g_spare_request.engine == &rt().engine()) [[likely]] {
    r->magic = kMagicRequest;
    p2p::RequestPool::new_incarnation(r);
    TryBlock* b = static_cast<TryOp*>(r->generic)->b;
    b->reset(c, 0);  // (on the live list already)
    *block = b;
    return r;
  }
  if (r != nullptr) {  // another engine's (the request stays with it): only the block is taken back
    auto* op = static_cast<TryOp*>(r->generic);
    end_block(op->b);
    op->b = nullptr;
  }
  TryBlock* b = new_block(c, 0);
  r = rt().engine().completed_request();
  r->kind = p2p::ReqKind::generic;
  r->generic = new TryOp(b);
  *block = b;
  return r;
}

}  // namespace ftmpi::api::famp

using ftmpi::api::famp::TryBlock;

namespace {

int class_code(CommitClass c) {
  switch (c) {
    case CommitClass::success: return MPI_SUCCESS;
    case CommitClass::local_error_injection: return MPI_LOCAL_ERROR_INJECTION;
    case CommitClass::task_fault: return MPI_TASK_FAULT;
    case CommitClass::communication_fault: return MPI_COMMUNICATION_FAULT;
    case CommitClass::timeout: return MPI_TIMEOUT;
    case CommitClass::multiple_faults: return MPI_MULTIPLE_FAULTS;
    case CommitClass::unmodeled: return MPI_UNMODELED_FAULT;
  }
  return MPI_UNMODELED_FAULT;
}

Status type_bytes(MPI_Datatype type, std::size_t* bytes) {
  *bytes = 0;
  if (type == MPI_DATATYPE_NULL) return Status::Ok();
  if (!ftmpi::api::valid_type(type)) return Status(Errc::type, "invalid or uncommitted datatype");
  *bytes = type->size;
  return Status::Ok();
}

// The block of a try request, or an explanation.
ftmpi::Result<TryBlock*> block_of(MPI_Request r) {
  if (r == MPI_REQUEST_NULL) return Status(Errc::request, "the try request is MPI_REQUEST_NULL (freed or never started)");
  TryBlock* b = valid_request(r) ? ftmpi::api::famp::try_block(r) : nullptr;
  if (!b)
    return Status(Errc::request, "not a try request: freed, or not created by MPI_TryBlock_start/istart/MPI_Tryblock_start");
  return b;
}

// Local contribution: the block's own flags, errors raised on its communicator, declared failures.
// Into `c`, whose buffers are reused (Registry::contribution).
void local_contribution(TryBlock* b, const void* injection, Contribution& c) {
  c.flags = b->flags;
  c.raised_code = b->raised_code;
  c.declared_failed.clear();
  c.injection.clear();
  auto& reg = registry();
  auto add_declared = [&](int world) {
    const int r = b->on->group->rank_of_world(world);
    if (r >= 0) c.declared_failed.push_back(r);
  };
  if (auto it = reg.comm_raised.empty() ? reg.comm_raised.end() : reg.comm_raised.find(ftmpi::api::famp::Registry::key(b->comm));
      it != reg.comm_raised.end()) {
    if (it->second.code != 0) {
      c.flags |= ftmpi::famp::kFlagRaised;
      if (!c.raised_code) c.raised_code = it->second.code;
    }
    for (int w : it->second.world_declared) add_declared(w);
  }
  for (int w : reg.world_declared_forall) add_declared(w);
  if (b->inj_bytes > 0) {
    c.injection.assign(b->inj_bytes, std::byte{0});
    if (injection) std::memcpy(c.injection.data(), injection, b->inj_bytes);
  }
}
Contribution local_contribution(TryBlock* b, const void* injection) {
  Contribution c;
  local_contribution(b, injection, c);
  return c;
}

// group_error_state in the member's view: its local group's states, then (intercommunicator) the remote group's.
void write_gathered(const TryBlock* b, const CommitOutcome& o, void* group_error_state) {
  if (!group_error_state || b->inj_bytes == 0 || o.gathered.empty()) return;
  if (b->view.remote_size == 0) {
    std::memcpy(group_error_state, o.gathered.data(), o.gathered.size());
    return;
  }
  const CommitOutcome v = ftmpi::famp::to_view(b->view, o, b->inj_bytes);
  std::memcpy(group_error_state, v.gathered.data(), v.gathered.size());
}

}  // namespace

Status ftmpi::api::famp::TryBlock::finish_start() {
  start.on_decided(start_agreement->value(), start_agreement->failed());
  rt().ft().adopt_failed(on, start_agreement->failed());
  const CommitOutcome& o = start.outcome();
  write_gathered(this, o, start_gstate);
  start_gstate = nullptr;
  start_rc = class_code(o.cls);
  // The start's outcome is what Wait_local/Test_local on the try request report (as the request's error).
  switch (o.cls) {
    case CommitClass::success: return Status::Ok();
    case CommitClass::local_error_injection: return Status(Errc::local_error_injection, "a member raised an error at the start");
    case CommitClass::task_fault: return Status(Errc::task_fault, "a member of the block failed");
    case CommitClass::communication_fault: return Status(Errc::communication_fault, "communication fault");
    case CommitClass::timeout: return Status(Errc::timeout, "a member timed out");
    case CommitClass::multiple_faults: return Status(Errc::multiple_faults, "several kinds of faults");
    case CommitClass::unmodeled: return Status(Errc::unmodeled_fault, "unmodeled fault");
  }
  return Status(Errc::unmodeled_fault, "unmodeled fault");
}

namespace {

// Open a block on `comm` without a start agreement and without injection (MPI_Tryblock_start): its try
// request is complete at once (no progress pass needed). Returns the try request.
Request* open_plain_block(ftmpi_comm_s* comm) {
  auto& reg = registry();
  TryBlock* b;
  Request* r = ftmpi::api::famp::plain_try_request(comm, &b);
  b->parent = reg.open.empty() ? nullptr : reg.open.back();
  ftmpi::p2p::set_comm(r, comm);
  b->req = r;
  reg.open.push_back(b);
  return r;
}

// Start a block on `comm`. sync: run the start agreement (blocking waits for it up to `timeout`).
int start_block(MPI_Comm comm, MPI_Datatype type, void* injection, void* group_error_state, MPI_Timeout timeout,
                MPI_Request* try_request, bool sync, bool blocking, const char* fn) {
  FTMPI_ENTER(fn);
  FTMPI_CHECK_COMM(comm, fn);
  if (!try_request) return ret(comm, Status(Errc::arg, "try_request is NULL"), fn);
  if (timeout.ftmpi_ns < 0) return ret(comm, Status(Errc::arg, "negative timeout"), fn);
  std::size_t inj = 0;
  if (Status st = type_bytes(type, &inj); !st.ok()) return ret(comm, st, fn);
  if (inj > 0 && !injection) return ret(comm, Status(Errc::arg, "local_error_injection is NULL"), fn);
  if (inj > 0 && !group_error_state) return ret(comm, Status(Errc::arg, "group_error_state is NULL"), fn);
  if (!sync && inj == 0) {
    *try_request = open_plain_block(comm);
    return MPI_SUCCESS;
  }
  auto& reg = registry();
  TryBlock* b = ftmpi::api::famp::new_block(comm, inj);
  b->parent = reg.open.empty() ? nullptr : reg.open.back();
  b->sync_start = sync;
  Request* r;
  if (sync) {
    b->start_gstate = group_error_state;
    local_contribution(b, injection, reg.contribution);
    b->start.contribute_into(reg.commit_value, reg.contribution);
    reg.clean_rank = reg.clean_size = -1;
    b->start_agreement = &rt().ft().start_agreement(b->on, reg.commit_value, blocking && Deadline(timeout).unlimited());
    r = rt().engine().start_generic(std::unique_ptr<ftmpi::p2p::GenericOp>(new ftmpi::api::famp::TryOp(b)));
  } else {
    // Nothing to wait for: the try request is complete from the start (no progress pass needed).
    r = rt().engine().completed_request();
    r->kind = ftmpi::p2p::ReqKind::generic;
    r->generic = new ftmpi::api::famp::TryOp(b);
  }
  ftmpi::p2p::set_comm(r, comm);
  b->req = r;
  reg.open.push_back(b);
  *try_request = r;
  if (!sync || !blocking) return MPI_SUCCESS;
  if (!ftmpi::api::famp::wait_until(Deadline(timeout), [r] { return r->complete; })) return MPI_TIMEOUT;
  return b->start_rc;
}

// Check the requests of a commit: valid, not try requests, on a communicator within the block's.
Status check_block_requests(TryBlock* b, int count, MPI_Request reqs[]) {
  if (count < 0) return Status(Errc::count, "negative request count");
  if (count > 0 && !reqs) return Status(Errc::arg, "request array is NULL");
  for (int i = 0; i < count; ++i) {
    Request* r = reqs[i];
    if (!r) continue;
    if (!valid_request(r)) return Status(Errc::request, "request " + std::to_string(i) + " is invalid or freed");
    if (ftmpi::api::famp::try_block(r))
      return Status(Errc::request, "request " + std::to_string(i) + " is a try request; commit nested blocks with their own commit (or MPI_TryBlock_multiple_waitall)");
    const ftmpi_comm_s* c = r->comm;
    if (!c || c == b->comm) continue;
    // Every member of the request's communicator (both groups of an intercommunicator) is a member of the
    // block's (of its span, for a block on an intercommunicator).
    bool inside = c->group != nullptr;
    for (const ftmpi_group_s* g : {c->group, c->is_inter() ? c->remote_group : nullptr})
      for (int k = 0; inside && g && k < g->size(); ++k)
        inside = b->on->group->rank_of_world(g->world_ranks[static_cast<std::size_t>(k)]) >= 0;
    if (!inside)
      return Status(Errc::request, "request " + std::to_string(i) +
                                       " is foreign to this TryBlock: its communicator has members outside the block's communicator");
  }
  return Status::Ok();
}

bool settled(const Request* r) { return inert(r) || r->complete || rt().pending_by_failure(r); }

struct CommitArgs {
  int* try_flag = nullptr;
  MPI_Status* try_status = nullptr;
  const void* injection = nullptr;
  void* group_error_state = nullptr;
  int count = 0;
  MPI_Request* reqs = nullptr;
  MPI_Status* statuses = nullptr;
  int* numerrors = nullptr;
  int* error_indices = nullptr;
};

inline int conclude(TryBlock* b, const CommitOutcome& o, const CommitArgs& a);

// Can the block's next commit take commit_plain? Nothing local can make its contribution other than the
// clean one: no start agreement (whose lateness would add kFlagTimeout), no injection, nothing raised on
// the block, no error raised or rank declared failed on any communicator, and no commit under way.
[[gnu::always_inline]] inline bool plain(const TryBlock* b) {
  const auto& reg = registry();
  const TryCommit::Phase p = b->commit.phase();
  return !b->sync_start && b->inj_bytes == 0 && b->flags == 0 && b->raised_code == 0 && reg.comm_raised.empty() &&
         reg.world_declared_forall.empty() && (p == TryCommit::Phase::open || p == TryCommit::Phase::decided);
}

// commit_block for a blocking commit of a plain() block without requests (an empty MPI_Tryblock_finish):
// the same contribution (the clean one, as local_contribution would give), agreement, decision and
// outcome, without the steps that have nothing to do (no request to wait for, check, report or free; no
// start agreement to wait for). The outcome is decode()'s, as always: uniform whatever failed meanwhile.
int commit_plain(TryBlock* b, const Deadline& d, const CommitArgs& a) {
  auto& reg = registry();
  ftmpi_comm_s* on = b->on;
  b->commit.reset(on->rank, on->size, 0);
  if (reg.clean_rank == on->rank && reg.clean_size == on->size) {
    b->commit.contribute_unchanged();
  } else {
    Contribution& c = reg.contribution;
    c.flags = 0;
    c.raised_code = 0;
    c.declared_failed.clear();
    c.injection.clear();
    b->commit.contribute_into(reg.commit_value, c);
    reg.clean_rank = on->rank;
    reg.clean_size = on->size;
  }
  const bool unlimited = d.unlimited();
  const Agreement* ag = &rt().ft().start_agreement(on, reg.commit_value, unlimited, unlimited);
  b->commit_agreement = ag;
  if (!ag->decided() && !ftmpi::api::famp::wait_until(d, [ag] { return ag->decided(); })) {
    b->commit.on_deadline();  // a later commit call waits for the same agreement (commit_block)
    return MPI_TIMEOUT;
  }
  b->commit.on_decided(ag->value(), ag->failed());
  if (!ag->failed().empty()) rt().ft().adopt_failed(on, ag->failed());
  const CommitOutcome& o = b->last();
  b->have_outcome = true;
  b->last_rc = class_code(o.cls);
  if (a.numerrors) *a.numerrors = 0;
  return conclude(b, o, a);
}

// The commit. blocking: waits up to the deadline, MPI_TIMEOUT if it runs out (the commit's agreement was
// started with kFlagTimeout if the requests were not done, so nobody waits for this member forever).
// Not blocking (testall): *done = false while the requests are not done or the agreement undecided.
int commit_block(TryBlock* b, const Deadline& d, const CommitArgs& a, bool blocking, bool* done) {
  *done = false;
  if (b->commit.phase() == TryCommit::Phase::open || b->commit.phase() == TryCommit::Phase::decided) {
    auto requests_done = [&] {
      for (int i = 0; i < a.count; ++i)
        if (!settled(a.reqs[i])) return false;
      return true;
    };
    if (blocking) {
      ftmpi::api::famp::wait_until(d, requests_done);
    } else {
      rt().progress().poll();
      if (!requests_done()) return MPI_SUCCESS;
    }
    auto& reg = registry();
    Contribution& c = reg.contribution;
    local_contribution(b, a.injection, c);
    auto& marked = reg.marked;
    for (int i = 0; i < a.count; ++i) {
      const Request* r = a.reqs[i];
      if (inert(r)) continue;
      if (auto it = marked.empty() ? marked.end() : marked.find(r); it != marked.end() && it->second.incarnation == r->incarnation) {
        c.flags |= ftmpi::famp::kFlagRaised;
        if (!c.raised_code) c.raised_code = it->second.code;
      }
      if (!settled(r)) {
        c.flags |= ftmpi::famp::kFlagTimeout;
      } else if (!r->complete) {
        c.flags |= ftmpi::famp::kFlagProc;  // ANY_SOURCE blocked by a failure
      } else if (!r->error.ok()) {
        const Errc e = r->error.code();
        c.flags |= (e == Errc::proc_failed || e == Errc::proc_failed_pending || e == Errc::revoked) ? ftmpi::famp::kFlagProc
                                                                                                  : ftmpi::famp::kFlagComm;
      }
    }
    if (b->sync_start && !b->start_agreement->decided()) c.flags |= ftmpi::famp::kFlagTimeout;
    b->commit.reset(b->on->rank, b->on->size, b->inj_bytes);
    const bool clean = c.flags == 0 && c.raised_code == 0 && c.declared_failed.empty() && b->inj_bytes == 0;
    if (clean && reg.clean_rank == b->on->rank && reg.clean_size == b->on->size) {
      b->commit.contribute_unchanged();
    } else {
      b->commit.contribute_into(reg.commit_value, c);
      reg.clean_rank = clean ? b->on->rank : -1;
      reg.clean_size = clean ? b->on->size : -1;
    }
    // reads_at_once: a blocking commit reads the decision below, in this call (wait_until tests it first).
    b->commit_agreement = &rt().ft().start_agreement(b->on, reg.commit_value, blocking && d.unlimited(), blocking && d.unlimited());
  }
  const Agreement* ag = b->commit_agreement;
  bool decided;
  if (blocking) {
    decided = ftmpi::api::famp::wait_until(d, [ag] { return ag->decided(); });
  } else {
    if (!ag->decided()) rt().progress().poll();
    decided = ag->decided();
  }
  if (!decided) {
    b->commit.on_deadline();
    return blocking ? MPI_TIMEOUT : MPI_SUCCESS;
  }
  b->commit.on_decided(ag->value(), ag->failed());
  if (!ag->failed().empty()) rt().ft().adopt_failed(b->on, ag->failed());
  // A try request without a start agreement completes in the first progress pass; an agreement decided
  // without one (a single member) must not leave it pending, or MPI_Request_free would only mark it.
  if (!b->req->complete) rt().progress().poll();
  const CommitOutcome& o = b->last();
  b->have_outcome = true;
  b->last_rc = class_code(o.cls);
  *done = true;
  // Local results: statuses, errors, requests freed (the seed's "+ free descriptors").
  int nerr = 0;
  for (int i = 0; i < a.count; ++i) {
    MPI_Status* s = a.statuses ? &a.statuses[i] : nullptr;
    Request* r = a.reqs[i];
    if (inert(r)) {
      ftmpi::api::empty_status(s);
      continue;
    }
    bool bad = false;
    int cls = MPI_SUCCESS;
    if (!r->complete) {
      cls = settled(r) ? MPI_ERR_PROC_FAILED_PENDING : MPI_TIMEOUT;  // stays valid
      bad = true;
    } else {
      ftmpi::api::fill_status(s, r);
      cls = ftmpi::api::error_class_of(r->error.code());
      bad = !r->error.ok();
    }
    auto& marked = registry().marked;
    if (auto it = marked.empty() ? marked.end() : marked.find(r); it != marked.end()) {
      if (it->second.incarnation == r->incarnation) {
        bad = true;
        if (cls == MPI_SUCCESS) cls = MPI_LOCAL_ERROR_INJECTION;
      }
      if (r->complete) marked.erase(it);
    }
    if (s) s->MPI_ERROR = cls;
    if (bad) {
      if (a.error_indices) a.error_indices[nerr] = i;
      ++nerr;
    }
    if (r->complete) {
      if (auto& rep = registry().reported; !rep.empty()) rep.erase(r);
      if (r->persistent) {
        r->active = false;
      } else {
        rt().engine().release(r);
        a.reqs[i] = MPI_REQUEST_NULL;
      }
    }
  }
  if (a.numerrors) *a.numerrors = nerr;
  return conclude(b, o, a);
}

// The end of a decided commit (after its requests): try_flag, try_status, the gathered state, and the
// block closed (its failure counts against the enclosing block). Returns the commit's class.
[[gnu::always_inline]] inline int conclude(TryBlock* b, const CommitOutcome& o, const CommitArgs& a) {
  if (a.try_flag) *a.try_flag = o.try_flag ? 1 : 0;
  if (a.try_status) {
    a.try_status->MPI_ERROR = b->last_rc;
    a.try_status->MPI_SOURCE = static_cast<int>(o.failed.size());  // members in the failed group
    a.try_status->MPI_TAG = static_cast<int>(o.flags);              // union of the members' fault flags
    a.try_status->ftmpi_count = 0;
    a.try_status->ftmpi_cancelled = 0;
  }
  write_gathered(b, o, a.group_error_state);
  // Nesting: the block is closed; a failure counts against the enclosing block.
  auto& open = registry().open;
  if (!open.empty() && open.back() == b)  // the innermost block (the usual order)
    open.pop_back();
  else
    std::erase(open, b);
  b->open = false;
  if (!o.try_flag && b->parent) b->parent->flags |= ftmpi::famp::kFlagInner;
  return b->last_rc;
}

// Common argument checks of the commit family.
Status check_commit_args(TryBlock* b, MPI_Datatype type, const void* injection, void* gstate, MPI_Timeout t) {
  if (type == MPI_DATATYPE_NULL && b->inj_bytes == 0 && t.ftmpi_ns >= 0) [[likely]]
    return Status::Ok();  // a block without injection (MPI_Tryblock_finish)
  if (t.ftmpi_ns < 0) return Status(Errc::arg, "negative timeout");
  std::size_t inj = 0;
  if (Status st = type_bytes(type, &inj); !st.ok()) return st;
  if (inj != b->inj_bytes)
    return Status(Errc::type, "the datatype's size differs from the one given to MPI_TryBlock_start");
  if (inj > 0 && (!injection || !gstate)) return Status(Errc::arg, "local_error_injection or group_error_state is NULL");
  return Status::Ok();
}

// waitall inside the API lock (FTMPI_ENTER taken by the caller).
int waitall_entered(MPI_Request try_request, int* try_flag, MPI_Status* try_status, MPI_Datatype type, void* injection,
                    void* gstate, MPI_Timeout timeout, int count, MPI_Request reqs[], MPI_Status statuses[], int* numerrors,
                    int error_indices[], const char* fn) {
  TryBlock* b = try_request != MPI_REQUEST_NULL && valid_request(try_request) ? ftmpi::api::famp::try_block(try_request) : nullptr;
  if (b == nullptr) [[unlikely]]
    return ret(nullptr, block_of(try_request).status(), fn);
  if (!try_flag) return ret(b->comm, Status(Errc::arg, "try_flag is NULL"), fn);
  if (type != MPI_DATATYPE_NULL || b->inj_bytes != 0 || timeout.ftmpi_ns < 0)  // (else nothing to check: MPI_Tryblock_finish)
    if (Status st = check_commit_args(b, type, injection, gstate, timeout); !st.ok()) return ret(b->comm, st, fn);
  const CommitArgs a{try_flag, try_status, injection, gstate, count, reqs, statuses, numerrors, error_indices};
  // Nothing to release: the try request holds the block's communicator for the call (no CommHold).
  if (count == 0 && plain(b)) return commit_plain(b, Deadline(timeout), a);
  if (Status st = check_block_requests(b, count, reqs); !st.ok()) return ret(b->comm, st, fn);
  ftmpi::api::CommHold hold(b->comm);
  bool done = false;
  return commit_block(b, Deadline(timeout), a, true, &done);
}

int waitall(MPI_Request try_request, int* try_flag, MPI_Status* try_status, MPI_Datatype type, void* injection,
            void* gstate, MPI_Timeout timeout, int count, MPI_Request reqs[], MPI_Status statuses[], int* numerrors,
            int error_indices[], const char* fn) {
  FTMPI_ENTER(fn);
  return waitall_entered(try_request, try_flag, try_status, type, injection, gstate, timeout, count, reqs, statuses,
                         numerrors, error_indices, fn);
}

}  // namespace

// --- seed 001 names ----------------------------------------------------------------------------------
extern "C" int PMPI_TryBlock_start(MPI_Comm comm, MPI_Datatype type, void* inj, void* gstate, MPI_Timeout timeout,
                                   MPI_Request* try_request) {
  return start_block(comm, type, inj, gstate, timeout, try_request, true, true, "MPI_TryBlock_start");
}
FTMPI_ALIAS(TryBlock_start)
extern "C" int PMPI_TryBlock_istart(MPI_Comm comm, MPI_Datatype type, void* inj, void* gstate, MPI_Timeout timeout,
                                    MPI_Request* try_request) {
  return start_block(comm, type, inj, gstate, timeout, try_request, true, false, "MPI_TryBlock_istart");
}
FTMPI_ALIAS(TryBlock_istart)

extern "C" int PMPI_TryBlock_waitall(MPI_Request try_request, int* try_flag, MPI_Status* try_status, MPI_Datatype type,
                                     void* inj, void* gstate, MPI_Timeout timeout, int count, MPI_Request reqs[],
                                     MPI_Status statuses[], int* numerrors, int error_indices[]) {
  return waitall(try_request, try_flag, try_status, type, inj, gstate, timeout, count, reqs, statuses, numerrors,
                 error_indices, "MPI_TryBlock_waitall");
}
FTMPI_ALIAS(TryBlock_waitall)

// testall: *flag = 1 once the commit is decided (then as waitall); before, the requests stay untouched. A
// non-zero timeout keeps testing until it runs out (then MPI_TIMEOUT), zero tests once.
extern "C" int PMPI_TryBlock_testall(MPI_Request try_request, int* try_flag, MPI_Status* try_status, MPI_Datatype type,
                                     void* inj, void* gstate, MPI_Timeout timeout, int count, MPI_Request reqs[],
                                     int* flag, MPI_Status statuses[], int* numerrors, int error_indices[]) {
  const char* fn = "MPI_TryBlock_testall";
  FTMPI_ENTER(fn);
  auto bl = block_of(try_request);
  if (!bl.ok()) return ret(nullptr, bl.status(), fn);
  TryBlock* b = bl.value();
  if (!try_flag || !flag) return ret(b->comm, Status(Errc::arg, "try_flag or flag is NULL"), fn);
  if (Status st = check_commit_args(b, type, inj, gstate, timeout); !st.ok()) return ret(b->comm, st, fn);
  if (Status st = check_block_requests(b, count, reqs); !st.ok()) return ret(b->comm, st, fn);
  ftmpi::api::CommHold hold(b->comm);
  const Deadline d(timeout);
  const CommitArgs a{try_flag, try_status, inj, gstate, count, reqs, statuses, numerrors, error_indices};
  *flag = 0;
  for (;;) {
    bool done = false;
    const int rc = commit_block(b, d, a, false, &done);
    if (done) {
      *flag = 1;
      return rc;
    }
    if (timeout.ftmpi_ns == 0) return MPI_SUCCESS;
    if (d.expired()) return MPI_TIMEOUT;
  }
}
FTMPI_ALIAS(TryBlock_testall)

// waitsome/testsome: report the block's requests that completed locally since the last call (they stay
// valid, as with MPI_Waitsome_local); once all of them are complete, commit as waitall (*try_flag, the
// statuses of the last ones, requests freed). Until then try_status->MPI_ERROR is MPI_ERR_PENDING.
namespace {
int some(MPI_Request try_request, int* try_flag, MPI_Status* try_status, MPI_Datatype type, void* inj, void* gstate,
         MPI_Timeout timeout, int incount, MPI_Request reqs[], int* outcount, int indices[], MPI_Status statuses[],
         int* numerrors, int error_indices[], bool blocking, const char* fn) {
  FTMPI_ENTER(fn);
  auto bl = block_of(try_request);
  if (!bl.ok()) return ret(nullptr, bl.status(), fn);
  TryBlock* b = bl.value();
  if (!try_flag || !outcount) return ret(b->comm, Status(Errc::arg, "try_flag or outcount is NULL"), fn);
  if (Status st = check_commit_args(b, type, inj, gstate, timeout); !st.ok()) return ret(b->comm, st, fn);
  if (Status st = check_block_requests(b, incount, reqs); !st.ok()) return ret(b->comm, st, fn);
  ftmpi::api::CommHold hold(b->comm);
  auto& rep = registry().reported;
  auto reported = [&](const Request* r) {
    auto it = rep.find(r);
    return it != rep.end() && it->second == r->incarnation;
  };
  auto fresh = [&] {
    for (int i = 0; i < incount; ++i)
      if (!inert(reqs[i]) && reqs[i]->complete && !reported(reqs[i])) return true;
    return false;
  };
  auto all_done = [&] {
    for (int i = 0; i < incount; ++i)
      if (!settled(reqs[i])) return false;
    return true;
  };
  *try_flag = 0;
  *outcount = 0;
  if (try_status) try_status->MPI_ERROR = MPI_ERR_PENDING;
  const Deadline d(timeout);
  if (blocking) {
    if (!ftmpi::api::famp::wait_until(d, [&] { return fresh() || all_done(); })) return MPI_TIMEOUT;
  } else {
    rt().progress().poll();
  }
  int n = 0;
  for (int i = 0; i < incount; ++i) {
    Request* r = reqs[i];
    if (inert(r) || !r->complete || reported(r)) continue;
    rep[r] = r->incarnation;
    if (indices) indices[n] = i;
    if (statuses) {
      ftmpi::api::fill_status(&statuses[n], r);
      statuses[n].MPI_ERROR = ftmpi::api::error_class_of(r->error.code());
    }
    ++n;
  }
  *outcount = n;
  if (!all_done()) return MPI_SUCCESS;
  bool done = false;
  const int rc = commit_block(b, d, CommitArgs{try_flag, try_status, inj, gstate, incount, reqs, nullptr, numerrors, error_indices},
                              blocking, &done);
  return rc;
}
}  // namespace

extern "C" int PMPI_TryBlock_waitsome(MPI_Request try_request, int* try_flag, MPI_Status* try_status, MPI_Datatype type,
                                      void* inj, void* gstate, MPI_Timeout timeout, int incount, MPI_Request reqs[],
                                      int* outcount, int indices[], MPI_Status statuses[], int* numerrors,
                                      int error_indices[]) {
  return some(try_request, try_flag, try_status, type, inj, gstate, timeout, incount, reqs, outcount, indices,
              statuses, numerrors, error_indices, true, "MPI_TryBlock_waitsome");
}
FTMPI_ALIAS(TryBlock_waitsome)
extern "C" int PMPI_TryBlock_testsome(MPI_Request try_request, int* try_flag, MPI_Status* try_status, MPI_Datatype type,
                                      void* inj, void* gstate, MPI_Timeout timeout, int incount, MPI_Request reqs[],
                                      int* outcount, int indices[], MPI_Status statuses[], int* numerrors,
                                      int error_indices[]) {
  return some(try_request, try_flag, try_status, type, inj, gstate, timeout, incount, reqs, outcount, indices,
              statuses, numerrors, error_indices, false, "MPI_TryBlock_testsome");
}
FTMPI_ALIAS(TryBlock_testsome)

// Several (nested) blocks at once: the requests are completed and freed with the last block's commit; the
// blocks are committed innermost first (array order reversed when they nest), each with the others' failures
// counting as nested failures. Returns the first non-success class (MPI_SUCCESS if all committed).
extern "C" int PMPI_TryBlock_multiple_waitall(int n_try, MPI_Request try_reqs[], int try_flags[], MPI_Status try_statuses[],
                                              MPI_Datatype type, void* inj, void* gstate, MPI_Timeout timeout, int count,
                                              MPI_Request reqs[], MPI_Status statuses[], int* numerrors,
                                              int error_indices[]) {
  const char* fn = "MPI_TryBlock_multiple_waitall";
  FTMPI_ENTER(fn);
  if (n_try < 0 || (n_try > 0 && (!try_reqs || !try_flags))) return ret(nullptr, Status(Errc::arg, "bad try request array"), fn);
  std::vector<TryBlock*> blocks;
  for (int i = 0; i < n_try; ++i) {
    auto bl = block_of(try_reqs[i]);
    if (!bl.ok()) return ret(nullptr, bl.status(), fn);
    if (Status st = check_commit_args(bl.value(), type, inj, gstate, timeout); !st.ok()) return ret(bl.value()->comm, st, fn);
    blocks.push_back(bl.value());
  }
  if (!blocks.empty())
    if (Status st = check_block_requests(blocks.back(), count, reqs); !st.ok()) return ret(blocks.back()->comm, st, fn);
  // Innermost first: a block whose parent chain contains another block of the array is committed before it.
  std::vector<int> order(static_cast<std::size_t>(n_try));
  for (int i = 0; i < n_try; ++i) order[static_cast<std::size_t>(i)] = i;
  auto depth = [](TryBlock* b) {
    int d = 0;
    for (TryBlock* p = b->parent; p; p = p->parent) ++d;
    return d;
  };
  std::stable_sort(order.begin(), order.end(), [&](int x, int y) { return depth(blocks[static_cast<std::size_t>(x)]) > depth(blocks[static_cast<std::size_t>(y)]); });
  const Deadline d(timeout);
  int first = MPI_SUCCESS;
  // The requests are waited for (locally) once, then every block commits; the last one frees them.
  for (std::size_t k = 0; k < order.size(); ++k) {
    const int i = order[k];
    TryBlock* b = blocks[static_cast<std::size_t>(i)];
    ftmpi::api::CommHold hold(b->comm);
    const bool last = k + 1 == order.size();
    CommitArgs a{&try_flags[i], try_statuses ? &try_statuses[i] : nullptr, inj,
                 // the gathered state of the outermost (last) block
                 last ? gstate : nullptr, last ? count : 0, last ? reqs : nullptr, last ? statuses : nullptr,
                 last ? numerrors : nullptr, last ? error_indices : nullptr};
    if (!last) {  // the requests' errors belong to every block
      std::vector<MPI_Request> copy(reqs, reqs + count);
      ftmpi::api::famp::wait_until(d, [&] {
        for (int j = 0; j < count; ++j)
          if (!settled(copy[static_cast<std::size_t>(j)])) return false;
        return true;
      });
    }
    bool done = false;
    const int rc = commit_block(b, d, a, true, &done);
    if (rc != MPI_SUCCESS && first == MPI_SUCCESS) first = rc;
  }
  if (numerrors && n_try == 0) *numerrors = 0;
  return first;
}
FTMPI_ALIAS(TryBlock_multiple_waitall)

// --- synchronisation in the middle of a block (seed 001 §7.3) ----------------------------------------
// A fault-aware barrier over sync_comm (the block's communicator or a subset communicator of it): one
// agreement on the members' local fault state of the block; returns the class every member of sync_comm
// gets (uniform), without ending the block. A group that is empty or only this process returns the locally
// known errors. A strict subset given as a group agrees over an agreement channel of its members.
namespace {

constexpr std::uint32_t kSaltTryGroupSync = 0x54475359u;  // "TGSY"

// A channel (`on_channel`) is held while the operation lives (the request points at it too): a progress pass
// may make another channel live and compact an idle one (FtManager::hold_channel).
class SyncOp final : public ftmpi::p2p::GenericOp {
 public:
  SyncOp(ftmpi_comm_s* c, bool on_channel, const Contribution& contrib)
      : hold_(rt().ft(), on_channel ? c : nullptr), m_(c->rank, c->size, 0), c_(c) {
    a_ = &rt().ft().start_agreement(c, m_.contribute(contrib));
  }
  bool progress() override {
    if (!a_->decided()) return false;
    m_.on_decided(a_->value(), a_->failed());
    rt().ft().adopt_failed(c_, a_->failed());
    switch (m_.outcome().cls) {
      case CommitClass::success: break;
      case CommitClass::local_error_injection: result = Status(Errc::local_error_injection, "a member raised an error"); break;
      case CommitClass::task_fault: result = Status(Errc::task_fault, "a member failed"); break;
      case CommitClass::communication_fault: result = Status(Errc::communication_fault, "communication fault"); break;
      case CommitClass::timeout: result = Status(Errc::timeout, "a member timed out"); break;
      case CommitClass::multiple_faults: result = Status(Errc::multiple_faults, "several kinds of faults"); break;
      case CommitClass::unmodeled: result = Status(Errc::unmodeled_fault, "unmodeled fault"); break;
    }
    return true;
  }

 private:
  ftmpi::ft::ChannelHold hold_;
  TryCommit m_;
  ftmpi_comm_s* c_;
  const Agreement* a_ = nullptr;
};

int local_errors(TryBlock* b) {
  Contribution c = local_contribution(b, nullptr);
  if (!rt().ft().failed_members(b->comm, true).empty() || !c.declared_failed.empty()) return MPI_TASK_FAULT;
  if (c.flags) return MPI_LOCAL_ERROR_INJECTION;
  return MPI_SUCCESS;
}

int sync(MPI_Comm sync_comm, MPI_Group group, MPI_Request try_request, MPI_Timeout timeout, MPI_Request* out,
         const char* fn) {
  FTMPI_ENTER(fn);
  auto bl = block_of(try_request);
  if (!bl.ok()) return ret(nullptr, bl.status(), fn);
  TryBlock* b = bl.value();
  if (timeout.ftmpi_ns < 0) return ret(b->comm, Status(Errc::arg, "negative timeout"), fn);
  bool on_channel = false;
  if (group != MPI_GROUP_NULL || !sync_comm) {  // group form
    if (!ftmpi::api::valid_group(group)) return ret(b->comm, Status(Errc::group, "invalid group"), fn);
    const int gs = group->size();
    const bool self_only = gs == 0 || (gs == 1 && group->world_ranks[0] == rt().world_rank());
    if (self_only) {
      if (out) *out = rt().engine().completed_request();
      return out ? MPI_SUCCESS : local_errors(b);
    }
    std::vector<int> world;
    bool member = false;
    for (int k = 0; k < gs; ++k) {
      const int w = group->world_ranks[static_cast<std::size_t>(k)];
      if (b->on->group->rank_of_world(w) < 0)
        return ret(b->comm, Status(Errc::group, "the group is not the block's group or a subset of it"), fn);
      member = member || w == rt().world_rank();
      world.push_back(w);
    }
    if (!member) return ret(b->comm, Status(Errc::group, "this process is not a member of the group"), fn);
    if (gs == b->on->size) {
      sync_comm = b->on;
    } else {
      // A strict subset: an agreement among its members alone, on an agreement channel (ft/ft_manager.h)
      // salted with the block's context, so that syncs of different blocks over the same members stay apart.
      std::sort(world.begin(), world.end());
      sync_comm = rt().ft().channel(world, kSaltTryGroupSync ^ (b->comm->ctx_pt2pt * 0x9e3779b9u));
      on_channel = true;
    }
  } else {
    FTMPI_CHECK_COMM(sync_comm, fn);
    // An intercommunicator syncs over its span (both groups).
    sync_comm = ftmpi::api::famp::agreement_comm(sync_comm);
    for (int k = 0; k < sync_comm->size; ++k)
      if (b->on->group->rank_of_world(sync_comm->world_rank(k)) < 0)
        return ret(b->comm, Status(Errc::comm, "sync_comm has members outside the block's communicator"), fn);
  }
  Contribution c = local_contribution(b, nullptr);
  c.injection.clear();
  // Declared failures are named as ranks of the block's communicator: translate to sync_comm's.
  std::vector<int> declared;
  for (int r : c.declared_failed) {
    const int s = sync_comm->group->rank_of_world(b->on->world_rank(r));
    if (s >= 0) declared.push_back(s);
  }
  c.declared_failed = declared;
  Request* r = rt().engine().start_generic(std::make_unique<SyncOp>(sync_comm, on_channel, c));
  ftmpi::p2p::set_comm(r, sync_comm);
  if (out) {
    *out = r;
    return MPI_SUCCESS;
  }
  ftmpi::api::CommHold hold(on_channel ? nullptr : sync_comm);  // a channel is held by the operation (SyncOp)
  if (!ftmpi::api::famp::wait_until(Deadline(timeout), [r] { return r->complete; })) {
    rt().engine().release(r);  // released when it completes; the agreement goes on for the others
    return MPI_TIMEOUT;
  }
  const int rc = ftmpi::api::error_class_of(r->error.code());
  rt().engine().release(r);
  return rc;
}

}  // namespace

extern "C" int PMPI_TryBlock_group_sync(MPI_Group group, MPI_Request try_request, MPI_Timeout timeout) {
  if (group == MPI_GROUP_NULL) return ret(nullptr, Status(Errc::group, "group is MPI_GROUP_NULL"), "MPI_TryBlock_group_sync");
  return sync(nullptr, group, try_request, timeout, nullptr, "MPI_TryBlock_group_sync");
}
FTMPI_ALIAS(TryBlock_group_sync)
extern "C" int PMPI_TryBlock_group_isync(MPI_Group group, MPI_Request try_request, MPI_Timeout timeout, MPI_Request* out) {
  if (!out) return ret(nullptr, Status(Errc::arg, "out_request is NULL"), "MPI_TryBlock_group_isync");
  if (group == MPI_GROUP_NULL) return ret(nullptr, Status(Errc::group, "group is MPI_GROUP_NULL"), "MPI_TryBlock_group_isync");
  return sync(nullptr, group, try_request, timeout, out, "MPI_TryBlock_group_isync");
}
FTMPI_ALIAS(TryBlock_group_isync)
extern "C" int PMPI_TryBlock_comm_sync(MPI_Comm sync_comm, MPI_Request try_request, MPI_Timeout timeout) {
  if (!sync_comm) return ret(nullptr, Status(Errc::comm, "sync_comm is MPI_COMM_NULL"), "MPI_TryBlock_comm_sync");
  return sync(sync_comm, MPI_GROUP_NULL, try_request, timeout, nullptr, "MPI_TryBlock_comm_sync");
}
FTMPI_ALIAS(TryBlock_comm_sync)
extern "C" int PMPI_TryBlock_comm_isync(MPI_Comm sync_comm, MPI_Request try_request, MPI_Timeout timeout, MPI_Request* out) {
  if (!out) return ret(nullptr, Status(Errc::arg, "out_request is NULL"), "MPI_TryBlock_comm_isync");
  if (!sync_comm) return ret(nullptr, Status(Errc::comm, "sync_comm is MPI_COMM_NULL"), "MPI_TryBlock_comm_isync");
  return sync(sync_comm, MPI_GROUP_NULL, try_request, timeout, out, "MPI_TryBlock_comm_isync");
}
FTMPI_ALIAS(TryBlock_comm_isync)

// The agreed failed group of the block's last decided commit (or of its start): every survivor gets the
// same group — members that failed plus members some member declared failed (raise_error on ranks).
extern "C" int PMPI_TryBlock_get_failed(MPI_Request try_request, MPI_Group* failed) {
  const char* fn = "MPI_TryBlock_get_failed";
  FTMPI_ENTER(fn);
  auto bl = block_of(try_request);
  if (!bl.ok()) return ret(nullptr, bl.status(), fn);
  TryBlock* b = bl.value();
  if (!failed) return ret(b->comm, Status(Errc::arg, "group is NULL"), fn);
  const CommitOutcome* o = b->have_outcome ? &b->last() : (b->start.phase() == TryCommit::Phase::decided ? &b->start.outcome() : nullptr);
  std::vector<int> world;
  if (o)
    for (int r : o->failed.ranks()) world.push_back(b->on->world_rank(r));
  *failed = world.empty() ? MPI_GROUP_EMPTY : ftmpi::comm::make_group(std::move(world), rt().world_rank());
  return MPI_SUCCESS;
}
FTMPI_ALIAS(TryBlock_get_failed)

// --- error injection (seed 001 §7.4) -----------------------------------------------------------------
extern "C" int PMPI_Request_raise_error(MPI_Request request, int code) {
  const char* fn = "MPI_Request_raise_error";
  FTMPI_ENTER(fn);
  if (code == 0) return ret(nullptr, Status(Errc::arg, "the code must be non-zero"), fn);
  if (request == MPI_REQUEST_NULL || !valid_request(request)) return ret(nullptr, Status(Errc::request, "invalid or freed request"), fn);
  auto& reg = registry();
  if (TryBlock* b = ftmpi::api::famp::try_block(request)) {  // on the block itself
    b->flags |= ftmpi::famp::kFlagRaised;
    if (!b->raised_code) b->raised_code = code;
    return MPI_SUCCESS;
  }
  reg.marked[request] = {request->incarnation, code};  // reported by the commit that completes it
  return MPI_SUCCESS;
}
FTMPI_ALIAS(Request_raise_error)

namespace {
int raise_ranks(MPI_Comm comm, int n, const int ranks[], const int errors[], bool forall, const char* fn) {
  FTMPI_ENTER(fn);
  FTMPI_CHECK_COMM(comm, fn);
  if (n < 0 || (n > 0 && (!ranks || !errors))) return ret(comm, Status(Errc::arg, "bad rank or error list"), fn);
  for (int i = 0; i < n; ++i) {
    if (ranks[i] < 0 || ranks[i] >= comm->peer_size()) return ret(comm, Status(Errc::rank, "rank out of range"), fn);
    if (errors[i] == 0) return ret(comm, Status(Errc::arg, "the error code must be non-zero"), fn);
  }
  auto& reg = registry();
  for (int i = 0; i < n; ++i) {
    const int world = comm->peer_world_rank(ranks[i]);
    auto& list = forall ? reg.world_declared_forall : reg.comm_raised[ftmpi::api::famp::Registry::key(comm)].world_declared;
    if (std::find(list.begin(), list.end(), world) == list.end()) list.push_back(world);  // irreversible, idempotent
  }
  return MPI_SUCCESS;
}
}  // namespace

extern "C" int PMPI_Comm_raise_error(MPI_Comm comm, MPI_Error error) {
  const char* fn = "MPI_Comm_raise_error";
  FTMPI_ENTER(fn);
  FTMPI_CHECK_COMM(comm, fn);
  if (error == 0) return ret(comm, Status(Errc::arg, "the error code must be non-zero"), fn);
  auto& cr = registry().comm_raised[ftmpi::api::famp::Registry::key(comm)];
  if (!cr.code) cr.code = error;
  return MPI_SUCCESS;
}
FTMPI_ALIAS(Comm_raise_error)
extern "C" int PMPI_Comm_rank_raise_error(MPI_Comm comm, int rank, int error) {
  return raise_ranks(comm, 1, &rank, &error, false, "MPI_Comm_rank_raise_error");
}
FTMPI_ALIAS(Comm_rank_raise_error)
extern "C" int PMPI_Comm_ranks_raise_error(MPI_Comm comm, int n, int ranks[], int errors[]) {
  return raise_ranks(comm, n, ranks, errors, false, "MPI_Comm_ranks_raise_error");
}
FTMPI_ALIAS(Comm_ranks_raise_error)
extern "C" int PMPI_Comm_rank_raise_forall(MPI_Comm comm, int rank, int error) {
  return raise_ranks(comm, 1, &rank, &error, true, "MPI_Comm_rank_raise_forall");
}
FTMPI_ALIAS(Comm_rank_raise_forall)
extern "C" int PMPI_Comm_ranks_raise_forall(MPI_Comm comm, int n, int ranks[], int errors[]) {
  return raise_ranks(comm, n, ranks, errors, true, "MPI_Comm_ranks_raise_forall");
}
FTMPI_ALIAS(Comm_ranks_raise_forall)

// --- the published implementation's names -------------------------------------------------------------
// MPI_Tryblock_start(comm, MPI_TRYBLOCK_GLOBAL, &tb): a block without a start agreement and without
// injection; MPI_Tryblock_finish(tb, n, reqs): the uniform commit (no time limit), MPI_SUCCESS or
// MPI_ERR_TRYBLOCK_FOUND_ERRORS; _finish_local: with a timeout (MPI_ERR_TIMEOUT when it runs out).
extern "C" int PMPI_Tryblock_start(MPI_Comm comm, int flags, MPI_Request* tb) {
  const char* fn = "MPI_Tryblock_start";
  if (flags != MPI_TRYBLOCK_GLOBAL && flags != 0)
    return ret(nullptr, Status(Errc::arg, "MPI_Tryblock_start: flags must be MPI_TRYBLOCK_GLOBAL"), fn);
  // start_block's unsynchronised case without its arguments (no type, injection or timeout to check).
  FTMPI_ENTER(fn);
  FTMPI_CHECK_COMM(comm, fn);
  if (!tb) return ret(comm, Status(Errc::arg, "try_request is NULL"), fn);
  *tb = open_plain_block(comm);
  return MPI_SUCCESS;
}
FTMPI_ALIAS(Tryblock_start)
namespace {
int finish(MPI_Request tb, int count, MPI_Request reqs[], MPI_Timeout timeout, const char* fn) {
  int try_flag = 0;
  int rc;
  {
    FTMPI_ENTER(fn);
    TryBlock* b = tb != MPI_REQUEST_NULL && valid_request(tb) ? ftmpi::api::famp::try_block(tb) : nullptr;
    if (b != nullptr && count == 0 && timeout.ftmpi_ns >= 0 && plain(b)) [[likely]]
      rc = commit_plain(b, Deadline(timeout), CommitArgs{&try_flag});  // waitall's path for these arguments
    else
      rc = waitall_entered(tb, &try_flag, nullptr, MPI_DATATYPE_NULL, nullptr, nullptr, timeout, count, reqs, nullptr,
                           nullptr, nullptr, fn);
  }
  if (rc == MPI_SUCCESS || rc == MPI_TIMEOUT) return rc;
  if (rc == MPI_LOCAL_ERROR_INJECTION || rc == MPI_TASK_FAULT || rc == MPI_COMMUNICATION_FAULT ||
      rc == MPI_MULTIPLE_FAULTS || rc == MPI_UNMODELED_FAULT)
    return MPI_ERR_TRYBLOCK_FOUND_ERRORS;
  return rc;  // an argument error
}
}  // namespace
extern "C" int PMPI_Tryblock_finish(MPI_Request tb, int count, MPI_Request reqs[]) {
  return finish(tb, count, reqs, MPI_Timeout{0}, "MPI_Tryblock_finish");
}
FTMPI_ALIAS(Tryblock_finish)
extern "C" int PMPI_Tryblock_finish_local(MPI_Request tb, int count, MPI_Request reqs[], MPI_Timeout timeout) {
  return finish(tb, count, reqs, timeout, "MPI_Tryblock_finish_local");
}
FTMPI_ALIAS(Tryblock_finish_local)
// The failed group of the block's last commit, restricted to comm's members (codes are not filtered:
// every failure kind counts).
extern "C" int PMPI_Get_failed_group(MPI_Request tb, int ncodes, int codes[], MPI_Comm comm, MPI_Group* group) {
  const char* fn = "MPI_Get_failed_group";
  FTMPI_ENTER(fn);
  (void)codes;
  if (ncodes < 0) return ret(nullptr, Status(Errc::arg, "negative ncodes"), fn);
  auto bl = block_of(tb);
  if (!bl.ok()) return ret(nullptr, bl.status(), fn);
  TryBlock* b = bl.value();
  FTMPI_CHECK_COMM(comm, fn);
  if (!group) return ret(comm, Status(Errc::arg, "group is NULL"), fn);
  std::vector<int> world;
  if (b->have_outcome)
    for (int r : b->last().failed.ranks()) {
      const int w = b->on->world_rank(r);
      if (comm->group->rank_of_world(w) >= 0 || (comm->is_inter() && comm->remote_group->rank_of_world(w) >= 0)) world.push_back(w);
    }
  *group = world.empty() ? MPI_GROUP_EMPTY : ftmpi::comm::make_group(std::move(world), rt().world_rank());
  return MPI_SUCCESS;
}
FTMPI_ALIAS(Get_failed_group)
