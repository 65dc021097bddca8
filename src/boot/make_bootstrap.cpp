// make_bootstrap(): the one place that decides how a rank finds its job (see bootstrap.h).
#include <cstdlib>

#include "boot/bootstrap.h"
#include "boot/pmi_client.h"
#include "boot/singleton.h"

namespace ftmpi::boot {

Result<std::unique_ptr<Bootstrap>> make_bootstrap() {
  if (getenv("PMI_FD") || getenv("PMI_PORT")) {
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
