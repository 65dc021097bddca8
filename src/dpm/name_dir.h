// The name service shared by separate mpiexec jobs: a directory (on a filesystem every process of those
// jobs sees), given as `mpiexec --name-service DIR` or FTMPI_NAME_SERVICE=DIR. It plays the part of Open
// MPI's ompi-server and MPICH's hydra_nameserver, with files instead of a server process.
//
// Layout of DIR:
//   secret          the secret every universe meeting through DIR shares (mode 0600; made by the first
//                   mpiexec, created with link() so that a reader never sees it half written)
//   jobs/<s>        universe slot s (1..kMaxSlots-1, dpm/universe.h), flock()ed (exclusive) by its mpiexec
//                   for its lifetime: a slot is alive exactly while the lock is held
//   cards/<id>      where process <id> listens (its DpmTransport card), written by the process itself;
//                   "-" once it finalized
//   failed/<id>     process <id> failed, posted by its own mpiexec in FT mode (dpm/failure_board.h)
//   names/<enc>     a published service: "<slot>\n<port name>\n" (created atomically with link(): the second
//                   publisher of a name sees EEXIST)
// Staleness: an entry whose slot is not alive is stale (its universe ended without cleaning up, e.g.
// SIGKILLed): a lookup ignores it, a publish replaces it. mpiexec removes its slot's cards and names when it
// ends and when it claims the slot (what a killed predecessor left).
//
// Errors are values: Errc::name (lookup of an unknown name), Errc::service (publishing a taken name,
// unpublishing an unknown one), Errc::proc_failed (a card of a process whose universe is gone).
#pragma once
#include <memory>
#include <string>

#include "util/status.h"

namespace ftmpi::dpm {

// mpiexec's side: the slot this universe holds in DIR, and the shared secret. Released (and the slot's
// entries removed) on destruction.
class JobSlot {
 public:
  static Result<std::unique_ptr<JobSlot>> claim(const std::string& dir);
  ~JobSlot();
  JobSlot(const JobSlot&) = delete;
  JobSlot& operator=(const JobSlot&) = delete;
  int slot() const { return slot_; }
  const std::string& secret() const { return secret_; }
  const std::string& dir() const { return dir_; }

 private:
  JobSlot(std::string dir, int slot, int fd, std::string secret)
      : dir_(std::move(dir)), slot_(slot), fd_(fd), secret_(std::move(secret)) {}
  std::string dir_;
  int slot_;
  int fd_;
  std::string secret_;
};

// Remove every card, failure post and name of universe slot `slot` from DIR.
void remove_slot_entries(const std::string& dir, int slot);

// The processes' side. Each call is a few file operations; read_card may wait.
class NameDir {
 public:
  explicit NameDir(std::string dir) : dir_(std::move(dir)) {}
  const std::string& dir() const { return dir_; }

  // True while universe slot `slot`'s mpiexec runs (holds the slot's lock).
  bool slot_alive(int slot) const;

  Status write_card(int id, const std::string& card) const;
  // Process `id` finalized: its card says so (a late dialer then knows it left; no failure).
  void mark_departed(int id) const;
  // The card of process `id` of another universe. Waits (sleeping, up to `wait_ms`) until the process
  // wrote it; Errc::proc_failed when its universe is gone or the wait ends, Errc::unsupported when the
  // process finalized.
  Result<std::string> read_card(int id, int wait_ms) const;

  Status publish(const std::string& service, const std::string& port, int my_slot) const;
  Status unpublish(const std::string& service) const;
  Result<std::string> lookup(const std::string& service) const;

 private:
  std::string name_path(const std::string& service) const;
  std::string dir_;
};

}  // namespace ftmpi::dpm
