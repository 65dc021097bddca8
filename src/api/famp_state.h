// FA-MPI (seed 001) at the C boundary: what the TryBlock, local-completion and communicator-creation
// bindings (api/famp_*.cpp) share. The protocol itself is src/models/famp/commit.h.
//
// Contracts: everything runs on the application thread under the API lock, like the engine. A TryBlock
// lives in the GenericOp of its try request (so MPI_Request_free ends it); the registry below knows which
// requests are try requests (a freed or foreign handle is refused with a clear MPI_ERR_REQUEST).
#pragma once
#include <cstdint>
#include <map>
#include <memory>
#include <tuple>
#include <string>
#include <unordered_map>
#include <vector>

#include "api/common.h"
#include "ft/agreement.h"
#include "models/famp/commit.h"
#include "p2p/request.h"

namespace ftmpi::api::famp {

// Deadline of an MPI_Timeout: zero = no limit for blocking calls ("check once" for tests: see expired()).
class Deadline {
 public:
  explicit Deadline(MPI_Timeout t) : ns_(t.ftmpi_ns), end_(ns_ > 0 ? now() + static_cast<double>(ns_) * 1e-9 : 0) {}
  bool unlimited() const { return ns_ <= 0; }
  bool expired() const { return ns_ > 0 && now() >= end_; }
  static double now() { return PMPI_Wtime(); }

 private:
  long long ns_;
  double end_;
};

// Progress until done() or the deadline; returns done(). A zero timeout waits without limit.
template <class Done>
bool wait_until(const Deadline& d, Done&& done) {
  if (done()) return true;
  if (d.unlimited()) {
    rt().progress().wait_until(done);
    return true;
  }
  rt().progress().wait_until([&] { return done() || d.expired(); });
  return done();
}

struct TryBlock;

// Per-process FA-MPI state.
struct Registry {
  TryBlock* live = nullptr;    // blocks whose try request is not freed (intrusive list, api/famp_tryblock.cpp)
  std::vector<TryBlock*> open; // blocks not yet committed, innermost last
  // Errors raised on communicators (irreversible, seed 001 §4 item 7): the first code, declared ranks.
  struct CommRaise {
    int code = 0;
    std::vector<int> world_declared;  // world ranks declared failed on this communicator
  };
  // Keyed by (communicator, context id, group): a freed communicator's address reused by a new one does not
  // inherit its errors (the new one has other context ids or another group object).
  using CommKey = std::tuple<const ftmpi_comm_s*, std::uint32_t, const ftmpi_group_s*>;
  static CommKey key(const ftmpi_comm_s* c) { return {c, c->ctx_pt2pt, c->group}; }
  std::map<CommKey, CommRaise> comm_raised;
  std::vector<int> world_declared_forall;  // MPI_Comm_rank(s)_raise_forall: every communicator
  // Requests marked bad by MPI_Request_raise_error: (request, incarnation) -> code.
  struct Marked {
    std::uint16_t incarnation;
    int code;
  };
  std::unordered_map<const p2p::Request*, Marked> marked;
  // Requests already reported by Waitsome_local/Testsome_local (they stay valid), by incarnation.
  std::unordered_map<const p2p::Request*, std::uint16_t> reported;
  // Reused buffers of the start and the commit (models/famp/commit.h *_into): the local contribution and
  // the value contributed (the outcomes live in the pooled block objects): a fault-free block allocates nothing.
  ftmpi::famp::Contribution contribution;
  ftmpi::ft::Bits commit_value;
  // commit_value holds the encoding of a fault-free contribution (no flag, code, declared failure or
  // injection) of member clean_rank of clean_size members: the next such commit reuses it as it is.
  int clean_rank = -1;
  int clean_size = -1;
};
extern Registry g_registry;  // api/famp_local.cpp
inline Registry& registry() { return g_registry; }

// MPI_Request_free of a complete try request whose block can end at once: ends it and keeps the request
// for the next MPI_Tryblock_start (api/famp_tryblock.cpp). False: not such a request, nothing done (the
// engine's release ends the block).
bool free_try_request(p2p::Request* r);

// A Reinit rollback (api/reinit.cpp, on the landing thread, outside any MPI call): the left epoch's FA-MPI
// state is forgotten — its blocks (open or kept with a freed try request; their requests belong to the
// dropped engine, which is never destroyed, so the blocks are detached and left to it), the errors raised
// on communicators and for all of them, the marked and reported requests. Without it the first block of
// the new epoch nested in a dead one, and every commit on MPI_COMM_WORLD reported the old epoch's
// MPI_Comm_rank(s)_raise_forall declarations (tests/reinit/reinit_famp.c).
void forget_epoch();

// A request that Wait/Test treat as "nothing to wait for": null or an inactive persistent request.
inline bool inert(const p2p::Request* r) { return !r || (r->persistent && !r->active); }
inline bool valid_request(const p2p::Request* r) { return r && r->magic == kMagicRequest; }

}  // namespace ftmpi::api::famp
