// make_bootstrap(): the one place that decides how a rank finds its job (see bootstrap.h).
#include <cstdlib>
#include <cstring>

#include "boot/bootstrap.h"
#include "boot/pmi2_client.h"
#include "boot/pmi_client.h"
#include "boot/singleton.h"

namespace ftmpi::boot {

namespace {
// PMI-2 or PMI-1 on the launcher's socket. FTMPI_PMI=1|2 decides when set; otherwise PMI-2 when the
// launcher exported PMI_JOBID (Slurm's `srun --mpi=pmi2` does, as MPICH's PMI-2 design says a PMI-2
// process manager should) or PMI_VERSION=2; PMI-1 otherwise (Hydra by default, ftmpi's mpiexec).
Result<int> wire_version() {
  if (const char* v = getenv("FTMPI_PMI"); v && *v) {
    if (strcmp(v, "1") == 0) return 1;
    if (strcmp(v, "2") == 0) return 2;
    return Status(Errc::other, std::string("FTMPI_PMI='") + v + "': expected 1 or 2");
  }
  if (const char* v = getenv("PMI_VERSION"); v && strcmp(v, "2") == 0) return 2;
  if (const char* j = getenv("PMI_JOBID"); j && *j) return 2;
  return 1;
}
}  // namespace

Result<std::unique_ptr<Bootstrap>> make_bootstrap() {
  if (getenv("PMI_FD") || getenv("PMI_PORT")) {
    auto version = wire_version();
    if (!version.ok()) return version.status();
    if (version.value() == 2) {
      auto c = Pmi2Client::connect_from_env();
      if (!c.ok()) return c.status();
      return std::unique_ptr<Bootstrap>(std::move(c.value()));
    }
    auto c = PmiClient::connect_from_env();
    if (!c.ok()) return c.status();
    return std::unique_ptr<Bootstrap>(std::move(c.value()));
  }
  if (getenv("PMI_RANK") || getenv("PMI_SIZE") || getenv("PMI_ID"))
    return Status(Errc::other, "PMI_RANK/PMI_SIZE/PMI_ID set without PMI_FD or PMI_PORT: inconsistent launch "
                               "environment");
  return std::unique_ptr<Bootstrap>(std::make_unique<SingletonBootstrap>());
}

}  // namespace ftmpi::boot
