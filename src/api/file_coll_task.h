// The collective data access of MPI-IO (read/write_all, _at_all and their non-blocking forms) as ONE
// algorithm with two drivers.
//
// Model. A collective access is a sequence of collective steps on a communicator (exchange of byte spans,
// the two-phase rounds' all-to-all of counts and all-to-allv of pieces, the final reduction of outcomes)
// with local file I/O between them (docs/io.md, "Collective accesses"). It is written once, as a C++20
// coroutine (IoTask) that starts each step as a non-blocking collective and suspends until it completes
// (co_await Step{...}). Two drivers run it:
//   - blocking (run_blocking): after each suspension, PMPI_Wait on the step's request — the blocking
//     MPI_File_write_all and friends, on the file's own communicator;
//   - non-blocking (start_nonblocking): a p2p::GenericOp resumed by the progress loop whenever the step's
//     request has completed — MPI_File_iwrite_all and friends. The initiation only starts an MPI_Comm_idup
//     of the file's communicator and returns; every later step happens in whatever MPI call makes progress
//     (MPI_Test/Wait on the request, or any other call), so a program may make the collective's completion
//     at one member depend on communication it starts after the initiation.
//
// Why a duplicate per non-blocking access: the steps are started lazily (at progress), so two accesses
// pending together, or a blocking collective on the file issued while one is pending, would otherwise
// start their steps on the same communicator in an order that differs between members. The idup itself is
// started at initiation, in the program's order (§13.6.1: collective accesses are initiated in the same
// order everywhere), so each access owns a communicator nobody else uses.
//
// Failures (seed 000 §1.2.4): the algorithm ends in the same reduction of every member's outcome as the
// blocking one (a member's success means every member's bytes are written), so the uniform-error rules of
// MPI_File_sync/close hold unchanged; a failed step ends the access with its error (no later step).
//
// Cost: per non-blocking access one Comm_idup and one Comm_free more than the blocking access; each step
// is one non-blocking collective on the progress loop (a GenericOp).
#pragma once
#include <coroutine>
#include <cstdint>
#include <exception>
#include <utility>

#include "api/file_common.h"

namespace ftmpi::api {

class IoTask {
 public:
  struct promise_type {
    Status result;
    MPI_Request waiting = MPI_REQUEST_NULL;  // the step the coroutine waits for
    const char* what = "";
    Status step;  // the outcome of the last step (set by the driver before resuming)
    IoTask get_return_object() { return IoTask(std::coroutine_handle<promise_type>::from_promise(*this)); }
    std::suspend_always initial_suspend() noexcept { return {}; }
    std::suspend_always final_suspend() noexcept { return {}; }
    void return_value(Status s) { result = std::move(s); }
    void unhandled_exception() { std::terminate(); }
  };
  using Handle = std::coroutine_handle<promise_type>;
  explicit IoTask(Handle h) : h_(h) {}
  IoTask(IoTask&& o) noexcept : h_(std::exchange(o.h_, {})) {}
  IoTask& operator=(IoTask&&) = delete;
  IoTask(const IoTask&) = delete;
  ~IoTask() {
    if (h_) h_.destroy();
  }
  Handle handle() const { return h_; }

 private:
  Handle h_;
};

// co_await Step{rc, req, what}: the outcome of a non-blocking collective just started (rc its return code).
struct Step {
  int rc;
  MPI_Request req;
  const char* what;
  IoTask::Handle h{};
  bool await_ready() const noexcept { return rc != MPI_SUCCESS; }
  void await_suspend(IoTask::Handle hh) noexcept {
    h = hh;
    hh.promise().waiting = req;
    hh.promise().what = what;
  }
  Status await_resume() {
    if (rc != MPI_SUCCESS) return status_of_rc(rc, what);
    return std::exchange(h.promise().step, Status::Ok());
  }
};

// One collective access's data, owned by the driver for the task's lifetime.
struct CollAccess {
  ftmpi_file_s* f = nullptr;
  MPI_Comm comm = MPI_COMM_NULL;  // where the steps run
  bool write = false;
  std::uint64_t pos = 0;          // stream position (bytes)
  const char* wdata = nullptr;    // write: the stream
  char* rdata = nullptr;          // read: where the stream lands
  std::uint64_t len = 0;
  std::uint64_t got = 0;          // read: stream bytes read before the end of file
  // The view the access goes through: the file's current one when null (blocking accesses); a non-blocking
  // access keeps a copy of the view of its initiation, so a view set while it is pending (erroneous by
  // §13.3, yet done by programs that run with ROMIO, e.g. MPICH's io/i_hindexed) cannot redirect its bytes.
  const io::View* view = nullptr;
};

// The access (two-phase or independent, as docs/io.md says), ending in the reduction of outcomes.
IoTask collective_rw(CollAccess* a);

// Run a task to its end, waiting for each step (the blocking accesses).
Status run_blocking(IoTask task);

}  // namespace ftmpi::api
