#include "models/reinit/epoch_change.h"

#include <algorithm>

namespace ftmpi::reinit {

EpochCoordinator::EpochCoordinator(int n, int max_restarts)
    : ranks_(static_cast<std::size_t>(n)), max_restarts_(max_restarts) {}

std::vector<CoordAction> EpochCoordinator::on_death(int r) { return on_deaths({r}); }

std::vector<CoordAction> EpochCoordinator::on_deaths(const std::vector<int>& rs) {
  std::vector<CoordAction> out;
  if (dead_) return out;
  std::vector<int> dead;
  for (int r : rs)
    if (r >= 0 && idx(r) < ranks_.size() && ranks_[idx(r)].member &&  // finalized: not a failure of the computation
        std::find(dead.begin(), dead.end(), r) == dead.end())
      dead.push_back(r);
  if (dead.empty()) return out;
  auto is_dead = [&](std::size_t q) { return std::find(dead.begin(), dead.end(), static_cast<int>(q)) != dead.end(); };
  // Seed 003 §1.4.2: a failure while some member has no active rollback location is fatal.
  for (std::size_t q = 0; q < ranks_.size(); ++q)
    if (!is_dead(q) && ranks_[q].member && !ranks_[q].active) {
      dead_ = true;
      out.push_back({CoordAction::Kind::fatal, dead.front(), epoch_, 0, {},
                     "rank " + std::to_string(dead.front()) + " failed while rank " + std::to_string(q) +
                         " had no active Reinit rollback location (before or after MPI_Reinit): the failure is "
                         "fatal (seed 003 section 1.4.2)", {}});
      return out;
    }
  // The limit counts failures: a rank's death is one, a lost host's ranks dying together are one (a host
  // loss on a one-host job restarts every rank: counted per process, three losses of 6 ranks would already
  // pass the default of 16).
  if (max_restarts_ >= 0 && failures_ + 1 > max_restarts_) {
    dead_ = true;
    out.push_back({CoordAction::Kind::fatal, dead.front(), epoch_, 0, {},
                   "rank " + std::to_string(dead.front()) + " failed and the restart limit (--max-restarts " +
                       std::to_string(max_restarts_) + ") is reached", {}});
    return out;
  }
  // Deaths seen together (a lost host's ranks) make one epoch change, not one each.
  restarts_ += static_cast<int>(dead.size());
  ++failures_;
  ++epoch_;
  released_seq_ = 0;
  cards_.clear();  // every card was published for an older epoch
  for (int r : dead) {
    if (std::find(failed_since_commit_.begin(), failed_since_commit_.end(), r) == failed_since_commit_.end())
      failed_since_commit_.push_back(r);
    Rank& k = ranks_[idx(r)];
    k.active = true;  // the new process joins the change inside MPI_Init: part of the recovery
    k.fence_epoch = -1;
    k.fence_seq = 0;
  }
  for (int r : dead) out.push_back({CoordAction::Kind::restart, r, epoch_, 0, failed_since_commit_, {}, {}});
  for (std::size_t q = 0; q < ranks_.size(); ++q)
    if (!is_dead(q) && ranks_[q].member)
      out.push_back({CoordAction::Kind::reinit, static_cast<int>(q), epoch_, 0, failed_since_commit_, {}, {}});
  return out;
}

std::vector<CoordAction> EpochCoordinator::on_fence(int r, int epoch, int seq, std::vector<Card> cards) {
  std::vector<CoordAction> out;
  if (dead_ || r < 0 || idx(r) >= ranks_.size() || epoch != epoch_ || !ranks_[idx(r)].member) return out;
  for (Card& c : cards) upsert(std::move(c));
  Rank& k = ranks_[idx(r)];
  k.fence_seq = k.fence_epoch == epoch ? std::max(k.fence_seq, seq) : seq;  // a fence of an older epoch counts for nothing
  k.fence_epoch = epoch;
  try_release(out);
  return out;
}

std::vector<CoordAction> EpochCoordinator::on_finalized(int r) {
  std::vector<CoordAction> out;
  if (r < 0 || idx(r) >= ranks_.size()) return out;
  ranks_[idx(r)].member = false;
  if (!dead_) try_release(out);
  return out;
}

void EpochCoordinator::try_release(std::vector<CoordAction>& out) {
  if (epoch_ == committed_) return;  // no change in progress
  for (;;) {
    int next = released_seq_ + 1;
    if (next > 2) return;
    bool all = true, any = false;
    for (const Rank& k : ranks_) {
      if (!k.member) continue;
      any = true;
      if (k.fence_epoch != epoch_ || k.fence_seq < next) all = false;
    }
    if (!all || !any) return;
    released_seq_ = next;
    for (std::size_t q = 0; q < ranks_.size(); ++q)
      if (ranks_[q].member) {
        out.push_back({CoordAction::Kind::fence_out, static_cast<int>(q), epoch_, next, {}, {}, {}});
        if (next == 1) out.back().cards = cards_for(static_cast<int>(q));
      }
    if (next == 2) {
      committed_ = epoch_;
      failed_since_commit_.clear();
      out.push_back({CoordAction::Kind::committed, -1, epoch_, 2, {}, {}, {}});
      return;
    }
  }
}

}  // namespace ftmpi::reinit

namespace ftmpi::reinit {

std::vector<Card> parse_cards(std::string_view line) {
  std::vector<Card> out;
  std::size_t pos = 0;
  while (pos < line.size()) {
    std::size_t end = line.find(' ', pos);
    if (end == std::string_view::npos) end = line.size();
    std::string_view f = line.substr(pos, end - pos);
    if (f.starts_with("card.")) {
      f.remove_prefix(5);
      std::size_t eq = f.find('=');
      if (eq != std::string_view::npos && eq > 0) out.emplace_back(std::string(f.substr(0, eq)), std::string(f.substr(eq + 1)));
    }
    pos = end + 1;
  }
  return out;
}

void EpochCoordinator::upsert(Card c) {
  auto same = std::find_if(cards_.begin(), cards_.end(), [&](const Card& x) { return x.first == c.first; });
  if (same != cards_.end())
    same->second = std::move(c.second);
  else
    cards_.push_back(std::move(c));
}

std::vector<Card> EpochCoordinator::cards_for(int q) const {
  auto is_new = [this](int k) {
    return std::find(failed_since_commit_.begin(), failed_since_commit_.end(), k) != failed_since_commit_.end();
  };
  std::vector<Card> out;
  for (const Card& c : cards_)
    if (card_reaches(c.first, q, is_new)) out.push_back(c);
  return out;
}

}  // namespace ftmpi::reinit
