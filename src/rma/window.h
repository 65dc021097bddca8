// One-sided communication (MPI-3.1 chapter 11): a window and its two halves.
//
// Model. Every operation is an active message (rma/wire.h) carried by the point-to-point engine on the
// window's private communicator (`req` and `rep`: the requests' and the replies' tag spaces, rma/wire.h;
// MPI_Win_create and friends pass one duplicate of the user's communicator as both, so a window costs one
// context id slot). The *origin* half turns MPI_Put/Get/Accumulate/... and the synchronisation calls into those
// messages and waits for their replies. The *target* half is the window's Service, a GenericOp that the
// engine advances on every progress pass: it keeps one ANY_SOURCE receive posted on `req` and executes the
// operations it receives on the local window memory, one at a time, in arrival order.
//
// Progress (what a target must do for passive-target operations to finish): nothing special. Every MPI
// call that waits or polls (Barrier, Recv, Wait, Test, Iprobe, any RMA call, ...) runs Engine::progress,
// which advances the Service. A target that computes outside MPI delays operations aimed at it until it
// next enters the library (no asynchronous progress thread); the origin then waits in its
// unlock/flush/fence. Windows created with MPI_Win_allocate_shared are plain shared memory besides: load
// and store need no progress at all.
//
// Same-host targets (rma/direct.h). For targets whose memory is mapped here (MPI_Win_allocate and
// allocate_shared windows, members on this host) Put/Get/accumulates are not messages but copies done at
// the call (accumulates by hardware atomics or under the target's AccLock, rma/acc_apply.h, a rule the
// Service follows too); for same-host members of MPI_Win_create / dynamic windows the copies are
// process_vm_writev/readv (rma/cma.h). The synchronisation messages below are unchanged, and a direct
// operation counts as already flushed (flush still runs one progress pass, so that a process spinning on
// direct operations serves the messages others aim at it).
//
// Ordering and completion. Messages between two processes are FIFO and the Service handles them in
// order, so when an origin's flush (or unlock) request is acknowledged, every operation the origin sent
// before it has been applied at the target: flush = wait for the local requests + one round trip; fence =
// flush every target touched since the last fence + barrier; complete = send a `complete` message behind
// the operations (the target's wait counts them). Accumulates from message origins are applied by the one
// Service of the target, in order; with direct origins they stay atomic per element (rma/acc_apply.h).
//
// Failures (seed 000 §1.2.3). Operations are point-to-point requests of the engine, so an operation
// toward a dead target fails (MPI_ERR_PROC_FAILED) and the error is reported at the synchronisation that
// completes it (flush, unlock, fence, complete, the request of an R* operation). A lock whose holder dies
// is released by the target's Service when the failure is announced (waiting requests are then
// granted). MPI_Win_invalidate / MPIX_Win_revoke revokes the private communicator: every pending
// operation and epoch, at every member, completes with MPI_ERR_REVOKED; later calls fail the same way.
//
// Threading: all of it runs under the API lock (single application thread at a time), like the engine.
#pragma once
#include <cstddef>
#include <cstdint>
#include <deque>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "comm/communicator.h"
#include "datatype/datatype.h"
#include "datatype/op.h"
#include "p2p/engine.h"
#include "rma/cma.h"
#include "rma/direct.h"
#include "rma/wire.h"
#include "util/status.h"

struct ftmpi_errhandler_s;

namespace ftmpi::ft {
class FailureState;
}

namespace ftmpi::progress {
class Progress;
}

