// What the kernel says about a child process right now (/proc/<pid>/stat): is it stopped, is it already
// on its way out? Used to judge a rank by facts before mpiexec's own verdicts (hung, suspected).
#pragma once
#include <sys/types.h>

#include <optional>

namespace ftmpi::mpiexec {

struct ProcState {
  char state = '?';      // R, S, D, T (stopped), t (traced), Z (zombie), ...
  unsigned flags = 0;    // the kernel's PF_* flags
  bool stopped() const { return state == 'T' || state == 't'; }
  // Already exiting (PF_EXITING) or a zombie: it ended by itself, whatever a peer or a silence suggests.
  bool exiting() const { return state == 'Z' || state == 'X' || (flags & 0x4u) != 0; }
};

// nullopt when the process does not exist (or /proc is not mounted).
std::optional<ProcState> read_proc_state(pid_t pid);

}  // namespace ftmpi::mpiexec
