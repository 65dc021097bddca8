#include "ft/ring_detector.h"

#include <algorithm>

namespace ftmpi::ft {

RingDetector::RingDetector(const DetectorConfig& cfg, double now_ms)
    : cfg_(cfg), state_(static_cast<std::size_t>(std::max(cfg.size, 1)), State::live),
      last_heard_(static_cast<std::size_t>(std::max(cfg.size, 1)), now_ms) {
  cfg_.observers = std::clamp(cfg_.observers, 1, std::max(1, cfg_.size - 1));
  DetectorActions ignored;
  repair(now_ms, ignored);
  next_beat_ = now_ms;  // the first tick heartbeats at once
}

void RingDetector::repair(double now_ms, DetectorActions& out) {
  const int n = cfg_.size;
  std::vector<int> obs, wat;
  for (int d = 1; d < n && static_cast<int>(obs.size()) < cfg_.observers; ++d)
    if (int r = (cfg_.me + d) % n; live(r)) obs.push_back(r);
  for (int d = 1; d < n && static_cast<int>(wat.size()) < cfg_.observers; ++d)
    if (int r = (cfg_.me - d + n) % n; live(r)) wat.push_back(r);
  // A new observer is heartbeated at once; a newly watched rank gets a full timeout from now.
  for (int r : obs)
    if (std::find(observers_.begin(), observers_.end(), r) == observers_.end())
      out.sends.push_back({r, DetectorMsg::heartbeat, -1});
  for (int r : wat)
    if (std::find(watched_.begin(), watched_.end(), r) == watched_.end())
      last_heard_[static_cast<std::size_t>(r)] = std::max(last_heard_[static_cast<std::size_t>(r)], now_ms);
  observers_ = std::move(obs);
  watched_ = std::move(wat);
}

void RingDetector::check_quorum(DetectorActions& out) const {
  if (!cfg_.quorum) return;
  const int voting = cfg_.size - departed_count_;
  if (2 * failed_count_ >= voting && failed_count_ > 0) out.quorum_lost = true;
}

bool RingDetector::take_out(int r, double now_ms, DetectorActions& out, bool fence_it) {
  if (r < 0 || r >= cfg_.size || r == cfg_.me || !live(r)) return false;
  state_[static_cast<std::size_t>(r)] = State::failed;
  ++failed_count_;
  for (int p = 0; p < cfg_.size; ++p)
    if (p != cfg_.me && live(p)) out.sends.push_back({p, DetectorMsg::suspect, r});
  if (fence_it) out.sends.push_back({r, DetectorMsg::fence, -1});
  repair(now_ms, out);
  check_quorum(out);
  return true;
}

void RingDetector::tick(double now_ms, DetectorActions& out) {
  // Suspect first (a repair may add observers, heartbeated at once by repair()).
  for (bool again = true; again;) {
    again = false;
    for (int r : watched_)
      if (now_ms - last_heard_[static_cast<std::size_t>(r)] > cfg_.timeout_ms) {
        take_out(r, now_ms, out, true);
        out.suspected.push_back(r);
        again = true;  // watched_ changed
        break;
      }
  }
  if (now_ms >= next_beat_) {
    for (int r : observers_) out.sends.push_back({r, DetectorMsg::heartbeat, -1});
    next_beat_ = now_ms + cfg_.period_ms;
  }
}

void RingDetector::on_message(int from, DetectorMsg kind, int about, double now_ms, DetectorActions& out) {
  if (from < 0 || from >= cfg_.size || from == cfg_.me) return;
  if (failed(from)) {
    // An out rank still speaks: it is fenced (it may have missed our notice). Its words count for nothing.
    if (kind != DetectorMsg::fence && kind != DetectorMsg::bye) out.sends.push_back({from, DetectorMsg::fence, -1});
    return;
  }
  if (departed(from)) return;
  switch (kind) {
    case DetectorMsg::heartbeat:
      last_heard_[static_cast<std::size_t>(from)] = now_ms;
      return;
    case DetectorMsg::suspect:
      if (about == cfg_.me) {
        out.fenced = true;
        return;
      }
      last_heard_[static_cast<std::size_t>(from)] = now_ms;
      if (take_out(about, now_ms, out, true)) out.suspected.push_back(about);
      return;
    case DetectorMsg::fence:
      out.fenced = true;
      return;
    case DetectorMsg::bye:
      state_[static_cast<std::size_t>(from)] = State::departed;
      ++departed_count_;
      repair(now_ms, out);
      return;
  }
}

void RingDetector::on_failed(int rank, double now_ms, DetectorActions& out) { take_out(rank, now_ms, out, false); }

void RingDetector::leave(DetectorActions& out) {
  for (int p = 0; p < cfg_.size; ++p)
    if (p != cfg_.me && live(p)) out.sends.push_back({p, DetectorMsg::bye, -1});
}

double RingDetector::next_deadline() const {
  double t = next_beat_;
  for (int r : watched_) t = std::min(t, last_heard_[static_cast<std::size_t>(r)] + cfg_.timeout_ms + 1);
  return t;
}

}  // namespace ftmpi::ft
