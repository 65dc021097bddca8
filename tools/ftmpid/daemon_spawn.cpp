// MPI_Comm_spawn across hosts, the host daemon's part (src/dpm/dpm.h; the origin's part:
// tools/mpiexec/origin_dpm.cpp). The origin places a spawned part's processes on hosts and sends each
// host one "spawn" frame per command: first=GID n=N pmirank=L lidx=I lsize=S, payload items cmd=, path=
// (info "path"), wdir=, arg=..., env=... . Process first+k gets PMI_RANK L+k (its rank in the part's
// MPI_COMM_WORLD) and FTMPI_LOCAL_RANK I+k of S (among the part's processes on this host). From then on
// a spawned process is a rank like the others here: its PMI lines go up (tagged with its process id), it
// is watched by pidfd and heartbeats, its end is reported by an exit frame, notices reach it.
//
// The program is looked up here, on the host it runs on (resolve_spawn_program); when it is not found,
// nothing is started and "spawn_failed first=GID n=N" goes up with the reason, which the origin turns into
// MPI_ERR_SPAWN at the parents (no exit status: these processes never existed).
#include <string>
#include <vector>

#include "daemon.h"
#include "spawn_program.h"
#include "util/log.h"

namespace ftmpi::mpiexec {

void Daemon::spawn_part(const Frame& f) {
  const int first = static_cast<int>(f.num("first", -1)), n = static_cast<int>(f.num("n", 0));
  const int pmirank = static_cast<int>(f.num("pmirank", 0)), lidx = static_cast<int>(f.num("lidx", 0));
  const int lsize = static_cast<int>(f.num("lsize", 1));
  if (first < 0 || n < 1 || lsize < 1) return;
  std::string cmd, path_dirs, wdir;
  std::vector<std::string> argv, env;
  for (std::string& item : split_nul(f.payload)) {
    std::size_t eq = item.find('=');
    if (eq == std::string::npos) continue;
    std::string k = item.substr(0, eq), v = item.substr(eq + 1);
    if (k == "cmd") cmd = v;
    else if (k == "path") path_dirs = v;
    else if (k == "wdir") wdir = v;
    else if (k == "arg") argv.push_back(v);
    else if (k == "env") env.push_back(v);
  }
  Result<std::string> prog = resolve_spawn_program(cmd, path_dirs, wdir);
  if (!prog.ok()) {
    log::debug("ftmpid: spawn of %s refused here: %s", cmd.c_str(), prog.status().message().c_str());
    Frame e("spawn_failed");
    e.set("first", first).set("n", n);
    e.payload = prog.status().message();
    send_up(e);
    return;
  }
  argv.insert(argv.begin(), cmd);
  const std::vector<std::string> no_inject;
  for (int k = 0; k < n; ++k) {
    if (find_rank(first + k)) continue;  // a repeat (re-parenting replays frames)
    ranks_.emplace_back();
    Rank& r = ranks_.back();
    r.rank = first + k;
    RankStart how{prog.value(), argv, env, no_inject, wdir, false, false, pmirank + k, lidx + k, lsize};
    start_rank(r, how);
  }
}

}  // namespace ftmpi::mpiexec
