// A warm spare process (mpiexec --with-ft reinit --spares N): started with the job, it runs the program's
// main up to MPI_Init like any rank — exec, dynamic loading, static constructors and the program's own
// start-up are done — and then waits there, holding no rank, until the launcher hands it a failed rank's
// number. It then continues MPI_Init exactly as a restarted process of that rank (RESTARTED, joining the
// announced epoch), so a recovery costs no fork, exec or loading on its critical path.
//
// Protocol (control channel, FTMPI_CTRL_FD, before the service thread exists): the launcher writes one line
//   cmd=adopt rank=R epoch=E failed=F1,F2,...
// and the spare reads exactly that line (byte by byte: whatever follows stays for the service thread).
// End of file instead (the job ended without needing it) ends the process at once (_exit(0): the program's
// code after MPI_Init never runs).
#pragma once
#include "util/status.h"

namespace ftmpi::reinit {

// FTMPI_SPARE is set: this process is a spare.
bool is_spare();
// Block until adopted; then set PMI_RANK, FTMPI_LOCAL_RANK, FTMPI_REINIT_EPOCH and FTMPI_REINIT_FAILED
// for the rest of MPI_Init and return. Returns the CLOCK_REALTIME second of the adoption (for the
// timeline). Does not return when the job releases the spare.
Result<double> wait_for_adoption();

}  // namespace ftmpi::reinit
