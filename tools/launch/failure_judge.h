// Failure judgement shared by the single-host Job and the several-hosts origin: which end of a rank is a
// failure of the computation in FT mode, which cause its notice gives, the job's exit status and the
// one-line summary. Pure functions over the rank table (no processes, no I/O).
//
// The failure path, in one place (docs/architecture.md, "Launcher"):
//   rank:   its host's launcher (mpiexec, or the host daemon) reaps it (pidfd/SIGCHLD), or judges it hung
//           (heartbeat silence) or is told a peer suspects it, and kills it first; once reaped it is
//           announced (cmd=failed) to every live rank; is_ft_failure() says whether its end is a failure.
//   daemon: its parent link closes (EOF: the daemon or its host died) or falls silent beyond the detector
//           timeout plus one period (tree_liveness.h): every rank of its host is failed with
//           Verdict::host_lost and announced with cause node_lost; the hosts below it re-attach to an
//           ancestor (tree_membership.h).
//   link:   a cut link is silence on both sides: the daemon fences itself (kills its ranks, exits) unless
//           an ancestor adopts it; the origin declares the host lost after the orphan window.
#pragma once
#include <functional>
#include <string>
#include <vector>

#include "control_channel.h"
#include "rank_table.h"

namespace ftmpi::mpiexec {

// FT mode: the end of `rec` is a failure (a verdict, a signal, a non-zero exit, or exit 0 after PMI init
// without PMI finalize); a rank's end after PMI finalize never is.
bool is_ft_failure(const RankRecord& rec);

// FT mode, start-up: the ranks of one PMI group (indexes [first, first + count) of `ranks`) to kill as hung
// because they never called MPI_Init: alive, no verdict, no PMI init for `limit` since their launch, while
// another rank of the group has waited for `limit` in a PMI barrier, which cannot complete without them (a
// program stuck before MPI_Init would otherwise hold every rank in MPI_Init forever). `in_barrier(i)`: rank
// index i waits in its group's barrier. The single-host Job and the several-hosts origin both apply it.
std::vector<int> never_initialized(const RankTable& ranks, int first, int count, const std::function<bool(int)>& in_barrier,
                                   Clock::time_point now, Clock::duration limit);

// The cause= and code= of `rec`'s failure notice.
void failure_cause(const RankRecord& rec, FailureCause& cause, int& code);

// FT mode's exit status: the first surviving rank's non-zero status, else (nobody survived) the first
// failure's, else 0.
int ft_exit_status(const RankTable& ranks, const std::vector<int>& failed_order, int first_survivor_error);

struct SummaryInput {
  const RankTable* ranks = nullptr;
  const std::vector<int>* failed_order = nullptr;
  bool terminated = false;        // the job was ended (abort, timeout, signal, halt)
  int first_survivor_error = -1;
  double start_realtime = 0;
  // Several-hosts jobs: host names by RankRecord::host (each failed rank is named with its host); the
  // lost hosts, in the order they were lost, are listed after the ranks. Empty on a single host.
  const std::vector<std::string>* host_names = nullptr;
  const std::vector<int>* lost_hosts = nullptr;
};

// "N ranks failed during the job: rank R (how) at T s, ...; survivors completed" (empty when nobody
// failed).
std::string ft_summary(const SummaryInput& in);
// Says ft_summary(in) on stderr (mpiexec: ...) unless it is empty.
void say_ft_summary(const SummaryInput& in);

}  // namespace ftmpi::mpiexec
