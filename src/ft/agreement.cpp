#include "ft/agreement.h"

namespace ftmpi::ft {

namespace {
// Binomial tree over the live members `live` (sorted): node at index i has parent i & (i-1) and children
// i + 2^k for every 2^k below i's lowest set bit (all powers of two for the root).
void tree_of(const std::vector<int>& live, int me, int* parent, std::vector<int>* children) {
  children->clear();
  *parent = -1;
  auto it = std::lower_bound(live.begin(), live.end(), me);
  if (it == live.end() || *it != me) return;  // I am not live in this view (cannot happen for a live process)
  std::size_t i = static_cast<std::size_t>(it - live.begin());
  if (i != 0) *parent = live[i & (i - 1)];
  std::size_t limit = i == 0 ? live.size() : (i & (~i + 1));
  for (std::size_t k = 1; k < limit && i + k < live.size(); k <<= 1) children->push_back(live[i + k]);
}

void and_into(Bits& acc, const Bits& v) {
  if (acc.size() < v.size()) acc.resize(v.size(), ~std::uint64_t{0});
  for (std::size_t i = 0; i < v.size(); ++i) acc[i] &= v[i];
}
}  // namespace

Agreement::Agreement(int me, int size, bool fast) : me_(me), size_(size), fast_(fast) {
  if (fast_) fast_from_.assign(static_cast<std::size_t>(size > 0 ? size : 0), false);
  reset_round();
}

AgreeMsg Agreement::make(AgreeMsg::Kind k, const RankSet& tag) const {
  AgreeMsg m;
  m.kind = k;
  m.view = tag;
  return m;
}

void Agreement::reset_round() {
  ups_.clear();
  up_sent_in_view_ = false;
  down_sent_in_view_ = false;
  if (view_.empty()) {  // everybody is live: the tree over the ranks themselves, no list needed
    children_.clear();
    parent_ = me_ == 0 ? -1 : (me_ & (me_ - 1));
    const int limit = me_ == 0 ? size_ : (me_ & -me_);
    for (int k = 1; k < limit && me_ + k < size_; k <<= 1) children_.push_back(me_ + k);
    return;
  }
  std::vector<int> live;
  live.reserve(static_cast<std::size_t>(size_));
  for (int r = 0; r < size_; ++r)
    if (!view_.contains(r)) live.push_back(r);
  tree_of(live, me_, &parent_, &children_);
}

void Agreement::merge_view(const RankSet& v) {
  if (view_.merge(v)) reset_round();
}

void Agreement::start(Bits contribution, const RankSet& known_failed) {
  if (started_) return;
  started_ = true;
  contribution_ = std::move(contribution);
  merge_view(known_failed);
  if (in_fast_round()) {
    fast_sent_ = true;
    for (int r = 0; r < size_; ++r)
      if (r != me_) {
        AgreeMsg f = make(AgreeMsg::Kind::fast, view_);
        f.value = contribution_;
        send(r, std::move(f));
      }
  }
  step();
}

void Agreement::on_failure(int rank) {
  if (rank == me_ || view_.contains(rank)) return;
  RankSet one;
  one.insert(rank);
  merge_view(one);
  step();
}

void Agreement::decide(const Bits& value, const RankSet& failed) {
  decided_ = true;
  value_ = value;
  decided_failed_ = failed;
}

void Agreement::on_message(int src, const AgreeMsg& m) {
  merge_view(m.view);
  if (m.kind == AgreeMsg::Kind::fast) {
    // Only a FAST of the empty view counts, once per sender; it is stored until this process starts.
    if (fast_ && m.view.empty() && src >= 0 && src < size_ && src != me_ && !fast_from_[static_cast<std::size_t>(src)]) {
      fast_from_[static_cast<std::size_t>(src)] = true;
      ++fast_count_;
      if (fast_count_ == 1)
        fast_acc_ = m.value;
      else
        and_into(fast_acc_, m.value);
    }
  } else if (m.kind == AgreeMsg::Kind::up) {
    if (m.decided && !decided_) decide(m.value, m.failed);
    if (decided_) {
      // Answer with the decision, tagged with the sender's view so that it accepts it.
      AgreeMsg d = make(AgreeMsg::Kind::down, m.view);
      d.value = value_;
      d.failed = decided_failed_;
      send(src, std::move(d));
    } else if (m.view == view_) {
      bool is_child = std::find(children_.begin(), children_.end(), src) != children_.end();
      bool dup = std::any_of(ups_.begin(), ups_.end(), [src](const ChildUp& u) { return u.child == src; });
      if (is_child && !dup) ups_.push_back(ChildUp{src, m.value});
    }
  } else {  // down
    bool acceptable = !last_undecided_up_view_ || *last_undecided_up_view_ == m.view;
    if (!decided_ && acceptable) decide(m.value, m.failed);
  }
  step();
}

void Agreement::step() {
  if (!decided_ && started_ && in_fast_round() && fast_count_ == size_ - 1) {
    Bits acc = contribution_;
    if (fast_count_ > 0) and_into(acc, fast_acc_);
    decide(acc, view_);
  }
  if (in_fast_round() && fast_sent_) return;  // the empty view's round is the FASTs: no UP, no DOWN
  if (decided_) {
    // Spread the decision in the current view: DOWN to my children once, decided UP to my parent once.
    if (!down_sent_in_view_) {
      down_sent_in_view_ = true;
      for (int c : children_) {
        AgreeMsg d = make(AgreeMsg::Kind::down, view_);
        d.value = value_;
        d.failed = decided_failed_;
        send(c, std::move(d));
      }
    }
    if (parent_ >= 0 && !up_sent_in_view_) {
      up_sent_in_view_ = true;
      AgreeMsg u = make(AgreeMsg::Kind::up, view_);
      u.decided = true;
      u.value = value_;
      u.failed = decided_failed_;
      send(parent_, std::move(u));
    }
    return;
  }
  if (!started_ || up_sent_in_view_ || ups_.size() < children_.size()) return;
  Bits acc = contribution_;
  for (const ChildUp& u : ups_) and_into(acc, u.value);
  if (parent_ < 0) {  // root: decide
    decide(acc, view_);
    step();
    return;
  }
  up_sent_in_view_ = true;
  last_undecided_up_view_ = view_;
  AgreeMsg u = make(AgreeMsg::Kind::up, view_);
  u.value = std::move(acc);
  send(parent_, std::move(u));
}

std::vector<Outgoing> Agreement::take_outgoing() {
  std::vector<Outgoing> o;
  o.swap(out_);
  return o;
}

}  // namespace ftmpi::ft
