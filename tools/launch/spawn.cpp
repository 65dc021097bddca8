#include "spawn.h"
#include "util/child_setup.h"

#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>

namespace ftmpi::mpiexec {
namespace {

bool executable_file(const std::string& p) {
  struct stat st {};
  return ::stat(p.c_str(), &st) == 0 && S_ISREG(st.st_mode) && ::access(p.c_str(), X_OK) == 0;
}

// Child side after fork: only async-signal-safe calls, then exec. Never returns.
[[noreturn]] void exec_child(const SpawnRequest& req, pid_t parent, char* const* argv, char* const* envp) {
  setpgid(0, 0);
  prctl(PR_SET_PDEATHSIG, SIGKILL);
  if (getppid() != parent) _exit(127);  // mpiexec already died

  util::reset_launcher_signals();

  int in = req.stdin_fd >= 0 ? req.stdin_fd : open("/dev/null", O_RDONLY);
  if (in < 0 || dup2(in, 0) < 0 || dup2(req.stdout_fd, 1) < 0 || dup2(req.stderr_fd, 2) < 0) _exit(127);
  // The PMI socket and the control channel must survive exec: clear their close-on-exec flags. Descriptors mpiexec itself
  // inherited (a make jobserver, a test harness's pipes) are not the rank's business: close them.
  util::keep_only_fds(req.pmi_fd, req.ctrl_fd);
  util::bind_to_cpu(req.cpu);  // best effort: a failure leaves the rank unbound
  if (!req.cwd.empty() && chdir(req.cwd.c_str()) != 0) {
    const char* m = "mpiexec: cannot change to the spawned process's working directory\n";
    (void)!write(2, m, strlen(m));
    _exit(127);
  }
  execve(req.path.c_str(), argv, envp);
  const char* msg = "mpiexec: cannot execute the program: ";
  (void)!write(2, msg, strlen(msg));
  const char* why = strerror(errno);
  (void)!write(2, why, strlen(why));
  (void)!write(2, "\n", 1);
  _exit(127);
}

}  // namespace

Result<std::string> resolve_program(const std::string& name) {
  if (name.empty()) return Status(Errc::arg, "empty program name");
  if (name.find('/') != std::string::npos) {
    struct stat st {};
    if (::stat(name.c_str(), &st) != 0) return Status(Errc::arg, "program '" + name + "' not found");
    if (!executable_file(name)) return Status(Errc::arg, "program '" + name + "' is not an executable file");
    return name;
  }
  const char* path = getenv("PATH");
  std::string dirs = path ? path : "/usr/local/bin:/usr/bin:/bin";
  std::size_t start = 0;
  for (;;) {
    std::size_t colon = dirs.find(':', start);
    std::size_t len = (colon == std::string::npos ? dirs.size() : colon) - start;
    std::string candidate;
    if (len == 0) candidate.push_back('.');
    else candidate.append(dirs, start, len);
    candidate.push_back('/');
    candidate.append(name);
    if (executable_file(candidate)) return candidate;
    if (colon == std::string::npos) break;
    start = colon + 1;
  }
  // As Open MPI's mpirun: a program not in PATH is looked for in the working directory (CMake-generated
  // test commands name programs that way).
  if (executable_file(name)) return "./" + name;
  return Status(Errc::arg, "program '" + name + "' not found in PATH or in the working directory");
}

Result<pid_t> spawn_rank(const SpawnRequest& req) {
  // Everything the child needs is allocated here, before fork.
  std::vector<char*> argv, envp;
  for (const std::string& a : req.argv) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  for (const std::string& e : req.env) envp.push_back(const_cast<char*>(e.c_str()));
  envp.push_back(nullptr);

  pid_t parent = getpid();
  pid_t pid = fork();
  if (pid < 0)
    return Status(Errc::other, std::string("fork failed: ") + strerror(errno) +
                                   (errno == EAGAIN ? " (the user's or the system's process limit is reached)"
                                    : errno == ENOMEM ? " (out of memory)" : ""));
  if (pid == 0) exec_child(req, parent, argv.data(), envp.data());
  setpgid(pid, pid);  // also in the parent, so that killpg works whoever runs first
  return pid;
}

}  // namespace ftmpi::mpiexec
