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
// as long as the schedule. After an error, a send still in flight to a live peer is released to the
// engine (it completes on its own) while the schedule and its scratch go away: that peer may receive
// garbage, which MPI permits once a collective has failed (results are undefined after an error).
#pragma once
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <vector>

#include "comm/communicator.h"
#include "datatype/datatype.h"
#include "p2p/engine.h"
#include "util/status.h"

namespace ftmpi {
class Runtime;
}

namespace ftmpi::coll {

// MPI_IN_PLACE as the core sees it ((void*)-1, see mpi.h).
inline bool is_in_place(const void* p) { return reinterpret_cast<std::intptr_t>(p) == -1; }

// The internal tag of the next collective on `comm`. Every member issues collectives on a communicator
// in the same order, so the counters agree; consecutive collectives never match each other's messages.
int next_coll_tag(ftmpi_comm_s* comm);

class Schedule {
 public:
  // A schedule for one collective on `comm`; takes the next collective tag of `comm`.
  explicit Schedule(ftmpi_comm_s* comm);
  // A schedule on `comm` with a tag taken earlier from next_coll_tag(comm) (collectives made of several
  // schedules reserve all their tags when they start, see coll/inter_plan.h).
  Schedule(ftmpi_comm_s* comm, int tag);
  ~Schedule();
  Schedule(const Schedule&) = delete;
  Schedule& operator=(const Schedule&) = delete;

  // ---- building ----
  void send(int peer, const void* buf, std::size_t count, const ftmpi_datatype_s* type);
  void recv(int peer, void* buf, std::size_t count, const ftmpi_datatype_s* type);
  // Packed bytes (scratch buffers) as MPI_BYTE.
  void send_bytes(int peer, const void* buf, std::size_t bytes);
  void recv_bytes(int peer, void* buf, std::size_t bytes);
  // Runs after every earlier send/receive completed; later steps are not posted before it ran.
  void local(std::function<void()> fn);
  // Wait for every earlier send/receive before posting later ones.
  void fence();
  // A buffer of `bytes` bytes owned by the schedule (never null, even for 0 bytes).
  std::byte* scratch(std::size_t bytes);

  // The schedule also stops with Errc::revoked once `parent` is revoked (a phase of an intercommunicator
  // collective running on the intercommunicator's hidden local_comm). Call before the first advance().
  void interrupt_on_revoke(const ftmpi_comm_s* parent) { parent_ = parent; }

  // ---- execution ----
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
    std::function<void()> fn;
  };
  const std::vector<Step>& steps() const { return steps_; }

 private:
  void fail(p2p::Engine& engine, Status st);
  Status post(p2p::Engine& engine, const Step& s);

  ftmpi_comm_s* comm_;
  const ftmpi_comm_s* parent_ = nullptr;  // interrupt_on_revoke
  int tag_;
  std::vector<Step> steps_;
  std::size_t pc_ = 0;
  std::vector<p2p::Request*> outstanding_;
  std::vector<std::unique_ptr<std::byte[]>> scratch_;
  bool done_ = false;
  Status status_;
};

// Execute `s` to the end, driving progress (backs off like every blocking MPI call).
Status run(Runtime& rt, Schedule& s);

}  // namespace ftmpi::coll
