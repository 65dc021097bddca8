#include "dpm_broker.h"

#include <algorithm>

#include "dpm/spawn_spec.h"

namespace ftmpi::mpiexec {

namespace pmi = boot::pmi;

std::string DpmBroker::error_line(const char* cmd, const char* err, const std::string& msg) {
  return pmi::encode(cmd, {{"rc", "1"}, {"err", err}, {"msg", dpm::pct_encode(msg)}});
}

std::string DpmBroker::open_port(int gid) {
  std::string name = prefix_ + std::to_string(next_port_++);
  ports_[name].owner = gid;
  return name;
}

void DpmBroker::reserve_for_part(const std::string& port, int base, int size) {
  auto it = ports_.find(port);
  if (it == ports_.end()) return;
  it->second.part_base = base;
  it->second.part_size = size;
}

void DpmBroker::pair(Port& p, std::vector<Reply>& out) {
  if (p.accepter < 0 || p.connecters.empty()) return;
  const int a = p.accepter, c = p.connecters.front();
  p.connecters.erase(p.connecters.begin());
  p.accepter = -1;
  const std::string pr = std::to_string(next_pair_++);
  out.push_back({a, pmi::encode("dpm_accepted", {{"rc", "0"}, {"peer", std::to_string(c)}, {"pair", pr}})});
  out.push_back({c, pmi::encode("dpm_connected", {{"rc", "0"}, {"peer", std::to_string(a)}, {"pair", pr}})});
}

std::vector<DpmBroker::Reply> DpmBroker::handle(int gid, const pmi::Message& m) {
  std::vector<Reply> out;
  auto text = [&](const char* key) -> std::string {
    auto v = m.get(key);
    if (!v) return {};
    auto d = dpm::pct_decode(*v);
    return d.ok() ? d.value() : std::string(*v);
  };
  if (m.cmd == "dpm_card_put") {
    cards_[gid] = std::string(m.get("card").value_or(""));
    out.push_back({gid, pmi::encode("dpm_card_ok", {{"rc", "0"}})});
    auto w = card_waiters_.find(gid);
    if (w != card_waiters_.end()) {
      for (int r : w->second) out.push_back({r, pmi::encode("dpm_card", {{"rc", "0"}, {"card", cards_[gid]}})});
      card_waiters_.erase(w);
    }
  } else if (m.cmd == "dpm_card_get") {
    int subject = m.get_int("gid").value_or(-1);
    auto c = cards_.find(subject);
    if (c != cards_.end() && !gone_.count(subject)) {
      out.push_back({gid, pmi::encode("dpm_card", {{"rc", "0"}, {"card", c->second}})});
    } else if (subject < 0 || subject >= id_limit_ || gone_.count(subject)) {
      out.push_back({gid, error_line("dpm_card", "proc_failed", "process " + std::to_string(subject) + " is gone")});
    } else {
      card_waiters_[subject].push_back(gid);
    }
  } else if (m.cmd == "dpm_open_port") {
    out.push_back({gid, pmi::encode("dpm_port", {{"rc", "0"}, {"port", open_port(gid)}})});
  } else if (m.cmd == "dpm_close_port") {
    std::string name = text("port");
    auto it = ports_.find(name);
    if (it == ports_.end()) {
      out.push_back({gid, error_line("dpm_closed", "port", "no such port: " + name)});
    } else {
      for (int c : it->second.connecters)
        out.push_back({c, error_line("dpm_connected", "port", "the port was closed: " + name)});
      if (it->second.accepter >= 0)
        out.push_back({it->second.accepter, error_line("dpm_accepted", "port", "the port was closed: " + name)});
      ports_.erase(it);
      out.push_back({gid, pmi::encode("dpm_closed", {{"rc", "0"}})});
    }
  } else if (m.cmd == "dpm_accept" || m.cmd == "dpm_connect") {
    const bool acc = m.cmd == "dpm_accept";
    const char* reply = acc ? "dpm_accepted" : "dpm_connected";
    std::string name = text("port");
    auto it = ports_.find(name);
    if (it == ports_.end()) {
      out.push_back({gid, error_line(reply, "port", "no such port: '" + name + "' (not open, closed, or its owner failed)")});
    } else if (acc && !it->second.part_failed.empty() && it->second.connecters.empty()) {
      out.push_back({gid, error_line(reply, "spawn", it->second.part_failed)});
    } else if (acc && it->second.accepter >= 0) {
      out.push_back({gid, error_line(reply, "port", "another MPI_Comm_accept already waits on port " + name)});
    } else {
      if (acc) it->second.accepter = gid;
      else it->second.connecters.push_back(gid);
      pair(it->second, out);
    }
  } else if (m.cmd == "dpm_connect_cancel") {
    // A connect that timed out (dpm/dpm.h): still waiting -> its pending dpm_connect gets a port error; already
    // paired -> nothing to undo. Acknowledged either way.
    std::string name = text("port");
    auto it = ports_.find(name);
    if (it != ports_.end() && std::find(it->second.connecters.begin(), it->second.connecters.end(), gid) !=
                                  it->second.connecters.end()) {
      std::erase(it->second.connecters, gid);
      out.push_back({gid, error_line("dpm_connected", "port",
                                     "MPI_Comm_connect timed out after " + text("timeout") + " s: no MPI_Comm_accept on port " +
                                         name)});
    }
    out.push_back({gid, pmi::encode("dpm_connect_cancelled", {{"rc", "0"}})});
  } else if (m.cmd == "dpm_publish") {
    std::string svc = text("service");
    if (names_.count(svc)) {
      out.push_back({gid, error_line("dpm_published", "service", "service '" + svc + "' is already published")});
    } else {
      names_[svc] = text("port");
      out.push_back({gid, pmi::encode("dpm_published", {{"rc", "0"}})});
    }
  } else if (m.cmd == "dpm_unpublish") {
    std::string svc = text("service");
    auto it = names_.find(svc);
    if (it == names_.end()) {
      out.push_back({gid, error_line("dpm_unpublished", "service", "service '" + svc + "' is not published")});
    } else {
      names_.erase(it);
      out.push_back({gid, pmi::encode("dpm_unpublished", {{"rc", "0"}})});
    }
  } else if (m.cmd == "dpm_lookup") {
    std::string svc = text("service");
    auto it = names_.find(svc);
    if (it == names_.end())
      out.push_back({gid, error_line("dpm_found", "name", "service '" + svc + "' is not published")});
    else
      out.push_back({gid, pmi::encode("dpm_found", {{"rc", "0"}, {"port", dpm::pct_encode(it->second)}})});
  } else {
    out.push_back({gid, pmi::encode("error", {{"rc", "-1"}, {"msg", "unknown_dpm_request"}})});
  }
  return out;
}

std::vector<DpmBroker::Reply> DpmBroker::gone(int gid) {
  std::vector<Reply> out;
  if (!gone_.insert(gid).second) return out;
  auto w = card_waiters_.find(gid);
  if (w != card_waiters_.end()) {
    for (int r : w->second) out.push_back({r, error_line("dpm_card", "proc_failed", "process " + std::to_string(gid) + " is gone")});
    card_waiters_.erase(w);
  }
  for (auto it = ports_.begin(); it != ports_.end();) {
    Port& p = it->second;
    std::erase(p.connecters, gid);
    if (p.accepter == gid) p.accepter = -1;
    if (p.owner == gid) {
      for (int c : p.connecters)
        out.push_back({c, error_line("dpm_connected", "port", "the owner of port " + it->first + " failed")});
      it = ports_.erase(it);
      continue;
    }
    if (p.part_size > 0 && gid >= p.part_base && gid < p.part_base + p.part_size && p.connecters.empty()) {
      // The part's root has not connected and one of the part is gone: the part cannot finish MPI_Init
      // together, so the parents' accept (now or later) fails instead of waiting.
      p.part_failed = "spawned process " + std::to_string(gid) + " ended before connecting to its parents";
      p.part_size = 0;
      if (p.accepter >= 0) out.push_back({p.accepter, error_line("dpm_accepted", "spawn", p.part_failed)});
      p.accepter = -1;
    }
    ++it;
  }
  return out;
}

}  // namespace ftmpi::mpiexec
