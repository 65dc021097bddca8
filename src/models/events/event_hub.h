// Asynchronous failure events (seed 004; seed 002 §7.3.1; interface: shared/design/API.md "Asynchronous
// events"). The hub is the FT layer's FailureObserver (ft/failure_observer.h): it is told of every process
// failure the moment the FailureState records it, of every communicator revoked here and of every
// application event, and hands them on to
//   * the event queue (MPIX_Event_poll): every notice, in the order the hub saw them;
//   * subscriptions (MPIX_Event_subscribe and MPI_T event handles): a callback per matching notice;
//   * per-communicator failure callbacks (LAM, MPIX_Comm_set_failure_callback): once per (failed process,
//     communicator), and before a barrier on that communicator returns (wait_comm_delivered).
//
// Model. Notices come from any thread (service thread: launcher notices; application thread: failures
// reported by peers, revokes, user events). Callbacks run on the hub's own thread (the "event thread",
// started with the first callback registered) — never on the thread that reported the notice, so a slow
// callback can delay neither the service thread's heartbeats (it would be declared hung) nor an MPI call.
// Callbacks follow the signal-handler rules (seed 002 §7.3.1): they must not call MPI; the C API refuses
// registration calls made from a callback.
//
// Guarantees (each a test in tests/ft/events_*):
//   * the queue and each subscriber see notices in the hub's order (a sequence number, `seq`);
//   * a failure is reported once per process (FailureState::mark_failed is idempotent), to a subscription
//     or communicator callback registered after the failure too (catch-up at registration);
//   * a communicator callback runs exactly once per (failed member, communicator): a per-entry cursor into
//     the failure log only moves forward, under the delivery lock;
//   * wait_comm_delivered(c) returns once the callback has run for every member of c the FailureState
//     knows failed at the call, and for at least one member when the caller's barrier failed (the LAM
//     barrier rule; exact with one failure, see docs/lam.md for several).
//
// Locks: `deliver_mu_` (held while callbacks run, and by every change to subscriptions / communicator
// callbacks, so none disappears under a running callback) before `mu_` (state; held briefly, never while a
// user callback runs). Observer methods take only `mu_`, so a notice never waits for a callback.
// Cost: nothing in the fault-free path but one pointer test in mark_failed; memory: the failure log
// (bounded by the job size), a 1024-entry queue ring, the notices not yet handed to every subscriber.
#pragma once
#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <thread>
#include <unordered_map>
#include <vector>

#include "ft/failure_observer.h"

namespace ftmpi::events {

// Notice types; the values are MPIX_EVENT_* of mpi.h.
enum Type : int { kProcFailed = 1, kNodeLost = 2, kCommRevoked = 3, kUser = 4 };
inline constexpr unsigned kAllTypes = (1u << kProcFailed) | (1u << kNodeLost) | (1u << kCommRevoked) | (1u << kUser);

struct Event {
  int type = 0;
  int world_rank = -1;       // failed process, revoker, or publisher
  int cause = 0;             // ft::Cause of a failure, 0 otherwise
  int code = 0;              // exit code / signal of a failure, the application's code of a user event
  double time = 0;           // CLOCK_REALTIME seconds: when the launcher saw the failure, else when the hub did
  double seen = 0;           // CLOCK_MONOTONIC seconds when the hub saw it (MPI_T timestamps)
  const void* comm = nullptr;  // revoked / published-on communicator; for a failure the subscription's, or null
  std::uint64_t seq = 0;     // the hub's order, from 1
};

// What a subscription wants: notices of `mask` types about members of `comm` (world ranks `members`),
// from one of them (`world_rank`) or any (-1). Revokes and user events match by communicator.
struct Filter {
  const void* comm = nullptr;
  std::vector<int> members;  // world ranks
  int world_rank = -1;
  unsigned mask = kAllTypes;
};

class EventHub final : public ft::FailureObserver {
 public:
  static constexpr std::size_t kQueueCapacity = 1024;

