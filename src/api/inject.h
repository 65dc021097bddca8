#pragma once
#include <string>

namespace ftmpi::api {
struct InjectPoint {
  bool armed = false;
  std::string function;
  long remaining = 0;
};
extern InjectPoint g_inject;
void arm_injection_from_env();
// Called on entry to `fn` while armed: dies (SIGKILL) at the configured call.
void injection_check(const char* fn);
}  // namespace ftmpi::api
