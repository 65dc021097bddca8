// The rank-level failure detector's driver (FT mode with no ftmpi daemon: Hydra, srun). A thread of the
// rank runs ft/ring_detector.h over its own UDP socket, so heartbeats go on while the application computes
// outside MPI and do not touch the transports (which belong to the progress loop). It also watches the
// ranks on this host through pidfds (their death is seen at once; shared memory gives no EOF).
//
// Life cycle (Runtime): prepare() before the transports' first fence publishes "hb.<rank>" (the UDP
// socket's addresses, on the interfaces TCP uses: FTMPI_TCP_IF) and "pid.<rank>" ("<pid>.<starttime>");
// start() after the transports are up reads the peers' cards and starts the thread; stop() (MPI_Finalize)
// says goodbye to the live ranks so that their leaving is not taken for a failure.
//
// Effects of the thread (contracts):
//  * a suspected rank, and a same-host rank whose pidfd reports its end, is recorded in the FailureState
//    (cause hung / disappeared) and `wake` is called; the FT layer then fences its connections
//    (FtManager::on_failures → Router::fence).
//  * a suspect is not killed (Hydra kills every rank of a host when one of them dies by a signal): it reads
//    the fence notice first when it runs again, and ends. A suspect of this host is sent SIGCONT by stop()
//    (it may be stopped: then it runs again, reads the notice and ends, instead of keeping the launcher
//    waiting).
//  * a failure recorded by anyone else (lost connection, revoke, agreement) is given to the detector
//    (ring repair, flood) within one period.
//  * fenced (a live rank suspects this one) or quorum lost (half or more of the job failed): prints why on
//    stderr and ends the process with _exit(1) (it must not go on as a member).
// Settings (environment, as ftmpi's mpiexec sets them for its own detector): FTMPI_DETECTOR_PERIOD_MS
// (default 100), FTMPI_DETECTOR_TIMEOUT_MS (default 1000), FTMPI_DETECTOR_OBSERVERS (k, default 2),
// FTMPI_DETECTOR_QUORUM (default 1), FTMPI_DETECTOR=off disables the detector (lost connections only).
#pragma once
#include <functional>
#include <memory>

#include "boot/bootstrap.h"
#include "ft/failure_state.h"
#include "util/status.h"

namespace ftmpi::ft {

class PeerWatch {
 public:
  virtual ~PeerWatch() = default;
  // Collective with the transports' set-up: call after it (its fences published our cards).
  virtual Status start(boot::Bootstrap& boot, FailureState& failures, std::function<void()> wake) = 0;
  // MPI_Finalize: goodbyes, then the thread ends. Idempotent.
  virtual void stop() = 0;
};

// Null (and no error) when disabled by FTMPI_DETECTOR=off or the job has one rank.
Result<std::unique_ptr<PeerWatch>> prepare_peer_watch(boot::Bootstrap& boot);

}  // namespace ftmpi::ft
