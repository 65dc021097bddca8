#include "models/reinit/life_lock.h"

#include <dirent.h>
#include <fcntl.h>
#include <sched.h>
#include <linux/futex.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>

#include "util/futex.h"

namespace ftmpi::reinit {

namespace {
constexpr unsigned kPfExiting = 0x4;  // include/linux/sched.h: PF_EXITING
constexpr int kPollMs = 100;          // how often a waiting watcher looks at `stop`

void futex_wait(std::atomic<std::uint32_t>* w, std::uint32_t seen, int ms) {
  timespec ts{ms / 1000, (ms % 1000) * 1000000L};
  util::futex(w, FUTEX_WAIT, seen, &ts);
}
void futex_wake_all(std::atomic<std::uint32_t>* w) { util::futex(w, FUTEX_WAKE, 0x7fffffff, nullptr); }

// Fields 3.. of a /proc stat file (after the command name's closing parenthesis), or false.
bool read_stat(const char* path, unsigned long* flags, int* state, int* exit_code) {
  int fd = ::open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0) return false;
  char buf[1024];
  ssize_t n = ::read(fd, buf, sizeof buf - 1);
  ::close(fd);
  if (n <= 0) return false;
  buf[n] = '\0';
  const char* p = std::strrchr(buf, ')');
  if (!p) return false;
  ++p;
  // field 3 = state, 9 = flags, 52 = exit_code
  int field = 2;
  *exit_code = -1;
  while (*p) {
    while (*p == ' ') ++p;
    if (!*p) break;
    ++field;
    if (field == 3) *state = *p;
    else if (field == 9) *flags = std::strtoul(p, nullptr, 10);
    else if (field == 52) *exit_code = std::atoi(p);
    while (*p && *p != ' ') ++p;
  }
  return field >= 9;
}
}  // namespace

bool life_lock_enabled() {
  const char* v = std::getenv("FTMPI_REINIT_LIFE_LOCK");
  return !(v && std::strcmp(v, "0") == 0);
}

bool init_life_slot(LifeSlot& s) {
  pthread_mutexattr_t a;
  if (pthread_mutexattr_init(&a) != 0) return false;
  bool ok = pthread_mutexattr_setpshared(&a, PTHREAD_PROCESS_SHARED) == 0 &&
            pthread_mutexattr_setrobust(&a, PTHREAD_MUTEX_ROBUST) == 0 && pthread_mutex_init(&s.mu, &a) == 0;
  pthread_mutexattr_destroy(&a);
  s.gen.store(0);
  s.pid.store(0);
  s.tid.store(0);
  return ok;
}

bool hold_life(LifeSlot& s) {
  int rc = pthread_mutex_lock(&s.mu);
  if (rc == EOWNERDEAD) rc = pthread_mutex_consistent(&s.mu);  // the previous holder died: the lock is ours
  if (rc != 0) return false;
  s.pid.store(static_cast<std::int32_t>(::getpid()));
  s.tid.store(static_cast<std::int32_t>(::syscall(SYS_gettid)));
  s.gen.fetch_add(1);
  futex_wake_all(&s.gen);
  return true;
}

bool release_life(LifeSlot& s) {
  const std::int32_t pid = s.pid.exchange(0);
  if (pthread_mutex_unlock(&s.mu) == 0) return true;
  s.pid.store(pid);  // not the holder thread: still held
  return false;
}

LifeEnd watch_life(LifeSlot& s, std::uint32_t* seen, pid_t* pid, pid_t* tid, const std::atomic<bool>& stop) {
  // A holder newer than the last one watched.
  for (;;) {
    if (stop.load()) return LifeEnd::stopped;
    const std::uint32_t g = s.gen.load();
    if (g != *seen) {
      *seen = g;
      break;
    }
    futex_wait(&s.gen, g, kPollMs);
  }
  for (;;) {
    if (stop.load()) return LifeEnd::stopped;
    timespec until{};
    clock_gettime(CLOCK_REALTIME, &until);
    until.tv_nsec += kPollMs * 1000000L;
    if (until.tv_nsec >= 1000000000L) {
      until.tv_sec += 1;
      until.tv_nsec -= 1000000000L;
    }
    const int rc = pthread_mutex_timedlock(&s.mu, &until);
    if (rc == ETIMEDOUT) continue;
    if (rc == EOWNERDEAD) {
      // Nobody else can lock it while we hold it: pid/tid are the dead holder's (or 0 if it died before
      // writing them, or it had released: then nothing is reported).
      *pid = s.pid.load();
      *tid = s.tid.load();
      s.pid.store(0);
      pthread_mutex_consistent(&s.mu);
      pthread_mutex_unlock(&s.mu);
      return *pid > 0 ? LifeEnd::died : LifeEnd::released;
    }
    if (rc == 0) pthread_mutex_unlock(&s.mu);
    return LifeEnd::released;  // unlocked by its holder (or the lock is unusable: stop watching this holder)
  }
}

bool thread_exit_status(pid_t pid, pid_t tid, int* wait_status) {
  char path[64];
  unsigned long flags = 0;
  int state = 0, code = -1;
  std::snprintf(path, sizeof path, "/proc/%d/task/%d/stat", static_cast<int>(pid), static_cast<int>(tid));
  if (!read_stat(path, &flags, &state, &code)) {
    std::snprintf(path, sizeof path, "/proc/%d/stat", static_cast<int>(pid));  // the thread is gone already
    if (!read_stat(path, &flags, &state, &code)) return false;
  }
  const bool exiting = (flags & kPfExiting) != 0 || state == 'Z' || state == 'X';
  if (!exiting || code < 0) return false;
  *wait_status = code;
  return true;
}

int demote_exit(pid_t pid) {
  char path[64];
  std::snprintf(path, sizeof path, "/proc/%d/task", static_cast<int>(pid));
  DIR* d = ::opendir(path);
  if (!d) return 0;
  int changed = 0;
  const sched_param idle{};
  while (const dirent* e = ::readdir(d)) {
    const int tid = std::atoi(e->d_name);
    if (tid <= 0) continue;
    char stat[96];
    std::snprintf(stat, sizeof stat, "/proc/%d/task/%d/stat", static_cast<int>(pid), tid);
    unsigned long flags = 0;
    int state = 0, code = -1;
    if (!read_stat(stat, &flags, &state, &code) || (flags & kPfExiting) == 0) continue;  // only an exiting thread
    if (::sched_setscheduler(static_cast<pid_t>(tid), SCHED_IDLE, &idle) == 0) ++changed;
  }
  ::closedir(d);
  return changed;
}

}  // namespace ftmpi::reinit
