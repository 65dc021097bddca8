// Collective schedules. Every collective algorithm is written as a Schedule: an ordered list of steps
// (post a send, post a receive, run a local computation, fence). Executing it:
//   * sends and receives are posted as soon as they are reached (non-blocking, on the communicator's
//     collective context with the schedule's tag);
//   * a local step or a fence waits until every operation posted before it has completed;
//   * the first operation that completes with an error stops the schedule with that error (remaining
//     receives are cancelled, every request is released) — a collective never waits on a broken peer.
// The same advance() drives the blocking collectives (run(), below) and, later, the non-blocking ones
// (a p2p::GenericOp that calls advance() from the progress loop).
//
// Buffers named in steps must stay valid until the schedule finishes; scratch() gives buffers that live
// as long as the schedule.
//
// Cost: a small collective must not pay for heap allocation. Steps, local-step closures, the outstanding
// request list and small scratch buffers live in an arena whose first kInlineArena bytes are inside the
// Schedule object (a blocking collective's schedule is on the stack); larger scratch buffers come from the
// runtime's ScratchPool when one is given (reused across calls: no page faults per call), else the heap.
//
// After an error, receives still pending are aborted (nothing writes into the schedule's buffers once it
// is gone) and a send still in flight to a live peer is released to the engine (it completes on its own,
// its large scratch is kept alive): that peer may receive stale data, which MPI permits once a collective
// has failed (results are undefined after an error).
#pragma once
#include <cstddef>
#include <cstdint>
#include <memory_resource>
#include <new>
#include <type_traits>
#include <utility>
#include <vector>

#include "comm/communicator.h"
#include "datatype/datatype.h"
#include "p2p/engine.h"
#include "util/scratch_pool.h"
#include "util/status.h"

namespace ftmpi {
class Runtime;
}

namespace ftmpi::coll {

// MPI_IN_PLACE as the core sees it ((void*)-1, see mpi.h).
inline bool is_in_place(const void* p) { return reinterpret_cast<std::intptr_t>(p) == -1; }

// The internal tag of the next collective on `comm`. Every member issues collectives on a communicator
// in the same order, so the counters agree; consecutive collectives never match each other's messages.
// While a TagChannel is attached (TagScope), the tags come from that channel instead.
int next_coll_tag(ftmpi_comm_s* comm);

// The tags of one persistent collective request (MPI-4.0 §6.13). Persistent collectives match in the order
// of their initialisation, not of their starts (members may start them in different orders), so each
// request draws its tags from a channel of its own: `id` is the communicator's persistent_seq taken at
// init (inits are collective, so every member gives the request the same id), `next` counts the tags the
// request's plans took. Channel tags are 0x40000000-0x5fffffff (bit 30 set, bit 29 clear), so they never
// equal a tag of the ordinary sequence (bits 0-29) nor a partitioned-communication tag on the same context
// (0x60000000 and up, p2p/partitioned.h); 2^17 channels of 2^12 tags each, reused after wrapping (a reused tag is harmless once the
// earlier user's messages were matched: messages between two members on one tag are non-overtaking).
struct TagChannel {
  std::uint32_t id = 0;
  std::uint32_t next = 0;
  int take() { return static_cast<int>(0x40000000u | ((id & 0x1ffffu) << 12) | (next++ & 0xfffu)); }
};

// Attaches `ch` to `comm` and `local_ch` to an intercommunicator's local_comm (on which its plans run
// phases; the two groups add different numbers of local phases, so that count must not move `ch`) for the
// scope's lifetime: the plan built meanwhile takes its tags from them. Caller holds the big lock.
class TagScope {
 public:
  TagScope(ftmpi_comm_s* comm, TagChannel* ch, TagChannel* local_ch);
  ~TagScope();
  TagScope(const TagScope&) = delete;
  TagScope& operator=(const TagScope&) = delete;

 private:
  ftmpi_comm_s* comm_;
  ftmpi_comm_s* local_;
};

// A local step's computation (a closure stored in the schedule's arena).
class LocalFn {
 public:
  virtual void operator()() = 0;

