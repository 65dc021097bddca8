// Asynchronous progress (issue 13 target 4): a thread that drives the engine while the application computes
// outside MPI, so that non-blocking collectives, rendezvous transfers and RMA active messages advance
// without MPI calls. Off unless FTMPI_ASYNC_PROGRESS=1 (mpiexec --async-progress); when off nothing of this
// file runs and the API takes no lock below MPI_THREAD_MULTIPLE.
//
// Model. When on, every API call takes the runtime's BigLock (as under MPI_THREAD_MULTIPLE), and so does
// this thread for each of its passes: the engine, transports and communicators stay single-threaded
// objects (their contracts are unchanged), the lock is what serialises the two threads. The thread has
// three states:
//   parked    nothing is pending in the engine (Engine::has_pending: no posted receive, no send in flight,
//             no active schedule, no backlog): it sleeps on `kick_` without the lock, costs nothing.
//   polling   it holds the lock, runs Engine::progress() passes while they do work.
//   sleeping  pending work but nothing arrived: it sleeps in the transports (futex doorbell, poll(2)) WITH
//             the lock held — the transports' contract (one thread at a time, under the lock) forbids a
//             second sleeper — for at most kSleepUs.
// Hand-over to the application. An API thread that finds the lock taken counts itself in
// BigLock::waiting() and calls contended(), which wakes the transports (Runtime's wake: doorbell/eventfd);
// the thread, whenever it wakes or ends a pass, sees waiting() > 0, releases the lock, waits until the
// waiter got it, naps kHandOverNapUs without the lock (an application calling MPI drives progress itself;
// a loop of MPI_Test calls pays one hand-over per nap, not per call), then queues for the lock again (it
// runs again when the API call ends). So an API call
// waits at most one pass (or one transport wake-up) for the lock; a lost wake-up (the doorbell rung just
// before this thread read it) is bounded by kSleepUs.
// Wake-up from parked: the API thread's outermost unlock (Observer::releasing, lock still held) kicks the
// thread when it is parked and the engine now has pending work. The thread reads `kick_` and sets parked_
// under the lock, the API thread tests parked_ and bumps `kick_` under the lock: no lost kick.
// Failures: the service thread's notice wakes the transports like any frame, so a sleeping thread runs the
// engine's failure sweep and pending requests complete with errors while the application computes.
//
// Costs. Off: none (no thread, no lock; ApiLock tests one bool as before). On, no pending operation: every
// API call takes an uncontended mutex and at its end loads parked_ (and has_pending()). On, with pending
// operations while the application calls MPI: a hand-over (a wake-up and two context switches) per call.
// Not with the Reinit model (its rollback jumps out of the application thread at safe points, which a
// second thread inside the library would break): FTMPI_ASYNC_PROGRESS is then ignored with a warning.
// User reduction operations of non-blocking collectives may run on this thread (as in MPICH's progress
// thread); the thread blocks every asynchronous signal, so the application's handlers run on its own threads.
#pragma once
#include <atomic>
#include <cstdint>
#include <functional>
#include <thread>

#include "p2p/engine.h"
#include "transport/router.h"
#include "util/big_lock.h"

namespace ftmpi::progress {

class AsyncProgress final : public BigLock::Observer {
 public:
  // `wake` interrupts a transport wait of this process (Runtime::wake). Starts the thread.
  AsyncProgress(BigLock& lock, p2p::Engine& engine, transport::Router& router, std::function<void()> wake);
  ~AsyncProgress() override;  // stop()
  AsyncProgress(const AsyncProgress&) = delete;
  AsyncProgress& operator=(const AsyncProgress&) = delete;

  // Stop and join the thread. The caller must not hold the lock (or must release it around this call).
  void stop();

  // BigLock::Observer (API threads).
  void contended() override;
  void releasing() override;

  // Statistics (tests, benchmarks): engine passes that did work on this thread.
  std::uint64_t passes_with_work() const { return work_passes_.load(std::memory_order_relaxed); }

  static constexpr int kSleepUs = 1000;
  static constexpr int kHandOverNapUs = 200;  // after a hand-over: the application drives progress meanwhile

 private:
  void run();
  void sleep_in_transports();

  BigLock& lock_;
  p2p::Engine& engine_;
  transport::Router& router_;
  std::function<void()> wake_;
  std::atomic<std::uint32_t> kick_{0};
  std::atomic<bool> parked_{false};
  std::atomic<bool> stop_{false};
  std::atomic<std::uint64_t> work_passes_{0};
  std::thread thread_;
};

// FTMPI_ASYNC_PROGRESS set to 1/yes/on/true.
bool async_progress_requested();

}  // namespace ftmpi::progress
