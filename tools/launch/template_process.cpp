#include "template_process.h"

#include <elf.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "models/reinit/respawn_template.h"
#include "rank_env.h"
#include "util/kv_line.h"

namespace ftmpi::mpiexec {

bool program_loads_libmpi(const std::string& path) {
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return false;
  auto at = [&](void* buf, std::size_t n, std::uint64_t off) {
    return ::pread(fd, buf, n, static_cast<off_t>(off)) == static_cast<ssize_t>(n);
  };
  bool found = false;
  Elf64_Ehdr h{};
  if (at(&h, sizeof h, 0) && std::memcmp(h.e_ident, ELFMAG, SELFMAG) == 0 && h.e_ident[EI_CLASS] == ELFCLASS64 &&
      h.e_phentsize == sizeof(Elf64_Phdr) && h.e_phnum > 0 && h.e_phnum < 256) {
    std::vector<Elf64_Phdr> ph(h.e_phnum);
    if (at(ph.data(), ph.size() * sizeof(Elf64_Phdr), h.e_phoff)) {
      // The dynamic section's DT_NEEDED names, in its string table (found through the PT_LOAD holding it).
      std::vector<Elf64_Dyn> dyn;
      for (const Elf64_Phdr& p : ph)
        if (p.p_type == PT_DYNAMIC && p.p_filesz < (1u << 20)) {
          dyn.resize(p.p_filesz / sizeof(Elf64_Dyn));
          if (!at(dyn.data(), dyn.size() * sizeof(Elf64_Dyn), p.p_offset)) dyn.clear();
        }
      std::uint64_t strtab = 0, strsz = 0;
      for (const Elf64_Dyn& d : dyn) {
        if (d.d_tag == DT_STRTAB) strtab = d.d_un.d_ptr;
        if (d.d_tag == DT_STRSZ) strsz = d.d_un.d_val;
      }
      std::string strings;
      for (const Elf64_Phdr& p : ph)
        if (p.p_type == PT_LOAD && strtab >= p.p_vaddr && strtab + strsz <= p.p_vaddr + p.p_filesz && strsz > 0 &&
            strsz < (1u << 22)) {
          strings.resize(strsz);
          if (!at(strings.data(), strsz, strtab - p.p_vaddr + p.p_offset)) strings.clear();
          break;
        }
      for (const Elf64_Dyn& d : dyn)
        if (d.d_tag == DT_NEEDED && d.d_un.d_val < strings.size()) {
          std::string name(strings.c_str() + d.d_un.d_val);
          if (name == "libmpi.so.0" || name == "libmpi_fortran.so.0") found = true;
        }
    }
  }
  ::close(fd);
  return found;
}

bool template_enabled() {
  const char* s = std::getenv("FTMPI_REINIT_TEMPLATE");
  return !(s && std::string(s) == "0");
}

Status TemplateProcess::start(SpawnRequest req) {
  release();
  renewal_ = TemplateRenewal{};
  told_given_up_ = false;
  if (!program_loads_libmpi(req.path))
    return Status(Errc::unsupported, "'" + req.path + "' does not load libmpi.so.0 itself (a script, or not this MPI's program)");
  spec_ = std::move(req);
  FTMPI_TRY(launch());
  wanted_ = true;
  return Status::Ok();
}

TemplateProcess::Renewal TemplateProcess::renew() {
  if (!wanted_ || pid_ > 0) return Renewal::none;
  if (renewal_.given_up()) {
    if (told_given_up_) return Renewal::none;
    told_given_up_ = true;
    return Renewal::given_up;
  }
  if (!renewal_.due()) return Renewal::none;
  renewal_.renewing();
  if (launch().ok()) return Renewal::started;
  renewal_.started(TemplateRenewal::Clock::now());
  renewal_.lost(TemplateRenewal::Clock::now());
  return Renewal::failed;
}

Status TemplateProcess::launch() {
  SpawnRequest req = spec_;
  int sv[2];
  if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv) != 0)
    return Status(Errc::other, std::string("socketpair: ") + strerror(errno));
  int null_out = ::open("/dev/null", O_WRONLY | O_CLOEXEC);
  if (null_out < 0) {
    ::close(sv[0]);
    ::close(sv[1]);
    return Status(Errc::other, std::string("/dev/null: ") + strerror(errno));
  }
  std::erase_if(req.env, [](const std::string& e) {
    for (const char* p : {"PMI_RANK=", "FTMPI_LOCAL_RANK=", "FTMPI_SPARE=", "FTMPI_INJECT_AT=", "PMI_FD=",
                          "FTMPI_CTRL_FD=", "FTMPI_TEMPLATE_FD="})
      if (e.rfind(p, 0) == 0) return true;
    return is_foreign_rank_env(e);
  });
  req.env.push_back(std::string(reinit::kTemplateFdEnv) + "=" + std::to_string(sv[1]));
  req.pmi_fd = -1;
  req.ctrl_fd = sv[1];  // kept open across exec by spawn_rank
  req.stdin_fd = -1;
  req.stdout_fd = null_out;
  req.stderr_fd = null_out;
  req.cpu = -1;
  auto pid = spawn_rank(req);
  ::close(sv[1]);
  ::close(null_out);
  if (!pid.ok()) {
    ::close(sv[0]);
    return pid.status();
  }
  pid_ = pid.value();
  fd_ = sv[0];
  ready_ = false;
  renewal_.started(TemplateRenewal::Clock::now());
  return Status::Ok();
}

