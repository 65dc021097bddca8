#include "remote_failures.h"

#include "control_channel.h"
#include "dpm/universe.h"
#include "say.h"
#include "util/log.h"

namespace ftmpi::mpiexec {

RemoteFailures::RemoteFailures(const Options& opt) {
  if (opt.universe_slot <= 0 || opt.name_service.empty() || !opt.ft.enabled()) return;
  slot_ = opt.universe_slot;
  base_ = dpm::universe_base(slot_);
  auto b = dpm::FailureBoard::open(opt.name_service, slot_);
  if (!b.ok()) {
    say("warning: %s; failures of other jobs' processes reach this job only through direct connections",
        b.status().message().c_str());
    return;
  }
  board_ = std::move(b.value());
}

void RemoteFailures::post_local(int local_id) {
  if (board_ && local_id >= 0 && local_id < dpm::kIdsPerUniverse) board_->post(base_ + local_id);
}

bool RemoteFailures::is_remote(int id) const {
  return slot_ > 0 && (id < 0 || id >= dpm::kIdsPerUniverse) && id + base_ >= 0 && id + base_ < dpm::kMaxProcesses;
}

std::optional<std::string> RemoteFailures::notice(int global_id) {
  if (!announced_.insert(global_id).second) return std::nullopt;
  log::debug("mpiexec: process %d of another job failed: announcing it to this job", global_id);
  return format_failed_notice(global_id - base_, FailureCause::disappeared, 0, realtime_seconds());
}

std::vector<std::string> RemoteFailures::on_board_readable() {
  std::vector<std::string> out;
  if (!board_) return out;
  for (int id : board_->poll())
    if (auto n = notice(id)) out.push_back(std::move(*n));
  return out;
}

std::optional<std::string> RemoteFailures::on_reported(int id) {
  if (!is_remote(id)) return std::nullopt;
  return notice(id + base_);
}

}  // namespace ftmpi::mpiexec
