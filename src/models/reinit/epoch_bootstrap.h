// The bootstrap of one Reinit epoch: the job's bootstrap with keys and shared-memory names prefixed by
// the epoch, and fences through mpiexec's epoch coordinator (models/reinit/epoch_change.h) instead of
// PMI barriers, so that a fence of an epoch that a failure overtook is simply never released and cannot
// mix with the next one. Router::create runs unchanged on top of it.
#pragma once
#include <functional>
#include <string>

#include "boot/bootstrap.h"

namespace ftmpi::reinit {

class EpochBootstrap final : public boot::Bootstrap {
 public:
  // `fence(seq)`: the epoch's fence number seq (1, 2, ...).
  // `superseded()`: a newer epoch was announced; every peer then counts as gone (Router::create gives up
  // waiting for connections instead of hanging).
  EpochBootstrap(boot::Bootstrap& base, int epoch, std::function<Status(int)> fence,
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
    return base_.put(prefix_ + std::string(key), value);
  }
  Result<std::string> get(std::string_view key) override { return base_.get(prefix_ + std::string(key)); }
  Status fence() override { return fence_(++seq_); }
  void abort(int code, std::string_view message) override { base_.abort(code, message); }
  Status finalize() override { return base_.finalize(); }
  // Job attributes do not change with the epoch, except which ranks share a host when ranks of a lost
  // host were restarted elsewhere: the origin of a several-hosts job then publishes the epoch's
  // PMI_process_mapping under the epoch's prefix (tools/mpiexec/origin_reinit.cpp).
  std::optional<std::string> job_attribute(std::string_view name) override {
    if (name == "PMI_process_mapping")
      if (auto v = base_.get(prefix_ + std::string(name)); v.ok()) return v.value();
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
  std::function<Status(int)> fence_;
  int seq_ = 0;
};

}  // namespace ftmpi::reinit
