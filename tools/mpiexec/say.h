// mpiexec's own diagnostics on stderr.
#pragma once

namespace ftmpi::mpiexec {

// One line on stderr, "mpiexec: ..." plus '\n', in a single write (never interleaved with rank output).
void say(const char* fmt, ...) __attribute__((format(printf, 1, 2)));

}  // namespace ftmpi::mpiexec
