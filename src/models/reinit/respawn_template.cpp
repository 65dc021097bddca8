#include "models/reinit/respawn_template.h"

#include <dirent.h>
#include <fcntl.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>

#include "util/child_setup.h"
#include "util/kv_line.h"

extern char** environ;

namespace ftmpi::reinit {

std::string encode_fork(const ForkCommand& c) {
  std::string m = "fork cpu=" + std::to_string(c.cpu) + " ctrl=" + (c.has_ctrl ? "1" : "0") +
                  " in=" + (c.has_stdin ? "1" : "0") + "\n";
  for (const std::string& e : c.env) {
    m += e;
    m.push_back('\0');
  }
  return m;
}

Result<ForkCommand> decode_fork(std::string_view msg) {
  std::size_t nl = msg.find('\n');
  if (nl == std::string_view::npos) return Status(Errc::arg, "template: a command without its header line");
  std::string_view head = msg.substr(0, nl);
  if (head.substr(0, head.find(' ')) != "fork") return Status(Errc::arg, "template: not a fork command");
  ForkCommand c;
  c.cpu = kv_int(head, "cpu", -1);
  c.has_ctrl = kv_int(head, "ctrl", 0) == 1;
  c.has_stdin = kv_int(head, "in", 0) == 1;
  std::string_view rest = msg.substr(nl + 1);
  while (!rest.empty()) {
    std::size_t z = rest.find('\0');
    if (z == std::string_view::npos) return Status(Errc::arg, "template: an environment entry without its NUL");
    std::string_view e = rest.substr(0, z);
    if (e.find('=') == std::string_view::npos || e.front() == '=')
      return Status(Errc::arg, "template: an environment entry without NAME=");
    c.env.emplace_back(e);
    rest.remove_prefix(z + 1);
  }
  return c;
}

void place_channel_fds(std::vector<std::string>& env, int pmi_fd, int ctrl_fd) {
  std::erase_if(env, [&](const std::string& e) {
    return e.rfind("PMI_FD=", 0) == 0 || (ctrl_fd >= 0 && e.rfind("FTMPI_CTRL_FD=", 0) == 0);
  });
  env.push_back("PMI_FD=" + std::to_string(pmi_fd));
  if (ctrl_fd >= 0) env.push_back("FTMPI_CTRL_FD=" + std::to_string(ctrl_fd));
}

namespace {

void send_text(int fd, const std::string& s) { (void)::send(fd, s.data(), s.size(), MSG_NOSIGNAL); }

int thread_count() {
  DIR* d = opendir("/proc/self/task");
  if (!d) return -1;
  int n = 0;
  while (dirent* e = readdir(d))
    if (e->d_name[0] != '.') ++n;
  closedir(d);
  return n;
}

// What glibc's fork does for the child, taken by hand for a clone(CLONE_PARENT) — which glibc has no
// wrapper for: the kernel writes the child's tid where glibc's thread descriptor keeps it (the address
// the main thread gave set_tid_address, read back with PR_GET_TID_ADDRESS) and clears it at exit, and
// the child registers the same (empty) robust-mutex list. glibc's own locks are free: the template is
// single-threaded and forks from its own loop, never inside libc.
struct CloneState {
  int* tid_addr = nullptr;
  void* robust_head = nullptr;
  size_t robust_len = 0;
};

bool read_clone_state(CloneState& cs) {
  if (prctl(PR_GET_TID_ADDRESS, &cs.tid_addr, 0, 0, 0) != 0 || !cs.tid_addr) return false;
  return syscall(SYS_get_robust_list, 0, &cs.robust_head, &cs.robust_len) == 0;
}

// A child of the launcher (CLONE_PARENT), a copy of the template: 0 in the child.
pid_t clone_sibling(const CloneState& cs) {
  long pid = syscall(SYS_clone, CLONE_PARENT | CLONE_CHILD_SETTID | CLONE_CHILD_CLEARTID | SIGCHLD, nullptr,
                     nullptr, cs.tid_addr, nullptr);
  if (pid == 0) syscall(SYS_set_robust_list, cs.robust_head, cs.robust_len);
  return static_cast<pid_t>(pid);
}

// Take the rank's identity (the command and its descriptors). Exits (127) when it cannot.
void become_rank(const ForkCommand& cmd, const int* fds, pid_t launcher) {
  setpgid(0, 0);  // the launcher does it too, first come first served
  if (getppid() != launcher) _exit(127);

  util::reset_launcher_signals();

  // Descriptors: out, err, pmi, [ctrl], [in]. Received ones are >= 3 (0-2 are the template's).
  int k = 0;
  const int out = fds[k++], err = fds[k++], pmi = fds[k++];
  const int ctrl = cmd.has_ctrl ? fds[k++] : -1;
  const int in = cmd.has_stdin ? fds[k++] : -1;
  if ((in >= 0 && dup2(in, 0) < 0) || dup2(out, 1) < 0 || dup2(err, 2) < 0) _exit(127);
  util::keep_only_fds(pmi, ctrl);  // as a fresh rank's: open across a later exec
  util::bind_to_cpu(cmd.cpu);

  std::vector<std::string> env = cmd.env;
  place_channel_fds(env, pmi, ctrl);
  char** envp = static_cast<char**>(std::calloc(env.size() + 1, sizeof(char*)));
  if (!envp) _exit(127);
  for (std::size_t i = 0; i < env.size(); ++i)
    if (!(envp[i] = strdup(env[i].c_str()))) _exit(127);
  environ = envp;  // the program's main(argc, argv, envp) gets this one (glibc passes __environ)
}

// A waiting child: reads commands until one can be carried out, answers "pid=" and tells the template
// (`taken`) that it is gone, then returns as the rank.
void wait_for_command(int fd, int taken, int template_alive, pid_t launcher) {
  std::string buf(kTemplateMaxMessage, '\0');
  for (;;) {
    // The template's death (end of file on `template_alive`) ends a child still waiting: a template killed
    // means fork+exec from then on, not one more rank from its orphan.
    pollfd p[2] = {{fd, POLLIN, 0}, {template_alive, POLLIN, 0}};
    if (::poll(p, 2, -1) < 0) {
      if (errno == EINTR) continue;
      _exit(0);
    }
    if (p[1].revents != 0 && p[0].revents == 0) _exit(0);
    iovec iov{buf.data(), buf.size()};
    alignas(cmsghdr) char cbuf[CMSG_SPACE(sizeof(int) * 5)];
    msghdr mh{};
    mh.msg_iov = &iov;
    mh.msg_iovlen = 1;
    mh.msg_control = cbuf;
    mh.msg_controllen = sizeof cbuf;
    ssize_t n = ::recvmsg(fd, &mh, MSG_CMSG_CLOEXEC | MSG_DONTWAIT);
    if (n < 0 && (errno == EINTR || errno == EAGAIN)) continue;
    if (n <= 0) _exit(0);  // the launcher closed its end: the job is over
    int fds[5] = {-1, -1, -1, -1, -1};
    int nfds = 0;
    for (cmsghdr* c = CMSG_FIRSTHDR(&mh); c; c = CMSG_NXTHDR(&mh, c))
      if (c->cmsg_level == SOL_SOCKET && c->cmsg_type == SCM_RIGHTS) {
        int got = static_cast<int>((c->cmsg_len - CMSG_LEN(0)) / sizeof(int));
        for (int i = 0; i < got; ++i) {
          int f;
          std::memcpy(&f, CMSG_DATA(c) + i * sizeof(int), sizeof(int));
          if (nfds < 5) fds[nfds++] = f;
          else ::close(f);
        }
      }
    auto cmd = decode_fork(std::string_view(buf.data(), static_cast<std::size_t>(n)));
    if (!cmd.ok() || (mh.msg_flags & (MSG_TRUNC | MSG_CTRUNC)) || nfds != cmd.value().fd_count()) {
      send_text(fd, "err=" + (cmd.ok() ? std::string("wrong descriptors or a truncated command")
                                       : cmd.status().message()));
      for (int i = 0; i < nfds; ++i) ::close(fds[i]);
      continue;
    }
    send_text(fd, "pid=" + std::to_string(getpid()));
    (void)!::write(taken, "t", 1);
    become_rank(cmd.value(), fds, launcher);
    return;
  }
}

}  // namespace

void serve_as_template(int fd) {
  const pid_t launcher = getppid();
  fcntl(fd, F_SETFD, FD_CLOEXEC);
  // A copy of a multi-threaded process holds one thread: a library that started threads before libmpi's
  // constructor makes this process unfit.
  CloneState cs;
  if (thread_count() != 1) {
    send_text(fd, "refused why=more-than-one-thread");
    _exit(0);
  }
  if (!read_clone_state(cs)) {
    send_text(fd, "refused why=no-PR_GET_TID_ADDRESS");
    _exit(0);
  }
  // One child waits for a command at any time; when it takes one, the next is made. `alive`: the template
  // holds the write end for as long as it lives; the children watch the read end.
  int alive[2];
  if (pipe2(alive, O_CLOEXEC) != 0) {
    send_text(fd, "refused why=no-pipe");
    _exit(0);
  }
  bool ready_sent = false;
  int lost = 0;  // waiting children that ended without a command (killed): after 3, give up
  for (;;) {
    int taken[2];
    if (pipe2(taken, O_CLOEXEC) != 0) _exit(0);
    pid_t c = clone_sibling(cs);
    if (c == 0) {
      prctl(PR_SET_PDEATHSIG, SIGKILL);  // its parent is the launcher
      ::close(taken[0]);
      ::close(alive[1]);
      wait_for_command(fd, taken[1], alive[0], launcher);
      return;  // the program's start-up goes on, as the rank
    }
    ::close(taken[1]);
    if (c < 0) _exit(0);  // the launcher sees the template end: fork+exec from now on
    if (!ready_sent) {
      send_text(fd, "ready pid=" + std::to_string(getpid()));
      ready_sent = true;
    }
    char t;
    ssize_t got;
    while ((got = ::read(taken[0], &t, 1)) < 0 && errno == EINTR) {
    }
    ::close(taken[0]);  // taken, or it died: make the next
    if (got != 1 && ++lost >= 3) _exit(0);
  }
}

}  // namespace ftmpi::reinit
