// Starting a host daemon (ftmpid) of a several-hosts job: the command line and the fork of the rsh agent.
// Shared by the origin (mpiexec starts its own children in the launcher tree and the daemons of its own
// machine) and by every daemon (it starts the daemons below it, through the same agent, from its own
// host), so that no process forks more than k agents (tree_shape.h).
#pragma once
#include <sys/types.h>

#include <string>
#include <vector>

#include "tree_shape.h"
#include "util/status.h"

namespace ftmpi::mpiexec {

struct DaemonLaunch {
  std::string ftmpid;  // the daemon's path (the same on every host, as Open MPI's orted)
  std::string agent;   // the rsh agent, may hold arguments split at blanks ("ssh -x")
  std::string key;     // the job's link key
  TreeShape shape;
  int period_ms = 100, timeout_ms = 1000, startup_ms = 60000;

  // `ftmpid --node N --parent EP --key ...`, behind `AGENT HOST` unless `local` (this machine).
  // `ancestors`: "NODE@EP+NODE@EP..." from the parent up to the origin (where to re-attach).
  std::vector<std::string> command(int node, const std::string& host, bool local, const std::string& parent_ep,
                                   const std::string& ancestors) const;
};

// Fork and exec `argv` (PATH searched) in a session (and process group) of its own, stdin /dev/null, default signal mask
// and SIGPIPE; the child does not die with its parent (a daemon whose parent dies must outlive it to
// re-attach or fence on its own). Returns the pid; the caller reaps it.
Result<pid_t> spawn_agent(const std::vector<std::string>& argv);

// "a b  c" -> {"a", "b", "c"}
std::vector<std::string> split_words(const std::string& s);

// The path of the running executable's directory + "/" + name (the daemon lives beside mpiexec).
std::string beside_self(const std::string& name);

}  // namespace ftmpi::mpiexec
