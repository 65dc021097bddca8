#include "boot/pmi_client.h"
#include "models/reinit/rollback_trace.h"

#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <charconv>
#include <cstdlib>
#include <cstring>

#include "util/log.h"

namespace ftmpi::boot {
namespace {

std::optional<int> env_int(const char* name) {
  const char* s = getenv(name);
  if (!s || !*s) return std::nullopt;
  int v = 0;
  const char* e = s + strlen(s);
  auto [p, ec] = std::from_chars(s, e, v);
  if (ec != std::errc() || p != e) return std::nullopt;
  return v;
}

Status sys_error(const char* what) {
  return Status(Errc::other, std::string("PMI: ") + what + ": " + strerror(errno));
}

// Connect to "host:port" over TCP. Returns the fd or an error.
Result<int> connect_tcp(std::string_view hostport) {
  std::size_t colon = hostport.rfind(':');
  if (colon == std::string_view::npos || colon == 0 || colon + 1 == hostport.size())
    return Status(Errc::other, "PMI: PMI_PORT is not host:port");
  std::string host(hostport.substr(0, colon));
  std::string port(hostport.substr(colon + 1));
  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  addrinfo* res = nullptr;
  int rc = getaddrinfo(host.c_str(), port.c_str(), &hints, &res);
  if (rc != 0) return Status(Errc::other, "PMI: cannot resolve " + host + ": " + gai_strerror(rc));
  int fd = -1;
  for (addrinfo* ai = res; ai; ai = ai->ai_next) {
    fd = socket(ai->ai_family, ai->ai_socktype | SOCK_CLOEXEC, ai->ai_protocol);
    if (fd < 0) continue;
    if (::connect(fd, ai->ai_addr, ai->ai_addrlen) == 0) break;
    ::close(fd);
    fd = -1;
  }
  freeaddrinfo(res);
  if (fd < 0) return Status(Errc::other, "PMI: cannot connect to PMI_PORT " + std::string(hostport));
  int one = 1;
  setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
  return fd;
}

bool rc_ok(const pmi::Message& m) { return m.get_int("rc").value_or(0) == 0; }

}  // namespace

Result<std::unique_ptr<PmiClient>> PmiClient::connect_from_env() {
  const char* launcher = getenv("FTMPI_LAUNCHER");
  bool ftmpi = launcher && strcmp(launcher, "ftmpi") == 0;
  int fd = -1;
  if (getenv("PMI_FD")) {
    auto v = env_int("PMI_FD");
    if (!v || *v < 0) return Status(Errc::other, "PMI: PMI_FD is not a file descriptor number");
    if (fcntl(*v, F_GETFD) < 0) return Status(Errc::other, "PMI: PMI_FD is not an open descriptor");
    fd = *v;
    fcntl(fd, F_SETFD, FD_CLOEXEC);  // the application's own children must not inherit it
  } else if (const char* port = getenv("PMI_PORT")) {
    auto r = connect_tcp(port);
    if (!r.ok()) return r.status();
    fd = r.value();
  } else {
    return Status(Errc::other, "PMI: neither PMI_FD nor PMI_PORT is set");
  }
  auto rank = env_int("PMI_RANK");
  auto size = env_int("PMI_SIZE");
  int pmi_id = -1;
  if (!rank || !size) {
    auto id = env_int("PMI_ID");
    if (!id) {
      ::close(fd);
      return Status(Errc::other, "PMI: PMI_RANK/PMI_SIZE (or PMI_ID) missing or not numbers");
    }
    pmi_id = *id;
    rank = -1;
    size = -1;
  } else if (*size < 1 || *rank < 0 || *rank >= *size) {
    ::close(fd);
    return Status(Errc::other, "PMI: PMI_RANK/PMI_SIZE out of range");
  }
  return connect_on_fd(fd, *rank, *size, pmi_id, ftmpi);
}

Result<std::unique_ptr<PmiClient>> PmiClient::connect_on_fd(int fd, int rank, int size, int pmi_id,
                                                            bool launched_by_ftmpi) {
  std::unique_ptr<PmiClient> c(new PmiClient(fd, rank, size, launched_by_ftmpi));
  FTMPI_TRY(c->handshake(pmi_id));
  return c;
}

PmiClient::~PmiClient() {
  if (fd_ >= 0) ::close(fd_);
}

Status PmiClient::send_line(const std::string& line) {
  if (int err = pmi::write_fully(fd_, line)) {
    errno = err;
    return sys_error("write to the launcher failed");
  }
  return Status::Ok();
}

Result<pmi::Message> PmiClient::read_message() {
  for (;;) {
    if (auto line = in_.next()) {
      auto m = pmi::parse(*line);
      if (!m.ok()) return Status(Errc::other, "PMI: bad reply from the launcher: " + m.status().message());
      return m;
    }
    if (in_.overflowed()) return Status(Errc::other, "PMI: reply line from the launcher too long");
    char buf[1024];
    ssize_t n = ::read(fd_, buf, sizeof buf);
    if (n < 0) {
      if (errno == EINTR) continue;
      return sys_error("read from the launcher failed");
    }
    if (n == 0) return Status(Errc::other, "PMI: the launcher closed the connection");
    in_.append(buf, static_cast<std::size_t>(n));
  }
}

Result<pmi::Message> PmiClient::transact(const std::string& request, std::string_view expect) {
  reinit::trace::count_launcher_call();
  FTMPI_TRY(send_line(request));
  for (;;) {
    auto m = read_message();
    if (!m.ok()) return m.status();
    if (m->cmd == expect) return m;
    if (keep_for_waiter(*m)) continue;
    if (m->cmd == "error")
      return Status(Errc::other, "PMI: the launcher rejected '" + request.substr(0, request.size() - 1) +
                                     "': " + std::string(m->get("msg").value_or("?")));
    // Anything else is unsolicited (later issues: failure notices); not expected yet.
    log::debug("PMI: ignoring unexpected '%s' while waiting for '%.*s'", m->cmd.c_str(),
               static_cast<int>(expect.size()), expect.data());
  }
}

bool PmiClient::keep_for_waiter(const pmi::Message& m) {
  if (awaited_.empty() || m.cmd != awaited_ || arrived_) return false;
  arrived_ = m;
  return true;
}

Result<pmi::Message> PmiClient::transact_while(const std::string& request, std::string_view expect,
                                               const std::function<void()>& idle) {
  std::lock_guard w(waiter_mu_);
  {
    std::lock_guard lk(mu_);
    FTMPI_TRY(send_line(request));
    awaited_ = std::string(expect);
    arrived_.reset();
  }
  auto done = [this](Result<pmi::Message> r) {  // caller holds mu_
    awaited_.clear();
    arrived_.reset();
    return r;
  };
  for (;;) {
    {
      std::lock_guard lk(mu_);
      // Lines already buffered, then what the socket holds now (one read; never waits for more).
      for (;;) {
        if (arrived_) return done(*arrived_);
        if (auto line = in_.next()) {
          auto m = pmi::parse(*line);
          if (!m.ok()) return done(Status(Errc::other, "PMI: bad reply from the launcher: " + m.status().message()));
          if (keep_for_waiter(*m)) continue;
          if (m->cmd == "error")
            return done(Status(Errc::other, "PMI: the launcher rejected '" + request.substr(0, request.size() - 1) +
                                                "': " + std::string(m->get("msg").value_or("?"))));
          log::debug("PMI: ignoring unexpected '%s' while waiting for '%s'", m->cmd.c_str(), awaited_.c_str());
          continue;
        }
        if (in_.overflowed()) return done(Status(Errc::other, "PMI: reply line from the launcher too long"));
        pollfd p{fd_, POLLIN, 0};
        if (::poll(&p, 1, 0) <= 0) break;
        char buf[1024];
        ssize_t n = ::read(fd_, buf, sizeof buf);
        if (n < 0 && errno == EINTR) continue;
        if (n < 0) return done(sys_error("read from the launcher failed"));
        if (n == 0) return done(Status(Errc::other, "PMI: the launcher closed the connection"));
        in_.append(buf, static_cast<std::size_t>(n));
      }
    }
    idle();
    // Sleep a little on the launcher's socket (another exchange may read it meanwhile: then the reply is
    // kept in arrived_ and the next pass finds it).
    pollfd p{fd_, POLLIN, 0};
    (void)::poll(&p, 1, 1);
  }
}

Result<pmi::Message> PmiClient::launcher_call_while(const std::string& line, std::string_view expect,
                                                    const std::function<void()>& idle) {
  if (!launched_by_ftmpi_) return Bootstrap::launcher_call_while(line, expect, idle);
  return transact_while(line, expect, idle);
}

Status PmiClient::fence_while(const std::function<void()>& idle) {
  auto r = transact_while(pmi::encode("barrier_in"), "barrier_out", idle);
  if (!r.ok()) return r.status();
  if (!rc_ok(*r)) return Status(Errc::other, "PMI: barrier failed");
  return Status::Ok();
}

Result<pmi::Message> PmiClient::launcher_call(const std::string& line, std::string_view expect) {
  if (!launched_by_ftmpi_) return Bootstrap::launcher_call(line, expect);
  std::lock_guard lk(mu_);
  return transact(line, expect);
}

Status PmiClient::handshake(int pmi_id) {
  std::lock_guard lk(mu_);
  if (pmi_id >= 0) {
    auto r = transact(pmi::encode("initack", {{"pmiid", std::to_string(pmi_id)}}), "initack");
    if (!r.ok()) return r.status();
    for (int got = 0; got < 3;) {  // set size=, set rank=, set debug=
      auto m = read_message();
      if (!m.ok()) return m.status();
      if (m->cmd != "set") return Status(Errc::other, "PMI: unexpected reply to initack: " + m->cmd);
      if (auto v = m->get_int("size")) size_ = *v;
      if (auto v = m->get_int("rank")) rank_ = *v;
      ++got;
    }
    if (size_ < 1 || rank_ < 0 || rank_ >= size_)
      return Status(Errc::other, "PMI: the launcher gave an invalid rank/size");
  }
  // A process ftmpi's mpiexec restarts into a running job (Reinit: a respawned rank or a warm spare) is
  // given the answers a launch asks for (FTMPI_PMI_KVSNAME, FTMPI_PMI_PROCESS_MAPPING): it announces
  // itself (the launcher counts the rank as initialized) but waits for no reply — three launcher round
  // trips fewer on the recovery's critical path, where the launcher competes for a core with every woken
  // survivor. The unread response_to_init is skipped by the next exchange (transact ignores what it did
  // not ask for).
  if (const char* kvs = std::getenv("FTMPI_PMI_KVSNAME"); kvs && *kvs && launched_by_ftmpi_ && pmi_id < 0) {
    FTMPI_TRY(send_line(pmi::encode("init", {{"pmi_version", "1"}, {"pmi_subversion", "1"}})));
    kvsname_ = kvs;
    if (const char* map = std::getenv("FTMPI_PMI_PROCESS_MAPPING"); map && *map)
      attributes_.emplace_back("PMI_process_mapping", map);
    log::debug("PMI: rank %d of %d in kvs %s (restarted: no handshake)", rank_, size_, kvsname_.c_str());
    return Status::Ok();
  }
  auto init = transact(pmi::encode("init", {{"pmi_version", "1"}, {"pmi_subversion", "1"}}),
                       "response_to_init");
  if (!init.ok()) return init.status();
  if (!rc_ok(*init)) return Status(Errc::other, "PMI: the launcher refused PMI version 1.1");

  auto maxes = transact(pmi::encode("get_maxes"), "maxes");
  if (!maxes.ok()) return maxes.status();
  auto kvs = transact(pmi::encode("get_my_kvsname"), "my_kvsname");
  if (!kvs.ok()) return kvs.status();
  auto name = kvs->get("kvsname");
  if (!name || name->empty()) return Status(Errc::other, "PMI: the launcher sent no kvsname");
  kvsname_ = std::string(*name);
  log::debug("PMI: rank %d of %d in kvs %s", rank_, size_, kvsname_.c_str());
  return Status::Ok();
}

Status PmiClient::put(std::string_view key, std::string_view value) {
  if (!pmi::valid_key(key) || key.size() > pmi::kKeyMax)
    return Status(Errc::arg, "PMI: invalid key '" + std::string(key.substr(0, 80)) + "'");
  if (!pmi::valid_value(value) || value.size() > pmi::kValueMax)
    return Status(Errc::arg, "PMI: invalid or too long value for key '" + std::string(key) + "'");
  std::lock_guard lk(mu_);
  auto r = transact(pmi::encode("put", {{"kvsname", kvsname_}, {"key", key}, {"value", value}}), "put_result");
  if (!r.ok()) return r.status();
  if (!rc_ok(*r))
    return Status(Errc::other, "PMI: put of '" + std::string(key) + "' failed: " +
                                   std::string(r->get("msg").value_or("?")));
  return Status::Ok();
}

Result<std::string> PmiClient::get(std::string_view key) {
  if (!pmi::valid_key(key) || key.size() > pmi::kKeyMax)
    return Status(Errc::arg, "PMI: invalid key '" + std::string(key.substr(0, 80)) + "'");
  std::lock_guard lk(mu_);
  auto r = transact(pmi::encode("get", {{"kvsname", kvsname_}, {"key", key}}), "get_result");
  if (!r.ok()) return r.status();
  if (!rc_ok(*r)) return Status(Errc::arg, "PMI: key '" + std::string(key) + "' not found");
  return std::string(r->get("value").value_or(""));
}

Status PmiClient::fence() {
  std::lock_guard lk(mu_);
  auto r = transact(pmi::encode("barrier_in"), "barrier_out");
  if (!r.ok()) return r.status();
  if (!rc_ok(*r)) return Status(Errc::other, "PMI: barrier failed");
  return Status::Ok();
}

Result<int> PmiClient::appnum() {
  std::lock_guard lk(mu_);
  auto r = transact(pmi::encode("get_appnum"), "appnum");
  if (!r.ok()) return r.status();
  auto v = r->get_int("appnum");
  if (!v) return Status(Errc::other, "PMI: bad appnum reply");
  return *v;
}

void PmiClient::abort(int code, std::string_view message) {
  if (!message.empty())
    log::error("rank %d aborting the job (code %d): %.*s", rank_, code, static_cast<int>(message.size()),
               message.data());
  // Other launchers (Hydra) forward a rank's stderr asynchronously and kill the job as soon as they read the
  // abort: give them a moment to forward the error line above first, or the user sees no reason at all.
  if (!launched_by_ftmpi_) ::usleep(200 * 1000);
  {
    std::lock_guard lk(mu_);
    Status st = send_line(pmi::encode("abort", {{"exitcode", std::to_string(code)}}));
    if (st.ok()) {
      // The launcher kills the job; wait for that (reading until EOF), but not forever.
      pollfd p{fd_, POLLIN, 0};
      for (int waited_ms = 0; waited_ms < 10000; waited_ms += 200) {
        if (::poll(&p, 1, 200) > 0) {
          char buf[256];
          if (::read(fd_, buf, sizeof buf) <= 0) break;
        }
      }
    }
  }
  int status = code & 0xff;
  _exit(status != 0 ? status : 1);  // never report success after an abort
}

Status PmiClient::tell_abort(int code) {
  std::lock_guard lk(mu_);
  return send_line(pmi::encode("abort", {{"exitcode", std::to_string(code)}}));
}

std::optional<std::string> PmiClient::rank_gone(int rank) {
  if (!launched_by_ftmpi_) return std::nullopt;
  auto v = get("ftmpi-gone." + std::to_string(rank));
  if (!v.ok() || v.value() == "0") return std::nullopt;
  return v.value();
}

std::optional<std::string> PmiClient::job_attribute(std::string_view name) {
  // Hydra answers a get of PMI_process_mapping from its own table; ftmpi's mpiexec presets the key. A job
  // attribute does not change: asked once (a Reinit rollback asks again for every epoch).
  {
    std::lock_guard lk(mu_);
    for (const auto& [k, v] : attributes_)
      if (k == name) return v;
  }
  auto v = get(name);
  if (!v.ok()) return std::nullopt;
  std::lock_guard lk(mu_);
  attributes_.emplace_back(std::string(name), v.value());
  return v.value();
}

Status PmiClient::finalize() {
  std::lock_guard lk(mu_);
  if (finalized_) return Status::Ok();
  auto r = transact(pmi::encode("finalize"), "finalize_ack");
  if (!r.ok()) return r.status();
  finalized_ = true;
  return Status::Ok();
}

}  // namespace ftmpi::boot
