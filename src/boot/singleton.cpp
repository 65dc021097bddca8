#include "boot/singleton.h"

#include <sys/random.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>

#include "boot/launcher_on_demand.h"
#include "boot/pmi_wire.h"
#include "util/log.h"

namespace ftmpi::boot {
namespace {

std::string random_secret() {
  unsigned char raw[16] = {};
  if (getrandom(raw, sizeof raw, 0) != static_cast<ssize_t>(sizeof raw)) {
    auto t = static_cast<unsigned long long>(std::chrono::steady_clock::now().time_since_epoch().count());
    for (std::size_t i = 0; i < sizeof raw; ++i) raw[i] = static_cast<unsigned char>((t >> (8 * (i % 8))) ^ getpid() ^ i);
  }
  std::string s;
  char hex[3];
  for (unsigned char c : raw) {
    std::snprintf(hex, sizeof hex, "%02x", c);
    s += hex;
  }
  return s;
}

}  // namespace

SingletonBootstrap::SingletonBootstrap() : job_id_("singleton-" + std::to_string(getpid())) {}

Status SingletonBootstrap::put(std::string_view key, std::string_view value) {
  // Same limits as PMI, so that a program that works alone also works under a launcher.
  if (!pmi::valid_key(key) || key.size() > pmi::kKeyMax) return Status(Errc::arg, "invalid bootstrap key");
  if (!pmi::valid_value(value) || value.size() > pmi::kValueMax)
    return Status(Errc::arg, "invalid or too long bootstrap value");
  kvs_.insert_or_assign(std::string(key), std::string(value));
  return Status::Ok();
}

Result<std::string> SingletonBootstrap::get(std::string_view key) {
  auto it = kvs_.find(key);
  if (it == kvs_.end()) return Status(Errc::arg, "bootstrap key '" + std::string(key) + "' not found");
  return it->second;
}

Status SingletonBootstrap::fence() { return launched_by_ftmpi() ? launcher_->fence() : Status::Ok(); }

Status SingletonBootstrap::fence_while(const std::function<void()>& idle) {
  return launched_by_ftmpi() ? launcher_->fence_while(idle) : Status::Ok();
}

Status SingletonBootstrap::finalize() { return launched_by_ftmpi() ? launcher_->finalize() : Status::Ok(); }

void SingletonBootstrap::abort(int code, std::string_view message) {
  if (!message.empty())
    log::error("aborting (code %d): %.*s", code, static_cast<int>(message.size()), message.data());
  // The launcher reads the abort before the end of file our exit makes, and ends the spawned processes.
  if (launched_by_ftmpi()) (void)launcher_->tell_abort(code);
  int status = code & 0xff;
  _exit(status != 0 ? status : 1);
}

Status SingletonBootstrap::start_launcher() {
  std::lock_guard lk(start_mu_);
  if (launched_by_ftmpi()) return Status::Ok();
  if (!start_error_.ok()) return start_error_;
  auto fail = [this](Status st) {
    start_error_ = Status(st.code(), "cannot start mpiexec for this program's dynamic processes: " + st.message());
    return start_error_;
  };
  auto path = find_mpiexec();
  if (!path.ok()) return fail(path.status());
  std::string secret = random_secret();
  auto fd = start_mpiexec(path.value(), secret, own_command_line());
  if (!fd.ok()) return fail(fd.status());
  auto client = PmiClient::connect_on_fd(fd.value(), 0, 1, -1, /*launched_by_ftmpi=*/true);
  if (!client.ok()) return fail(Status(Errc::unsupported, path.value() + " did not answer: " + client.status().message()));
  log::debug("singleton: started %s (job %s)", path.value().c_str(), client.value()->job_id().c_str());
  secret_ = std::move(secret);
  launcher_ = std::move(client.value());
  attached_.store(true, std::memory_order_release);
  return Status::Ok();
}

std::optional<std::string> SingletonBootstrap::launcher_setting(std::string_view name) const {
  // Only what this process agreed on with the launcher it started: no name service, no universe slot.
  if (launched_by_ftmpi() && name == "FTMPI_DPM_SECRET") return secret_;
  return std::nullopt;
}

Result<pmi::Message> SingletonBootstrap::launcher_call(const std::string& line, std::string_view expect) {
  if (!launched_by_ftmpi()) return Bootstrap::launcher_call(line, expect);
  return launcher_->launcher_call(line, expect);
}

Result<pmi::Message> SingletonBootstrap::launcher_call_while(const std::string& line, std::string_view expect,
                                                             const std::function<void()>& idle) {
  if (!launched_by_ftmpi()) return Bootstrap::launcher_call_while(line, expect, idle);
  return launcher_->launcher_call_while(line, expect, idle);
}

}  // namespace ftmpi::boot