 protected:
  ~LocalFn() = default;  // destroyed through destroy() by the schedule that placed it
  friend class Schedule;
  virtual void destroy() = 0;
};

class Schedule {
 public:
  static constexpr std::size_t kInlineArena = 3072;
  static constexpr std::size_t kArenaScratchMax = 1024;  // scratch up to this size comes from the arena

  // A schedule for one collective on `comm`; takes the next collective tag of `comm`. Large scratch
  // buffers come from `pool` (which must outlive the schedule) when it is not null.
  explicit Schedule(ftmpi_comm_s* comm, ScratchPool* pool = nullptr);
  // A schedule on `comm` with a tag taken earlier from next_coll_tag(comm) (collectives made of several
  // schedules reserve all their tags when they start, see coll/inter_plan.h).
  Schedule(ftmpi_comm_s* comm, int tag, ScratchPool* pool = nullptr);
  ~Schedule();
  Schedule(const Schedule&) = delete;
  Schedule& operator=(const Schedule&) = delete;

  // ---- building ----
  void send(int peer, const void* buf, std::size_t count, const ftmpi_datatype_s* type);
  void recv(int peer, void* buf, std::size_t count, const ftmpi_datatype_s* type);
  // A receive that must be filled exactly (a collective's type signatures must match, MPI-4.0 §6.1): what
  // it delivered is written to *out when it completes, for a later local step. A shorter message than
  // posted stops nothing but makes the schedule report Errc::other (a longer one reports Errc::truncate, as
  // every receive does); the schedule goes on, so the ranks that wait for this one are not left hanging.
  struct RecvOutcome {
    std::size_t bytes = 0;   // delivered (at most the posted size)
    bool truncated = false;  // the message was longer than posted
  };
  void recv_exact(int peer, void* buf, std::size_t count, const ftmpi_datatype_s* type, RecvOutcome* out);
  // A send whose buffer, count and type are read from *spec when it is posted (an earlier local step may
  // change them). *spec must live as long as the schedule (scratch()).
  struct SendSpec {
    const void* buf = nullptr;
    std::size_t count = 0;
    const ftmpi_datatype_s* type = nullptr;
  };
  void send_spec(int peer, const SendSpec* spec);
  // Packed bytes (scratch buffers) as MPI_BYTE.
  void send_bytes(int peer, const void* buf, std::size_t bytes);
  void recv_bytes(int peer, void* buf, std::size_t bytes);
  // Runs after every earlier send/receive completed; later steps are not posted before it ran. `fn` is
  // any callable without arguments; it is moved into the schedule's arena.
  template <class F>
  void local(F&& fn) {
    if (immediate_ != nullptr) {  // run it now, once everything posted so far completed
      if (wait_posted()) fn();
      return;
    }
    using Fn = std::decay_t<F>;
    struct Impl final : LocalFn {
      explicit Impl(F&& f) : fn(std::forward<F>(f)) {}
      void operator()() override { fn(); }
      void destroy() override { this->~Impl(); }
      Fn fn;
    };
    void* mem = arena_.allocate(sizeof(Impl), alignof(Impl));
    add_local(new (mem) Impl(std::forward<F>(fn)));
  }
  // Wait for every earlier send/receive before posting later ones.
  void fence();
  // A buffer of `bytes` bytes owned by the schedule (never null, even for 0 bytes).
  std::byte* scratch(std::size_t bytes);

  // The schedule also stops with Errc::revoked once `parent` is revoked (a phase of an intercommunicator
  // collective running on the intercommunicator's hidden local_comm). Call before the first advance().
  void interrupt_on_revoke(const ftmpi_comm_s* parent) { parent_ = parent; }

  // The blanket failure rule for every step (p2p/engine.h, "Collective failures"): a step fails as soon as
  // any member of the communicator is known to have failed, not only when its own peer has. For a hidden
  // collective that a user's collective runs before its own work (the shm area set-up, coll/shm_area.cpp):
  // its pattern (a Bcast from rank 0) does not depend on every member, whereas the user's collective does,
  // so with precise steps a member could wait for a live peer that left after a failure. Call before the
  // first step is posted.
  void blanket_failures() { precise_ = false; }

