// The bootstrap of one Reinit epoch: the job's bootstrap with keys and shared-memory names prefixed by
// the epoch, and fences through mpiexec's epoch coordinator (models/reinit/epoch_change.h) instead of
// PMI barriers, so that a fence of an epoch that a failure overtook is simply never released and cannot
// mix with the next one. Router::create runs unchanged on top of it.
// Cards travel with the fences (epoch_change.h): put() only records a card, the next fence carries the
// recorded cards to the coordinator, and the release of fence 1 brings back the epoch's cards this rank
// needs; get() answers from them, and asks the launcher's key-value space (one round trip) only for a key
// it does not hold. No launcher round trip but the fence itself on the way.
#pragma once
#include <functional>
#include <string>

#include <vector>

#include "boot/bootstrap.h"
#include "models/reinit/epoch_change.h"

namespace ftmpi::reinit {

class EpochBootstrap final : public boot::Bootstrap {
 public:
  // `fence(seq, mine, got)`: the epoch's fence number seq (1, 2, ...), publishing the cards `mine`; the
  // cards handed back with its release (fence 1) are appended to `*got`.
  // `superseded()`: a newer epoch was announced; every peer then counts as gone (Router::create gives up
  // waiting for connections instead of hanging).
  using Fence = std::function<Status(int seq, const std::vector<Card>& mine, std::vector<Card>* got)>;
  EpochBootstrap(boot::Bootstrap& base, int epoch, Fence fence,
                 std::function<bool()> superseded)
      : base_(base),
        superseded_(std::move(superseded)),
        prefix_("e" + std::to_string(epoch) + "."),
        job_id_(base.job_id() + "-e" + std::to_string(epoch)),
        fence_(std::move(fence)) {}

  int rank() const override { return base_.rank(); }
  int size() const override { return base_.size(); }
  const std::string& job_id() const override { return job_id_; }
  bool launched_by_ftmpi() const override { return base_.launched_by_ftmpi(); }
  Status put(std::string_view key, std::string_view value) override {
    // Not line-safe, or the fence line would grow past what the launcher reads (4 KiB): the KVS.
    if (!card_ok(key, value) || pending_bytes_ + key.size() + value.size() > 2048)
      return base_.put(prefix_ + std::string(key), value);
    for (Card& c : pending_)
      if (c.first == key) {
        c.second = std::string(value);
        return Status::Ok();
      }
    pending_.emplace_back(std::string(key), std::string(value));
    pending_bytes_ += key.size() + value.size() + 8;
    return Status::Ok();
  }
  Result<std::string> get(std::string_view key) override {
    for (const Card& c : got_)
      if (c.first == key) return c.second;
    return base_.get(prefix_ + std::string(key));
  }
  Status fence() override {
    std::vector<Card> mine = std::move(pending_);
    pending_.clear();
    pending_bytes_ = 0;
    Status st = fence_(++seq_, mine, &got_);
    got_.insert(got_.end(), mine.begin(), mine.end());  // a rank reads its own cards too
    return st;
  }
  void abort(int code, std::string_view message) override { base_.abort(code, message); }
  Status finalize() override { return base_.finalize(); }
  // Job attributes do not change with the epoch, except which ranks share a host when ranks of a lost
  // host were restarted elsewhere: the origin of a several-hosts job then publishes the epoch's
  // PMI_process_mapping under the epoch's prefix (tools/mpiexec/origin_reinit.cpp).
  std::optional<std::string> job_attribute(std::string_view name) override {
    if (name == "PMI_process_mapping") {
      // After fence 1 the launcher's epoch mapping, if it has one, came with the cards.
      for (const Card& c : got_)
        if (c.first == name) return c.second;
      if (seq_ == 0)
        if (auto v = base_.get(prefix_ + std::string(name)); v.ok()) return v.value();
    }
    return base_.job_attribute(name);
  }
  std::optional<std::string> rank_gone(int) override {
    if (superseded_ && superseded_()) return std::string("superseded:0");
    return std::nullopt;
  }

 private:
  boot::Bootstrap& base_;
  std::function<bool()> superseded_;
  std::string prefix_;
  std::string job_id_;
  // A card goes inside a control line: "card.<key>=<value>", no space, '=' or newline in the key and no
  // space or newline in the value.
  static bool card_ok(std::string_view key, std::string_view value) {
    if (key.empty() || key.size() + value.size() > 512) return false;
    for (char c : key)
      if (c == ' ' || c == '=' || c == '\n' || c == '\r') return false;
    for (char c : value)
      if (c == ' ' || c == '\n' || c == '\r') return false;
    return true;
  }
  Fence fence_;
  int seq_ = 0;
  std::vector<Card> pending_;  // put since the last fence
  std::size_t pending_bytes_ = 0;
  std::vector<Card> got_;      // handed back by fence 1's release
};

}  // namespace ftmpi::reinit
