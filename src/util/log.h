// Minimal logging to stderr. FTMPI_DEBUG=1 in the environment enables debug lines.
#pragma once
#include <cstdio>

namespace ftmpi::log {
bool debug_enabled();
void set_rank(int rank);
// printf-style; each call writes one whole line (a single write(2)), so lines never mix.
void debug(const char* fmt, ...) __attribute__((format(printf, 1, 2)));
void warn(const char* fmt, ...) __attribute__((format(printf, 1, 2)));
void error(const char* fmt, ...) __attribute__((format(printf, 1, 2)));
}  // namespace ftmpi::log
