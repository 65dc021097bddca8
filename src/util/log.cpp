#include "util/log.h"

#include <unistd.h>

#include <atomic>
#include <cstdarg>
#include <cstdlib>
#include <cstring>

namespace ftmpi::log {
namespace {
std::atomic<int> g_rank{-1};
int g_debug = -1;

void emit(const char* level, const char* fmt, va_list ap) {
  char line[1024];
  int n = 0;
  int r = g_rank.load(std::memory_order_relaxed);
  if (r >= 0)
    n = snprintf(line, sizeof line, "ftmpi[%d] %s: ", r, level);
  else
    n = snprintf(line, sizeof line, "ftmpi %s: ", level);
  if (n < 0) return;
  int m = vsnprintf(line + n, sizeof line - n - 1, fmt, ap);
  if (m < 0) return;
  size_t len = strnlen(line, sizeof line - 2);
  line[len++] = '\n';
  ssize_t w = ::write(2, line, len);
  (void)w;
}
}  // namespace

bool debug_enabled() {
  if (g_debug < 0) {
    const char* e = getenv("FTMPI_DEBUG");
    g_debug = (e && *e && strcmp(e, "0") != 0) ? 1 : 0;
  }
  return g_debug == 1;
}
void set_rank(int rank) { g_rank.store(rank, std::memory_order_relaxed); }

void debug(const char* fmt, ...) {
  if (!debug_enabled()) return;
  va_list ap;
  va_start(ap, fmt);
  emit("debug", fmt, ap);
  va_end(ap);
}
void warn(const char* fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  emit("warning", fmt, ap);
  va_end(ap);
}
void error(const char* fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  emit("error", fmt, ap);
  va_end(ap);
}
}  // namespace ftmpi::log
