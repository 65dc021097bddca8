// The MPI_THREAD_MULTIPLE lock: a recursive mutex whose owner can release it completely while it waits
// (Progress::wait_until), so that a thread blocked in MPI_Recv does not keep another thread's MPI_Send out.
// Also taken by every API call while the asynchronous progress thread runs (progress/async_progress.h),
// which holds it while it sleeps in the transports: an API thread that finds it taken says so
// (waiting(), Observer::contended) so that the holder hands it over at once.
#pragma once
#include <atomic>
#include <mutex>
#include <thread>

namespace ftmpi {

class BigLock {
 public:
  // Told of API threads' use of the lock (the asynchronous progress thread). Both calls are made by the
  // API thread: contended() after it found the lock taken and counted itself in waiting(), before it
  // blocks; releasing() when its outermost hold ends, with the lock still held.
  class Observer {
   public:
    virtual ~Observer() = default;
    virtual void contended() = 0;
    virtual void releasing() = 0;
  };
  void set_observer(Observer* o) { observer_.store(o, std::memory_order_release); }

  void lock() {
    if (owner_.load(std::memory_order_relaxed) == std::this_thread::get_id()) {
      ++depth_;
      return;
    }
    acquire();
    depth_ = 1;
  }
  void unlock() {
    if (depth_ == 1) {
      if (Observer* o = observer_.load(std::memory_order_relaxed)) o->releasing();
    }
    if (--depth_ == 0) {
      owner_.store(std::thread::id(), std::memory_order_relaxed);
      m_.unlock();
    }
  }
  // The observer's own thread: lock and unlock without telling the observer (depth 1 only).
  void lock_quietly() {
    if (!m_.try_lock()) {  // counted in waiting() like any thread blocked here (let_others_in reads it)
      waiting_.fetch_add(1, std::memory_order_seq_cst);
      m_.lock();
      waiting_.fetch_sub(1, std::memory_order_acq_rel);
      waiting_.notify_all();  // as in acquire(): let_others_in() waits for any change
    }
    owner_.store(std::this_thread::get_id(), std::memory_order_relaxed);
    depth_ = 1;
  }
  void unlock_quietly() {
    depth_ = 0;
    owner_.store(std::thread::id(), std::memory_order_relaxed);
    m_.unlock();
  }
  // Threads blocked in lock(), let_others_in() or lock_quietly() right now.
  int waiting() const { return waiting_.load(std::memory_order_acquire); }
  // Block until waiting() is not `seen` any more (the observer's hand-over; every change is notified).
  void wait_waiting_change(int seen) const { waiting_.wait(seen, std::memory_order_acquire); }

  bool held_by_me() const { return owner_.load(std::memory_order_relaxed) == std::this_thread::get_id(); }
  // Let other threads in for a moment (caller holds the lock at any depth). Called by every idle pass of a
  // waiting thread (progress::Progress::wait_until). With no thread blocked on the lock it does nothing: a
  // sched_yield per pass next to a CPU-bound program hands it a time slice each time (util/spin_wait.h); a
  // thread that fails try_lock just after the test is counted by the next pass. When threads are blocked,
  // wait until one of them has the lock before taking it back: a yield alone let the caller re-take the
  // mutex before the woken thread ran, so a thread waiting in MPI kept another's MPI_Isend out for
  // seconds (MPICH suite threads/pt2pt/multisend4: 2.7 s per round).
  void let_others_in() {
    const int w = waiting_.load(std::memory_order_acquire);
    if (w == 0) return;
    const int d = release_all();
    waiting_.wait(w, std::memory_order_acquire);  // acquire() notifies every decrement
    reacquire(d);
  }
  // Give the lock up completely (caller holds it at any depth) for a blocking wait outside it; returns the
  // depth to hand to reacquire().
  int release_all() {
    const int d = depth_;
    depth_ = 0;
    owner_.store(std::thread::id(), std::memory_order_relaxed);
    m_.unlock();
    return d;
  }
  void reacquire(int depth) {
    acquire();
    depth_ = depth;
  }

 private:
  void acquire() {
    if (!m_.try_lock()) {
      waiting_.fetch_add(1, std::memory_order_seq_cst);
      if (Observer* o = observer_.load(std::memory_order_acquire)) o->contended();
      m_.lock();
      waiting_.fetch_sub(1, std::memory_order_acq_rel);
      waiting_.notify_all();  // let_others_in() waits for any change, the async thread for zero
    }
    owner_.store(std::this_thread::get_id(), std::memory_order_relaxed);
  }

  std::mutex m_;
  std::atomic<std::thread::id> owner_{};
  int depth_ = 0;
  std::atomic<int> waiting_{0};
  std::atomic<Observer*> observer_{nullptr};
};

}  // namespace ftmpi
