// The guardian of a rank alone on its host (FT mode with no ftmpi daemon: Hydra, srun).
//
// Problem. The rank-level detector (ft/peer_watch.h) fences a suspect: the suspect ends itself when it
// reads the fence notice. A SIGSTOPped rank reads nothing, and the launcher waits for every rank, so the
// job would never end. A same-host peer continues it (SIGCONT, peer_watch.cpp) when it finalizes; a rank
// alone on its host has no peer there, and no PMI call ends one other rank. Its threads cannot help
// either: SIGSTOP stops the whole process.
//
// Design. Such a rank starts one small process, its guardian (a clone of the rank that runs only system
// calls, named "ftmpi-guard"), with its own UDP socket whose port goes out with the rank's heartbeat card.
// Every live rank that fences this rank sends the fence notice to the guardian too. The guardian obeys a
// notice exactly when its rank would: the sender must not be out (failed or departed) in the rank's own
// view, which the rank's detector thread writes into a page shared with the guardian. Then:
//   * the rank is stopped (state T or t): the guardian kills it (SIGKILL, the one signal a stopped
//     process acts on besides SIGCONT; a continued suspect would first run with its stale view); being
//     alone on its host, no host-mate goes with it when the launcher sees a death by a signal;
//   * otherwise the rank ends itself on the same notice; if it has not after one detector timeout (or
//     stops meanwhile), the guardian kills it.
// It says why on stderr. It ends when the rank ends (pidfd). The rank kills and reaps it in MPI_Finalize
// and before it ends itself; it is a child that sends no SIGCHLD, so wait(-1) in the application never
// sees it. Cost: one sleeping process per lone rank, one datagram per fence.
#pragma once
#include <cstdint>
#include <memory>

#include "util/status.h"

namespace ftmpi::ft {

class RankGuardian {
 public:
  // Binds the guardian's UDP socket (any address; the rank publishes the port). Before the first fence.
  static Result<std::unique_ptr<RankGuardian>> create();
  ~RankGuardian();
  RankGuardian(const RankGuardian&) = delete;
  RankGuardian& operator=(const RankGuardian&) = delete;

  std::uint16_t port() const { return port_; }
  // Starts the guardian process for rank `me` of `n` (datagrams of job `tag` only; `grace_ms`: how long a
  // fenced rank that runs may take to end itself).
  Status start(std::uint32_t tag, int me, int n, double grace_ms);
  // The rank's view: `r` is out (failed or departed); its notices count for nothing. Any thread.
  void mark_out(int r);
  // The guardian goes (killed and reaped). Idempotent; async-signal-safe system calls only.
  void stop();

 private:
  RankGuardian(int fd, std::uint16_t port) : fd_(fd), port_(port) {}
  int fd_ = -1;
  std::uint16_t port_ = 0;
  int n_ = 0;
  unsigned char* view_ = nullptr;  // shared with the guardian: n_ bytes, 1 = out
  std::size_t view_len_ = 0;
  int pid_ = -1;
};

}  // namespace ftmpi::ft
