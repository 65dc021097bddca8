// Which ranks run on which host: --host a,b:2,c and --hostfile ("host slots=N" lines, Open MPI syntax, or
// MPICH's "host:N")
// give hosts with slots; duplicates merge (their slots add up). Ranks fill the slots in host order, and if
// the job has more ranks than slots the slots are filled again, round after round; every host holds one
// contiguous block of ranks (rank r's host is found by range), which PMI_process_mapping describes.
#pragma once
#include <string>
#include <vector>

#include "util/status.h"

namespace ftmpi::mpiexec {

struct HostEntry {
  std::string name;
  int slots = 1;
  bool local = false;   // this machine (localhost, 127.x, ::1, our host name): no rsh agent needed
  int first_rank = 0;   // ranks [first_rank, first_rank + nranks)
  int nranks = 0;
};

struct HostLayout {
  std::vector<HostEntry> hosts;
  int total_slots() const;
  // Host index of rank r (-1 if out of range).
  int host_of(int rank) const;
  bool all_local() const;
};

// Parse "--host" entries (each "name" or "name:slots") and the hostfile (may be empty) into hosts.
Result<HostLayout> parse_hosts(const std::vector<std::string>& host_args, const std::string& hostfile);

// Place `np` ranks (see above). Hosts left without ranks stay in the layout with nranks 0.
void place_ranks(HostLayout& layout, int np);

// MPICH's PMI_process_mapping for the layout: "(vector,(node,count,ranks_per_node),...)", consecutive
// hosts with the same rank count merged, hosts without ranks skipped.
std::string process_mapping(const HostLayout& layout);

// True when `host` names this machine.
bool is_this_host(const std::string& host);

}  // namespace ftmpi::mpiexec
