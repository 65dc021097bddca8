// Bootstrap over the PMI-2 wire protocol (boot/pmi2_wire.h), as Slurm's `srun --mpi=pmi2` serves it (and
// Hydra, which speaks both versions). make_bootstrap() picks it from the environment (bootstrap.h).
//
// Environment read: PMI_FD (a connected socket) or PMI_PORT (host:port); PMI_RANK and PMI_JOBID are sent
// in fullinit when set (the server answers with rank and size either way).
//
// Every request waits for its "<cmd>-response" (replies to other commands are a protocol error: the client
// is not threaded, one request at a time under an internal mutex). A malformed reply, an rc != 0, or the
// server closing the connection is an Errc::other Status saying what happened; nothing here crashes or
// waits forever on garbage (a reply that never comes is waited for, as every PMI client does: fences
// legitimately take as long as the slowest rank).
#pragma once
#include <memory>
#include <mutex>
#include <string>
#include <string_view>

#include "boot/bootstrap.h"
#include "boot/pmi2_wire.h"
#include "util/status.h"

namespace ftmpi::boot {

class Pmi2Client final : public Bootstrap {
 public:
  static Result<std::unique_ptr<Pmi2Client>> connect_from_env();
  // On a connected socket (taken over: closed by the destructor). `rank` < 0 and empty `jobid`: let the
  // server say.
  static Result<std::unique_ptr<Pmi2Client>> connect_on_fd(int fd, int rank, std::string jobid, bool launched_by_ftmpi);
  ~Pmi2Client() override;

  int rank() const override { return rank_; }
  int size() const override { return size_; }
  const std::string& job_id() const override { return jobid_; }
  bool launched_by_ftmpi() const override { return launched_by_ftmpi_; }
  Status put(std::string_view key, std::string_view value) override;
  Result<std::string> get(std::string_view key) override;
  Status fence() override;
  void abort(int code, std::string_view message) override;
  Status finalize() override;
  std::optional<std::string> job_attribute(std::string_view name) override;

  int appnum() const { return appnum_; }

 private:
  Pmi2Client(int fd, bool ftmpi) : fd_(fd), launched_by_ftmpi_(ftmpi) {}
  Status handshake(int rank, const std::string& jobid);
  Status send_all(const std::string& bytes);
  // Send one framed request and wait for "<expect>"; checks rc (a non-zero rc is an error with errmsg).
  Result<pmi::Message> transact(const std::string& request, std::string_view expect, bool check_rc = true);
  Result<pmi::Message> read_message();

  std::mutex mu_;
  int fd_ = -1;
  int rank_ = -1;
  int size_ = 0;
  int appnum_ = 0;
  bool launched_by_ftmpi_ = false;
  bool finalized_ = false;
  std::string jobid_;
  pmi2::Reader in_;
};

}  // namespace ftmpi::boot
