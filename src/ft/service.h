// The rank's service thread (fault-tolerant mode only): talks to mpiexec over the control socket
// (env FTMPI_CTRL_FD; protocol in docs/ft-protocol.md), sends heartbeats every detector period, receives
// failure notices and publishes them in the FailureState, then calls `wake` so a sleeping progress loop
// notices at once. It never touches MPI data structures.
#pragma once
#include <functional>
#include <memory>
#include <string_view>

#include "ft/failure_state.h"
#include "util/status.h"

namespace ftmpi::ft {

struct ServiceConfig {
  int ctrl_fd = -1;            // FTMPI_CTRL_FD
  int heartbeat_period_ms = 0; // FTMPI_DETECTOR_PERIOD_MS (0: no heartbeats)
  // mpiexec numbers processes from 0; their ids here are that + id_offset (dpm/universe.h: the base of
  // this job's universe slot under a name service). Notices are shifted up, suspects down.
  int id_offset = 0;
  // Models on top (Reinit): called on the service thread with every line that is not a failure notice.
  std::function<void(std::string_view)> on_line;
  // Called on every wake-up of the service thread; returns the longest time (ms) until the next call it
  // needs, or -1 for none (Reinit re-sends its rollback signal while the jump is deferred).
  std::function<int()> on_tick;
};

class Service {
 public:
  virtual ~Service() = default;
  // Stop the thread (MPI_Finalize); tells mpiexec "bye" first so that heartbeats may stop.
  virtual void stop() = 0;
  // Report that a transport lost world rank `world` (cmd=suspect): mpiexec kills it and announces it.
  // Thread-safe.
  virtual void report_suspect(int world) = 0;
  // Send one protocol line ('\n'-terminated) to mpiexec. Thread-safe.
  virtual void send(const char* line) = 0;
};

// Starts the service thread. `wake` is called (from the service thread) after each new failure.
Result<std::unique_ptr<Service>> start_service(const ServiceConfig& cfg, FailureState& state,
                                               std::function<void()> wake);

}  // namespace ftmpi::ft
