#include "boot/pmi2_client.h"

#include <fcntl.h>
#include <netdb.h>
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

std::optional<int> parse_int(std::string_view s) {
  int v = 0;
  if (s.empty()) return std::nullopt;
  auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc() || p != s.data() + s.size()) return std::nullopt;
  return v;
}

Result<int> connect_port(std::string_view hostport) {
  std::size_t colon = hostport.rfind(':');
  if (colon == std::string_view::npos || colon == 0 || colon + 1 == hostport.size())
    return Status(Errc::other, "PMI-2: PMI_PORT is not host:port");
  std::string host(hostport.substr(0, colon)), port(hostport.substr(colon + 1));
  addrinfo hints{};
  hints.ai_socktype = SOCK_STREAM;
  addrinfo* res = nullptr;
  if (int rc = getaddrinfo(host.c_str(), port.c_str(), &hints, &res); rc != 0)
    return Status(Errc::other, "PMI-2: cannot resolve " + host + ": " + gai_strerror(rc));
  int fd = -1;
  for (addrinfo* ai = res; ai && fd < 0; ai = ai->ai_next) {
    fd = socket(ai->ai_family, ai->ai_socktype | SOCK_CLOEXEC, ai->ai_protocol);
    if (fd >= 0 && ::connect(fd, ai->ai_addr, ai->ai_addrlen) != 0) {
      ::close(fd);
      fd = -1;
    }
  }
  freeaddrinfo(res);
  if (fd < 0) return Status(Errc::other, "PMI-2: cannot connect to PMI_PORT " + std::string(hostport));
  return fd;
}

bool is_true(std::string_view v) { return v == "TRUE" || v == "true" || v == "1" || v == "yes"; }

}  // namespace

Result<std::unique_ptr<Pmi2Client>> Pmi2Client::connect_from_env() {
  const char* launcher = getenv("FTMPI_LAUNCHER");
  bool ftmpi = launcher && strcmp(launcher, "ftmpi") == 0;
  int fd = -1;
  if (const char* s = getenv("PMI_FD")) {
    auto v = parse_int(s);
    if (!v || *v < 0 || fcntl(*v, F_GETFD) < 0) return Status(Errc::other, "PMI-2: PMI_FD is not an open descriptor");
    fd = *v;
    fcntl(fd, F_SETFD, FD_CLOEXEC);
  } else if (const char* port = getenv("PMI_PORT")) {
    auto r = connect_port(port);
    if (!r.ok()) return r.status();
    fd = r.value();
  } else {
    return Status(Errc::other, "PMI-2: neither PMI_FD nor PMI_PORT is set");
  }
  int rank = -1;
  if (const char* s = getenv("PMI_RANK")) {
    auto v = parse_int(s);
    if (!v || *v < 0) {
      ::close(fd);
      return Status(Errc::other, "PMI-2: PMI_RANK is not a rank");
    }
    rank = *v;
  }
  const char* jobid = getenv("PMI_JOBID");
  return connect_on_fd(fd, rank, jobid ? jobid : "", ftmpi);
}

Result<std::unique_ptr<Pmi2Client>> Pmi2Client::connect_on_fd(int fd, int rank, std::string jobid, bool ftmpi) {
  std::unique_ptr<Pmi2Client> c(new Pmi2Client(fd, ftmpi));
  FTMPI_TRY(c->handshake(rank, jobid));
  return c;
}

Pmi2Client::~Pmi2Client() {
  if (fd_ >= 0) ::close(fd_);
}

Status Pmi2Client::send_all(const std::string& bytes) {
  if (int err = pmi::write_fully(fd_, bytes))
    return Status(Errc::other, std::string("PMI-2: write to the launcher failed: ") + strerror(err));
  return Status::Ok();
}