bool TemplateProcess::reaped(pid_t pid) {
  if (pid <= 0 || pid != pid_) return false;
  renewal_.lost(TemplateRenewal::Clock::now());
  pid_ = -1;
  ready_ = false;
  if (fd_ >= 0) ::close(fd_);
  fd_ = -1;
  return true;
}

void TemplateProcess::poll_ready() {
  if (ready_ || fd_ < 0) return;
  char buf[256];
  ssize_t n = ::recv(fd_, buf, sizeof buf - 1, MSG_DONTWAIT);
  if (n < 0 && (errno == EAGAIN || errno == EINTR)) return;  // still starting
  std::string_view m(buf, n > 0 ? static_cast<std::size_t>(n) : 0);
  if (n > 0 && m.substr(0, 6) == "ready ") {
    ready_ = true;
    renewal_.ready();
    return;
  }
  if (n > 0 && m.substr(0, 8) == "refused ") {  // it will never serve (e.g. not single-threaded)
    renewal_.refused();
    drop();
    return;
  }
  lose();  // ended, or something else: not usable
}

Result<pid_t> TemplateProcess::fork_rank(const SpawnRequest& req, int timeout_ms) {
  if (pid_ <= 0) return Status(Errc::other, "no template");
  if (!req.cwd.empty()) return Status(Errc::other, "a working directory of its own");
  // Ended and not reaped yet (ftmpid reaps only its ranks; mpiexec's SIGCHLD may not be read yet).
  if (int st = 0; waitpid(pid_, &st, WNOHANG) == pid_) {
    lose();  // its group (a waiting child) still goes
    return Status(Errc::other, "the template ended");
  }
  poll_ready();
  if (!ready_) return Status(Errc::other, pid_ > 0 ? "the template is not ready yet" : "the template ended");
  reinit::ForkCommand cmd;
  cmd.cpu = req.cpu;
  cmd.has_ctrl = req.ctrl_fd >= 0;
  cmd.has_stdin = req.stdin_fd >= 0;
  cmd.env = req.env;
  std::string msg = reinit::encode_fork(cmd);
  if (msg.size() > reinit::kTemplateMaxMessage) return Status(Errc::other, "the environment is too large");
  int fds[5];
  int n = 0;
  for (int fd : {req.stdout_fd, req.stderr_fd, req.pmi_fd, req.ctrl_fd, req.stdin_fd})
    if (fd >= 0) fds[n++] = fd;
  if (n != cmd.fd_count()) return Status(Errc::other, "stdout, stderr and the PMI socket are needed");
  iovec iov{msg.data(), msg.size()};
  alignas(cmsghdr) char cbuf[CMSG_SPACE(sizeof fds)] = {};
  msghdr mh{};
  mh.msg_iov = &iov;
  mh.msg_iovlen = 1;
  mh.msg_control = cbuf;
  mh.msg_controllen = CMSG_SPACE(sizeof(int) * static_cast<std::size_t>(n));
  cmsghdr* c = CMSG_FIRSTHDR(&mh);
  c->cmsg_level = SOL_SOCKET;
  c->cmsg_type = SCM_RIGHTS;
  c->cmsg_len = CMSG_LEN(sizeof(int) * static_cast<std::size_t>(n));
  std::memcpy(CMSG_DATA(c), fds, sizeof(int) * static_cast<std::size_t>(n));
  ssize_t sent;
  while ((sent = ::sendmsg(fd_, &mh, MSG_NOSIGNAL)) < 0 && errno == EINTR) {
  }
  if (sent < 0) {
    std::string why = std::string("cannot reach the template: ") + strerror(errno);
    lose();
    return Status(Errc::other, why);
  }
  // The answer: "pid=P" from the template's first fork, or "err=...". Nothing within the timeout (a stopped
  // or starved template): kill it with its group — a half-made rank then exits by itself (its go byte never
  // comes) — and fall back.
  char buf[512];
  for (;;) {
    pollfd p{fd_, POLLIN, 0};
    int r = ::poll(&p, 1, timeout_ms);
    if (r < 0 && errno == EINTR) continue;
    if (r <= 0) {
      // Its waiting child answers before it leaves the template's group: after the group's SIGKILL, an
      // answer not there yet means the child died with it; one that is there names a child to kill too.
      kill(-pid_, SIGKILL);
      ssize_t late = ::recv(fd_, buf, sizeof buf - 1, MSG_DONTWAIT);
      if (late > 4 && std::string_view(buf, 4) == "pid=") {
        long stray = std::strtol(std::string(buf + 4, static_cast<std::size_t>(late - 4)).c_str(), nullptr, 10);
        if (stray > 0) kill(static_cast<pid_t>(stray), SIGKILL);
      }
      lose();
      return Status(Errc::other, "the template did not answer within " + std::to_string(timeout_ms) + " ms");
    }
    ssize_t got = ::recv(fd_, buf, sizeof buf - 1, MSG_DONTWAIT);
    if (got < 0 && (errno == EAGAIN || errno == EINTR)) continue;
    if (got <= 0) {
      lose();
      return Status(Errc::other, "the template ended");
    }
    std::string_view m(buf, static_cast<std::size_t>(got));
    if (m.substr(0, 4) == "pid=") {
      long pid = std::strtol(std::string(m.substr(4)).c_str(), nullptr, 10);
      if (pid <= 0) break;
      setpgid(static_cast<pid_t>(pid), static_cast<pid_t>(pid));  // our child: as spawn_rank, whoever runs first
      ++forked_;
      return static_cast<pid_t>(pid);
    }
    if (m.substr(0, 4) == "err=") return Status(Errc::other, "the template: " + std::string(m.substr(4)));
    break;
  }
  lose();
  return Status(Errc::other, "the template answered something unexpected");
}

void TemplateProcess::lose() {
  renewal_.lost(TemplateRenewal::Clock::now());
  drop();
}

void TemplateProcess::release() {
  wanted_ = false;
  drop();
}

void TemplateProcess::drop() {
  if (fd_ >= 0) ::close(fd_);  // the template's end of file: it exits by itself
  fd_ = -1;
  ready_ = false;
  if (pid_ > 0) {
    // The group (pgid == pid_: spawn_rank): the template and its waiting child (our child too:
    // clone(CLONE_PARENT)). Never kill(pid_) alone: the template may be reaped already and its pid reused.
    kill(-pid_, SIGKILL);
    while (waitpid(pid_, nullptr, 0) < 0 && errno == EINTR) {
    }
    while (waitpid(-pid_, nullptr, 0) > 0 || errno == EINTR) {
    }
  }
  pid_ = -1;
}

}  // namespace ftmpi::mpiexec