namespace ftmpi::rma {

// Assertion bits (mpi.h's MPI_MODE_*; the values are fixed by mpi.h and checked in the API layer).
inline constexpr int kModeNoCheck = 1024;
inline constexpr int kModeNoSucceed = 16384;

inline constexpr std::uint32_t kMagicWin = 0x3170000A;

enum class Flavor : int { create = 1, allocate = 2, dynamic = 3, shared = 4 };

// An operation's local side: the engine request(s) and the buffer they use. Shared with the user request
// of the R* forms.
struct Pending {
  p2p::Engine* engine = nullptr;
  p2p::Request* send = nullptr;   // header (+ inline part) on req
  p2p::Request* ext = nullptr;    // extension on rep
  p2p::Request* reply = nullptr;  // reply receive on rep
  std::vector<std::byte> buf;     // header + inline part
  std::vector<std::byte> scratch; // reply bytes when they need unpacking elsewhere
  Status error;
  bool reply_expected = false;    // control messages: the reply is an AckBody in `scratch`
  // True when every request completed (releases them; records the first error).
  bool poll();
  ~Pending();
};

// Target-side lock table.
struct LockTable {
  int exclusive = -1;        // holder's rank, or -1
  std::map<int, int> shared; // rank -> count
  struct Waiter { int rank; bool exclusive; int reply_tag; };
  std::deque<Waiter> waiting;
  bool can_grant(bool exclusive) const { return exclusive ? (this->exclusive < 0 && shared.empty()) : this->exclusive < 0; }
};

class Window;

// The target half (see the file comment).
class Service final : public p2p::GenericOp {
 public:
  explicit Service(Window* w) : w_(w) {}
  bool progress() override;

 private:
  friend class Window;
  bool post_listen();
  void handle(int src, const std::byte* msg, std::size_t len);
  void execute(int src, const OpHdr& h, const WireBlock* blocks, const std::byte* data);
  Status locate(int src, const OpHdr& h, const WireBlock* blocks, std::byte** base);
  void reply(int dst, int tag, const void* buf, std::size_t len, bool copy);
  void ack(int dst, int tag);
  void grant_waiters();
  void release_dead_holders();

  Window* w_;
  p2p::Request* listen_ = nullptr;
  std::vector<std::byte> inbox_;
  // An operation whose extension is still arriving.
  p2p::Request* ext_ = nullptr;
  int ext_src_ = -1;
  OpHdr ext_hdr_{};
  std::vector<std::byte> ext_buf_;
  bool ext_direct_ = false;  // extension received straight into the window
  std::vector<std::unique_ptr<Pending>> out_;  // replies in flight
  std::uint64_t seen_epoch_ = 0;
  bool stopped_ = false;
};

class Window {
 public:
  // The private communicators are owned (freed by the API layer at MPI_Win_free).
  Window(p2p::Engine& engine, const ft::FailureState* failures, ftmpi_comm_s* req, ftmpi_comm_s* rep,
         progress::Progress& progress);
  ~Window();
  Window(const Window&) = delete;
  Window& operator=(const Window&) = delete;

  // Start the Service (after the memory and the peers' sizes are set).
  void start_service();
  // Stop it (MPI_Win_free, after the closing barrier): the posted receive is cancelled.
  void stop_service();

  int rank() const { return req_->rank; }
  int size() const { return req_->size; }
  ftmpi_comm_s* req_comm() const { return req_; }
  ftmpi_comm_s* rep_comm() const { return rep_; }

  // ---- origin: operations (argument checks done by the caller except range) ----
  struct Target {
    int rank;
    std::uint64_t disp;
    std::size_t count;
    const dt::Datatype* type;
  };
  // Put/Accumulate (acc: op != nullptr). *out (optional) receives the operation for R* requests.
  Status put(const void* obuf, std::size_t ocount, const dt::Datatype* otype, const Target& t, const dt::Op* op,
             std::shared_ptr<Pending>* out);
  // Get / Get_accumulate (op != nullptr; obuf may be null for MPI_NO_OP) / Fetch_and_op.
  Status get(void* rbuf, std::size_t rcount, const dt::Datatype* rtype, const void* obuf, std::size_t ocount,
             const dt::Datatype* otype, const Target& t, const dt::Op* op, std::shared_ptr<Pending>* out);
  Status compare_and_swap(const void* obuf, const void* cbuf, void* rbuf, const dt::Datatype* type, int target,
                          std::uint64_t disp);

