// mpiexec's side of dynamic processes (src/dpm/dpm.h): the processes' cards, the ports (accept meets
// connect), and the name service (MPI_Publish_name/Lookup_name). A plain state machine over request lines
// from process ids (no sockets, no processes): the Job feeds it `dpm_*` lines and sends the replies.
//
// Waiting requests and failures: a request that must wait (an accept without a connect, a connect without
// an accept, a card not yet published) is answered later — by its partner's request, or by gone(), which
// the Job calls when a process has ended: waits on its card fail, connects to its ports fail ("the port's
// owner failed"), and an accept on a port reserved for a spawned part fails when a process of that part
// ends before the part's root connected. So no request waits for a process that is gone.
//
// Replies: "cmd=<reply> rc=0 ..." or "rc=1 err=<port|name|service|spawn|proc_failed|arg> msg=<pct-encoded>".
#pragma once
#include <map>
#include <set>
#include <string>
#include <vector>

#include "boot/pmi_wire.h"

namespace ftmpi::mpiexec {

class DpmBroker {
 public:
  struct Reply {
    int gid;
    std::string line;
  };

  explicit DpmBroker(std::string port_prefix) : prefix_(std::move(port_prefix)) {}

  // Handles one dpm_* request (all but dpm_spawn, which the Job runs) from process `gid`.
  std::vector<Reply> handle(int gid, const boot::pmi::Message& m);
  // Process `gid` has ended (failed or exited).
  std::vector<Reply> gone(int gid);
  // A port the Job opened for a spawn: its accept fails if a process of ids [base, base+size) ends first.
  void reserve_for_part(const std::string& port, int base, int size);
  // The next process id not handed out yet (cards of higher ids are never waited for).
  void set_id_limit(int limit) { id_limit_ = limit; }
  // A port for `gid` (the Job's spawn uses it too).
  std::string open_port(int gid);

  static std::string error_line(const char* cmd, const char* err, const std::string& msg);

 private:
  struct Port {
    int owner = -1;
    int accepter = -1;             // waiting accept (process id), or -1
    std::vector<int> connecters;   // waiting connects, in order
    int part_base = -1, part_size = 0;
    std::string part_failed;  // a process of the reserved part ended before connecting: why accepts fail
  };
  void pair(Port& p, std::vector<Reply>& out);

  std::string prefix_;
  int next_port_ = 0;
  int next_pair_ = 1;
  int id_limit_ = 0;
  std::map<std::string, Port> ports_;
  std::map<int, std::string> cards_;
  std::map<int, std::vector<int>> card_waiters_;  // subject -> requesters
  std::set<int> gone_;
  std::map<std::string, std::string> names_;
};

}  // namespace ftmpi::mpiexec
