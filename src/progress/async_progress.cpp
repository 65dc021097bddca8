#include "progress/async_progress.h"

#include <pthread.h>
#include <signal.h>
#include <time.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <string_view>
#include <utility>

namespace ftmpi::progress {

bool async_progress_requested() {
  const char* v = std::getenv("FTMPI_ASYNC_PROGRESS");
  if (!v) return false;
  return std::strcmp(v, "1") == 0 || strcasecmp(v, "yes") == 0 || strcasecmp(v, "on") == 0 ||
         strcasecmp(v, "true") == 0;
}

AsyncProgress::AsyncProgress(BigLock& lock, p2p::Engine& engine, transport::Router& router,
                             std::function<void()> wake)
    : lock_(lock), engine_(engine), router_(router), wake_(std::move(wake)) {
  // The thread starts with every asynchronous signal blocked (it inherits the mask): the application's
  // handlers keep running on the application's threads.
  parked_.store(true, std::memory_order_relaxed);
  sigset_t all, old;
  sigfillset(&all);
  for (int s : {SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT}) sigdelset(&all, s);
  pthread_sigmask(SIG_BLOCK, &all, &old);
  thread_ = std::thread([this] { run(); });
  pthread_sigmask(SIG_SETMASK, &old, nullptr);
  lock_.set_observer(this);
}

AsyncProgress::~AsyncProgress() { stop(); }

void AsyncProgress::stop() {
  if (!thread_.joinable()) return;
  lock_.set_observer(nullptr);
  stop_.store(true, std::memory_order_seq_cst);
  kick_.fetch_add(1, std::memory_order_seq_cst);
  kick_.notify_all();
  wake_();  // out of a transport wait
  thread_.join();
}

void AsyncProgress::contended() { wake_(); }

void AsyncProgress::releasing() {
  // API thread, lock held: restart a parked thread when something now waits for progress.
  if (parked_.load(std::memory_order_relaxed) && engine_.has_pending()) {
    parked_.store(false, std::memory_order_relaxed);
    kick_.fetch_add(1, std::memory_order_release);
    kick_.notify_one();
  }
}

void AsyncProgress::sleep_in_transports() {
  auto ts = router_.transports();
  int sleepers = static_cast<int>(std::count_if(ts.begin(), ts.end(), [](transport::Transport* t) {
    return std::string_view(t->name()) != "self";
  }));
  if (sleepers == 0) {
    // Only the self transport: nothing can ring us, so nap without the lock (an API call gets in at once).
    lock_.unlock_quietly();
    struct timespec nap {0, 200 * 1000L};
    nanosleep(&nap, nullptr);
    lock_.lock_quietly();
    return;
  }
  const int each = std::max(1, kSleepUs / sleepers);
  for (transport::Transport* t : ts) {
    if (lock_.waiting() > 0 || stop_.load(std::memory_order_relaxed)) return;
    t->wait(each);
  }
}

void AsyncProgress::run() {
  // Starts parked (parked_ is set before the thread exists): MPI_Init may still use the engine without the
  // lock; the first API call that leaves something pending kicks us.
  kick_.wait(0, std::memory_order_acquire);
  parked_.store(false, std::memory_order_relaxed);
  for (;;) {
    lock_.lock_quietly();
    for (;;) {
      if (stop_.load(std::memory_order_relaxed)) break;
      if (lock_.waiting() > 0) {
        // Hand the lock over to the API thread(s) and queue behind them: we run again when their calls end.
        // The application is calling MPI, so it drives progress itself for now: stay away for kHandOverNapUs
        // first, so that a loop of MPI calls (MPI_Test polling) does not pay a hand-over per call.
        lock_.unlock_quietly();
        for (int w; (w = lock_.waiting()) > 0;) lock_.wait_waiting_change(w);
        struct timespec nap {0, kHandOverNapUs * 1000L};
        nanosleep(&nap, nullptr);
        if (stop_.load(std::memory_order_relaxed)) return;
        lock_.lock_quietly();
        continue;
      }
      if (engine_.progress() > 0) {
        work_passes_.fetch_add(1, std::memory_order_relaxed);
        continue;
      }
      if (!engine_.has_pending()) break;  // park
      if (engine_.has_backlog()) {
        // A peer's ring is full: it has to drain it first, and no doorbell tells us when. Step aside briefly.
        lock_.unlock_quietly();
        struct timespec nap {0, 50 * 1000L};
        nanosleep(&nap, nullptr);
        lock_.lock_quietly();
        continue;
      }
      sleep_in_transports();
    }
    if (stop_.load(std::memory_order_relaxed)) {
      lock_.unlock_quietly();
      return;
    }
    const std::uint32_t k = kick_.load(std::memory_order_acquire);
    parked_.store(true, std::memory_order_relaxed);
    lock_.unlock_quietly();
    kick_.wait(k, std::memory_order_acquire);
    parked_.store(false, std::memory_order_relaxed);
  }
}

}  // namespace ftmpi::progress