  // ---- origin: synchronisation ----
  Status fence_flush(int assert_flags);  // the flushing half of a fence (the API layer adds the barrier)
  void fence_done(int assert_flags);     // record the epoch a fence opened
  Status lock(bool exclusive, int target, int assert_flags);
  Status unlock(int target);
  Status lock_all(int assert_flags);
  Status unlock_all();
  Status flush(int target, bool local_only);
  Status flush_all(bool local_only);
  Status post(const std::vector<int>& ranks, int assert_flags);
  Status start(const std::vector<int>& ranks, int assert_flags);
  Status complete();
  Status wait_exposure(bool test_only, bool* done);
  // ---- origin: the fast path (rma/window_fast.h, inline at the C entry points) ----
  // The operation done at once when everything is simple: a mapped target in an access epoch, one predefined
  // contiguous type on both sides (same handle, same count), in range, target not known failed; for
  // accumulates an operation acc_fast takes. false: nothing was done, take the general path (which also
  // produces every error).
  inline bool fast_put(const void* obuf, std::size_t count, const dt::Datatype* type, int rank, std::int64_t disp);
  inline bool fast_get(void* rbuf, std::size_t count, const dt::Datatype* type, int rank, std::int64_t disp);
  inline bool fast_acc(const void* obuf, void* rbuf, std::size_t count, const dt::Datatype* type, int rank,
                       std::int64_t disp, const dt::Op* op);
  // Zero-size operations over messages: not sent (window.cpp).
  bool moves_nothing(const Target& t) const;
  Status nothing_to_send(std::shared_ptr<Pending>* out);
  inline bool fast_cas(const void* obuf, const void* cbuf, void* rbuf, const dt::Datatype* type, int rank,
                       std::int64_t disp);
  // True when a lock or lock_all covers `target` (request-based operations need one).
  bool passive_epoch(int target) const {
    return lock_all_ || (target >= 0 && target < size() && peers_[static_cast<std::size_t>(target)].lock != LockMode::none);
  }
  // True while an epoch of any kind is open here (MPI_Win_free must not be called then).
  bool epoch_open() const;
  // MPI_Win_invalidate: the window is unusable from now on (the API layer revokes the communicators).
  void invalidate() { invalidated_ = true; }
  bool invalidated() const { return invalidated_; }
  // Errc::revoked once the window was invalidated here or by another member.
  Status check_live() const;

  // ---- memory ----
  void* base = nullptr;
  std::size_t bytes = 0;
  int disp_unit = 1;
  Flavor flavor = Flavor::create;
  std::vector<std::size_t> peer_bytes;  // per rank (static windows): for origin-side range checks
  std::vector<int> peer_disp_unit;
  std::vector<void*> shared_base;       // allocate_shared: every rank's segment as mapped here
  struct Region { std::uintptr_t lo, hi; };
  std::vector<Region> attached;         // dynamic windows
  void* owned_mem = nullptr;            // allocate: freed at MPI_Win_free
  void* shm_map = nullptr;              // allocate_shared: the mapping
  std::size_t shm_len = 0;
  // Direct access (rma/direct.h, rma/cma.h): per rank, how operations toward it travel. Empty: all by
  // messages.
  enum class Access : std::uint8_t { msg, mapped, cma };
  struct DirectPeer {
    Access how = Access::msg;
    bool atomics = false;           // its memory is atomic-capable (rma/acc_apply.h): mapped segments
    pid_t pid = 0;                  // cma: the target process
    std::uintptr_t base = 0;        // address of displacement 0, here (mapped) or in the target (cma); 0 for
                                    // dynamic windows (displacements are addresses)
    AccLock* lock = nullptr;        // the target's accumulate lock, mapped here
    const RegionTable* regions = nullptr;  // dynamic windows: the target's attached regions, mapped here
  };
  std::vector<DirectPeer> direct;
  AccLock* own_lock = nullptr;          // this member's lock: the Service takes it around accumulates
  bool atomic_elems = false;            // this member's memory is atomic-capable (rma/acc_apply.h)
  RegionTable* own_regions = nullptr;   // dynamic windows with direct origins: the table MPI_Win_attach updates
  struct Mapping { void* addr; std::size_t len; };
  std::vector<Mapping> mappings;        // allocate: own and peers' segments, unmapped at MPI_Win_free

