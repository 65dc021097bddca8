// The origin of a several-hosts job, Reinit mode (--with-ft reinit; origin.h, "Reinit"): the epoch
// change is driven here as on one host (respawn.h, models/reinit/epoch_change.h); what differs is where a
// failed rank is restarted — by its host's daemon ("restart" frame), or, when its host was lost, by the
// daemon of a spare host — and that the control lines travel through the daemons ("ctrl" up, "tell" down).
//
// Host loss (the daemon killed, its link closed or silent, or a rank's kill(getppid(), SIGTERM) as
// Reinit++ programs do: a rank's parent is its host's daemon, which dies of it and takes its ranks with
// it) is one failure per rank of that host, seen at once; each rank goes to a warm spare process while
// there is one on an up host (the least loaded such host first), and the rest together to one host, the
// up host holding no ranks, else the least loaded (fewest live ranks, then the lowest index).
//
// Warm spares (--spares N; docs/mpiexec.md "Several hosts"): N per host, kept by each host's daemon
// (tools/ftmpid/daemon_reinit.cpp, the one-host bookkeeping of spare_pool.h). A failed rank is restarted on
// its own host when that host's daemon holds a spare (its links with its host-mates stay shared memory),
// else on the least loaded host holding one (its links are then TCP: the epoch's host map says so), else
// by fork+exec on its own host. The count per host is the daemons' reports ("spare ev=up|gone") less the
// restarts sent to a host with a spare; a report in flight can make it stale, which costs a fork+exec
// instead of an adoption (the daemon forks when it has no spare), never a wrong result. After each
// committed epoch change every daemon is told to "replenish" (top up to N), as mpiexec does on one host.
//
// The per-epoch host map is the rank table's `host` field: it changes only here, when a rank is restarted
// on another host, and every PMI reply, signal and `tell` is routed by it. The ranks learn it from the
// epoch's PMI_process_mapping (models/reinit/epoch_bootstrap.h reads "e<E>.PMI_process_mapping" first),
// published before any rank can hear of epoch E: the `restart` action precedes the `reinit` lines.
#include <algorithm>
#include <cstdio>

#include "control_channel.h"
#include "origin.h"
#include "say.h"
#include "template_process.h"
#include "util/log.h"

