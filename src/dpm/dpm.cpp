#include "dpm/dpm.h"

#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstring>

#include "coll/coll.h"
#include "comm/comm_ctors.h"
#include "comm/comm_ops.h"
#include "comm/group.h"
#include "dpm/dpm_transport.h"
#include "ft/agree_outcome.h"
#include "ft/ft_manager.h"
#include "mpi.h"
#include "runtime/runtime.h"
#include "util/log.h"
#include "util/magic.h"

namespace ftmpi::dpm {
namespace {

Errc errc_of(std::string_view name) {
  if (name == "port") return Errc::port;
  if (name == "spawn") return Errc::spawn;
  if (name == "name") return Errc::name;
  if (name == "service") return Errc::service;
  if (name == "proc_failed") return Errc::proc_failed;
  if (name == "arg") return Errc::arg;
  return Errc::other;
}

// The 1+1 intercommunicator between two roots (dpm.h step 3). Not registered anywhere; freed by the caller.
struct Bridge {
  ftmpi_comm_s c;
  Bridge(int me, int peer) {
    c.group = comm::make_group({me}, me);
    c.remote_group = comm::make_group({peer}, me);
    c.rank = 0;
    c.size = 1;
    c.ctx_pt2pt = kBridgeContext;
    c.ctx_coll = kBridgeContext + 1;
    c.name = "dpm bridge";
    c.magic = kMagicComm;
  }
  ~Bridge() {
    c.magic = kMagicFreed;
    comm::group_release(c.group);
    comm::group_release(c.remote_group);
    c.group = c.remote_group = nullptr;
  }
};

}  // namespace

Result<boot::pmi::Message> Dpm::call(const std::string& line, const char* expect, bool progress) {
  return reply_status(progress ? rt_.boot().launcher_call_while(line, expect, [this] { idle(); })
                               : rt_.boot().launcher_call(line, expect));
}

Result<boot::pmi::Message> Dpm::reply_status(Result<boot::pmi::Message> m) {
  if (!m.ok()) return m.status();
  if (m->get("rc").value_or("0") != "0") {
    std::string msg = std::string(m->get("msg").value_or("the launcher refused the request"));
    if (auto d = pct_decode(msg); d.ok()) msg = d.value();
    return Status(errc_of(m->get("err").value_or("other")), msg);
  }
  return m;
}

void Dpm::idle() { rt_.progress().poll(); }

Dpm::~Dpm() { leaving(); }

void Dpm::leaving() {
  if (open_ && names_ && my_id_ >= 0) names_->mark_departed(my_id_);
  my_id_ = -1;
}

void Dpm::setup_universe() {
  if (universe_known_) return;
  if (!rt_.boot().launched_by_ftmpi()) return;  // read once there is a launcher (a singleton may start one)
  universe_known_ = true;
  const boot::Bootstrap& b = rt_.boot();
  auto slot = b.launcher_setting("FTMPI_UNIVERSE_SLOT");
  auto dir = b.launcher_setting("FTMPI_NAME_SERVICE");
  if (slot && dir && !dir->empty() && std::atoi(slot->c_str()) > 0 && std::atoi(slot->c_str()) < kMaxSlots) {
    slot_ = std::atoi(slot->c_str());
    ubase_ = universe_base(slot_);
    names_.emplace(*dir);
  }
  if (auto s = b.launcher_setting("FTMPI_DPM_SECRET")) secret_ = *s;
}

Status Dpm::ensure_launcher() {
  if (rt_.boot().launched_by_ftmpi()) return {};
  // A singleton in FT mode would need mpiexec's control channel and failure detector from MPI_Init on.
  if (rt_.ft_mode())
    return Status(Errc::unsupported, "dynamic processes of a program run without mpiexec are not available in FT mode "
                                     "(FTMPI_FT is set): start it with mpiexec -n 1 --with-ft ...");
  return rt_.boot().start_launcher();
}

Status Dpm::open_if_shared() {
  setup_universe();
  return slot_ > 0 ? ensure_open() : Status::Ok();
}

Status Dpm::open_for(const std::vector<int>& members) {
  if (open_) return {};
  const int lo = rt_.world_base(), hi = lo + rt_.world_size();
  for (int id : members)
    if (id < lo || id >= hi) return ensure_open();
  return {};
}

Status Dpm::ensure_open() {
  if (open_) return {};
  FTMPI_TRY(ensure_launcher());
  setup_universe();
  if (!rt_.boot().launched_by_ftmpi() || secret_.empty())
    return Status(Errc::unsupported, "dynamic processes need ftmpi's mpiexec (this process was not started by it)");
  boot::Bootstrap* boot = &rt_.boot();
  const int my_slot = slot_, ubase = ubase_;
  const NameDir* names = names_ ? &*names_ : nullptr;
  auto resolve = [boot, my_slot, ubase, names](int gid) -> Result<std::string> {
    if (slot_of(gid) != my_slot) {
      // Another universe: its processes write their cards into the name service.
      if (names == nullptr) return Status(Errc::proc_failed, "process " + std::to_string(gid) + " is not of this job");
      return names->read_card(gid, 60'000);
    }
    auto m = boot->launcher_call(boot::pmi::encode("dpm_card_get", {{"gid", std::to_string(gid - ubase)}}), "dpm_card");
    if (!m.ok()) return m.status();
    if (m->get("rc").value_or("1") != "0") return Status(Errc::proc_failed, "process " + std::to_string(gid) + " is gone");
    return std::string(m->get("card").value_or(""));
  };
  auto t = DpmTransport::open(rt_.world_rank(), secret_, resolve);
  if (!t.ok()) return t.status();
  const std::string card = t.value()->card();
  transport_ = t.value().get();
  my_id_ = rt_.world_rank();
  rt_.router().set_foreign(std::move(t.value()));
  if (names_) FTMPI_TRY(names_->write_card(rt_.world_rank(), card));
  auto r = call(boot::pmi::encode("dpm_card_put", {{"gid", local_id(rt_.world_rank())}, {"card", card}}),
                "dpm_card_ok");
  if (!r.ok()) return r.status();
  open_ = true;
  return {};
}

Result<std::string> Dpm::broker_port() {
  FTMPI_TRY(ensure_open());
  auto m = call(boot::pmi::encode("dpm_open_port", {{"gid", local_id(rt_.world_rank())}}), "dpm_port");
  if (!m.ok()) return m.status();
  return std::string(m->get("port").value_or(""));
}

Result<std::string> Dpm::open_port() {
  FTMPI_TRY(ensure_open());
  if (!names_) return broker_port();
  auto p = DirectPort::open(rt_.world_rank(), next_port_++);
  if (!p.ok()) return p.status();
  std::string name = p.value()->name();
  ports_[name] = std::move(p.value());
  return name;
}

Status Dpm::close_port(const std::string& port) {
  if (auto it = ports_.find(port); it != ports_.end()) {
    ports_.erase(it);  // closing the listener refuses (or resets) every connect, queued ones included
    return {};
  }
  if (is_direct_port(port)) return Status(Errc::port, "no such port (not opened by this process, or closed): " + port);
  if (!rt_.boot().launched_by_ftmpi()) return Status(Errc::port, "no such port: " + port);
  auto m = call(boot::pmi::encode("dpm_close_port", {{"gid", local_id(rt_.world_rank())}, {"port", pct_encode(port)}}),
                "dpm_closed");
  return m.ok() ? Status::Ok() : m.status();
}

Status Dpm::publish(const std::string& service, const std::string& port) {
  FTMPI_TRY(ensure_launcher());
  setup_universe();
  if (names_) return names_->publish(service, port, slot_);
  if (!rt_.boot().launched_by_ftmpi()) return Status(Errc::unsupported, "the name service is ftmpi's mpiexec; this process was not started by it");
  auto m = call(boot::pmi::encode("dpm_publish", {{"service", pct_encode(service)}, {"port", pct_encode(port)}}),
                "dpm_published");
  return m.ok() ? Status::Ok() : m.status();
}

Status Dpm::unpublish(const std::string& service, const std::string& port) {
  // Without a name service of ours (a foreign launcher such as Hydra; a singleton that cannot start mpiexec)
  // nothing was published here: the service is not published, MPI_ERR_SERVICE, with the reason.
  const Status launcher = ensure_launcher();
  if (!launcher.ok() && launcher.code() != Errc::unsupported) return launcher;
  setup_universe();
  if (names_) return names_->unpublish(service);
  if (!rt_.boot().launched_by_ftmpi())
    return Status(Errc::service, "service '" + service + "' is not published (" + launcher.message() + ")");
  auto m = call(boot::pmi::encode("dpm_unpublish", {{"service", pct_encode(service)}, {"port", pct_encode(port)}}),
                "dpm_unpublished");
  return m.ok() ? Status::Ok() : m.status();
}

Result<std::string> Dpm::lookup(const std::string& service) {
  // As unpublish: without a name service of ours the name is not published (MPI_ERR_NAME), with the reason.
  const Status launcher = ensure_launcher();
  if (!launcher.ok() && launcher.code() != Errc::unsupported) return launcher;
  setup_universe();
  if (names_) return names_->lookup(service);
  if (!rt_.boot().launched_by_ftmpi())
    return Status(Errc::name, "service '" + service + "' is not published (" + launcher.message() + ")");
  auto m = call(boot::pmi::encode("dpm_lookup", {{"service", pct_encode(service)}}), "dpm_found");
  if (!m.ok()) return m.status();
  return pct_decode(m->get("port").value_or(""));
}

Status Dpm::meet(const std::string& port, bool is_accept, int root, comm::Communicator* comm, comm::Communicator** out,
                 Status before, int timeout_s) {
  *out = nullptr;
  Status st = before.ok() ? ensure_open() : before;
  // msg: {errc, peer, pair}
  int msg[3] = {0, -1, 0};
  std::string text;
  if (comm->rank == root) {
    // FT mode: with a member of comm known dead the broadcast below fails; pairing with the other side first
    // would leave it waiting in the intercommunicator's construction for a root that gave up (for a spawn:
    // children that never finish MPI_Init). Give up before pairing.
    if (st.ok() && rt_.ft_mode() && rt_.engine().comm_known_failed(comm))
      st = Status(Errc::proc_failed, "a process of the communicator has failed");
    if (st.ok() && is_direct_port(port)) {
      // A port owned by a process (dpm/direct_port.h): the roots meet without mpiexec.
      Result<Meeting> met = Status(Errc::port);
      if (is_accept) {
        auto it = ports_.find(port);
        if (it == ports_.end()) {
          met = Status(Errc::port, "MPI_Comm_accept: no such port (not opened by this process, or closed): " + port);
        } else {
          // Unique per pair of roots: our own counter, and a bit telling which of the two accepted.
          const int pair = 0x20000000 | (next_pair_++ & 0x0fffffff);
          met = it->second->accept(rt_.world_rank(), secret_, pair, [this] { idle(); });
          if (met.ok() && met.value().peer > rt_.world_rank()) met.value().pair |= 0x10000000;
        }
      } else if (!names_) {
        met = Status(Errc::port, "MPI_Comm_connect: port " + port + " belongs to a job with a name service; this job has none "
                                 "(start both with mpiexec --name-service DIR)");
      } else {
        met = direct_connect(port, rt_.world_rank(), secret_, [this] { idle(); });
        if (met.ok() && rt_.world_rank() > met.value().peer) met.value().pair |= 0x10000000;
      }
      if (met.ok()) {
        msg[1] = met.value().peer;
        msg[2] = met.value().pair;
      } else {
        st = met.status();
      }
    } else if (st.ok()) {
      Result<boot::pmi::Message> m = Status(Errc::intern);
      const std::string gid = local_id(rt_.world_rank()), enc_port = pct_encode(port);
      if (is_accept) {
        m = call(boot::pmi::encode("dpm_accept", {{"gid", gid}, {"port", enc_port}}), "dpm_accepted", true);
      } else {
        // The connect's timeout: past the deadline the root withdraws its request once; the broker then
        // answers it with a port error (or the pairing that came first stands).
        if (timeout_s <= 0) {
          const char* env = std::getenv("FTMPI_CONNECT_TIMEOUT");
          timeout_s = env && *env ? std::atoi(env) : kDefaultConnectTimeoutS;
        }
        const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(timeout_s > 0 ? timeout_s : 0);
        bool withdrawn = timeout_s <= 0;  // 0: wait for ever
        auto r = rt_.boot().launcher_call_while(boot::pmi::encode("dpm_connect", {{"gid", gid}, {"port", enc_port}}), "dpm_connected", [&] {
          idle();
          if (!withdrawn && std::chrono::steady_clock::now() >= deadline) {
            withdrawn = true;
            (void)rt_.boot().launcher_call(
                boot::pmi::encode("dpm_connect_cancel", {{"port", enc_port}, {"timeout", std::to_string(timeout_s)}}),
                "dpm_connect_cancelled");
          }
        });
        m = reply_status(std::move(r));
      }
      if (m.ok()) {
        msg[1] = m->get_int("peer").value_or(-1);
        msg[2] = m->get_int("pair").value_or(0);
        if (msg[1] < 0) st = Status(Errc::intern, "the launcher paired us with no process");
        else msg[1] += ubase_;
      } else {
        st = m.status();
      }
    }
    if (!st.ok()) msg[0] = static_cast<int>(st.code());
  }
  FTMPI_TRY(coll::bcast(rt_, comm, msg, 3, &ftmpi_dt_int, root));
  if (msg[0] != 0) {
    if (comm->rank == root) return st;
    return Status(static_cast<Errc>(msg[0]), is_accept ? "MPI_Comm_accept failed at the root" : "MPI_Comm_connect failed at the root");
  }
  if (!st.ok()) return st;  // a member could not open its listener (the others' step 3 fails on it)
  const int tag = msg[2] & 0x3fffffff;
  Status made;
  if (comm->rank == root) {
    Bridge b(rt_.world_rank(), msg[1]);
    made = comm::intercomm_create(rt_, comm, root, &b.c, 0, tag, out);
  } else {
    made = comm::intercomm_create(rt_, comm, root, nullptr, 0, tag, out);
  }
  if (made.ok() && slot_of(msg[1]) != slot_) watch_remote(*out);
  return made;
}

void Dpm::watch_remote(comm::Communicator* inter) {
  if (transport_ == nullptr || inter == nullptr || inter->remote_group == nullptr) return;
  for (int id : inter->remote_group->world_ranks)
    if (slot_of(id) != slot_) transport_->connect_now(id);
}

Status Dpm::accept(const std::string& port, int root, comm::Communicator* comm, comm::Communicator** out,
                   Status before) {
  return meet(port, true, root, comm, out, std::move(before));
}

Status Dpm::connect(const std::string& port, int root, comm::Communicator* comm, comm::Communicator** out,
                    Status before, int timeout_s) {
  return meet(port, false, root, comm, out, std::move(before), timeout_s);
}

Status Dpm::parents_alive(comm::Communicator* comm) {
  std::vector<std::uint64_t> contribution(ft::flag_words(comm->size));
  ft::fill_flag_contribution(contribution, 1, {}, comm->size);
  const ft::Agreement& a = rt_.ft().start_agreement(comm, contribution, /*waits_decided=*/true, /*reads_at_once=*/true);
  if (!a.decided()) rt_.progress().wait_until([&a] { return a.decided(); });
  if (a.failed().empty()) return Status();
  rt_.ft().adopt_failed(comm, a.failed());
  return Status(Errc::proc_failed, "MPI_Comm_spawn: a process of the parent communicator has failed");
}

Status Dpm::spawn(const std::vector<SpawnCommand>& cmds, int root, comm::Communicator* comm, comm::Communicator** out,
                  std::vector<int>* errcodes, Status before) {
  *out = nullptr;
  // FT mode: the parents first agree (the fault-tolerant agreement, uniform) that none of them has failed.
  // A parent dead before the spawn then fails it at every parent before any child exists; otherwise children
  // would be started for parents some of which give up, and wait for them in MPI_Init. (A failure during the
  // spawn itself can still fail it at some parents only, as any collective.)
  if (rt_.ft_mode()) {
    if (Status alive = parents_alive(comm); !alive.ok()) return alive;
  }
  Status st = before.ok() ? ensure_open() : before;
  std::string port;
  // {errc, total processes}
  int head[2] = {0, 0};
  std::vector<int> codes;
  if (comm->rank == root) {
    int total = 0;
    for (const SpawnCommand& c : cmds) total += c.maxprocs;
    codes.assign(static_cast<std::size_t>(total), MPI_ERR_SPAWN);
    head[1] = total;
    if (st.ok() && cmds.empty()) st = Status(Errc::arg, "nothing to spawn");
    // FT mode: a parent already known dead cannot take part in the meeting below; starting the children
    // would leave them waiting for parents that gave up. Fail before any child exists (the others learn it
    // from the head, or from the broadcast failing).
    if (st.ok() && rt_.ft_mode() && rt_.engine().comm_known_failed(comm))
      st = Status(Errc::proc_failed, "MPI_Comm_spawn: a process of the parent communicator has failed");
    if (st.ok()) {
      auto p = broker_port();
      if (p.ok()) port = p.value();
      else st = p.status();
    }
    if (st.ok()) {
      auto fields = encode_spawn(cmds);
      fields.emplace_back("port", pct_encode(port));
      fields.emplace_back("gid", local_id(rt_.world_rank()));
      std::string line = "cmd=dpm_spawn";
      for (auto& [k, v] : fields) line += " " + k + "=" + v;
      line += "\n";
      if (line.size() > boot::pmi::kLineMax) {
        st = Status(Errc::arg, "MPI_Comm_spawn: the commands and arguments are too long (" + std::to_string(line.size()) +
                                   " bytes encoded; at most " + std::to_string(boot::pmi::kLineMax) + ")");
      } else {
        auto m = call(line, "dpm_spawned");
        if (m.ok()) {
          std::fill(codes.begin(), codes.end(), MPI_SUCCESS);
        } else {
          st = m.status();
        }
      }
    }
    if (!st.ok()) head[0] = static_cast<int>(st.code());
  }
  // A failure of the broadcasts (a parent died meanwhile) ends the spawn here: the root closes its port so
  // children already started stop waiting for their parents at once (Dpm::init_child).
  auto give_up = [&](Status failed) {
    if (comm->rank == root && !port.empty()) (void)close_port(port);
    return failed;
  };
  if (Status b = coll::bcast(rt_, comm, head, 2, &ftmpi_dt_int, root); !b.ok()) return give_up(std::move(b));
  codes.resize(static_cast<std::size_t>(head[1]), MPI_ERR_SPAWN);
  if (Status b = coll::bcast(rt_, comm, codes.data(), codes.size(), &ftmpi_dt_int, root); !b.ok())
    return give_up(std::move(b));
  if (errcodes) *errcodes = codes;
  if (head[0] != 0) {
    if (comm->rank == root) {
      if (!port.empty()) (void)close_port(port);
      return st;
    }
    return Status(static_cast<Errc>(head[0]), "MPI_Comm_spawn failed at the root");
  }
  Status met = meet(port, true, root, comm, out, st);
  if (comm->rank == root) (void)close_port(port);
  if (!met.ok() && errcodes && met.code() != Errc::proc_failed) std::fill(errcodes->begin(), errcodes->end(), MPI_ERR_SPAWN);
  if (!met.ok() && met.code() != Errc::proc_failed) return Status(Errc::spawn, met.message());
  return met;
}

Status Dpm::init_child(const std::string& parent_port) {
  FTMPI_TRY(meet(parent_port, false, 0, &ftmpi_comm_world, &parent_));
  // MPI-3.1 10.3.2: the parent intercommunicator's default name is "MPI_COMM_PARENT".
  if (parent_) parent_->name = "MPI_COMM_PARENT";
  return Status();
}

Status Dpm::join(int fd, comm::Communicator** out) {
  *out = nullptr;
  FTMPI_TRY(ensure_open());
  // Each side writes its process id; the lower one opens a port and sends its name, the other connects.
  auto io = [fd](void* buf, std::size_t n, bool wr) -> bool {
    auto* p = static_cast<char*>(buf);
    std::size_t done = 0;
    while (done < n) {
      ssize_t k = wr ? ::write(fd, p + done, n - done) : ::read(fd, p + done, n - done);
      if (k < 0 && errno == EINTR) continue;
      if (k <= 0) return false;
      done += static_cast<std::size_t>(k);
    }
    return true;
  };
  std::int32_t me = rt_.world_rank(), other = -1;
  if (!io(&me, sizeof me, true) || !io(&other, sizeof other, false))
    return Status(Errc::arg, "MPI_Comm_join: the socket is not connected to another MPI process");
  if (other == me) return Status(Errc::arg, "MPI_Comm_join: both ends are the same process");
  if (me < other) {
    auto port = open_port();
    if (!port.ok()) return port.status();
    std::uint32_t len = static_cast<std::uint32_t>(port.value().size());
    if (!io(&len, sizeof len, true) || !io(port.value().data(), len, true)) {
      (void)close_port(port.value());
      return Status(Errc::arg, "MPI_Comm_join: the socket closed");
    }
    Status st = accept(port.value(), 0, &ftmpi_comm_self, out);
    (void)close_port(port.value());
    return st;
  }
  std::uint32_t len = 0;
  if (!io(&len, sizeof len, false) || len > MPI_MAX_PORT_NAME) return Status(Errc::arg, "MPI_Comm_join: the socket closed");
  std::string port(len, '\0');
  if (!io(port.data(), len, false)) return Status(Errc::arg, "MPI_Comm_join: the socket closed");
  return connect(port, 0, &ftmpi_comm_self, out);
}

}  // namespace ftmpi::dpm
