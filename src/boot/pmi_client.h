// Bootstrap over PMI-1 (MPICH's simple PMI wire protocol, version 1.1), spoken to ftmpi's mpiexec or to
// MPICH's Hydra (mpiexec.mpich).
//
// Environment read (as Hydra and our mpiexec export it):
//   PMI_FD=<fd>            an already connected stream socket, or
//   PMI_PORT=<host>:<port> a TCP address to connect to;
//   PMI_RANK, PMI_SIZE     this rank and the job size, or
//   PMI_ID=<id>            instead of rank/size: ask the server (cmd=initack pmiid=<id>).
//   FTMPI_LAUNCHER=ftmpi   launched_by_ftmpi() is true.
//
// Thread safety: every request/response exchange holds an internal mutex, so the object may be used from
// several threads; calls are blocking. The *_while calls hold it only while reading: one of them at a time
// waits (waiter_mu_) and the reply it waits for, when another exchange reads it first, is kept for it.
#pragma once
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "boot/bootstrap.h"
#include "boot/pmi_wire.h"
#include "util/status.h"

namespace ftmpi::boot {

class PmiClient final : public Bootstrap {
 public:
  // Connect using the environment and perform init, get_maxes and get_my_kvsname.
  // Errc::other with a message on any failure (bad environment, unreachable server, protocol error).
  static Result<std::unique_ptr<PmiClient>> connect_from_env();
  // Same, on an already connected socket `fd` (taken over: closed by the destructor). rank/size < 0
  // means "ask the server with PMI_ID `pmi_id`".
  static Result<std::unique_ptr<PmiClient>> connect_on_fd(int fd, int rank, int size, int pmi_id,
                                                          bool launched_by_ftmpi);
  ~PmiClient() override;

  int rank() const override { return rank_; }
  int size() const override { return size_; }
  const std::string& job_id() const override { return kvsname_; }
  bool launched_by_ftmpi() const override { return launched_by_ftmpi_; }

  Status put(std::string_view key, std::string_view value) override;
  Result<std::string> get(std::string_view key) override;
  Status fence() override;
  void abort(int code, std::string_view message) override;
  // Send the abort request only (no message, no wait, no exit): a singleton's launcher learns of its abort
  // before the end of file its exit makes (boot/singleton.h).
  Status tell_abort(int code);
  Status finalize() override;
  std::optional<std::string> rank_gone(int rank) override;
  std::optional<std::string> job_attribute(std::string_view name) override;

  Result<pmi::Message> launcher_call(const std::string& line, std::string_view expect) override;
  Result<pmi::Message> launcher_call_while(const std::string& line, std::string_view expect,
                                           const std::function<void()>& idle) override;
  Status fence_while(const std::function<void()>& idle) override;
  // Application number (PMI get_appnum); 0 for a single-program job.
  Result<int> appnum();
  // The socket to the launcher (for a later service thread that reads failure notices).
  int fd() const { return fd_; }

 private:
  PmiClient(int fd, int rank, int size, bool ftmpi) : fd_(fd), rank_(rank), size_(size), launched_by_ftmpi_(ftmpi) {}
  Status handshake(int pmi_id);
  // Send `request` (an encoded line) and read lines until one whose cmd is `expect`. Caller holds mu_.
  Result<pmi::Message> transact(const std::string& request, std::string_view expect);
  Status send_line(const std::string& line);
  Result<pmi::Message> read_message();
  // Send `request`, then alternate between reading what the launcher sent (never blocking for long) and
  // idle() until the reply `expect` is there.
  Result<pmi::Message> transact_while(const std::string& request, std::string_view expect,
                                      const std::function<void()>& idle);
  // Caller holds mu_: is `m` the reply a *_while call waits for? Then it is kept for it.
  bool keep_for_waiter(const pmi::Message& m);

  std::mutex mu_;
  std::vector<std::pair<std::string, std::string>> attributes_;  // mu_: job_attribute answers so far
  std::mutex waiter_mu_;                  // one *_while call at a time
  std::string awaited_;                   // mu_: the cmd the *_while call waits for ("" when none)
  std::optional<pmi::Message> arrived_;   // mu_: its reply, read by whichever exchange saw it
  int fd_ = -1;
  int rank_ = -1;
  int size_ = 0;
  bool launched_by_ftmpi_ = false;
  bool finalized_ = false;
  std::string kvsname_;
  pmi::LineSplitter in_;
};

}  // namespace ftmpi::boot
