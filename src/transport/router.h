// The one place that decides which transport carries traffic to a peer: self for our own rank, shared
// memory for ranks on this host, TCP for the others — or TCP for everybody when FTMPI_TRANSPORT=tcp
// (mpiexec --transport tcp). Sets the transports up through the bootstrap (business cards, fences).
// "This host" is what the launcher says, never the hostname or a reachable /dev/shm: the job attribute
// PMI_process_mapping (Hydra, Slurm and ftmpi's mpiexec publish it; boot/process_mapping.h). A launcher
// without it makes every rank a host of its own (TCP everywhere).
#pragma once
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "boot/bootstrap.h"
#include "transport/transport.h"
#include "util/status.h"

namespace ftmpi::transport {

enum class Choice { automatic, shm, tcp };

struct RouterOptions {
  Choice choice = Choice::automatic;  // from FTMPI_TRANSPORT=auto|shm|tcp
  // Fault-tolerant mode: a rank that dies during set-up (the bootstrap's rank_gone() says so) is left
  // out instead of failing the set-up; see failed_at_start().
  bool tolerate_failed_peers = false;
  // Reinit (replace_links): set up links only with these ranks (sorted; this rank's own is implicit); the
  // other peers are left unrouted. Every rank still takes part in both fences. Null: with everybody.
  const std::vector<int>* only_with = nullptr;
  // Reinit: fence 2 is not waited for (the bootstrap returns at once), so our segment's name must stay
  // until the epoch layer learns that every member has mapped it (models/reinit/reinit_control.h).
  bool keep_segment_name = false;
  // Reinit, a rollback's links: shared-memory rings are reserved chunk by chunk as they fill
  // (ShmOptions::reserve_by_chunks), so that the recovery does not allocate 1 MiB per new pair.
  bool rings_by_chunks = false;
};

// A rank that failed while the job started: how the launcher described its end.
struct StartupFailure {
  int rank;
  std::string how;  // "<cause>:<code>", e.g. "signaled:9"
};

class Router {
 public:
  // Collective over the job: every rank calls it with the same options. `base`: the process id of this
  // job part's rank 0 (dynamic processes, src/dpm/: a spawned job part's ranks are known to the engine by
  // ids base..base+size-1; 0 for the first part). With base != 0 the transports of the part, which number
  // peers by their WORLD rank, are wrapped so the engine sees process ids.
  static Result<std::unique_ptr<Router>> create(boot::Bootstrap& boot, const RouterOptions& opts, int base = 0);
  ~Router();

  // `world_rank`: a process id (WORLD rank + base, or a process of another job part: the foreign transport).
  Transport& for_peer(int world_rank) {
    const auto i = static_cast<size_t>(world_rank - base_);  // below base_: wraps, foreign
    if (i < by_peer_.size() && by_peer_[i] != nullptr) return *by_peer_[i];
    return *foreign_;
  }
  // Dynamic processes: the transport for processes outside this job part (dpm/dpm_transport.h). Taken over
  // and polled from now on. Application thread, outside any progress pass.
  void set_foreign(std::unique_ptr<Transport> t);
  bool has_foreign() const { return foreign_owned_; }
  // The distinct transports in use (self first), for polling and sleeping.
  std::span<Transport* const> transports() const { return active_; }

  // Wake a progress loop sleeping in any transport (thread-safe).
  void wake_all() {
    for (Transport* t : active_) t->wake_self();
  }

  // Reinit rollback: the layer is dropped; queued output is not delivered on close (Transport::abandon_output).
  void abandon_output() {
    for (Transport* t : active_) t->abandon_output();
  }

  // Reinit: keep every link of this router across a rollback except those naming a replaced process, in
  // two steps.
  // create_links: collective over the new epoch's bootstrap `boot` (its two fences), with every member of
  // the epoch: survivors call it (`replaced`: the ranks replaced since the last commit, the same list
  // everywhere) while the replacement processes build a whole new router with create(). It makes new
  // shared-memory segments and TCP connections with the replaced ranks only, in a router of its own.
  // adopt_links: this router takes those links over; the replaced ranks' old links are forgotten
  // (Transport::forget), and transports that no peer is routed through any more are moved to `*retired`
  // (for the caller to close off the critical path). Short, no I/O: the caller holds what guards
  // wake_all() against a change of the transport list.
  // The frames that kept links still carry from the old epoch are the engine's to drop (epoch stamp,
  // models/reinit/kept_links.h). Application thread, outside any progress pass.
  static Result<std::unique_ptr<Router>> create_links(boot::Bootstrap& boot, const RouterOptions& opts,
                                                      std::vector<int> replaced);
  void adopt_links(Router& links, std::vector<std::unique_ptr<Transport>>* retired);

  // End the connection to a failed peer (Transport::fence). Progress-loop thread.
  void fence(int world_rank) { for_peer(world_rank).fence(world_rank); }

  int local_ranks() const { return local_ranks_; }    // ranks on this host, including me
  // Ranks left out because they failed during set-up (tolerate_failed_peers): traffic to them is
  // dropped; the caller marks them failed.
  const std::vector<StartupFailure>& failed_at_start() const { return failed_at_start_; }
  // This rank's host as the launcher numbers it ("node<N>"): equal for ranks on the same host
  // (MPI_Comm_split_type SHARED uses it).
  const std::string& host_id() const { return host_id_; }

 private:
  Router() = default;
  static Result<std::unique_ptr<Router>> create_part(boot::Bootstrap& boot, const RouterOptions& opts);
  std::vector<std::unique_ptr<Transport>> owned_;
  std::vector<Transport*> active_;
  std::vector<Transport*> by_peer_;  // by_peer_[id - base_]: this job part's processes
  int base_ = 0;
  Transport* foreign_ = nullptr;  // processes of other job parts (a sink that drops frames until set_foreign)
  bool foreign_owned_ = false;
  int local_ranks_ = 1;
  std::vector<StartupFailure> failed_at_start_;
  std::string host_id_;
  std::vector<int> replaced_;  // create_links: the ranks its links are with
};

}  // namespace ftmpi::transport
