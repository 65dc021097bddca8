// Bootstrap for a program started without any launcher: one rank, a private in-memory key-value space.
//
// Dynamic processes (docs/dpm.md "From a singleton"): at the first call that needs a launcher, start_launcher()
// starts ftmpi's mpiexec on demand (boot/launcher_on_demand.h), which adopts this process as rank 0 of a
// one-rank job. From then on launched_by_ftmpi() is true and the launcher's calls (launcher_call*, the finalize
// barrier, finalize, abort) go to it over a PmiClient; the key-value space stays private (this process's
// transports were built before, and nobody else reads its keys).
//
// Thread safety: start_launcher() may race with itself (one start, under start_mu_); the launcher's client is
// set once and read after launched_by_ftmpi() (acquire) turned true; PmiClient serializes its own exchanges.
#pragma once
#include <atomic>
#include <map>
#include <memory>
#include <mutex>
#include <string>

#include "boot/bootstrap.h"
#include "boot/pmi_client.h"

namespace ftmpi::boot {

class SingletonBootstrap final : public Bootstrap {
 public:
  SingletonBootstrap();  // job_id "singleton-<pid>"

  int rank() const override { return 0; }
  int size() const override { return 1; }
  const std::string& job_id() const override { return job_id_; }
  bool launched_by_ftmpi() const override { return attached_.load(std::memory_order_acquire); }

  Status put(std::string_view key, std::string_view value) override;
  Result<std::string> get(std::string_view key) override;
  Status fence() override;
  Status fence_while(const std::function<void()>& idle) override;
  // Prints `message` and exits the process with `code` (non-zero); with a launcher, tells it first (it ends
  // the spawned processes), without waiting for it.
  void abort(int code, std::string_view message) override;
  Status finalize() override;

  Status start_launcher() override;
  std::optional<std::string> launcher_setting(std::string_view name) const override;
  Result<pmi::Message> launcher_call(const std::string& line, std::string_view expect) override;
  Result<pmi::Message> launcher_call_while(const std::string& line, std::string_view expect,
                                           const std::function<void()>& idle) override;

 private:
  std::string job_id_;
  std::map<std::string, std::string, std::less<>> kvs_;
  std::mutex start_mu_;
  Status start_error_;                     // start_mu_: the first failed start (not retried)
  std::string secret_;                     // the dynamic-process secret given to the launcher
  std::unique_ptr<PmiClient> launcher_;    // set once, before attached_
  std::atomic<bool> attached_{false};
};

}  // namespace ftmpi::boot
