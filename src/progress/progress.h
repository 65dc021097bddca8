// The one progress loop. Every blocking MPI call ends up in Progress::wait_until: it drives the engine
// (poll transports, deliver frames, retry backlog) and backs off when there is nothing to do — spin, then
// sched_yield, then sleep in the transport (futex doorbell / poll) — so that jobs with more ranks than
// cores do not burn the CPU their peers need.
//
// Contention. Spinning and yielding pay only while this thread has a core to itself: on a machine loaded by
// other programs a spinning or yielding rank stays runnable and queues behind them, so every message to it
// waits for the scheduler to come round (measured: 2 ranks on 2 cores under ~40 runnable programs, 7
// revoke-and-free cycles per second instead of 35,000), whereas a sleeping rank is woken at once by the
// frame's doorbell. So each wait that outlasts its spin phase reads this thread's count of involuntary
// context switches (getrusage, one system call); if it grew since the last look, another program took the
// core from us, and the waits of the next second use the contended policy (a few spins, no yields, then
// sleep). Cost: one getrusage per wait that lasts longer than the spin phase; nothing on the fast path.
// The check runs only for a policy with a spin phase: in an oversubscribed job (more ranks than cores,
// decided once at MPI_Init) the job's own ranks pre-empt each other, so the count always grows and would
// say "contended" every time; that policy has no spin phase (it yields from the first idle pass, as Open
// MPI does when it sees oversubscription, then sleeps) and never probes. FTMPI_BACKOFF=spin,yield,sleep_us
// replaces the chosen policy (progress.cpp).
//
// Failure awareness (issue 3) plugs in through the engine: engine.progress() notices a moved failure
// epoch and completes affected requests with errors, so a done() predicate on a request always becomes
// true; nothing here waits without re-checking.
#pragma once
#include <atomic>
#include <cstdint>
#include <thread>

#include "p2p/engine.h"
#include "util/big_lock.h"
#include "util/spin_wait.h"
#include "transport/router.h"

namespace ftmpi::progress {

struct BackoffPolicy {
  int spin_iterations;   // idle passes before the first yield
  int yield_iterations;  // idle passes with sched_yield before sleeping (and at most kYieldPhaseNs of them)
  int sleep_us;          // longest single sleep in a transport's wait()
  // A yield at least this long was stolen (a foreign program had our core; util/spin_wait.h).
  long long stolen_yield_ns = util::kStolenYieldNs;
  // Oversubscribed (more ranks than cores on this host): no spin, yield from the first idle pass, then sleep.
  static BackoffPolicy for_load(int local_ranks, int cores);
  // While other programs take our core (see "Contention" above): sleep almost at once.
  static BackoffPolicy contended();
};

class Progress {
 public:
  Progress(p2p::Engine& engine, transport::Router& router, BackoffPolicy policy)
      : engine_(engine), router_(router), policy_(policy) {}

  // Drive progress until done() returns true. done() is evaluated after every progress pass.
  template <class Done>
  void wait_until(Done&& done) {
    int idle = 0;
    for (;;) {
      int work = engine_.progress();
      if (done()) {
        if (lock_) leave_turn();
        return;
      }
      if (interrupt_ && __builtin_expect(*interrupt_ != 0, 0)) on_interrupt_();
      if (work > 0) {
        idle = 0;
        if (lock_) wake_parked();  // what arrived may have completed a parked thread's request
      } else {
        if (lock_ && lock_->held_by_me()) lock_->let_others_in();
        idle = back_off(idle);
      }
    }
  }

  // One non-blocking pass (MPI_Test*, MPI_Iprobe).
  int poll() { return engine_.progress(); }

  const BackoffPolicy& policy() const { return policy_; }
  // True while waits use the contended policy.
  bool contended() const { return contended_; }

  // MPI_THREAD_MULTIPLE: waiting threads release this lock between passes.
  //
  // Threads that wait at once (MPI_THREAD_MULTIPLE). One of them, the sleeper, sleeps in the transports with
  // the lock held (a frame wakes it; so does any thread that finds the lock taken: contention_observer()
  // must be installed on the lock, or the async progress thread's observer, which wakes the same way). The
  // others park outside the lock on turn_gen_ until a progress pass did work, the sleeper left its wait, or
  // the policy's sleep time passed; then they take the lock and look at their requests again. Without
  // this, every waiting thread slept 2 ms at a time holding the lock, and took it back before a woken
  // thread could run (multisend4: 2.7 s a round; the 2-rank test env_thread_waiters: 3.9 ms per
  // self-message beside a thread blocked in MPI_Recv).
  void set_lock(BigLock* lock) { lock_ = lock; }
  // A BigLock observer that wakes the transports when an API thread finds the lock taken; `wake` interrupts
  // a transport wait of this process (Runtime::wake).
  class ContentionWaker : public BigLock::Observer {
   public:
    explicit ContentionWaker(void (*wake)(void*), void* arg) : wake_(wake), arg_(arg) {}
    void contended() override { wake_(arg_); }
    void releasing() override {}

