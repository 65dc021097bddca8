// Shared-memory transport between ranks of one host.
//
// Set-up is split in phases so the router can interleave the fences of all transports:
//   create()   — before fence 1: make this rank's receive segment, publish its name in the KVS.
//   attach()   — after fence 1: map the segments of the local peers.
//   unlink()   — after fence 2 (everybody has mapped): remove our segment's name, so a killed job
//                leaves nothing in /dev/shm.
//
// Design (details in shm_layout.h, shm_ring.h, shm_doorbell.h): each rank owns one segment holding one
// single-producer/single-consumer byte ring per potential sender; frames (header and payload inline) are
// packed back to back, a small one (word + header + payload <= 32 bytes: a standard eager message of up to
// 8 bytes) in 32 bytes, two per cache line. The receiver polls the frame word at each ring's head. Large messages go around the rings: remote_read()
// is process_vm_readv. wait() sleeps on a futex doorbell in the receiver's segment.
#pragma once
#include <memory>
#include <span>

#include "boot/bootstrap.h"
#include "transport/shm/shm_layout.h"
#include "transport/transport.h"

namespace ftmpi::transport {

struct ShmOptions {
  shm::Geometry geometry{};  // must be the same on every rank of the job (attach() checks)
  // The asymmetric fence (shm_doorbell.h): senders publish without a fence, the receiver calls membarrier on
  // its way to sleep. Worth it when ranks rarely sleep, i.e. each has a core; an oversubscribed job (ranks
  // sleep and wake all the time, each sleep would pay a membarrier) keeps the per-frame fence. Needs kernel
  // support (else off, silently). for_job(): on when the job has at most as many ranks as this host has
  // cores (FTMPI_NUM_CORES overrides the count), FTMPI_SHM_MEMBARRIER=0/1 forces it.
  bool asymmetric_fence = true;
  // How a sender reserves its ring in the receiver's segment (allocates the backing pages and maps them).
  // false (the default): all of it at its first frame, and the receiver maps the whole ring at the first
  // frame it reads — the resident set is flat from the first frame on and no page fault is ever on the hot
  // path. true: 64 KiB at a time as the sender's first lap reaches the pages, and the receiver maps pages
  // as it reads them (16 per fault) — a pair that only exchanges small messages costs 16 pages instead of
  // 256 per side, but the resident set grows over the first lap. Reinit uses it for the links a rollback
  // builds (RouterOptions::rings_by_chunks): the recovery then does not allocate, zero and map 1 MiB per
  // new pair (docs/performance.md, Reinit, branch reinit9o).
  bool reserve_by_chunks = false;

  // The default for a job of `job_size` ranks, overridden by FTMPI_SHM_CELLS / FTMPI_SHM_CELL_BYTES /
  // FTMPI_SHM_MEMBARRIER (the launcher gives every rank the same environment). Errc::arg when the variables
  // make no valid geometry.
  static Result<ShmOptions> for_job(int job_size);
};

class ShmTransport : public Transport {
 public:
  // Collective phase 1 (before fence 1). Uses boot.rank(), size(), job_id(); puts "shm.<rank>".
  // The first form uses ShmOptions::for_job(boot.size()).
  static Result<std::unique_ptr<ShmTransport>> create(boot::Bootstrap& boot);
  static Result<std::unique_ptr<ShmTransport>> create(boot::Bootstrap& boot, const ShmOptions& opts);
  // Phase 2 (after fence 1): map the segments of `local_world_ranks` (includes my own rank; world ranks of
  // the job, each at most once). Probes process_vm_readv once against a peer (see supports_remote_read()).
  // try_send() to a rank not attached returns false.
  virtual Status attach(std::span<const int> local_world_ranks) = 0;
  // Phase 3 (after fence 2): remove our segment's name. Idempotent. The destructor does it too.
  virtual void unlink() = 0;
  // Off: attach() never removes a peer's segment name, even as its last expected attacher (the owner's
  // unlink() does). For a partial set-up where ranks attach different subsets (Reinit: survivors attach
  // only the replaced ranks' segments, Router::replace_links), so the attacher cannot know the owner's
  // count. Before attach().
  virtual void set_last_attacher_unlinks(bool on) = 0;
  // Transport::wake_self: interrupt a wait() in progress, or make the next wait() return at once. Safe to
  // call from any thread of this process (the ULFM service thread uses it), concurrently with the owner.
  // Implemented by bumping our own futex doorbell plus a process-local "pending" flag.
  void wake_self() override = 0;

  // Shared-memory collectives (coll/shm_area.h). The segment header (futex doorbell) of attached world
  // rank `world_rank`, or nullptr.
  virtual shm::SegmentHeader* peer_header(int world_rank) = 0;
  // An extra condition of wait()'s re-check after it raised `sleeping` (Dekker, shm_doorbell.h): a flag in
  // another shared area whose writer rings our doorbell. nullptr: none. Owner thread, under the lock.
  using WakeCheck = bool (*)(void* arg);
  virtual void set_wake_check(WakeCheck fn, void* arg) = 0;
};

}  // namespace ftmpi::transport
