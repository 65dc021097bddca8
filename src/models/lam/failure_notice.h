// LAM's reliable mode (seed 002 §7.3.2, Figure 11): after an operation on a communicator fails with a process
// failure, the application reads which processes failed "by the end of the failed collective operation"
// (MPI_FAILED_LIST, MPIX_Comm_failed_ranks). A collective can fail at a process before the launcher's notice
// reached it — another member gave the collective up first (p2p/engine.h, "Collective failures") — so in LAM
// mode a call failing with Errc::proc_failed waits, before it returns, until this process knows of at least
// one failed member of the communicator. The notice is on its way to every survivor (mpiexec announces every
// death); the wait is bounded (30 s, then a warning) so it can never hang. Error path only.
#pragma once
#include "comm/communicator.h"

namespace ftmpi {
class Runtime;
}

namespace ftmpi::lam {

void await_failure_notice(Runtime& rt, const comm::Communicator* c);

}  // namespace ftmpi::lam
