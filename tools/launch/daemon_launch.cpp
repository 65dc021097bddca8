#include "daemon_launch.h"

#include <fcntl.h>
#include <signal.h>
#include <unistd.h>

#include <cerrno>
#include <climits>
#include <cstring>

namespace ftmpi::mpiexec {

std::vector<std::string> DaemonLaunch::command(int node, const std::string& host, bool local,
                                               const std::string& parent_ep,
                                               const std::string& ancestors) const {
  std::vector<std::string> cmd;
  if (!local) {
    cmd = split_words(agent);
    cmd.push_back(host);
  }
  for (std::string w : {ftmpid, std::string("--node"), std::to_string(node), std::string("--parent"), parent_ep,
                        std::string("--key"), key, std::string("--fanout"), std::to_string(shape.fanout),
                        std::string("--nodes"), std::to_string(shape.nodes), std::string("--period"),
                        std::to_string(period_ms), std::string("--timeout"), std::to_string(timeout_ms),
                        std::string("--startup"), std::to_string(startup_ms), std::string("--ancestors"),
                        ancestors})
    cmd.push_back(std::move(w));
  return cmd;
}

Result<pid_t> spawn_agent(const std::vector<std::string>& cmd) {
  if (cmd.empty()) return Status(Errc::arg, "empty command");
  std::vector<char*> argv;
  for (const std::string& w : cmd) argv.push_back(const_cast<char*>(w.c_str()));
  argv.push_back(nullptr);
  pid_t pid = fork();
  if (pid < 0) return Status(Errc::other, std::string("fork failed: ") + strerror(errno));
  if (pid == 0) {
    // A session of its own, as sshd gives a remote command (and as Hydra does for its proxies): terminal
    // signals (Ctrl-C, hang-up) reach mpiexec only, which ends the job in order; and with the kernel's
    // autogroup scheduling each host's daemon and ranks are one group with a fair share of a busy
    // machine, instead of all hosts sharing the caller's (3x slower start-up measured under load,
    // docs/performance.md). Only the child may call setsid: a parent's setpgid() racing with it makes
    // the child a group leader, for which setsid() fails.
    setsid();
    sigset_t none;
    sigemptyset(&none);
    sigprocmask(SIG_SETMASK, &none, nullptr);
    signal(SIGPIPE, SIG_DFL);
    int devnull = open("/dev/null", O_RDONLY);
    if (devnull >= 0) dup2(devnull, 0);
    execvp(argv[0], argv.data());
    std::string msg = "cannot run '" + cmd[0] + "': " + strerror(errno) + "\n";
    (void)!::write(2, msg.data(), msg.size());
    _exit(127);
  }
  return pid;
}

std::vector<std::string> split_words(const std::string& s) {
  std::vector<std::string> out;
  std::size_t p = 0;
  while (p < s.size()) {
    std::size_t b = s.find_first_not_of(" \t", p);
    if (b == std::string::npos) break;
    std::size_t e = s.find_first_of(" \t", b);
    if (e == std::string::npos) e = s.size();
    out.push_back(s.substr(b, e - b));
    p = e;
  }
  return out;
}

std::string beside_self(const std::string& name) {
  char self[PATH_MAX];
  ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
  std::string dir = n > 0 ? std::string(self, static_cast<std::size_t>(n)) : std::string();
  std::size_t slash = dir.rfind('/');
  dir = slash == std::string::npos ? std::string(".") : dir.substr(0, slash);
  return dir + "/" + name;
}

}  // namespace ftmpi::mpiexec
