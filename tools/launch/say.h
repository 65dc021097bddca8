// The launcher's own diagnostics on stderr ("mpiexec: ..." or, in the host daemon, "ftmpid[host]: ...").
#pragma once

namespace ftmpi::mpiexec {

// One line on stderr, "mpiexec: ..." plus '\n', in a single write (never interleaved with rank output).
void say(const char* fmt, ...) __attribute__((format(printf, 1, 2)));
// The prefix say() puts before ": " (default "mpiexec"); set once at program start.
void set_say_name(const char* name);

}  // namespace ftmpi::mpiexec
