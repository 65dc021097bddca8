// Fault injection at the Nth call of an MPI function: mpiexec --inject rank=R,at=MPI_Func:N exports
// FTMPI_INJECT_AT=MPI_Func:N to rank R, which SIGKILLs itself when it enters MPI_Func for the Nth time.
#include "api/inject.h"

#include <signal.h>
#include <unistd.h>

#include <cstdlib>
#include <cstring>
#include <string>

namespace ftmpi::api {

InjectPoint g_inject;

void arm_injection_from_env() {
  const char* spec = std::getenv("FTMPI_INJECT_AT");
  if (!spec) return;
  const char* colon = std::strrchr(spec, ':');
  if (!colon || colon == spec) return;
  long n = std::atol(colon + 1);
  if (n <= 0) return;
  g_inject.function.assign(spec, static_cast<std::size_t>(colon - spec));
  g_inject.remaining = n;
  g_inject.armed = true;
}

void injection_check(const char* fn) {
  if (g_inject.function != fn) return;
  if (--g_inject.remaining > 0) return;
  g_inject.armed = false;
  kill(getpid(), SIGKILL);
}

}  // namespace ftmpi::api