  // ---- execution ----
  // Immediate mode, for a blocking collective whose builder does all its build-time work (copies into
  // user or scratch buffers) before its first send/recv: call before building. Every send and receive is
  // then posted as the builder adds it, fence() and local() wait (driving rt's progress) for what was
  // posted, and local steps run at once; nothing is stored, so a small collective costs little more than
  // its point-to-point operations. After an error later steps are skipped. Finish with run().
  void run_immediately(Runtime& rt) { immediate_ = &rt; }

  // Post what can be posted, harvest what completed. Returns true once finished (successfully or not);
  // status() is then the outcome. Never blocks.
  bool advance(p2p::Engine& engine);
  const Status& status() const { return status_; }
  ftmpi_comm_s* comm() const { return comm_; }
  int tag() const { return tag_; }

  // What the schedule holds, for tests and tracing: one entry per building call, in order.
  struct Step {
    enum class Kind : std::uint8_t { send, recv, local, fence };
    Kind kind = Kind::fence;
    int peer = -1;
    const void* sbuf = nullptr;
    void* rbuf = nullptr;
    std::size_t count = 0;
    const ftmpi_datatype_s* type = nullptr;
    LocalFn* fn = nullptr;  // Kind::local: owned by the schedule
    RecvOutcome* out = nullptr;     // recv_exact
    const SendSpec* spec = nullptr;  // send_spec: read at post time instead of sbuf/count/type
  };
  const std::pmr::vector<Step>& steps() const { return steps_; }

 private:
  struct Pooled {
    std::byte* p;
    std::size_t bytes;
  };
  void add_local(LocalFn* fn);
  void add_comm(const Step& s);
  // Stop at the first error or revoke; true once nothing posted is pending (then released) or failed.
  bool harvest(p2p::Engine& engine);
  // Immediate mode: wait until everything posted completed; false once the schedule failed.
  bool wait_posted();
  friend Status run(Runtime& rt, Schedule& s);
  void fail(p2p::Engine& engine, Status st);
  // After a failure (not a revoke, which every member sees anyway): tell `peer` that this process gives
  // the collective up (p2p/engine.h, "Collective failures"), once per peer.
  void give_up(p2p::Engine& engine, int peer);
  Status post(p2p::Engine& engine, const Step& s);

  alignas(std::max_align_t) std::byte inline_[kInlineArena];  // not over-aligned: heap schedules use plain new
  std::pmr::monotonic_buffer_resource arena_{inline_, sizeof inline_};
  ftmpi_comm_s* comm_;
  ScratchPool* pool_;
  const ftmpi_comm_s* parent_ = nullptr;  // interrupt_on_revoke
  Runtime* immediate_ = nullptr;          // run_immediately
  // fail() left a send in flight: the large scratch buffers are leaked rather than reused or freed (only
  // after a failed collective). Small (arena) scratch is only ever sent eagerly, so at worst a peer gets
  // stale bytes, which MPI allows after an error.
  bool orphaned_ = false;
  int tag_;
  std::pmr::vector<Step> steps_{&arena_};
  std::size_t pc_ = 0;
  std::pmr::vector<p2p::Request*> outstanding_{&arena_};
  struct Watched {
    p2p::Request* r;
    RecvOutcome* out;
  };
  std::pmr::vector<Watched> watched_{&arena_};  // recv_exact requests still outstanding
  std::pmr::vector<Pooled> big_scratch_{&arena_};  // from pool_ (or the heap when pool_ is null)
  std::pmr::vector<int> given_up_to_{&arena_};     // peers told that this collective was given up
  bool done_ = false;
  bool started_ = false;  // the first step was posted (post() checks the communicator's failures once)
  bool failed_at_start_ = false;  // a member was known failed at the start: so will every later collective
  bool precise_ = true;           // blanket_failures() clears it
  Status status_;
};

// Execute `s` to the end, driving progress (backs off like every blocking MPI call).
Status run(Runtime& rt, Schedule& s);

}  // namespace ftmpi::coll