namespace ftmpi::mpiexec {

void Origin::reinit_setup() {
  if (!opt_.ft.reinit()) return;
  move_to_.assign(static_cast<std::size_t>(opt_.np), -1);
  ReinitDriver::Hooks hooks;
  hooks.restarter = this;
  hooks.tell = [this](int r, const std::string& line) {
    const RankRecord& rec = ranks_[static_cast<std::size_t>(r)];
    if (!rec.alive()) return;
    Frame f("tell");
    f.set("rank", r);
    f.payload = line;
    send_to(rec.host + 1, f);
  };
  hooks.fatal = [this](const std::string& why) { fail_job(1, why + "; terminating the job"); };
  // The spares taken over are replaced once the change is committed (every rank runs again), as on one host,
  // and so is a respawn template lost meanwhile (template_process.h renew).
  if (opt_.ft.spares > 0 || template_enabled())
    hooks.committed = [this](int) {
      if (end_.running()) broadcast(Frame("replenish"));
    };
  reinit_ = std::make_unique<ReinitDriver>(opt_.np, opt_.ft.restarts_limit(), std::move(hooks), start_realtime_);
}

void Origin::reinit_on_exit(int r, bool failure) {
  if (!reinit_ || !end_.running() || r >= opt_.np) return;  // spawned processes are not in WORLD's epochs
  if (failure) reinit_->on_death(r, ranks_[static_cast<std::size_t>(r)].cause());
  else reinit_->on_finalized(r);
}

int Origin::live_ranks_on(int host) const {
  return static_cast<int>(std::count_if(ranks_.begin(), ranks_.end(),
                                        [host](const RankRecord& r) { return r.alive() && r.host == host; }));
}

int Origin::least_loaded_host() const {
  int best = -1, best_load = 0;
  for (std::size_t h = 0; h < hosts_.size(); ++h) {
    if (hosts_[h].state != Host::State::up) continue;
    int load = live_ranks_on(static_cast<int>(h));
    if (best < 0 || load < best_load) {
      best = static_cast<int>(h);
      best_load = load;
    }
  }
  return best;
}

int Origin::least_loaded_with_spare(const std::vector<int>& spares, const std::vector<int>& extra) const {
  int best = -1, best_load = 0;
  for (std::size_t h = 0; h < hosts_.size(); ++h) {
    if (hosts_[h].state != Host::State::up || spares[h] <= 0) continue;
    int load = live_ranks_on(static_cast<int>(h)) + extra[h];
    if (best < 0 || load < best_load) {
      best = static_cast<int>(h);
      best_load = load;
    }
  }
  return best;
}

void Origin::reinit_host_lost(const std::string& host, const std::vector<int>& lost) {
  std::vector<int> ranks;  // WORLD's ranks among the lost processes (spawned ones are not restarted)
  for (int r : lost)
    if (r < opt_.np) ranks.push_back(r);
  if (!reinit_ || ranks.empty()) return;
  // Warm spares first, one rank each, on the least loaded host holding one; the rest together on the
  // spare host (no ranks) or the least loaded, as without spares.
  std::vector<int> spares(hosts_.size()), extra(hosts_.size(), 0);
  for (std::size_t h = 0; h < hosts_.size(); ++h) spares[h] = hosts_[h].spares;
  const int rest = least_loaded_host();
  bool to_rest = false;
  for (int r : ranks) {
    int to = least_loaded_with_spare(spares, extra);
    if (to >= 0) {
      --spares[static_cast<std::size_t>(to)];
      ++extra[static_cast<std::size_t>(to)];
      say("reinit: rank %d of lost host %s moves to a spare process on host %s", r, host.c_str(),
          host_name(to).c_str());
    } else {
      to = rest;
      to_rest = true;
    }
    move_to_[static_cast<std::size_t>(r)] = to;
  }
  if (rest >= 0 && to_rest)
    say("reinit: ranks of lost host %s move to host %s", host.c_str(), host_name(rest).c_str());
  if (end_.running()) reinit_->on_deaths(ranks, "host " + host + " lost");
}

std::string Origin::epoch_mapping() const {
  // One (node,1,count) triple per run of consecutive ranks on one host (boot/process_mapping.h).
  std::string s = "(vector";
  const std::size_t np = static_cast<std::size_t>(opt_.np);  // WORLD's ranks (spawned parts have their own)
  for (std::size_t r = 0; r < np;) {
    std::size_t e = r;
    while (e < np && ranks_[e].host == ranks_[r].host) ++e;
    s += ",(" + std::to_string(ranks_[r].host) + ",1," + std::to_string(e - r) + ")";
    r = e;
  }
  return s + ")";
}

Result<pid_t> Origin::restart(int r, int epoch, const std::vector<int>& failed) {
  RankRecord& rec = ranks_[static_cast<std::size_t>(r)];
  int host = move_to_[static_cast<std::size_t>(r)];
  move_to_[static_cast<std::size_t>(r)] = -1;
  auto up = [this](int h) { return h >= 0 && hosts_[static_cast<std::size_t>(h)].state == Host::State::up; };
  if (!up(host)) {
    // A spare of its own host, else the least loaded host holding one, else a fork on its own host.
    std::vector<int> spares(hosts_.size()), extra(hosts_.size(), 0);
    for (std::size_t h = 0; h < hosts_.size(); ++h) spares[h] = hosts_[h].spares;
    if (up(rec.host) && spares[static_cast<std::size_t>(rec.host)] > 0) host = rec.host;
    else if (int s = least_loaded_with_spare(spares, extra); s >= 0) host = s;
    else host = up(rec.host) ? rec.host : least_loaded_host();
  }
  if (host < 0) return Status(Errc::other, "no host is up to restart it on");
  if (hosts_[static_cast<std::size_t>(host)].spares > 0) --hosts_[static_cast<std::size_t>(host)].spares;
  bool moved = host != rec.host;
  rec = RankRecord{};
  rec.rank = r;
  rec.host = host;
  rec.state = RankRecord::State::running;
  rec.started = std::chrono::steady_clock::now();
  parts_.front().server->rank_back(r);  // WORLD is the job's first part
  // The epoch's host map, before any rank hears of the epoch (every restart of the epoch rewrites it).
  parts_.front().server->preset("e" + std::to_string(epoch) + ".PMI_process_mapping", epoch_mapping());
  if (reinit_) reinit_->publish("PMI_process_mapping", epoch_mapping());  // and with fence 1's cards
  std::string list;
  for (int f : failed) list += (list.empty() ? "" : ",") + std::to_string(f);
  Frame f("restart");
  f.set("rank", r).set("epoch", epoch);
  f.payload = list;
  send_to(host + 1, f);
  log::debug("mpiexec: rank %d restarted on host %s for epoch %d%s", r, host_name(host).c_str(), epoch,
             moved ? " (moved)" : "");
  return pid_t{0};  // the daemon forks it: its pid is not known here
}

void Origin::on_spare_frame(const Frame& f) {
  int node = static_cast<int>(f.num("node", 0));
  if (node < 1 || node > static_cast<int>(hosts_.size())) return;
  Host& h = hosts_[static_cast<std::size_t>(node - 1)];
  if (f.get("ev") == "up") ++h.spares;
  else if (f.get("ev") == "gone" && h.spares > 0) --h.spares;
}

void Origin::on_restarted(const Frame& f) {
  int r = static_cast<int>(f.num("rank", -1));
  if (!reinit_ || r < 0 || r >= opt_.np) return;
  const RankRecord& rec = ranks_[static_cast<std::size_t>(r)];
  double t = realtime_seconds() - start_realtime_;
  if (f.num("spare", 0) == 1)
    say("reinit: t=%.3fs rank %d taken over by warm spare pid %lld on host %s", t, r, f.num("pid", 0),
        host_name(rec.host).c_str());
  else
    say("reinit: t=%.3fs rank %d started as pid %lld on host %s (no spare there; %s)", t, r, f.num("pid", 0),
        host_name(rec.host).c_str(), f.num("template", 0) == 1 ? "forked by the respawn template" : "fork+exec");
}

}  // namespace ftmpi::mpiexec
