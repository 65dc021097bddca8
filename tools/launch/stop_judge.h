// Is a rank that sends no heartbeat hung? Only a stop says so. Shared by mpiexec (single host) and
// ftmpid (its host's ranks).
//
// Model. A rank heartbeats from its service thread between MPI_Init's start of that thread and
// MPI_Finalize's goodbye (cmd=bye); there its silence is judged by silence_judge.h. Outside that span a
// rank sends nothing on purpose, yet the launcher still waits for it:
//   - before its first heartbeat: exec, dynamic loading, MPI_Init up to the service thread;
//   - after its goodbye: the rest of MPI_Finalize (PMI finalize), whatever the program does after it, and
//     its exit. The survivors have passed the finalize fence and leave; mpiexec waits for every rank.
// A silence means nothing there (a program may compute after MPI_Finalize for as long as it likes), but
// a process that is stopped (SIGSTOP, ptrace: /proc state T or t) never resumes by itself: one found
// stopped at every sample for the detector timeout is hung, and the launcher kills it, as it would in
// the heartbeating span. Before this watch covered the goodbye side, a rank SIGSTOPped just after
// MPI_Finalize's goodbye held the whole job until its time limit (issue 12's soak hang; reproduced with
// bench/ft/soak.sh -S 4242, job 9: the stop landed 0.36 s into the job on a rank that had logged DONE).
//
// Samples are taken once per detector period: a SIGCONT and a new SIGSTOP between two samples look like
// one long stop (the grace is then shorter than the timeout, never longer than timeout + one period).
// Cost: one /proc/<pid>/stat read per such rank per period.
#pragma once
#include <sys/types.h>

#include <chrono>

namespace ftmpi::mpiexec {

struct StopWatch {
  using Clock = std::chrono::steady_clock;
  bool seen = false;    // stopped at the last sample
  Clock::time_point since{};  // the first sample of the current stop

  // Feeds one sample; true once the process has been found stopped at every sample since `limit` ago.
  bool stopped_for(bool stopped_now, Clock::time_point now, Clock::duration limit);
  // Samples pid's /proc state and feeds it (a process that is gone counts as not stopped: its reaping
  // tells how it ended).
  bool sample(pid_t pid, Clock::time_point now, Clock::duration limit);
  // The process ran (a heartbeat): any stop seen before is over.
  void reset() { seen = false; }
};

}  // namespace ftmpi::mpiexec
