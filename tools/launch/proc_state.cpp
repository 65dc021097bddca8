#include "proc_state.h"

#include <fcntl.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace ftmpi::mpiexec {

std::optional<ProcState> read_proc_state(pid_t pid) {
  char path[64];
  snprintf(path, sizeof path, "/proc/%d/stat", static_cast<int>(pid));
  int fd = ::open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0) return std::nullopt;
  char buf[1024];
  ssize_t n = ::read(fd, buf, sizeof buf - 1);
  ::close(fd);
  if (n <= 0) return std::nullopt;
  buf[n] = '\0';
  // "pid (comm) state ppid pgrp session tty_nr tpgid flags ...": comm may hold spaces and ')'.
  const char* p = strrchr(buf, ')');
  if (!p) return std::nullopt;
  ProcState st;
  // After ')': state ppid pgrp session tty_nr tpgid flags — the 1st and the 7th words.
  const char* q = p + 1;
  for (int word = 0; word < 7; ++word) {
    while (*q == ' ') ++q;
    if (!*q) return std::nullopt;
    if (word == 0) st.state = *q;
    if (word == 6) st.flags = static_cast<unsigned>(strtoul(q, nullptr, 10));
    while (*q && *q != ' ') ++q;
  }
  return st;
}

}  // namespace ftmpi::mpiexec
