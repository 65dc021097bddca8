// Dynamic processes in a several-hosts job (src/dpm/dpm.h), the origin's part: the broker (cards, ports,
// names: dpm_broker.h) answers the processes' dpm_* lines relayed by their daemons, and a spawn becomes a
// new job part whose processes run on the job's hosts, started by those hosts' daemons
// (tools/ftmpid/daemon_spawn.cpp). Spawned processes are then ranks like the others for the origin: their
// PMI lines come up tagged with their process id, their ends come as exit frames, host losses take them
// too, and in FT mode their failures are announced to every process of the universe.
//
// Placement of a command's processes: info "host" puts them all on that host (one of the job's hosts:
// --host/--hostfile, by name, or "localhost" for a host of mpiexec's machine); otherwise they fill the free
// slots (a host's slots minus its processes still running) in host order, and what does not fit is spread
// over the hosts that are up, in equal contiguous blocks (ftmpi always allows oversubscription). Every
// host's share of a command is one contiguous block of ranks, which PMI_process_mapping describes.
#include <unistd.h>

#include <algorithm>

#include "dpm/spawn_spec.h"
#include "job.h"
#include "origin.h"
#include "say.h"
#include "util/log.h"

namespace ftmpi::mpiexec {

namespace {
constexpr int kMaxProcesses = 1 << 16;  // dpm::kIdsPerUniverse
}  // namespace

Origin::Part& Origin::part_of(int gid) {
  for (Part& p : parts_)
    if (gid >= p.base && gid < p.base + p.size) return p;
  return parts_.front();
}

std::vector<int> Origin::ranks_on_host(int host) const {
  std::vector<int> out;
  for (std::size_t r = 0; r < ranks_.size(); ++r)
    if (ranks_[r].host == host) out.push_back(static_cast<int>(r));
  return out;
}

void Origin::send_line(int gid, const std::string& line) {
  if (gid < 0 || gid >= static_cast<int>(ranks_.size())) return;
  const RankRecord& rec = ranks_[static_cast<std::size_t>(gid)];
  if (rec.host < 0 || !rec.alive()) return;
  Frame f("pmi");
  f.set("rank", gid);
  f.payload = line;
  send_to(rec.host + 1, f);
}

void Origin::send_dpm_replies(const std::vector<DpmBroker::Reply>& replies) {
  for (const DpmBroker::Reply& r : replies) send_line(r.gid, r.line);
}

void Origin::on_dpm_line(int gid, const std::string& line) {
  auto m = boot::pmi::parse(line);
  if (!m.ok()) {
    send_line(gid, boot::pmi::encode("error", {{"rc", "-1"}, {"msg", "malformed_request"}}));
    return;
  }
  if (m.value().cmd == "dpm_spawn") {
    do_spawn(gid, m.value());
    return;
  }
  send_dpm_replies(broker_->handle(gid, m.value()));
}

void Origin::do_spawn(int gid, const boot::pmi::Message& m) {
  auto fail = [&](const std::string& why) {
    log::debug("mpiexec: spawn by process %d refused: %s", gid, why.c_str());
    send_line(gid, DpmBroker::error_line("dpm_spawned", "spawn", why));
  };
  if (!end_.running()) return fail("the job is terminating");
  for (const Host& h : hosts_)
    if (h.state == Host::State::waiting || h.state == Host::State::starting) {
      spawns_waiting_.emplace_back(gid, m);  // placed once every host is up or lost (retry_spawns)
      return;
    }
  if (opt_.ft.reinit()) return fail("MPI_Comm_spawn is not available with --with-ft reinit");
  auto cmds = dpm::decode_spawn(m.fields);
  if (!cmds.ok()) return fail(cmds.status().message());
  auto port = dpm::pct_decode(m.get("port").value_or(""));
  if (!port.ok() || port.value().empty()) return fail("spawn request without a port");

  const int nhosts = static_cast<int>(layout_.hosts.size());
  auto up = [&](int h) { return hosts_[static_cast<std::size_t>(h)].state == Host::State::up; };
  // Processes still running on each host (the slots they take).
  std::vector<int> used(static_cast<std::size_t>(nhosts), 0);
  for (const RankRecord& rec : ranks_)
    if (rec.alive() && rec.host >= 0 && rec.host < nhosts) ++used[static_cast<std::size_t>(rec.host)];
  struct Block {
    int cmd, host, count;
  };
  std::vector<Block> blocks;
  int total = 0;
  for (std::size_t k = 0; k < cmds.value().size(); ++k) {
    const dpm::SpawnCommand& c = cmds.value()[k];
    if (c.maxprocs < 1) return fail("maxprocs must be positive");
    total += c.maxprocs;
    const int ci = static_cast<int>(k);
    if (!c.host.empty()) {
      int h = -1;
      for (int i = 0; i < nhosts && h < 0; ++i)
        if (layout_.hosts[static_cast<std::size_t>(i)].name == c.host) h = i;
      for (int i = 0; i < nhosts && h < 0; ++i)
        if (layout_.hosts[static_cast<std::size_t>(i)].local && is_this_host(c.host)) h = i;
      if (h < 0) return fail("info host='" + c.host + "' is not one of the job's hosts (--host/--hostfile)");
      if (!up(h)) return fail("info host='" + c.host + "': the host is not up (" + hosts_[static_cast<std::size_t>(h)].why + ")");
      blocks.push_back({ci, h, c.maxprocs});
      used[static_cast<std::size_t>(h)] += c.maxprocs;
      continue;
    }
    int left = c.maxprocs;
    for (int h = 0; h < nhosts && left > 0; ++h) {
      int free = layout_.hosts[static_cast<std::size_t>(h)].slots - used[static_cast<std::size_t>(h)];
      if (!up(h) || free <= 0) continue;
      int take = std::min(free, left);
      blocks.push_back({ci, h, take});
      used[static_cast<std::size_t>(h)] += take;
      left -= take;
    }
    if (left > 0) {
      std::vector<int> live;
      for (int h = 0; h < nhosts; ++h)
        if (up(h)) live.push_back(h);
      if (live.empty()) return fail("no host of the job is up");
      const int nl = static_cast<int>(live.size());
      for (int i = 0; i < nl && left > 0; ++i) {
        int take = (left + (nl - i) - 1) / (nl - i);
        blocks.push_back({ci, live[static_cast<std::size_t>(i)], take});
        used[static_cast<std::size_t>(live[static_cast<std::size_t>(i)])] += take;
        left -= take;
      }
    }
  }
  if (next_gid_ + total > kMaxProcesses) return fail("too many processes in this job (at most 65536 over all spawns)");

  const int base = next_gid_;
  next_gid_ += total;
  broker_->set_id_limit(next_gid_);
  // PMI_process_mapping: one triple per block, node = host index.
  std::string mapping = "(vector";
  for (const Block& b : blocks) mapping += ",(" + std::to_string(b.host) + ",1," + std::to_string(b.count) + ")";
  mapping += ")";
  const std::string kvs = kvsname_ + "-p" + std::to_string(parts_.size());
  parts_.push_back({base, total, std::make_unique<boot::PmiServer>(total, kvs)});
  parts_.back().server->preset("secret", kvs);
  parts_.back().server->preset("PMI_process_mapping", mapping);
  broker_->reserve_for_part(port.value(), base, total);
  ranks_.resize(static_cast<std::size_t>(next_gid_));
  std::vector<int> on_host(static_cast<std::size_t>(nhosts), 0), placed(static_cast<std::size_t>(nhosts), 0);
  for (const Block& b : blocks) on_host[static_cast<std::size_t>(b.host)] += b.count;

  const std::vector<std::string> common = job_environment(opt_);
  int gidx = base;
  for (const Block& b : blocks) {
    const dpm::SpawnCommand& c = cmds.value()[static_cast<std::size_t>(b.cmd)];
    for (int i = 0; i < b.count; ++i) {
      RankRecord& rec = ranks_[static_cast<std::size_t>(gidx + i)];
      rec.rank = gidx + i;
      rec.host = b.host;
      rec.state = RankRecord::State::running;
    }
    std::vector<std::string> items{"cmd=" + c.command};
    if (!c.path.empty()) items.push_back("path=" + c.path);
    if (!c.wdir.empty()) items.push_back("wdir=" + c.wdir);
    for (const std::string& a : c.args) items.push_back("arg=" + a);
    for (const std::string& e : common)
      if (e.rfind("PMI_SIZE=", 0) != 0 && e.rfind("PMI_SPAWNED=", 0) != 0) items.push_back("env=" + e);
    items.push_back("env=PMI_SIZE=" + std::to_string(total));
    items.push_back("env=PMI_SPAWNED=1");
    items.push_back("env=FTMPI_GID_BASE=" + std::to_string(base));
    items.push_back("env=FTMPI_PARENT_PORT=" + port.value());
    items.push_back("env=FTMPI_APPNUM=" + std::to_string(b.cmd));
    Frame f("spawn");
    f.set("first", gidx).set("n", b.count).set("pmirank", gidx - base);
    f.set("lidx", placed[static_cast<std::size_t>(b.host)]).set("lsize", on_host[static_cast<std::size_t>(b.host)]);
    f.payload = join_nul(items);
    send_to(b.host + 1, f);
    placed[static_cast<std::size_t>(b.host)] += b.count;
    gidx += b.count;
  }
  log::debug("mpiexec: process %d spawned %d process(es) with ids %d..%d", gid, total, base, base + total - 1);
  send_line(gid, boot::pmi::encode("dpm_spawned", {{"rc", "0"}, {"base", std::to_string(base)}, {"size", std::to_string(total)}}));
}

void Origin::retry_spawns() {
  if (spawns_waiting_.empty()) return;
  for (const Host& h : hosts_)
    if (h.state == Host::State::waiting || h.state == Host::State::starting) return;
  auto waiting = std::move(spawns_waiting_);
  spawns_waiting_.clear();
  for (auto& [gid, m] : waiting)
    if (gid < static_cast<int>(ranks_.size()) && ranks_[static_cast<std::size_t>(gid)].alive()) do_spawn(gid, m);
}

void Origin::on_spawn_failed(const Frame& f) {
  const int first = static_cast<int>(f.num("first", -1)), n = static_cast<int>(f.num("n", 0));
  if (first < opt_.np || n < 1 || first + n > static_cast<int>(ranks_.size())) return;
  const RankRecord& r0 = ranks_[static_cast<std::size_t>(first)];
  say("cannot spawn on host %s: %s", host_name(r0.host).c_str(), f.payload.c_str());
  for (int g = first; g < first + n; ++g) {
    RankRecord& rec = ranks_[static_cast<std::size_t>(g)];
    if (!rec.alive()) continue;
    rec.state = RankRecord::State::exited;  // never started: not a failure of the job
    rec.exit_code = 127;
    send_dpm_replies(broker_->gone(g));
  }
}

}  // namespace ftmpi::mpiexec