Result<pmi::Message> Pmi2Client::read_message() {
  for (;;) {
    auto body = in_.next();
    if (!body.ok()) return Status(Errc::other, "PMI-2: bad reply from the launcher: " + body.status().message());
    if (body.value()) {
      auto m = pmi2::parse(*body.value());
      if (!m.ok()) return Status(Errc::other, "PMI-2: bad reply from the launcher: " + m.status().message());
      return m;
    }
    char buf[4096];
    ssize_t n = ::read(fd_, buf, sizeof buf);
    if (n < 0) {
      if (errno == EINTR) continue;
      return Status(Errc::other, std::string("PMI-2: read from the launcher failed: ") + strerror(errno));
    }
    if (n == 0) return Status(Errc::other, "PMI-2: the launcher closed the connection");
    in_.append(buf, static_cast<std::size_t>(n));
  }
}

Result<pmi::Message> Pmi2Client::transact(const std::string& request, std::string_view expect, bool check_rc) {
  FTMPI_TRY(send_all(request));
  auto m = read_message();
  if (!m.ok()) return m.status();
  if (m->cmd != expect)
    return Status(Errc::other, "PMI-2: expected " + std::string(expect) + " from the launcher, got '" +
                                   m->cmd.substr(0, 64) + "'");
  if (check_rc) {
    auto rc = m->get("rc");
    if (!rc) return Status(Errc::other, "PMI-2: " + std::string(expect) + " without rc");
    auto v = parse_int(*rc);
    if (!v) return Status(Errc::other, "PMI-2: " + std::string(expect) + " with a bad rc '" + std::string(rc->substr(0, 32)) + "'");
    if (*v != 0)
      return Status(Errc::other, "PMI-2: the launcher answered " + std::string(expect) + " with rc=" + std::to_string(*v) +
                                     ": " + std::string(m->get("errmsg").value_or("(no message)")).substr(0, 200));
  }
  return m;
}

Status Pmi2Client::handshake(int rank, const std::string& jobid) {
  std::lock_guard lk(mu_);
  // The version line is PMI-1 shaped, and so is its answer.
  FTMPI_TRY(send_all("cmd=init pmi_version=2 pmi_subversion=0\n"));
  std::string line;
  for (;;) {
    char c;
    ssize_t n = ::read(fd_, &c, 1);  // byte by byte: what follows the line belongs to the PMI-2 framing
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return Status(Errc::other, std::string("PMI-2: read from the launcher failed: ") + strerror(errno));
    if (n == 0) return Status(Errc::other, "PMI-2: the launcher closed the connection during init");
    if (c == '\n') break;
    line += c;
    if (line.size() > pmi::kLineMax) return Status(Errc::other, "PMI-2: init answer too long (not a PMI server?)");
  }
  auto init = pmi::parse(line);
  if (!init.ok()) return Status(Errc::other, "PMI-2: bad init answer from the launcher: " + init.status().message());
  if (init->cmd != "response_to_init")
    return Status(Errc::other, "PMI-2: expected response_to_init from the launcher, got '" + init->cmd.substr(0, 64) + "'");
  if (init->get_int("rc").value_or(-1) != 0 || init->get_int("pmi_version").value_or(2) != 2)
    return Status(Errc::other, "PMI-2: the launcher refused PMI version 2 (answer: " + line.substr(0, 200) + ")");

  std::string rank_s = std::to_string(rank);
  std::string req = rank >= 0 && !jobid.empty()
                        ? pmi2::encode("fullinit", {{"pmijobid", jobid}, {"pmirank", rank_s}, {"threaded", "FALSE"}})
                    : rank >= 0 ? pmi2::encode("fullinit", {{"pmirank", rank_s}, {"threaded", "FALSE"}})
                                : pmi2::encode("fullinit", {{"threaded", "FALSE"}});
  auto full = transact(req, "fullinit-response");
  if (!full.ok()) return full.status();
  auto r = full->get("rank"), s = full->get("size");
  auto rv = r ? parse_int(*r) : std::nullopt, sv = s ? parse_int(*s) : std::nullopt;
  if (!rv || !sv || *sv < 1 || *rv < 0 || *rv >= *sv)
    return Status(Errc::other, "PMI-2: fullinit-response without a valid rank and size");
  rank_ = *rv;
  size_ = *sv;
  if (auto a = full->get("appnum")) appnum_ = parse_int(*a).value_or(0);

  auto id = transact(pmi2::encode("job-getid"), "job-getid-response");
  if (!id.ok()) return id.status();
  auto j = id->get("jobid");
  if (!j || j->empty()) return Status(Errc::other, "PMI-2: job-getid-response without a jobid");
  jobid_ = std::string(*j);
  log::debug("PMI-2: rank %d of %d in job %s", rank_, size_, jobid_.c_str());
  return Status::Ok();
}

