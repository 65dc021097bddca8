#include "tree_liveness.h"

#include <algorithm>

namespace ftmpi::mpiexec {

TreeLiveness::TreeLiveness(Duration period, Duration timeout, Duration startup, bool has_parent,
                           Clock::time_point now)
    : period_(period), timeout_(timeout), startup_(startup), has_parent_(has_parent), parent_heard_(now),
      next_beat_(now) {}

TreeLiveness::Child& TreeLiveness::child(int i) {
  if (i >= static_cast<int>(children_.size())) children_.resize(static_cast<std::size_t>(i) + 1);
  return children_[static_cast<std::size_t>(i)];
}

void TreeLiveness::expect_child(int i, Clock::time_point now) {
  Child& c = child(i);
  if (c.state == State::unused) c = {State::pending, now};
}

void TreeLiveness::child_connected(int i, Clock::time_point now) {
  Child& c = child(i);
  if (c.state == State::unused || c.state == State::pending) c = {State::up, now};
}

bool TreeLiveness::heard_child(int i, Clock::time_point now) {
  Child& c = child(i);
  if (c.state != State::up) return false;
  c.since = std::max(c.since, now);
  return true;
}

void TreeLiveness::child_closed(int i) {
  Child& c = child(i);
  if (c.state == State::up || c.state == State::pending) c.state = State::closed;
}

void TreeLiveness::child_done(int i) {
  Child& c = child(i);
  if (c.state != State::lost) c.state = State::done;
}

void TreeLiveness::heard_parent(Clock::time_point now) { parent_heard_ = std::max(parent_heard_, now); }

void TreeLiveness::stalled(Duration stall) {
  if (stall < period_ / 2) return;
  const Duration credit = std::min(stall, timeout_);
  if (has_parent_ && !reattaching_) parent_heard_ += credit;
  for (Child& c : children_)
    if (c.state == State::up) c.since += credit;
}

void TreeLiveness::parent_closed() {
  if (!reattaching_) parent_closed_ = true;  // while re-attaching, the daemon tries its next ancestor
}

void TreeLiveness::adopted(Clock::time_point now) {
  if (fenced_ || !reattaching_) return;
  reattaching_ = false;
  parent_closed_ = false;
  parent_why_ = Why::none;
  parent_heard_ = now;
  next_beat_ = now;
}

bool TreeLiveness::child_lost(int i) const {
  return i < static_cast<int>(children_.size()) && children_[static_cast<std::size_t>(i)].state == State::lost;
}

TreeLiveness::Actions TreeLiveness::tick(Clock::time_point now) {
  Actions a;
  if (fenced_) return a;
  if (has_parent_ && !reattaching_ && (parent_closed_ || now >= parent_heard_ + timeout_)) {
    parent_why_ = parent_closed_ ? Why::closed : Why::silent;
    if (reattach_.count() > 0) {
      reattaching_ = true;
      parent_lost_at_ = now;
      a.reattach = true;
    } else {
      parent_lost_at_ = now;
    }
  }
  if (has_parent_ && (reattaching_ || parent_why_ != Why::none) && now >= parent_lost_at_ + reattach_) {
    fenced_ = true;
    a.fence = true;
    a.fence_why = parent_why_;
    return a;  // a fenced daemon judges nothing more: it is leaving
  }
  for (std::size_t i = 0; i < children_.size(); ++i) {
    Child& c = children_[i];
    Why why = Why::none;
    if (c.state == State::closed) why = Why::closed;
    else if (c.state == State::up && now >= c.since + timeout_ + period_) why = Why::silent;
    else if (c.state == State::pending && now >= c.since + startup_) why = Why::never_connected;
    if (why == Why::none) continue;
    c.state = State::lost;
    a.lost.push_back(static_cast<int>(i));
    a.lost_why.push_back(why);
  }
  if (has_parent_ && now >= next_beat_) {
    a.send_heartbeats = true;
    next_beat_ = now + period_;
  }
  return a;
}

TreeLiveness::Clock::time_point TreeLiveness::next_deadline() const {
  if (fenced_) return Clock::time_point::max();
  Clock::time_point t = has_parent_ ? next_beat_ : Clock::time_point::max();
  if (has_parent_ && reattaching_) t = std::min(t, parent_lost_at_ + reattach_);
  else if (has_parent_) t = std::min(t, parent_closed_ ? Clock::time_point::min() : parent_heard_ + timeout_);
  for (const Child& c : children_) {
    if (c.state == State::closed) return Clock::time_point::min();
    if (c.state == State::up) t = std::min(t, c.since + timeout_ + period_);
    if (c.state == State::pending) t = std::min(t, c.since + startup_);
  }
  return t;
}

}  // namespace ftmpi::mpiexec
