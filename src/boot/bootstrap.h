// The bootstrap: how a rank learns who it is and exchanges business cards with the others.
//
// Implementations: PmiClient (PMI-1 wire protocol to our mpiexec or MPICH's Hydra, boot/pmi_client.*), Pmi2Client
// (PMI-2 wire protocol, Slurm's srun --mpi=pmi2, boot/pmi2_client.*)
// and SingletonBootstrap (a program started without a launcher: size 1, a private key-value space; it starts
// ftmpi's mpiexec on demand for dynamic processes, boot/launcher_on_demand.h).
#pragma once
#include <cstdlib>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "boot/pmi_wire.h"
#include "util/status.h"

namespace ftmpi::boot {

class Bootstrap {
 public:
  virtual ~Bootstrap() = default;

  virtual int rank() const = 0;
  virtual int size() const = 0;
  // A name unique to this job (the PMI kvsname); used to name shared-memory segments.
  virtual const std::string& job_id() const = 0;
  // True when launched by ftmpi's own mpiexec (it exports FTMPI_LAUNCHER=ftmpi), which offers extras
  // (failure notices in later issues).
  virtual bool launched_by_ftmpi() const = 0;

  // Publish key=value in the job's key-value space. Visible to others after the next fence().
  // Keys and values must not contain spaces, '=' or newlines (PMI-1 limits); values <= 1024 bytes.
  virtual Status put(std::string_view key, std::string_view value) = 0;
  // Read a key published by any rank before the last fence(). Errc::arg if absent.
  virtual Result<std::string> get(std::string_view key) = 0;
  // Collective over all ranks of the job: commit puts, wait for everybody (PMI barrier).
  virtual Status fence() = 0;
  // Ask the launcher to end the whole job with `code`. Does not return on success.
  virtual void abort(int code, std::string_view message) = 0;
  // Tell the launcher this rank finalized cleanly (its later exit is not a failure).
  virtual Status finalize() = 0;
  // A job attribute the launcher publishes, such as "PMI_process_mapping" (boot/process_mapping.h): PMI-1
  // reads it with a get of that reserved key, PMI-2 with info-getjobattr. nullopt when not published.
  virtual std::optional<std::string> job_attribute(std::string_view name) {
    (void)name;
    return std::nullopt;
  }
  // Fault-tolerant start-up: has `rank` ended for good, according to the launcher? ftmpi's mpiexec
  // answers (docs/ft-protocol.md, key "ftmpi-gone.<rank>"); other launchers cannot tell: nullopt. When
  // gone, the value is "<cause>:<code>" as in the failure notice (e.g. "signaled:9").
  virtual std::optional<std::string> rank_gone(int rank) {
    (void)rank;
    return std::nullopt;
  }
  // Dynamic processes (src/dpm/): send one request line (an encoded PMI line, '\n'-terminated) to ftmpi's
  // mpiexec and return its reply whose cmd is `expect` (blocking; the launcher may answer late, e.g.
  // an accept waits for its connect). Errc::unsupported under other launchers and as a singleton.
  virtual Result<pmi::Message> launcher_call(const std::string& line, std::string_view expect) {
    (void)line;
    (void)expect;
    return Status(Errc::unsupported, "dynamic processes need ftmpi's mpiexec (this process was not started by it)");
  }
  // launcher_call for a reply that may come late (the finalize barrier, an accept waiting for its connect):
  // while the reply is not there, `idle` is called again and again (holding no lock of the bootstrap; it may
  // make launcher_calls itself) so the caller keeps MPI progress going — a process that decided an FT
  // agreement must keep answering the members still deciding (ft/agreement.h: a survivor whose tree parent
  // died asks a new parent, which may be this process). `idle` returns after a bounded time. Default: no
  // progress (launchers whose replies never come late).
  virtual Result<pmi::Message> launcher_call_while(const std::string& line, std::string_view expect,
                                                   const std::function<void()>& idle) {
    (void)idle;
    return launcher_call(line, expect);
  }
  // fence() that calls `idle` while waiting, as launcher_call_while. Default: fence().
  virtual Status fence_while(const std::function<void()>& idle) {
    (void)idle;
    return fence();
  }
  // Dynamic processes of a process started without any launcher (a singleton, docs/dpm.md "From a singleton"):
  // start ftmpi's mpiexec now and become rank 0 of its one-rank job, after which launched_by_ftmpi() is true
  // and launcher_call works as under `mpiexec -n 1`. Idempotent; a start that failed is not retried (its
  // error is returned again). Errc::unsupported for bootstraps that have a launcher (ftmpi's: nothing to start,
  // launched_by_ftmpi() is already true; a foreign one, such as Hydra, stays as it is).
  virtual Status start_launcher() {
    return Status(Errc::unsupported, "dynamic processes need ftmpi's mpiexec (this process was started by another launcher)");
  }
  // A setting ftmpi's mpiexec gives its processes in their environment (FTMPI_DPM_SECRET, FTMPI_UNIVERSE_SLOT,
  // FTMPI_NAME_SERVICE): getenv by default; a singleton that started its mpiexec answers what it agreed on
  // with it (nullopt for the rest).
  virtual std::optional<std::string> launcher_setting(std::string_view name) const {
    const char* v = std::getenv(std::string(name).c_str());
    if (v == nullptr) return std::nullopt;
    return std::string(v);
  }
};

// Picks the bootstrap from the environment: PMI_FD or PMI_PORT → PmiClient (PMI-1) or Pmi2Client (PMI-2:
// FTMPI_PMI=2, PMI_VERSION=2, or PMI_JOBID set as Slurm sets it; FTMPI_PMI=1 forces PMI-1);
// nothing → singleton. Errc::other with a message if the environment is inconsistent.
Result<std::unique_ptr<Bootstrap>> make_bootstrap();

}  // namespace ftmpi::boot
