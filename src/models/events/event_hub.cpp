#include "models/events/event_hub.h"

#include <time.h>

#include <algorithm>
#include <chrono>

#include "util/log.h"

namespace ftmpi::events {
namespace {
double clock_s(clockid_t id) {
  timespec ts;
  clock_gettime(id, &ts);
  return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) * 1e-9;
}
std::unordered_map<int, int> index_of(const std::vector<int>& members) {
  std::unordered_map<int, int> m;
  m.reserve(members.size());
  for (std::size_t i = 0; i < members.size(); ++i) m.emplace(members[i], static_cast<int>(i));
  return m;
}
bool is_failure(int type) { return type == kProcFailed || type == kNodeLost; }
}  // namespace

void EventHub::stop() {
  {
    std::lock_guard<std::mutex> l(mu_);
    if (stopped_) return;
    stop_ = stopped_ = true;
  }
  cv_.notify_all();
  delivered_.notify_all();
  if (thread_.joinable()) {
    if (on_event_thread()) thread_.detach();
    else thread_.join();
  }
}

Event EventHub::push_locked(Event e) {
  e.seq = next_seq_++;
  if (queue_.size() >= kQueueCapacity) {
    queue_.pop_front();
    ++dropped_;
  }
  queue_.push_back(e);
  if (!subs_.empty()) log_.push_back(e);
  // Wake the event thread only when this notice is work for it (work_locked): a revoke or a user event with
  // no subscription was a futex wake and a context switch for nothing, per revoke, while a communicator
  // callback was registered.
  if (!subs_.empty() || (is_failure(e.type) && !comm_cbs_.empty())) cv_.notify_one();
  return e;
}

void EventHub::on_process_failed(const ft::FailureRecord& rec) {
  Event e;
  e.type = rec.cause == ft::Cause::node_lost ? kNodeLost : kProcFailed;
  e.world_rank = rec.world_rank;
  e.cause = static_cast<int>(rec.cause);
  e.code = rec.code;
  e.time = rec.time > 0 ? rec.time : clock_s(CLOCK_REALTIME);
  e.seen = clock_s(CLOCK_MONOTONIC);
  std::lock_guard<std::mutex> l(mu_);
  if (failure_pos_.count(rec.world_rank)) return;  // mark_failed is idempotent already; be safe
  e = push_locked(e);
  failure_pos_[rec.world_rank] = failures_log_.size();
  failures_log_.push_back(e);
}

void EventHub::on_comm_revoked(const void* comm, int revoker_world) {
  Event e;
  e.type = kCommRevoked;
  e.world_rank = revoker_world;
  e.time = clock_s(CLOCK_REALTIME);
  e.seen = clock_s(CLOCK_MONOTONIC);
  e.comm = comm;
  std::lock_guard<std::mutex> l(mu_);
  push_locked(e);
}

void EventHub::on_user_event(const void* comm, int src_world, int code) {
  Event e;
  e.type = kUser;
  e.world_rank = src_world;
  e.code = code;
  e.time = clock_s(CLOCK_REALTIME);
  e.seen = clock_s(CLOCK_MONOTONIC);
  e.comm = comm;
  std::lock_guard<std::mutex> l(mu_);
  push_locked(e);
}

bool EventHub::poll(Event* out) {
  std::lock_guard<std::mutex> l(mu_);
  if (queue_.empty()) return false;
  *out = queue_.front();
  queue_.pop_front();
  return true;
}

std::uint64_t EventHub::dropped() const {
  std::lock_guard<std::mutex> l(mu_);
  return dropped_;
}

std::unique_lock<std::mutex> EventHub::delivery_lock() {
  // From a callback (event thread) the delivery lock is already held by this thread.
  if (on_event_thread()) return std::unique_lock<std::mutex>();
  return std::unique_lock<std::mutex>(deliver_mu_);
}

void EventHub::ensure_thread_locked() {
  if (thread_.joinable() || stop_) return;
  thread_ = std::thread([this] { run(); });
  thread_id_.store(thread_.get_id());
}

int EventHub::subscribe(Filter f, std::function<void(const Event&)> fn) {
  auto dl = delivery_lock();
  std::lock_guard<std::mutex> l(mu_);
  auto s = std::make_shared<Sub>();
  s->id = next_sub_id_++;
  s->member_index = index_of(f.members);
  s->filter = std::move(f);
  s->fn = std::move(fn);
  s->next_seq = next_seq_;
  for (const Event& e : failures_log_)
    if (matches(*s, e)) s->catchup.push_back(e);
  const int id = s->id;
  subs_.emplace(id, std::move(s));
  ensure_thread_locked();
  cv_.notify_one();
  return id;
}

bool EventHub::unsubscribe(int id) {
  auto dl = delivery_lock();
  std::lock_guard<std::mutex> l(mu_);
  auto it = subs_.find(id);
  if (it == subs_.end()) return false;
  it->second->alive = false;
  subs_.erase(it);
  trim_log_locked();
  return true;
}

void EventHub::set_comm_callback(const void* comm, std::vector<int> members, std::function<void(int)> fn) {
  auto dl = delivery_lock();
  std::lock_guard<std::mutex> l(mu_);
  auto& slot = comm_cbs_[comm];
  if (!slot) {
    slot = std::make_shared<CommCb>();
    slot->member_index = index_of(members);
    slot->members = std::move(members);
    comm_cb_count_.fetch_add(1, std::memory_order_relaxed);
  }
  slot->fn = std::move(fn);
  ensure_thread_locked();
  cv_.notify_one();
}

