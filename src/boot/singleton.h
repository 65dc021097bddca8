// Bootstrap for a program started without any launcher: one rank, a private in-memory key-value space.
#pragma once
#include <map>
#include <string>

#include "boot/bootstrap.h"

namespace ftmpi::boot {

class SingletonBootstrap final : public Bootstrap {
 public:
  SingletonBootstrap();  // job_id "singleton-<pid>"

  int rank() const override { return 0; }
  int size() const override { return 1; }
  const std::string& job_id() const override { return job_id_; }
  bool launched_by_ftmpi() const override { return false; }

  Status put(std::string_view key, std::string_view value) override;
  Result<std::string> get(std::string_view key) override;
  Status fence() override { return Status::Ok(); }
  // Prints `message` and exits the process with `code` (non-zero).
  void abort(int code, std::string_view message) override;
  Status finalize() override { return Status::Ok(); }

 private:
  std::string job_id_;
  std::map<std::string, std::string, std::less<>> kvs_;
};

}  // namespace ftmpi::boot
