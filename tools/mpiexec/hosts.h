// Host selection (--host, --hostfile). Only this host is supported for now: every named host must be
// this machine (localhost, 127.x, ::1, or this host's name with or without domain).
#pragma once
#include <string>

#include "options.h"

namespace ftmpi::mpiexec {

// Empty string when every host in `o` (and its hostfile) is this host; otherwise one error line.
std::string check_hosts_are_local(const Options& o);

}  // namespace ftmpi::mpiexec
