#include "say.h"

#include <unistd.h>

#include <cstdarg>
#include <cstdio>
#include <cstring>

namespace ftmpi::mpiexec {

namespace {
char g_name[128] = "mpiexec";
}

void set_say_name(const char* name) { snprintf(g_name, sizeof g_name, "%s", name); }

void say(const char* fmt, ...) {
  char line[4096];
  int n = snprintf(line, sizeof line, "%s: ", g_name);
  va_list ap;
  va_start(ap, fmt);
  int m = vsnprintf(line + n, sizeof line - static_cast<std::size_t>(n) - 1, fmt, ap);
  va_end(ap);
  if (m < 0) return;
  std::size_t len = strnlen(line, sizeof line - 2);
  line[len++] = '\n';
  (void)!::write(2, line, len);
}

}  // namespace ftmpi::mpiexec
