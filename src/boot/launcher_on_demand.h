// Starting ftmpi's mpiexec on demand for a singleton (a process started without a launcher, `./a.out`) at its
// first dynamic-process call (docs/dpm.md "From a singleton"; boot/singleton.h is the caller).
//
// Protocol. The singleton makes a socketpair and runs `mpiexec --singleton PID:FD -- EXE ARGS...` with the
// other end as descriptor FD; mpiexec adopts process PID (the singleton) as rank 0 of a one-rank job whose PMI
// connection is that socket (tools/launch/adopted_process.h), and the singleton speaks PMI-1 over its end
// exactly as a rank mpiexec started would (boot/pmi_client.h): spawn, ports and names then work as under
// `mpiexec -n 1`. The dynamic-process secret is the singleton's: FTMPI_DPM_SECRET in mpiexec's environment.
//
// Process tree. mpiexec is started as a grandchild: an intermediate process setsid()s, forks mpiexec and exits
// at once (reaped here), so mpiexec is nobody's child in the application — its wait() never sees it, a
// SIGCHLD handler is never called for it — and no terminal signal meant for the application's process group
// reaches it. mpiexec ends with the singleton: it watches it (pidfd, and the socket's end of file), so a
// singleton that exits, calls MPI_Abort or is SIGKILLed takes its children and mpiexec with it.
//
// Contract: the child side runs async-signal-safe calls only (the application may have threads): argv and
// environment are built before fork. mpiexec gets fds 0 (/dev/null), 1 and 2 (the singleton's: spawned
// processes' output is forwarded there) and FD; every other descriptor of the singleton is closed.
#pragma once
#include <string>
#include <vector>

#include "util/status.h"

namespace ftmpi::boot {

// Where mpiexec is: $FTMPI_MPIEXEC if set (it must be an executable file), else next to the library that holds
// this code (libmpi: <prefix>/<libdir>/<rel>/mpiexec with rel the configured lib-to-bin path, then ../bin, the
// build tree's layout). Errc::unsupported with a message naming what was tried when none is found.
Result<std::string> find_mpiexec();

// Starts `mpiexec` in adoption mode for this process (see above) with `secret` as FTMPI_DPM_SECRET and
// `program` (the singleton's executable and arguments, for ps and mpiexec's messages). Returns this
// process's end of the socket (close-on-exec). Errc::unsupported with the reason if mpiexec could not be
// executed (its exec error is reported back through a close-on-exec pipe).
Result<int> start_mpiexec(const std::string& mpiexec, const std::string& secret, const std::vector<std::string>& program);

// This process's executable and arguments (/proc/self/exe, /proc/self/cmdline); {"singleton"} if unreadable.
std::vector<std::string> own_command_line();

}  // namespace ftmpi::boot
