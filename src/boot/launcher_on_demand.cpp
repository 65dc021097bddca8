#include "boot/launcher_on_demand.h"

#include <dlfcn.h>
#include <fcntl.h>
#include <limits.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iterator>

#include "util/child_setup.h"

extern char** environ;

#ifndef FTMPI_LIB_TO_BIN
#define FTMPI_LIB_TO_BIN "../bin"
#endif

namespace ftmpi::boot {
namespace {

bool executable_file(const std::string& p) {
  struct stat st {};
  return ::stat(p.c_str(), &st) == 0 && S_ISREG(st.st_mode) && ::access(p.c_str(), X_OK) == 0;
}

std::string dir_of(const std::string& p) {
  std::size_t slash = p.rfind('/');
  if (slash == std::string::npos) return ".";
  return slash == 0 ? "/" : p.substr(0, slash);
}

// mpiexec's end of the socket is this descriptor in mpiexec (named in its --singleton PID:FD).
constexpr int kMpiexecFd = 3;
// Descriptors are parked at or above this one in the child before they are put in place.
constexpr int kParkFd = 100;

}  // namespace

Result<std::string> find_mpiexec() {
  if (const char* e = std::getenv("FTMPI_MPIEXEC"); e && *e) {
    if (executable_file(e)) return std::string(e);
    return Status(Errc::unsupported, std::string("FTMPI_MPIEXEC=") + e +
                                         " is not an executable file (it must name ftmpi's mpiexec)");
  }
  std::vector<std::string> tried;
  Dl_info me{};
  if (dladdr(reinterpret_cast<void*>(&find_mpiexec), &me) && me.dli_fname && *me.dli_fname) {
    std::vector<std::string> dirs{dir_of(me.dli_fname)};
    char real[PATH_MAX];
    if (realpath(me.dli_fname, real)) dirs.push_back(dir_of(real));  // a symlink's target directory too
    for (const std::string& d : dirs)
      for (const char* rel : {FTMPI_LIB_TO_BIN, "../bin"}) {
        std::string c = d + "/" + rel + "/mpiexec";
        if (std::find(tried.begin(), tried.end(), c) != tried.end()) continue;
        tried.push_back(c);
        if (executable_file(c)) return realpath(c.c_str(), real) ? std::string(real) : c;
      }
  }
  std::string list;
  for (const std::string& t : tried) list += (list.empty() ? "" : ", ") + t;
  return Status(Errc::unsupported,
                "ftmpi's mpiexec was not found" +
                    (list.empty() ? std::string() : " (looked for " + list + ")") +
                    "; set FTMPI_MPIEXEC to its path, or start the program with mpiexec -n 1");
}

std::vector<std::string> own_command_line() {
  std::vector<std::string> out;
  char exe[PATH_MAX];
  ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
  std::ifstream in("/proc/self/cmdline", std::ios::binary);
  std::string all((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  std::size_t start = 0;
  while (start < all.size()) {
    std::size_t end = all.find('\0', start);
    if (end == std::string::npos) end = all.size();
    out.push_back(all.substr(start, end - start));
    start = end + 1;
  }
  if (n > 0) {
    exe[n] = '\0';
    if (out.empty()) out.emplace_back(exe);
    else out[0] = exe;
  }
  if (out.empty()) out.emplace_back("singleton");
  return out;
}

Result<int> start_mpiexec(const std::string& mpiexec, const std::string& secret, const std::vector<std::string>& program) {
  // Everything the child needs is built now: after fork only async-signal-safe calls.
  std::vector<std::string> args{mpiexec, "--singleton", std::to_string(getpid()) + ":" + std::to_string(kMpiexecFd), "--"};
  args.insert(args.end(), program.begin(), program.end());
  std::vector<std::string> env;
  for (char** e = environ; e && *e; ++e)
    if (std::strncmp(*e, "FTMPI_DPM_SECRET=", 17) != 0) env.emplace_back(*e);
  env.push_back("FTMPI_DPM_SECRET=" + secret);
  std::vector<char*> argv, envp;
  for (std::string& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  for (std::string& e : env) envp.push_back(e.data());
  envp.push_back(nullptr);

  int sv[2] = {-1, -1}, errp[2] = {-1, -1};
  if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) != 0)
    return Status(Errc::unsupported, std::string("cannot start mpiexec: socketpair: ") + std::strerror(errno));
  if (pipe2(errp, O_CLOEXEC) != 0) {
    int err = errno;
    ::close(sv[0]);
    ::close(sv[1]);
    return Status(Errc::unsupported, std::string("cannot start mpiexec: pipe: ") + std::strerror(err));
  }
  const char* path = argv[0];
  pid_t mid = fork();
  if (mid == 0) {
    // The intermediate: a session of its own (no terminal signals), mpiexec as its child, then gone.
    setsid();
    pid_t p = fork();
    if (p != 0) {
      if (p < 0) {
        int err = errno;
        (void)!write(errp[1], &err, sizeof err);
      }
      _exit(0);
    }
    util::reset_launcher_signals();
    int ep = fcntl(errp[1], F_DUPFD_CLOEXEC, kParkFd);
    int s = fcntl(sv[1], F_DUPFD_CLOEXEC, kParkFd);
    int null = open("/dev/null", O_RDONLY | O_CLOEXEC);
    if (ep < 0 || s < 0 || null < 0 || dup2(null, 0) < 0 || dup2(s, kMpiexecFd) < 0) {
      int err = errno;
      (void)!write(ep >= 0 ? ep : errp[1], &err, sizeof err);
      _exit(127);
    }
    // Only 0, 1, 2, the socket and the error pipe (close-on-exec) stay.
    close_range(kMpiexecFd + 1, static_cast<unsigned>(ep) - 1, 0);
    close_range(static_cast<unsigned>(ep) + 1, ~0U, 0);
    execve(path, argv.data(), envp.data());
    int err = errno;
    (void)!write(ep, &err, sizeof err);
    _exit(127);
  }
  int fork_err = errno;
  ::close(sv[1]);
  ::close(errp[1]);
  if (mid < 0) {
    ::close(sv[0]);
    ::close(errp[0]);
    return Status(Errc::unsupported, std::string("cannot start mpiexec: fork: ") + std::strerror(fork_err));
  }
  int st = 0;
  while (waitpid(mid, &st, 0) < 0 && errno == EINTR) {
  }
  // End of file: mpiexec was executed (the pipe closed on exec). An errno: it was not.
  int err = 0;
  ssize_t n;
  do {
    n = ::read(errp[0], &err, sizeof err);
  } while (n < 0 && errno == EINTR);
  ::close(errp[0]);
  if (n == static_cast<ssize_t>(sizeof err)) {
    ::close(sv[0]);
    return Status(Errc::unsupported, "cannot start " + mpiexec + ": " + std::strerror(err));
  }
  return sv[0];
}

}  // namespace ftmpi::boot