  explicit EventHub(const ft::FailureState& failures) : failures_(failures) {}
  ~EventHub() override { stop(); }
  // Stop the event thread (MPI_Finalize). Idempotent.
  void stop();

  // FailureObserver (any thread, quick, never waits for a callback).
  void on_process_failed(const ft::FailureRecord& rec) override;
  void on_comm_revoked(const void* comm, int revoker_world) override;
  void on_user_event(const void* comm, int src_world, int code) override;

  // The queue: the oldest notice not polled yet. False when empty. `dropped` counts the notices lost
  // because the queue was full (the oldest go first).
  bool poll(Event* out);
  std::uint64_t dropped() const;

  // Subscriptions. Returns the id (> 0). The callback gets every matching notice seen from now on, and the
  // matching failures seen before (in their order) first.
  int subscribe(Filter f, std::function<void(const Event&)> fn);
  // False for an unknown id. On return no callback of that subscription runs any more.
  bool unsubscribe(int id);

  // Per-communicator failure callback (replaces an earlier one; the exactly-once record stays). `fn` gets
  // the failed member's rank in `comm`. Failures already known are delivered too.
  void set_comm_callback(const void* comm, std::vector<int> members, std::function<void(int)> fn);
  bool has_comm_callbacks() const { return comm_cb_count_.load(std::memory_order_relaxed) != 0; }
  // The communicator is gone (MPI_Comm_free): its callback and its subscriptions end. On return none runs.
  void drop_comm(const void* comm);
  // Block until `comm`'s failure callback ran for every member the FailureState knows failed now.
  // Returns at once when `comm` has no callback. `failed_op`: the caller's barrier failed with a process
  // failure, so a member has failed even if this process has not been told yet (it may have learned it
  // from another member giving the barrier up): wait for that notice too (it is on its way from the
  // launcher to every survivor; at most 30 s, then give up with a warning).
  void wait_comm_delivered(const void* comm, bool failed_op = false);

  bool on_event_thread() const { return std::this_thread::get_id() == thread_id_; }

 private:
  struct Sub {
    int id;
    Filter filter;
    std::unordered_map<int, int> member_index;  // world rank -> rank in comm
    std::function<void(const Event&)> fn;
    std::uint64_t next_seq;                      // next notice of log_ to hand over
    std::vector<Event> catchup;                  // failures seen before subscribing
    bool alive = true;                           // false once unsubscribed (a batch may still hold it)
  };
  struct CommCb {
    std::vector<int> members;
    std::unordered_map<int, int> member_index;
    std::function<void(int)> fn;
    std::size_t cursor = 0;  // failures_log_[0, cursor) handled: exactly once
    bool alive = true;
  };

  Event push_locked(Event e);  // under mu_: seq, queue, log, wake; returns e with its seq
  void ensure_thread_locked();
  void run();
  bool work_locked() const;
  void trim_log_locked();
  static bool matches(const Sub& s, const Event& e);
  std::unique_lock<std::mutex> delivery_lock();

  const ft::FailureState& failures_;
  mutable std::mutex mu_;
  std::mutex deliver_mu_;
  std::condition_variable cv_;         // work for the event thread
  std::condition_variable delivered_;  // the event thread moved cursors
  std::uint64_t next_seq_ = 1;
  std::deque<Event> queue_;
  std::uint64_t dropped_ = 0;
  std::deque<Event> log_;              // notices not yet handed to every subscription, in seq order
  std::vector<Event> failures_log_;    // every failure, in order (bounded by the job size)
  std::unordered_map<int, std::size_t> failure_pos_;  // world rank -> index in failures_log_
  std::map<int, std::shared_ptr<Sub>> subs_;  // shared: a running batch keeps what it calls
  int next_sub_id_ = 1;
  std::map<const void*, std::shared_ptr<CommCb>> comm_cbs_;
  std::atomic<int> comm_cb_count_{0};
  std::thread thread_;
  std::atomic<std::thread::id> thread_id_{};
  bool stop_ = false;
  bool stopped_ = false;
};

}  // namespace ftmpi::events
