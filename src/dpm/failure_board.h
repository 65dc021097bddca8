// Failures across jobs that share a name service (dpm/name_dir.h): each mpiexec posts the failures of its
// own processes in DIR/failed/, and watches that directory for the failures of the other jobs' processes.
//
// Model. A process's failure is known for sure only by the mpiexec that started it (waitpid/pidfd,
// heartbeats); the processes of another job learn it per connection (dpm/dpm_transport.h), and a process
// that shares a communicator with a failed process of another job but never dialed it would otherwise not
// learn it at all (e.g. an MPI_Intercomm_create over a bridge made by a connect of two roots; a barrier
// waiting on a process that waits on the dead one). The board makes the owner's verdict every job's:
//   post(id)   the owner mpiexec, when it announces the failure of its process `id` to its own universe
//              (FT mode), creates DIR/failed/<id> (empty; the name is the process id);
//   poll()     every mpiexec in FT mode watches DIR/failed/ with inotify and hands back the ids of other
//              universes that appeared there; mpiexec announces them to every process of its universe
//              through the ordinary failure-notice path (tools/launch/control_channel.h).
// Entries live until their universe ends (JobSlot removes them with the slot's cards and names).
//
// Safety: only an owner posts, after its own fail-stop verdict (the process is reaped or SIGKILLed), so a
// posted process never comes back. Notices about processes a universe never met are harmless: a failure
// only matters for communicators that hold the process.
// Cost: one inotify descriptor per FT mpiexec with a name service; one file per failure.
#pragma once
#include <memory>
#include <string>
#include <vector>

#include "util/status.h"

namespace ftmpi::dpm {

class FailureBoard {
 public:
  // Watches DIR/failed/ (created if missing) for universe slot `slot`.
  static Result<std::unique_ptr<FailureBoard>> open(const std::string& dir, int slot);
  ~FailureBoard();
  FailureBoard(const FailureBoard&) = delete;
  FailureBoard& operator=(const FailureBoard&) = delete;

  // The descriptor that becomes readable when something was posted (for mpiexec's poll loop).
  int fd() const { return fd_; }
  // Process `id` (a process id of this universe, dpm/universe.h) failed: tell the other jobs.
  void post(int id) const;
  // The ids of other universes' processes posted since the last call (each at most once).
  std::vector<int> poll();

 private:
  FailureBoard(std::string dir, int slot, int fd) : dir_(std::move(dir)), slot_(slot), fd_(fd) {}
  std::string dir_;
  int slot_;
  int fd_;
};

}  // namespace ftmpi::dpm
