#include "silence_judge.h"

#include <dirent.h>
#include <fcntl.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace ftmpi::mpiexec {

Silence judge_silence(std::chrono::milliseconds silence, std::chrono::milliseconds timeout,
                      const std::optional<ThreadSample>& sample, bool service, unsigned long long cpu0) {
  if (!sample) return Silence::hung;  // gone: the caller's reaping tells how
  if (silence >= timeout * kStarvedTimeouts) return Silence::hung;
  const char s = sample->state;
  if (s != 'R' && s != 'D') return Silence::hung;  // stopped, asleep elsewhere, exited
  if (service && sample->cpu_ticks > cpu0 + kSpinTicks) return Silence::hung;  // runs, does not heartbeat
  return Silence::starved;
}

namespace {

// Reads a small /proc file into buf (NUL-terminated); false when it does not exist.
bool read_small(const char* path, char* buf, std::size_t size) {
  int fd = ::open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0) return false;
  ssize_t n = ::read(fd, buf, size - 1);
  ::close(fd);
  if (n <= 0) return false;
  buf[n] = '\0';
  return true;
}

}  // namespace

std::optional<ThreadSample> read_thread_sample(pid_t pid, pid_t tid) {
  char path[96];
  if (tid > 0)
    snprintf(path, sizeof path, "/proc/%d/task/%d/stat", static_cast<int>(pid), static_cast<int>(tid));
  else
    snprintf(path, sizeof path, "/proc/%d/stat", static_cast<int>(pid));
  char buf[1024];
  if (!read_small(path, buf, sizeof buf)) return std::nullopt;
  // "tid (comm) state ppid ... utime stime ...": comm may hold spaces and ')'. After ')' the words are
  // state (1st), ..., utime (12th), stime (13th).
  const char* q = strrchr(buf, ')');
  if (!q) return std::nullopt;
  ++q;
  ThreadSample st;
  for (int word = 0; word < 13; ++word) {
    while (*q == ' ') ++q;
    if (!*q) return std::nullopt;
    if (word == 0) st.state = *q;
    if (word == 11 || word == 12) st.cpu_ticks += strtoull(q, nullptr, 10);
    while (*q && *q != ' ') ++q;
  }
  return st;
}

pid_t find_service_thread(pid_t pid) {
  char path[64];
  snprintf(path, sizeof path, "/proc/%d/task", static_cast<int>(pid));
  DIR* d = opendir(path);
  if (!d) return -1;
  pid_t found = -1;
  while (dirent* e = readdir(d)) {
    if (e->d_name[0] < '0' || e->d_name[0] > '9') continue;
    char comm_path[320], comm[64];
    snprintf(comm_path, sizeof comm_path, "/proc/%d/task/%s/comm", static_cast<int>(pid), e->d_name);
    if (!read_small(comm_path, comm, sizeof comm)) continue;
    comm[strcspn(comm, "\n")] = '\0';
    if (strcmp(comm, kServiceThreadName) == 0) {
      found = static_cast<pid_t>(atoi(e->d_name));
      break;
    }
  }
  closedir(d);
  return found;
}

SilenceCheck::SilenceCheck(SilenceWatch& w, pid_t pid) : w_(w) {
  if (w_.service_tid == 0) w_.service_tid = find_service_thread(pid);
  if (w_.service_tid > 0) {
    sample_ = read_thread_sample(pid, w_.service_tid);
    // The thread may be gone while the process lives on (it stopped serving): judge the process then.
    if (!sample_) {
      if (auto ps = read_thread_sample(pid, 0)) sample_ = ThreadSample{'S', ps->cpu_ticks};
    }
  } else {
    sample_ = read_thread_sample(pid, 0);
  }
}

Silence SilenceCheck::verdict(std::chrono::milliseconds silence, std::chrono::milliseconds timeout) {
  if (!w_.judged && sample_) {
    w_.judged = true;
    w_.cpu0 = sample_->cpu_ticks;
  }
  return judge_silence(silence, timeout, sample_, w_.service_tid > 0, w_.cpu0);
}

}  // namespace ftmpi::mpiexec
