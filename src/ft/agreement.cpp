#include "ft/agreement.h"

#include "ft/agreement_board_step.h"

#include <algorithm>
#include <cstring>
#include <iterator>

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

void Agreement::reset(int me, int size, bool fast) {
  // The empty view's round and the exchange's shape depend on (me, size, fast) only: a reuse with the same
  // ones (the common case: the next agreement on the same communicator) keeps them and clears what an
  // instance filled in (the start of a blocking agreement on a board costs no tree building and no memset).
  const bool same_shape = empty_round_ && me == me_ && size == size_ && fast == fast_;
  me_ = me;
  size_ = size;
  fast_ = fast;
  started_ = false;
  // (contribution_ and value_ keep their last contents: both are written before they are read, by the
  // start and by the decision; keeping their sizes makes a same-sized rewrite a plain copy.)
  view_.clear();
  last_undecided_up_view_.reset();
  decided_ = false;
  decided_failed_.clear();
  out_n_ = 0;
  fast_next_ = 0;
  fast_sent_ = -1;
  fast_acc_.clear();
  board_ = nullptr;
  board_j_ = 0;
  board_go_ = false;
  board_written_ = false;
  board_decided_ = false;
  if (same_shape) {
    fast_has_ = 0;
    ups_.clear();
    up_sent_in_view_ = false;
    down_sent_in_view_ = false;
    return;
  }
  fast_p_ = 1;
  int log2p = 0;
  while (fast_p_ <= size_ / 2) {
    fast_p_ *= 2;
    ++log2p;
  }
  fast_last_ = log2p + 1;
  if (fast_in_.size() < static_cast<std::size_t>(fast_last_ + 1)) fast_in_.resize(static_cast<std::size_t>(fast_last_ + 1));
  fast_has_ = 0;
  reset_round();
}

AgreeMsg& Agreement::push(int dest, AgreeMsg::Kind k, const RankSet& tag) {
  if (out_n_ == out_.size()) out_.emplace_back();
  Outgoing& o = out_[out_n_++];
  o.dest = dest;
  AgreeMsg& m = o.msg;
  m.kind = k;
  m.decided = false;
  m.step = 0;
  m.view = tag;  // copy-assignments below keep the slot's capacity
  m.value.clear();
  m.failed.clear();
  return m;
}

std::vector<Outgoing> Agreement::take_outgoing() {
  std::vector<Outgoing> o(std::make_move_iterator(out_.begin()),
                          std::make_move_iterator(out_.begin() + static_cast<std::ptrdiff_t>(out_n_)));
  out_n_ = 0;
  return o;
}

