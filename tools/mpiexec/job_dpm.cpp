// Dynamic processes in the one-host Job (src/dpm/dpm.h): requests go to the broker (dpm_broker.h); a spawn
// starts a new job part here.
#include <unistd.h>

#include <algorithm>
#include <cstdlib>

#include "boot/process_mapping.h"
#include "dpm/spawn_spec.h"
#include "exec_check.h"
#include "job.h"
#include "rank_env.h"
#include "say.h"
#include "spawn.h"
#include "spawn_program.h"
#include "util/log.h"

namespace ftmpi::mpiexec {

namespace {

constexpr int kMaxProcesses = 1 << 16;  // dpm::kIdsPerUniverse

bool is_this_host(const std::string& h) {
  if (h.empty() || h == "localhost" || h == "::1" || h.rfind("127.", 0) == 0) return true;
  char name[256] = {};
  if (gethostname(name, sizeof name - 1) == 0 && h == name) return true;
  return false;
}

}  // namespace

void Job::on_dpm_request(int gid, const boot::pmi::Message& m) {
  if (m.cmd == "dpm_spawn") {
    do_spawn(gid, m);
    return;
  }
  send_dpm_replies(broker_->handle(gid, m));
}

void Job::do_spawn(int gid, const boot::pmi::Message& m) {
  auto fail = [&](const std::string& why) {
    log::debug("mpiexec: spawn by rank %d refused: %s", gid, why.c_str());
    send_line(gid, DpmBroker::error_line("dpm_spawned", "spawn", why));
  };
  if (!end_.running()) return fail("the job is terminating");
  if (reinit_) return fail("MPI_Comm_spawn is not available with --with-ft reinit");
  auto cmds = dpm::decode_spawn(m.fields);
  if (!cmds.ok()) return fail(cmds.status().message());
  auto port = dpm::pct_decode(m.get("port").value_or(""));
  if (!port.ok() || port.value().empty()) return fail("spawn request without a port");

  // Every command is checked before any process starts: one bad command spawns nothing.
  int total = 0;
  std::vector<std::string> paths;
  for (const dpm::SpawnCommand& c : cmds.value()) {
    if (c.maxprocs < 1) return fail("maxprocs must be positive");
    total += c.maxprocs;
    if (!is_this_host(c.host))
      return fail("info host='" + c.host + "': spawning on another host is not supported (only this host)");
    auto path = resolve_spawn_program(c.command, c.path, c.wdir);
    if (!path.ok()) return fail(path.status().message());
    if (Status st = check_executable_format(path.value()); !st.ok()) return fail(st.message());
    paths.push_back(path.value());
  }
  if (next_gid_ + total > kMaxProcesses) return fail("too many processes in this job (at most 65536 over all spawns)");
  if (Status st = check_job_fits(total, ft_); !st.ok()) return fail(st.message());

  const int base = next_gid_;
  next_gid_ += total;
  broker_->set_id_limit(next_gid_);
  const std::string kvs = kvsname_ + "-p" + std::to_string(parts_.size());
  parts_.push_back({base, total, std::make_unique<boot::PmiServer>(total, kvs)});
  server_ = parts_.front().server.get();  // parts_ may have moved
  parts_.back().server->preset("secret", kvs);
  parts_.back().server->preset("PMI_process_mapping", boot::single_node_mapping(total));
  broker_->reserve_for_part(port.value(), base, total);

  ranks_.resize(static_cast<std::size_t>(next_gid_));
  pmi_.resize(static_cast<std::size_t>(next_gid_));
  if (ft_) ctrl_.resize(static_cast<std::size_t>(next_gid_));
  std::vector<std::string> common = job_environment(opt_);
  auto set = [](std::vector<std::string>& env, const std::string& name, const std::string& value) {
    std::string prefix = name + "=";
    std::erase_if(env, [&](const std::string& e) { return e.rfind(prefix, 0) == 0; });
    env.push_back(prefix + value);
  };
  int gidx = base;
  for (std::size_t k = 0; k < cmds.value().size(); ++k) {
    const dpm::SpawnCommand& c = cmds.value()[k];
    std::vector<std::string> argv{c.command};
    argv.insert(argv.end(), c.args.begin(), c.args.end());
    for (int i = 0; i < c.maxprocs; ++i, ++gidx) {
      std::vector<std::string> env = common;
      const int local = gidx - base;
      set(env, "PMI_FD", "-1");
      set(env, "PMI_RANK", std::to_string(local));
      set(env, "PMI_SIZE", std::to_string(total));
      set(env, "PMI_SPAWNED", "1");
      set(env, "FTMPI_LOCAL_RANK", std::to_string(local));
      set(env, "FTMPI_LOCAL_SIZE", std::to_string(total));
      set_foreign_rank_env(env, local, total, local, total);
      set(env, "FTMPI_NUM_CORES", std::to_string(std::max(1L, sysconf(_SC_NPROCESSORS_ONLN))));
      set(env, "FTMPI_GID_BASE", std::to_string(base));
      set(env, "FTMPI_PARENT_PORT", port.value());
      set(env, "FTMPI_APPNUM", std::to_string(k));
      if (ft_) set(env, "FTMPI_CTRL_FD", "-1");
      if (!start_process(gidx, paths[k], argv, std::move(env), -1, false, c.wdir)) {
        // Not started: it counts as ended at once (its parents' accept fails instead of waiting).
        RankRecord& rec = ranks_[static_cast<std::size_t>(gidx)];
        rec.rank = gidx;
        rec.state = RankRecord::State::exited;
        rec.exit_code = 127;
        streams_.emplace_back(gidx, 1, -1, opt_.tag_output);
        streams_.emplace_back(gidx, 2, -1, opt_.tag_output);
        send_dpm_replies(broker_->gone(gidx));
      }
    }
  }
  log::debug("mpiexec: rank %d spawned %d process(es) with ids %d..%d", gid, total, base, base + total - 1);
  send_line(gid, boot::pmi::encode("dpm_spawned", {{"rc", "0"}, {"base", std::to_string(base)}, {"size", std::to_string(total)}}));
}

}  // namespace ftmpi::mpiexec