Status Pmi2Client::put(std::string_view key, std::string_view value) {
  if (!pmi::valid_key(key) || key.size() > pmi::kKeyMax)
    return Status(Errc::arg, "PMI-2: invalid key '" + std::string(key.substr(0, 80)) + "'");
  if (value.size() > pmi::kValueMax) return Status(Errc::arg, "PMI-2: value too long for key '" + std::string(key) + "'");
  std::lock_guard lk(mu_);
  auto r = transact(pmi2::encode("kvs-put", {{"key", key}, {"value", value}}), "kvs-put-response");
  return r.ok() ? Status::Ok() : r.status();
}

Result<std::string> Pmi2Client::get(std::string_view key) {
  if (!pmi::valid_key(key) || key.size() > pmi::kKeyMax)
    return Status(Errc::arg, "PMI-2: invalid key '" + std::string(key.substr(0, 80)) + "'");
  std::lock_guard lk(mu_);
  auto r = transact(pmi2::encode("kvs-get", {{"jobid", jobid_}, {"srcid", "-1"}, {"key", key}}), "kvs-get-response",
                    false);
  if (!r.ok()) return r.status();
  // Servers say "found=TRUE" (Slurm, Hydra) or "flag=..." (the design text); rc != 0 is "not found" too.
  auto found = r->get("found");
  if (!found) found = r->get("flag");
  bool ok = r->get("rc").value_or("0") == "0" && (found ? is_true(*found) : r->get("value").has_value());
  if (!ok) return Status(Errc::arg, "PMI-2: key '" + std::string(key) + "' not found");
  auto v = r->get("value");
  if (!v) return Status(Errc::other, "PMI-2: kvs-get-response for '" + std::string(key) + "' without a value");
  return std::string(*v);
}

Status Pmi2Client::fence() {
  std::lock_guard lk(mu_);
  auto r = transact(pmi2::encode("kvs-fence"), "kvs-fence-response");
  return r.ok() ? Status::Ok() : r.status();
}

std::optional<std::string> Pmi2Client::job_attribute(std::string_view name) {
  if (!pmi::valid_key(name) || name.size() > pmi::kKeyMax) return std::nullopt;
  std::lock_guard lk(mu_);
  auto r = transact(pmi2::encode("info-getjobattr", {{"key", name}}), "info-getjobattr-response", false);
  if (!r.ok()) {
    log::warn("%s", r.status().message().c_str());
    return std::nullopt;
  }
  auto found = r->get("found");
  if (!found) found = r->get("flag");
  if (r->get("rc").value_or("0") != "0" || !found || !is_true(*found)) return std::nullopt;
  auto v = r->get("value");
  if (!v) return std::nullopt;
  return std::string(*v);
}

void Pmi2Client::abort(int code, std::string_view message) {
  if (!message.empty())
    log::error("rank %d aborting the job (code %d): %.*s", rank_, code, static_cast<int>(message.size()), message.data());
  {
    std::lock_guard lk(mu_);
    std::string msg(message.substr(0, 512));
    if (msg.empty()) msg = "MPI_Abort with code " + std::to_string(code);
    if (send_all(pmi2::encode("abort", {{"isworld", "TRUE"}, {"msg", msg}})).ok()) {
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
  _exit(status != 0 ? status : 1);
}

Status Pmi2Client::finalize() {
  std::lock_guard lk(mu_);
  if (finalized_) return Status::Ok();
  auto r = transact(pmi2::encode("finalize"), "finalize-response");
  if (!r.ok()) return r.status();
  finalized_ = true;
  return Status::Ok();
}

}  // namespace ftmpi::boot
