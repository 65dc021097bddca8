// libmpi's first constructor: a process marked as the Reinit respawn template (FTMPI_TEMPLATE_FD, set by
// the launcher; models/reinit/respawn_template.h) waits here, before the program's constructors and
// `main` and before libmpi's own static initializers, and returns only in each rank it forks. Here and not
// in the core: mpiexec and the unit tests link the core and must never become a template.
#include <cstdlib>

#include "models/reinit/respawn_template.h"

namespace {

__attribute__((constructor(101))) void ftmpi_respawn_template_entry() {
  const char* s = std::getenv(ftmpi::reinit::kTemplateFdEnv);
  if (!s || !*s) return;
  char* end = nullptr;
  long fd = std::strtol(s, &end, 10);
  if (*end != '\0' || fd < 3) return;  // not ours to interpret: run as a normal process
  ftmpi::reinit::serve_as_template(static_cast<int>(fd));
}

}  // namespace