void Agreement::reset_round() {
  ups_.clear();
  up_sent_in_view_ = false;
  down_sent_in_view_ = false;
  empty_round_ = view_.empty();
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

void Agreement::start(std::span<const std::uint64_t> contribution, const RankSet& known_failed) {
  if (started_ || board_ != nullptr || board_decided_) return;
  set_contribution(contribution);
  merge_view(known_failed);
  start_messages();
}

// The same words as last time (a fault-free commit's cached clean value, agreement after agreement): nothing
// to copy, and the board's trimmed bounds (trim_off_, trim_end_) still hold.
void Agreement::set_contribution(std::span<const std::uint64_t> c) {
  const std::size_t bytes = c.size() * sizeof(std::uint64_t);
  if (contribution_.size() == c.size()) {
    if (bytes != 0 && std::memcmp(contribution_.data(), c.data(), bytes) != 0) {
      std::memcpy(contribution_.data(), c.data(), bytes);
      trim_known_ = false;
    }
  } else {
    contribution_.assign(c.begin(), c.end());
    trim_known_ = false;
  }
}

void Agreement::start_messages() {
  started_ = true;
  if (in_fast_round()) fast_acc_ = contribution_;
  step();
}

void Agreement::start(std::span<const std::uint64_t> contribution, const RankSet& known_failed, AgreeBoard* board,
                      std::uint64_t j, bool go_fast) {
  if (board == nullptr) {
    start(contribution, known_failed);
    return;
  }
  if (started_ || board_ != nullptr || board_decided_) return;
  set_contribution(contribution);
  merge_view(known_failed);
  if (decided_) {  // adopted from a decided UP before the start: a state of j is closed (ft/agree_board.h)
    start_messages();
    return;
  }
  board_ = board;
  board_j_ = j;
  board_go_ = go_fast;
  board_written_ = false;
  board->begin(j);
  board_step();
}

void Agreement::end_board() {
  board_->finish(board_j_);
  board_ = nullptr;
}

// The board decision's value: and_entries_on (ft/agreement_board_step.h) through the interface.
void Agreement::board_and_entries() { and_entries_on(*board_); }

void Agreement::board_decided() {
  decided_ = true;
  decided_failed_.clear();
  board_decided_ = true;
  end_board();
}

// Take j's published outcome, if any (ft/agree_board.h 4). True when the board phase is over.
bool Agreement::board_take_outcome() {
  const std::uint64_t j = board_j_;
  const std::uint64_t w = board_->outcome(j);
  if (board_empty(w, j)) return false;
  if (w == board_state(j, kBoardClosed)) {  // fall back
    end_board();
    start_messages();
    return true;
  }
  const BoardEntry e = board_->result(j);
  if (e.len == kBoardNoResult) {  // did not fit: every state is contributed, AND the entries
    board_and_entries();
    board_decided();
    return true;
  }
  if (value_.size() != e.total) value_.resize(e.total);
  if (e.total == 0) {  // (no words: nothing to fill, and no null pointer into memset)
    board_decided();
    return true;
  }
  std::uint64_t* v = value_.data();
  const std::uint32_t off = std::min(e.off, e.total);
  const std::uint32_t len = std::min(e.len, e.total - off);
  std::memset(v, 0xff, off * sizeof(std::uint64_t));  // all-ones outside [off, off+len)
  std::memset(v + off + len, 0xff, (e.total - off - len) * sizeof(std::uint64_t));
  if (!e.repeated)
    std::memcpy(v + off, e.words, len * sizeof(std::uint64_t));
  else if (e.words[0] == 0 || e.words[0] == ~std::uint64_t{0})  // one word, `len` times (publish_decision)
    std::memset(v + off, static_cast<int>(e.words[0] & 0xff), len * sizeof(std::uint64_t));
  else
    std::fill_n(v + off, len, e.words[0]);
  board_decided();
  return true;
}

// ft/agree_board.h's steps: the board runs Agreement::board_step_on over its own type (AgreeBoard::step).
void Agreement::board_step() {
  if (board_ == nullptr) return;
  board_->step(*this);
}

void AgreeBoard::step(Agreement& a) { a.board_step_on(*this); }

// The last arriver's publication of its decision (value_, trimmed of its all-ones ends), then the ring. Words
// that are all the same (a fault-free commit's zeros) go in the repeated form: one word and a count, on the
// outcome's first line (ft/agree_board.h "Cost without failures").
void Agreement::publish_decision(std::uint64_t j) {
  AgreeBoard* b = board_;
  const std::size_t n = value_.size();
  std::size_t off = 0, end = n;
  while (off < n && value_[off] == ~std::uint64_t{0}) ++off;
  while (end > off && value_[end - 1] == ~std::uint64_t{0}) --end;
  const std::uint64_t* v = value_.data();
  std::uint64_t differ = 0;  // (an OR over the words: no early exit, they are all equal in the common case)
  for (std::size_t i = off + 1; i < end; ++i) differ |= v[i] ^ v[off];
  const auto tag = board_state(j, kBoardContributed);
  if (end - off > 1 && differ == 0 && end - off <= 0xffffffffu)
    b->publish(j, tag, static_cast<std::uint32_t>(n), static_cast<std::uint32_t>(off),
               std::span<const std::uint64_t>(v + off, 1), static_cast<std::uint32_t>(end - off));
  else if (end - off <= static_cast<std::size_t>(kBoardResultWords))
    b->publish(j, tag, static_cast<std::uint32_t>(n), static_cast<std::uint32_t>(off),
               std::span<const std::uint64_t>(v + off, end - off), 0);
  else
    b->publish(j, tag, kBoardNoResult, 0, {}, 0);
  b->ring();
}

void Agreement::on_board() { board_step(); }

bool Agreement::board_ready() {
  if (board_ == nullptr) return false;
  if (decided_ || !view_.empty()) return true;
  if (!board_written_) return false;  // waiting for the window: a rare case, woken by the sleep's end
  if (board_->counted()) return !board_empty(board_->outcome(board_j_), board_j_);
  const std::uint64_t contributed = board_state(board_j_, kBoardContributed);
  for (int r = 0; r < size_; ++r) {
    const std::uint64_t s = board_->state(r, board_j_);
    if (s == contributed) continue;
    return !board_empty(s, board_j_);
  }
  return true;
}

void Agreement::on_failure(int rank) {
  if (board_decided_ || rank == me_ || view_.contains(rank)) return;
  RankSet one;
  one.insert(rank);
  merge_view(one);
  if (board_ != nullptr) {
    board_step();  // freeze
    return;
  }
  step();
}

void Agreement::decide(const Bits& value, const RankSet& failed) {
  decided_ = true;
  value_ = value;
  decided_failed_ = failed;
}

int Agreement::fast_partner(int step) const {
  const int r = size_ - fast_p_;
  if (step == 0 || step == fast_last_) {  // between an extra member e >= p and e - p < r
    if (me_ >= fast_p_) return me_ - fast_p_;
    return me_ < r ? me_ + fast_p_ : -1;
  }
  if (step < 0 || step > fast_last_ || me_ >= fast_p_) return -1;
  return me_ ^ (1 << (step - 1));
}

void Agreement::advance_fast() {
  auto send_fast = [this](int s, int dest, const Bits& v) {
    if (fast_sent_ >= s || dest < 0) return;
    fast_sent_ = s;
    AgreeMsg& f = push(dest, AgreeMsg::Kind::fast, view_);
    f.step = static_cast<std::uint8_t>(s);
    f.value = v;
  };
  while (!decided_) {
    const int s = fast_next_;
    const int partner = fast_partner(s);
    const auto su = static_cast<std::size_t>(s);
    if (s == 0) {
      if (me_ >= fast_p_) {  // an extra member: hand my contribution over, then wait for the result
        send_fast(0, partner, contribution_);
        fast_next_ = fast_last_;
        continue;
      }
      if (partner >= 0) {
        if (!has_fast(s)) return;
        and_into(fast_acc_, fast_in_[su]);
      }
      fast_next_ = 1;
      continue;
    }
    if (s < fast_last_) {
      send_fast(s, partner, fast_acc_);
      if (!has_fast(s)) return;
      and_into(fast_acc_, fast_in_[su]);
      ++fast_next_;
      continue;
    }
    if (me_ >= fast_p_) {  // s == fast_last_: the result, from my partner
      if (!has_fast(s)) return;
      decide(fast_in_[su], view_);
      return;
    }
    send_fast(s, partner, fast_acc_);
    decide(fast_acc_, view_);
  }
}

void Agreement::on_message(int src, const AgreeMsg& m) {
  if (board_decided_) return;  // nobody sends messages of an instance decided on the board
  merge_view(m.view);
  // The sender fell back: it read the outcome "fall back" or, knowing a failure (then its view, merged above,
  // says so), saw a closed state; this member reads or scans the same and falls back first.
  if (board_ != nullptr) board_step();
  if (m.kind == AgreeMsg::Kind::fast) {
    // Only a FAST of the empty view counts, once per step, from that step's partner; kept until needed.
    const int s = m.step;
    if (fast_ && m.view.empty() && s <= fast_last_ && src != me_ && src == fast_partner(s) &&
        !has_fast(s)) {
      fast_has_ |= std::uint64_t{1} << s;
      fast_in_[static_cast<std::size_t>(s)] = m.value;
    }
  } else if (m.kind == AgreeMsg::Kind::up) {
    if (m.decided && !decided_) decide(m.value, m.failed);
    if (decided_) {
      // Answer with the decision, tagged with the sender's view so that it accepts it.
      AgreeMsg& d = push(src, AgreeMsg::Kind::down, m.view);
      d.value = value_;
      d.failed = decided_failed_;
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
  if (board_decided_) return;
  if (board_ != nullptr) {
    if (!decided_) return;  // the board phase sends nothing
    end_board();
  }
  if (started_ && in_fast_round()) {  // the empty view's round is the exchange: no UP, no DOWN
    advance_fast();
    return;
  }
  if (decided_) {
    // Spread the decision in the current view: DOWN to my children once, decided UP to my parent once.
    if (!down_sent_in_view_) {
      down_sent_in_view_ = true;
      for (int c : children_) {
        AgreeMsg& d = push(c, AgreeMsg::Kind::down, view_);
        d.value = value_;
        d.failed = decided_failed_;
      }
    }
    if (parent_ >= 0 && !up_sent_in_view_) {
      up_sent_in_view_ = true;
      AgreeMsg& u = push(parent_, AgreeMsg::Kind::up, view_);
      u.decided = true;
      u.value = value_;
      u.failed = decided_failed_;
    }
    return;
  }
  if (!started_ || up_sent_in_view_ || ups_.size() < children_.size()) return;
  fast_acc_ = contribution_;  // scratch outside the empty view's exchange
  for (const ChildUp& u : ups_) and_into(fast_acc_, u.value);
  if (parent_ < 0) {  // root: decide
    decide(fast_acc_, view_);
    step();
    return;
  }
  up_sent_in_view_ = true;
  last_undecided_up_view_ = view_;
  AgreeMsg& u = push(parent_, AgreeMsg::Kind::up, view_);
  u.value = fast_acc_;
}

}  // namespace ftmpi::ft
