#include "host_layout.h"

#include <unistd.h>

#include <charconv>
#include <fstream>
#include <sstream>

namespace ftmpi::mpiexec {
namespace {

bool parse_slots(std::string_view s, int& out) {
  int v = 0;
  auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc() || p != s.data() + s.size() || v < 1 || v > (1 << 20)) return false;
  out = v;
  return true;
}

void add_host(HostLayout& l, const std::string& name, int slots) {
  for (HostEntry& h : l.hosts)
    if (h.name == name) {
      h.slots += slots;
      return;
    }
  HostEntry h;
  h.name = name;
  h.slots = slots;
  h.local = is_this_host(name);
  l.hosts.push_back(h);
}

bool valid_host_name(const std::string& n) {
  if (n.empty() || n.size() > 253 || n[0] == '-') return false;
  for (char c : n)
    if (!(isalnum(static_cast<unsigned char>(c)) || c == '.' || c == '-' || c == '_' || c == ':')) return false;
  return true;
}

}  // namespace

bool is_this_host(const std::string& host) {
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

int HostLayout::total_slots() const {
  int n = 0;
  for (const HostEntry& h : hosts) n += h.slots;
  return n;
}

int HostLayout::host_of(int rank) const {
  for (std::size_t i = 0; i < hosts.size(); ++i)
    if (rank >= hosts[i].first_rank && rank < hosts[i].first_rank + hosts[i].nranks) return static_cast<int>(i);
  return -1;
}

bool HostLayout::all_local() const {
  for (const HostEntry& h : hosts)
    if (!h.local) return false;
  return true;
}

Result<HostLayout> parse_hosts(const std::vector<std::string>& host_args, const std::string& hostfile) {
  HostLayout l;
  for (const std::string& arg : host_args) {
    std::string name = arg;
    int slots = 1;
    std::size_t colon = arg.rfind(':');
    if (arg != "::1" && colon != std::string::npos && arg.find(':') == colon) {
      name = arg.substr(0, colon);
      if (!parse_slots(std::string_view(arg).substr(colon + 1), slots))
        return Status(Errc::arg, "bad slot count in host '" + arg + "' (expected host or host:N, N >= 1)");
    }
    if (!valid_host_name(name)) return Status(Errc::arg, "bad host name '" + arg + "'");
    add_host(l, name, slots);
  }
  if (!hostfile.empty()) {
    std::ifstream in(hostfile);
    if (!in) return Status(Errc::arg, "cannot read hostfile '" + hostfile + "'");
    std::string line;
    int lineno = 0;
    while (std::getline(in, line)) {
      ++lineno;
      std::size_t hash = line.find('#');
      if (hash != std::string::npos) line.resize(hash);
      std::istringstream words(line);
      std::string name, word;
      if (!(words >> name)) continue;  // blank or comment line
      int slots = 1;
      std::string where = hostfile + ":" + std::to_string(lineno);
      if (std::size_t colon = name.rfind(':'); colon != std::string::npos) {  // MPICH's "host:N" lines
        if (!parse_slots(std::string_view(name).substr(colon + 1), slots))
          return Status(Errc::arg, "bad slot count in '" + name + "' (" + where + ")");
        name.resize(colon);
      }
      if (!valid_host_name(name)) return Status(Errc::arg, "bad host name '" + name + "' (" + where + ")");
      while (words >> word) {
        std::size_t eq = word.find('=');
        std::string key = word.substr(0, eq);
        if (eq == std::string::npos) return Status(Errc::arg, "bad word '" + word + "' (" + where + ")");
        if (key == "slots" || key == "max_slots" || key == "max-slots") {
          int v = 0;
          if (!parse_slots(std::string_view(word).substr(eq + 1), v))
            return Status(Errc::arg, "bad slot count '" + word + "' (" + where + ")");
          if (key == "slots") slots = v;
        } else {
          return Status(Errc::arg, "unknown hostfile keyword '" + key + "' (" + where + ")");
        }
      }
      add_host(l, name, slots);
    }
  }
  return l;
}

void place_ranks(HostLayout& l, int np) {
  for (HostEntry& h : l.hosts) h.nranks = 0;
  int total = l.total_slots();
  if (total <= 0) return;
  int rounds = np / total, rest = np % total;
  for (HostEntry& h : l.hosts) {
    h.nranks = rounds * h.slots + std::min(rest, h.slots);
    rest -= std::min(rest, h.slots);
  }
  int next = 0;
  for (HostEntry& h : l.hosts) {
    h.first_rank = next;
    next += h.nranks;
  }
}

std::string process_mapping(const HostLayout& l) {
  std::string s = "(vector";
  int node = 0;
  std::size_t i = 0;
  // Hosts without ranks are not nodes of the job.
  std::vector<int> counts;
  for (const HostEntry& h : l.hosts)
    if (h.nranks > 0) counts.push_back(h.nranks);
  while (i < counts.size()) {
    std::size_t j = i;
    while (j < counts.size() && counts[j] == counts[i]) ++j;
    s += ",(" + std::to_string(node) + "," + std::to_string(j - i) + "," + std::to_string(counts[i]) + ")";
    node += static_cast<int>(j - i);
    i = j;
  }
  return s + ")";
}

}  // namespace ftmpi::mpiexec
