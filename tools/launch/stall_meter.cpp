#include "stall_meter.h"

#include <fcntl.h>
#include <unistd.h>

#include <cstdlib>

namespace ftmpi::mpiexec {

StallMeter::StallMeter() { fd_ = ::open("/proc/thread-self/schedstat", O_RDONLY | O_CLOEXEC); }

StallMeter::~StallMeter() {
  if (fd_ >= 0) ::close(fd_);
}

long long StallMeter::parse_wait_ns(const char* line) {
  char* end = nullptr;
  std::strtoull(line, &end, 10);
  if (end == line) return -1;
  const char* p = end;
  const unsigned long long wait = std::strtoull(p, &end, 10);
  if (end == p) return -1;
  return static_cast<long long>(wait);
}

std::chrono::milliseconds StallMeter::take() {
  if (fd_ < 0) return std::chrono::milliseconds(0);
  char buf[128];
  const ssize_t n = ::pread(fd_, buf, sizeof buf - 1, 0);
  if (n <= 0) return std::chrono::milliseconds(0);
  buf[n] = '\0';
  const long long now = parse_wait_ns(buf);
  if (now < 0) return std::chrono::milliseconds(0);
  const long long before = last_ns_;
  last_ns_ = now;
  if (before < 0 || now < before) return std::chrono::milliseconds(0);
  return std::chrono::milliseconds((now - before) / 1000000);
}

}  // namespace ftmpi::mpiexec