   private:
    void (*wake_)(void*);
    void* arg_;
  };

  // Reinit (models/reinit): while `*flag` is non-zero a waiting loop calls `fn`, which does not return
  // (it jumps back to the rollback location). The loop is a safe point: no lock held (Reinit refuses
  // MPI_THREAD_MULTIPLE), no system call in progress. Cost when unused: one pointer test per idle pass.
  void set_interrupt(const volatile int* flag, void (*fn)()) {
    interrupt_ = flag;
    on_interrupt_ = fn;
  }
  // While `*flag` is true, idle passes skip the yield phase and sleep in the transports at once (Reinit:
  // ReinitControl::resuming_flag, the job's ranks are still coming back from a rollback). Cost when unused:
  // one pointer test per idle pass past the spin phase.
  void set_no_yield(const std::atomic<bool>* flag) { no_yield_ = flag; }
  // Forget the yields "stolen" so far: called where every rank of this host is known to be past its start-up
  // — the end of MPI_Init (Runtime::init_body) and the set-up of a shared-memory collective area holding
  // every rank of the host (coll/shm_area.cpp: each member is in its kSetupAfter-th collective then). During
  // start-up the ranks sharing our core exec, load the library, map segments and connect — the job's own
  // work, 1-10 ms at a stretch, not a foreign CPU-bound program — and ranks leave MPI_Init several ms apart;
  // one such yield made every wait of the next kNoYieldNs sleep instead of yielding: an oversubscribed
  // 8-byte Bcast loop (4 ranks on 2 cores) ran at 1.8-2.4 us per call for its first 100 ms and at ~0.4 us
  // afterwards (docs/performance.md, 2026-11-27 small13g). A stolen yield after that counts as before.
  void forget_stolen_yields() { yields_.forget(); }

 private:
  // One idle pass: spin, yield or sleep by the policy. Returns the next pass's idle count: idle_passes + 1, or
  // the first sleeping pass's count once the yield phase has lasted kYieldPhaseNs (next to CPU-bound programs
  // every sched_yield hands them a whole time slice, so 2000 yields took seconds and 8-rank FT tests timed
  // out; a sleeping rank is woken by the frame's doorbell at once). Stops growing once sleeping.
  //
  // The cap alone is not enough next to CPU-bound programs: a single sched_yield there lasts a whole time slice
  // of theirs (1-4 ms, EEVDF pushes the yielder's deadline back), so each wait paid one slice before its first
  // look at the clock, and the next wait the same again: 8 ranks on 2 cores beside two busy loops ran
  // ft_coll_shm's 8-byte collectives at 30-40 ms each (60 s timeouts), against 0.2 ms when sleeping at once.
  // So every yield is timed: one that kept us off the core for kStolenYieldNs ends the yield phase at once,
  // and the waits of the next kNoYieldNs skip theirs (sleep on the doorbell from the first idle pass, which
  // wakes us as soon as the frame arrives: a woken sleeper is placed ahead of the CPU-bound programs). Among the
  // job's own waiting ranks a yield comes back in microseconds (a context switch and a progress pass), so a
  // quiet oversubscribed job keeps yielding. Cost: two clock reads (vDSO) per yield.
  // The rule and its constants (kYieldPhaseNs, kStolenYieldNs, kNoYieldNs) are util/spin_wait.h's, shared
  // with the library's doorbell-less waits.
  int back_off(int idle_passes);
  // At the end of a wait's spin phase: were we preempted since the last look? Updates contended_.
  void probe_contention();
  // Threads that wait at once (see set_lock). Called with the lock held.
  void leave_turn();   // a wait ends: give up the sleeper's turn, wake the parked threads
  void wake_parked();  // something progressed: parked threads look again
  void park(int timeout_us);  // another thread sleeps in the transports: wait without the lock

  p2p::Engine& engine_;
  transport::Router& router_;
  BackoffPolicy policy_;
  BackoffPolicy contended_policy_ = BackoffPolicy::contended();
  bool contended_ = false;
  long last_nivcsw_ = -1;            // involuntary context switches of this thread at the last look
  long long contended_until_ns_ = 0;  // CLOCK_MONOTONIC: keep the contended policy until then
  long long yield_deadline_ns_ = 0;   // CLOCK_MONOTONIC: this wait's yield phase ends then at the latest
  util::YieldRule yields_;            // stolen yields: waits skip the yield phase for a while after one
  BigLock* lock_ = nullptr;
  std::thread::id sleeper_{};              // the thread sleeping in the transports (under the lock)
  std::atomic<std::uint32_t> turn_gen_{0};  // futex word of the parked threads
  std::atomic<int> parked_{0};
  const volatile int* interrupt_ = nullptr;
  void (*on_interrupt_)() = nullptr;
  const std::atomic<bool>* no_yield_ = nullptr;
};

}  // namespace ftmpi::progress
