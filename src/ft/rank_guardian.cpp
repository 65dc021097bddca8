// The guardian of a rank alone on its host: a clone of the rank that runs only system calls.
#include "ft/rank_guardian.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <string>

#include "ft/detector_datagram.h"
#include "ft/ring_detector.h"
#include "util/mono_clock.h"

namespace ftmpi::ft {
namespace {

// Everything below runs in the guardian: a copy of a possibly multi-threaded process, so async-signal-safe
// system calls only (no allocation, no stdio, no locks).

void put(char*& p, const char* s) {
  while (*s) *p++ = *s++;
}

void put_int(char*& p, long v) {
  char t[24];
  int k = 0;
  unsigned long u = v < 0 ? static_cast<unsigned long>(-v) : static_cast<unsigned long>(v);
  do {
    t[k++] = static_cast<char>('0' + u % 10);
    u /= 10;
  } while (u);
  if (v < 0) *p++ = '-';
  while (k) *p++ = t[--k];
}

// State T or t in /proc/<pid>/stat (stopped by a signal or a tracer).
bool stopped(long pid) {
  char path[48], *p = path;
  put(p, "/proc/");
  put_int(p, pid);
  put(p, "/stat");
  *p = '\0';
  int fd = ::open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0) return false;
  char buf[512];
  ssize_t n = ::read(fd, buf, sizeof buf - 1);
  ::close(fd);
  if (n <= 0) return false;
  buf[n] = '\0';
  const char* close_paren = nullptr;  // the command name may hold ')' and spaces: the last one counts
  for (ssize_t i = 0; i < n; ++i)
    if (buf[i] == ')') close_paren = buf + i;
  return close_paren && close_paren[1] == ' ' && (close_paren[2] == 'T' || close_paren[2] == 't');
}

void close_all_but(int a, int b) {
  const int lo = std::min(a, b), hi = std::max(a, b);
  if (lo > 3) syscall(SYS_close_range, 3u, static_cast<unsigned>(lo - 1), 0u);
  if (hi - lo > 1) syscall(SYS_close_range, static_cast<unsigned>(lo + 1), static_cast<unsigned>(hi - 1), 0u);
  syscall(SYS_close_range, static_cast<unsigned>(hi + 1), ~0u, 0u);
}

[[noreturn]] void guard(int sock, int pidfd, long pid, std::uint32_t tag, int me, int n, const unsigned char* view,
                        double grace_ms) {
  for (int s = 1; s < NSIG; ++s) {
    if (s == SIGKILL || s == SIGSTOP) continue;
    struct sigaction sa {};
    sa.sa_handler = SIG_DFL;
    ::sigaction(s, &sa, nullptr);
  }
  sigset_t none;
  sigemptyset(&none);
  ::sigprocmask(SIG_SETMASK, &none, nullptr);
  // Keep stderr (one line when it acts); let go of everything else of the rank's: its connections must
  // close when it dies, and the launcher must not wait on its stdout.
  int null = ::open("/dev/null", O_RDWR | O_CLOEXEC);
  if (null >= 0) {
    ::dup2(null, 0);
    ::dup2(null, 1);
  }
  if (sock <= 2 || pidfd <= 2) _exit(1);  // cannot happen: 0-2 are taken
  close_all_but(sock, pidfd);
  ::prctl(PR_SET_NAME, "ftmpi-guard", 0, 0, 0);

  bool armed = false;
  double deadline = 0;
  int by = -1;
  for (;;) {
    int timeout = -1;
    if (armed) timeout = static_cast<int>(std::clamp(deadline - util::mono_ms(), 0.0, 20.0)) + 1;  // also see a stop
    pollfd fds[2] = {{pidfd, POLLIN, 0}, {sock, POLLIN, 0}};
    int r = ::poll(fds, 2, timeout);
    if (r < 0 && errno != EINTR) _exit(1);
    if (fds[0].revents) _exit(0);  // the rank ended
    for (;;) {
      DetectorDatagram d;
      ssize_t got = ::recv(sock, &d, sizeof d, MSG_DONTWAIT);
      if (got < 0) break;
      if (got != sizeof d || d.magic != kDetectorMagic || d.tag != tag || d.from < 0 || d.from >= n || d.from == me)
        continue;
      const bool fence = d.kind == static_cast<std::uint8_t>(DetectorMsg::fence) ||
                         (d.kind == static_cast<std::uint8_t>(DetectorMsg::suspect) && d.about == me);
      // Obeyed exactly when the rank would: a notice from a rank out in its view counts for nothing.
      if (!fence || armed || __atomic_load_n(&view[d.from], __ATOMIC_ACQUIRE)) continue;
      armed = true;
      by = d.from;
      deadline = util::mono_ms() + grace_ms;
    }
    if (!armed) continue;
    const bool is_stopped = stopped(pid);
    if (!is_stopped && util::mono_ms() < deadline) continue;
    char line[256], *p = line;
    put(p, "ftmpi: rank ");
    put_int(p, me);
    put(p, ": declared failed by rank ");
    put_int(p, by);
    put(p, is_stopped ? " while stopped" : " and still running a detector timeout later");
    put(p, "; killed by its guardian (alone on its host, no ftmpi daemon)\n");
    ssize_t w = ::write(2, line, static_cast<size_t>(p - line));
    (void)w;
    syscall(SYS_pidfd_send_signal, pidfd, SIGKILL, nullptr, 0);
    pollfd end{pidfd, POLLIN, 0};
    ::poll(&end, 1, 5000);
    _exit(0);
  }
}

}  // namespace