  // ---- MPI object state kept here for the API layer ----
  std::uint32_t magic = kMagicWin;
  std::string name;
  ftmpi_errhandler_s* errhandler = nullptr;
  std::map<std::string, std::string> info;
  ftmpi_comm_s* user_comm_group_src = nullptr;  // not owned
  // Attribute storage handed out by MPI_Win_get_attr (pointers to these).
  std::intptr_t attr_size = 0;
  int attr_disp_unit = 0, attr_flavor = 0, attr_model = 2;

 private:
  friend class Service;
  enum class LockMode : std::uint8_t { none, shared, exclusive };
  struct PeerState {
    LockMode lock = LockMode::none;
    bool in_lock_all = false;
    bool dirty = false;                       // operations sent since the last flush
    bool nocheck = false;                     // locked with MPI_MODE_NOCHECK (no lock message sent)
    std::vector<std::shared_ptr<Pending>> pending;
    Status error;                             // first error met with this target since the last sync
    bool direct_done = false;                 // direct operations since the last sync (rma/direct.h)
  };
  // The fast path's common checks: the target's memory address for `bytes` at `disp`, or null.
  inline std::byte* fast_target(int rank, std::int64_t disp, std::size_t bytes, bool need_atomics);
  int next_tag();
  Status check_access(int target);
  Status range_check(const Target& t) const;
  Status send_op(OpHdr h, const Target& t, const void* obuf, std::size_t ocount, const dt::Datatype* otype,
                 bool data, int tag, std::shared_ptr<Pending>& pend);
  Status wait_pending(int target);
  std::shared_ptr<Pending> issue_ctrl(int target, OpCode op, bool exclusive);
  Status finish_ctrl(int target, Pending& p);
  Status round_trip(int target, OpCode op, bool exclusive = false);
  Status sync_all(bool local_only);
  Status take_error(int target);
  void wait_for(p2p::Request* r);
  // Direct path (window_direct.cpp). direct_begin: 1 when the operation goes direct (*at = the target
  // address; *out made, complete), 0 when it is done already (the target is known failed or, dynamic
  // windows, the range is not attached: error recorded), -1 when it travels as messages.
  int direct_begin(const Target& t, std::uintptr_t* at, std::shared_ptr<Pending>* out);
  void direct_note(int target, Status st, std::shared_ptr<Pending>* out);
  Status direct_put(const DirectPeer& d, std::uintptr_t at, const void* obuf, std::size_t ocount,
                    const dt::Datatype* otype, const Target& t);
  Status direct_get(const DirectPeer& d, std::uintptr_t at, void* rbuf, std::size_t rcount, const dt::Datatype* rtype,
                    const Target& t);
  Status direct_acc(const DirectPeer& d, std::uintptr_t at, const void* obuf, std::size_t ocount,
                    const dt::Datatype* otype, const Target& t, const dt::Op* op, void* rbuf, std::size_t rcount,
                    const dt::Datatype* rtype);
  Status direct_cas(const DirectPeer& d, std::uintptr_t at, const void* obuf, const void* cbuf, void* rbuf,
                    const dt::Datatype* type);
  bool target_failed(int target) const;

  p2p::Engine& engine_;
  progress::Progress& progress_;
  const ft::FailureState* failures_;
  ftmpi_comm_s* req_;
  ftmpi_comm_s* rep_;
  std::vector<PeerState> peers_;
  int tag_counter_ = 0;
  bool fence_epoch_ = false;
  bool invalidated_ = false;
  int lock_count_ = 0;
  bool lock_all_ = false;
  std::vector<int> access_group_;   // PSCW start group (ranks)
  bool access_open_ = false;
  bool lock_all_nocheck_ = false;
  bool exposure_open_ = false;
  std::vector<int> exposure_group_;
  std::vector<int> completes_from_;  // per origin: complete messages not yet consumed by a wait
  // Target side (the Service's state).
  LockTable locks_;
  std::vector<Status> origin_error_;  // per origin: first target-side error since its last ack
  Service* service_ = nullptr;
  p2p::Request* service_req_ = nullptr;
};

}  // namespace ftmpi::rma

// MPI_Win handles point at these.
struct ftmpi_win_s : ftmpi::rma::Window {
  using Window::Window;
};