void EventHub::drop_comm(const void* comm) {
  auto dl = delivery_lock();
  std::lock_guard<std::mutex> l(mu_);
  if (auto it = comm_cbs_.find(comm); it != comm_cbs_.end()) {
    it->second->alive = false;
    comm_cbs_.erase(it);
    comm_cb_count_.fetch_sub(1, std::memory_order_relaxed);
  }
  for (auto it = subs_.begin(); it != subs_.end();) {
    if (it->second->filter.comm == comm) {
      it->second->alive = false;
      it = subs_.erase(it);
    } else {
      ++it;
    }
  }
  trim_log_locked();
  delivered_.notify_all();
}

void EventHub::wait_comm_delivered(const void* comm, bool failed_op) {
  std::unique_lock<std::mutex> l(mu_);
  const auto give_up = std::chrono::steady_clock::now() + std::chrono::seconds(30);
  auto done = [&] {
    if (stop_) return true;
    auto it = comm_cbs_.find(comm);
    if (it == comm_cbs_.end()) return true;
    const CommCb& cb = *it->second;
    bool any = false;
    for (int w : cb.members) {
      if (!failures_.failed(w)) continue;
      any = true;
      auto p = failure_pos_.find(w);
      if (p == failure_pos_.end() || cb.cursor <= p->second) return false;
    }
    if (failed_op && !any) {
      if (std::chrono::steady_clock::now() < give_up) return false;
      log::warn("MPI_Barrier failed but no failure notice for its communicator came within 30 s");
    }
    return true;
  };
  // done() turns true only under mu_ and with a notify of delivered_: the event thread moves the cursors after
  // the notice (on_process_failed, just after FailureState::mark_failed sets the bit) has been handed over, and
  // stop() notifies. The timeout is a safety net and the 30 s give-up's clock, not a poll (it was 2 ms: 500
  // wake-ups a second per waiting rank while a notice travelled).
  while (!done()) delivered_.wait_for(l, std::chrono::milliseconds(100));
}

bool EventHub::matches(const Sub& s, const Event& e) {
  if (!(s.filter.mask & (1u << e.type))) return false;
  if (is_failure(e.type)) {
    if (!s.filter.members.empty() && !s.member_index.count(e.world_rank)) return false;
    return s.filter.world_rank < 0 || s.filter.world_rank == e.world_rank;
  }
  if (e.comm != s.filter.comm) return false;
  return e.type != kUser || s.filter.world_rank < 0 || s.filter.world_rank == e.world_rank;
}

void EventHub::trim_log_locked() {
  std::uint64_t low = next_seq_;
  for (const auto& [id, s] : subs_) low = std::min(low, s->next_seq);
  while (!log_.empty() && log_.front().seq < low) log_.pop_front();
}

bool EventHub::work_locked() const {
  for (const auto& [c, cb] : comm_cbs_)
    if (cb->cursor < failures_log_.size()) return true;
  for (const auto& [id, s] : subs_)
    if (!s->catchup.empty() || s->next_seq < next_seq_) return true;
  return false;
}

void EventHub::run() {
  struct CommCall {
    std::shared_ptr<CommCb> cb;
    int rank;
  };
  struct SubCall {
    std::shared_ptr<Sub> sub;
    Event e;
  };
  std::vector<CommCall> comm_calls;
  std::vector<SubCall> sub_calls;
  std::vector<std::pair<std::shared_ptr<CommCb>, std::size_t>> cursors;
  for (;;) {
    {
      std::unique_lock<std::mutex> l(mu_);
      cv_.wait(l, [&] { return stop_ || work_locked(); });
      if (stop_) return;
    }
    std::lock_guard<std::mutex> dl(deliver_mu_);  // no subscription or callback changes while they run
    comm_calls.clear();
    sub_calls.clear();
    cursors.clear();
    {
      std::lock_guard<std::mutex> l(mu_);
      if (stop_) return;
      const std::size_t end = failures_log_.size();
      for (auto& [c, cb] : comm_cbs_) {
        for (std::size_t i = cb->cursor; i < end; ++i) {
          auto it = cb->member_index.find(failures_log_[i].world_rank);
          if (it != cb->member_index.end()) comm_calls.push_back({cb, it->second});
        }
        if (cb->cursor < end) cursors.emplace_back(cb, end);
      }
      for (auto& [id, s] : subs_) {
        for (Event& e : s->catchup) sub_calls.push_back({s, e});
        s->catchup.clear();
        for (const Event& e : log_)
          if (e.seq >= s->next_seq && matches(*s, e)) sub_calls.push_back({s, e});
        s->next_seq = next_seq_;
      }
      trim_log_locked();
    }
    // User code, no hub state lock held (notices keep coming in meanwhile). `alive` is only cleared under
    // the delivery lock this thread holds, i.e. by this thread itself from inside a callback.
    for (const CommCall& c : comm_calls)
      if (c.cb->alive && c.cb->fn) c.cb->fn(c.rank);
    for (SubCall& c : sub_calls) {
      if (!c.sub->alive) continue;
      if (is_failure(c.e.type)) c.e.comm = c.sub->filter.comm;
      c.sub->fn(c.e);
    }
    comm_calls.clear();  // drop the references to ended entries now
    sub_calls.clear();
    {
      std::lock_guard<std::mutex> l(mu_);
      for (auto& [cb, end] : cursors) cb->cursor = end;
    }
    delivered_.notify_all();
  }
}

}  // namespace ftmpi::events