Result<std::unique_ptr<RankGuardian>> RankGuardian::create() {
  auto udp = bind_any_udp("guardian");
  if (!udp.ok()) return udp.status();
  return std::unique_ptr<RankGuardian>(new RankGuardian(udp.value().fd, udp.value().port));
}

RankGuardian::~RankGuardian() {
  stop();
  if (view_) ::munmap(view_, view_len_);
  if (fd_ >= 0) ::close(fd_);
}

Status RankGuardian::start(std::uint32_t tag, int me, int n, double grace_ms) {
  if (pid_ > 0 || fd_ < 0) return Status(Errc::other, "guardian: started twice");
  n_ = n;
  view_len_ = static_cast<std::size_t>(std::max(n, 1));
  void* v = ::mmap(nullptr, view_len_, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
  if (v == MAP_FAILED) return Status(Errc::other, std::string("guardian: mmap: ") + std::strerror(errno));
  view_ = static_cast<unsigned char*>(v);
  const long pid = static_cast<long>(::getpid());
  int pidfd = static_cast<int>(syscall(SYS_pidfd_open, pid, 0));
  if (pidfd < 0) return Status(Errc::other, std::string("guardian: pidfd_open: ") + std::strerror(errno));
  // A fork that sends no SIGCHLD (exit signal 0): the application's wait(-1) never sees it.
  long c = syscall(SYS_clone, 0UL, nullptr, nullptr, nullptr, nullptr);
  if (c == 0) guard(fd_, pidfd, pid, tag, me, n, view_, grace_ms);
  const int err = errno;
  ::close(pidfd);
  ::close(fd_);  // the guardian's now
  fd_ = -1;
  if (c < 0) return Status(Errc::other, std::string("guardian: clone: ") + std::strerror(err));
  pid_ = static_cast<int>(c);
  return Status::Ok();
}

void RankGuardian::mark_out(int r) {
  if (view_ && r >= 0 && r < n_) __atomic_store_n(&view_[r], 1, __ATOMIC_RELEASE);
}

void RankGuardian::stop() {
  int pid = __atomic_exchange_n(&pid_, -1, __ATOMIC_ACQ_REL);
  if (pid <= 0) return;
  ::kill(pid, SIGKILL);
  while (::waitpid(pid, nullptr, __WALL) < 0 && errno == EINTR) {
  }
}

}  // namespace ftmpi::ft
