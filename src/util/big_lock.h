// The MPI_THREAD_MULTIPLE lock: a recursive mutex whose owner can release it completely while it waits
// (Progress::wait_until), so that a thread blocked in MPI_Recv does not keep another thread's MPI_Send out.
#pragma once
#include <atomic>
#include <mutex>
#include <thread>

namespace ftmpi {

class BigLock {
 public:
  void lock() {
    if (owner_.load(std::memory_order_relaxed) == std::this_thread::get_id()) {
      ++depth_;
      return;
    }
    m_.lock();
    owner_.store(std::this_thread::get_id(), std::memory_order_relaxed);
    depth_ = 1;
  }
  void unlock() {
    if (--depth_ == 0) {
      owner_.store(std::thread::id(), std::memory_order_relaxed);
      m_.unlock();
    }
  }
  bool held_by_me() const { return owner_.load(std::memory_order_relaxed) == std::this_thread::get_id(); }
  // Let other threads in for a moment (caller holds the lock at any depth).
  void let_others_in() {
    int d = depth_;
    depth_ = 0;
    owner_.store(std::thread::id(), std::memory_order_relaxed);
    m_.unlock();
    std::this_thread::yield();
    m_.lock();
    owner_.store(std::this_thread::get_id(), std::memory_order_relaxed);
    depth_ = d;
  }

 private:
  std::mutex m_;
  std::atomic<std::thread::id> owner_{};
  int depth_ = 0;
};

}  // namespace ftmpi
