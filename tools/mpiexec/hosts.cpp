#include "hosts.h"

#include <unistd.h>

#include <fstream>
#include <sstream>

namespace ftmpi::mpiexec {
namespace {

bool is_this_host(std::string host) {
  // Strip ":slots" (Open MPI host:N) but keep IPv6 "::1".
  if (host != "::1") {
    std::size_t colon = host.find(':');
    if (colon != std::string::npos) host.resize(colon);
  }
  if (host == "localhost" || host == "::1" || host.rfind("127.", 0) == 0 || host == "localhost.localdomain")
    return true;
  char name[256] = {};
  if (gethostname(name, sizeof name - 1) != 0) return false;
  std::string me(name);
  if (host == me) return true;
  std::string short_me = me.substr(0, me.find('.'));
  std::string short_host = host.substr(0, host.find('.'));
  return short_host == short_me && (host.find('.') == std::string::npos || me.find('.') == std::string::npos);
}

}  // namespace

std::string check_hosts_are_local(const Options& o) {
  for (const std::string& h : o.hosts)
    if (!is_this_host(h))
      return "host '" + h + "' is not this host; only launches on the local host are supported for now";
  if (o.hostfile.empty()) return {};
  std::ifstream in(o.hostfile);
  if (!in) return "cannot read hostfile '" + o.hostfile + "'";
  std::string line;
  int lineno = 0;
  while (std::getline(in, line)) {
    ++lineno;
    std::size_t hash = line.find('#');
    if (hash != std::string::npos) line.resize(hash);
    std::istringstream words(line);
    std::string host;
    if (!(words >> host)) continue;  // blank or comment line
    if (!is_this_host(host))
      return "host '" + host + "' (" + o.hostfile + ":" + std::to_string(lineno) +
             ") is not this host; only launches on the local host are supported for now";
  }
  return {};
}

}  // namespace ftmpi::mpiexec
