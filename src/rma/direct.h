// Direct access to a same-host target's window memory (issue 11 item 2: "direct load/store for
// _allocate_shared and same-host targets").
//
// Model. A window of MPI_Win_allocate keeps each member's memory in a POSIX shared-memory segment of its own
// (header page + data); MPI_Win_allocate_shared keeps all of them in one segment whose first page(s) hold
// one header per member. At creation every member maps the segments of the members it can reach (same host:
// shm_open succeeds and the header carries the owner's nonce); those targets are *direct*: MPI_Put and
// MPI_Get become a copy between the origin buffer and the mapped target memory, done at the call.
// MPI_Win_create's user memory and dynamic windows are reached from the same host by process_vm_writev/readv
// (rma/cma.h; each member still has a small segment of this kind, data = its region table, for its AccLock).
// Other targets (another host, a member whose segment could not be made or that CMA may not reach) keep the
// active messages of rma/window.h. Direct access can be switched off with FTMPI_RMA_DIRECT=0.
//
// Synchronisation is unchanged: locks are still granted by the target's Service (lock table, release of a
// dead holder's lock), fence is still flush + barrier, PSCW still sends `complete` behind the operations.
// A direct operation is complete (locally and at the target) when the call returns, so flush has nothing
// to wait for; the message that ends an epoch (unlock, complete, the fence barrier) orders the copies before
// what the target or the next lock holder does next (the shm rings publish with release/acquire).
//
// Accumulate atomicity (the rule itself: rma/acc_apply.h). Every member's header holds an AccLock, a
// process-shared *robust* mutex. An accumulate-class operation (Accumulate, Get_accumulate, Fetch_and_op,
// Compare_and_swap) whose elements are all aligned 4/8-byte elements of mapped memory uses hardware atomics
// and no lock; any other runs under the member's AccLock: direct origins take it around their
// read-modify-write, and the target's Service takes it around the accumulates it applies for message
// origins (other hosts), both following the same element rule. So the accumulates of all origins on one
// target are atomic with respect to each other, whichever path they took, and per origin they are applied
// in call order (accumulate_ordering rar,raw,war,waw). Put/Get need no lock (a put concurrent with an
// accumulate on the same location is erroneous in MPI). A holder that dies
// inside its (short, call-free) critical section is detected by the kernel: the next locker gets
// EOWNERDEAD, marks the mutex consistent and goes on (the element being updated may be half-written). A
// holder that is stopped (SIGSTOP) rather than dead keeps the lock until it resumes or is killed (the
// detector kills a same-host peer it declares failed); origins wait for it polling the engine, a Service
// waits blocked.
//
// Failures (seed 000 §1.2.3). The mapping outlives a dead target, so a copy to it cannot fail by itself
// (process_vm_* to a dead target fails with ESRCH: MPI_ERR_PROC_FAILED recorded at once):
// an operation toward a target already known failed records MPI_ERR_PROC_FAILED, and every synchronisation
// that completes direct operations (flush*, unlock*, complete, fence) reports MPI_ERR_PROC_FAILED when the
// target is known failed by then. A failure not yet detected when the epoch ends goes unreported for that
// epoch, as an already-acknowledged message operation would.
#pragma once
#include <pthread.h>

#include <cstddef>
#include <cstdint>
#include <string>

#include "datatype/datatype.h"
#include "datatype/op.h"
#include "util/status.h"

namespace ftmpi::rma {

// A process-shared robust mutex, one per member (see the file comment).
struct alignas(64) AccLock {
  pthread_mutex_t m;
};
// Initialise in place (the creator, before anyone else maps the segment).
Status init_acc_lock(AccLock* l);

// Scoped holder. `blocking`: pthread_mutex_lock (the Service: the holder is inside a short copy);
// otherwise trylock with `idle()` called between attempts (an origin: keeps the progress engine turning).
class AccGuard {
 public:
  AccGuard(AccLock* l, void (*idle)(void*) = nullptr, void* ctx = nullptr);
  ~AccGuard();
  AccGuard(const AccGuard&) = delete;
  AccGuard& operator=(const AccGuard&) = delete;

 private:
  AccLock* l_;
};

// Header page of a member's segment (MPI_Win_allocate). The data starts kHeaderBytes after the mapping.
inline constexpr std::uint64_t kSegMagic = 0x66746d7069524d41ull;  // "ftmpiRMA"
inline constexpr std::size_t kHeaderBytes = 4096;
struct SegHeader {
  std::uint64_t magic;
  std::uint64_t nonce;
  std::uint64_t data_bytes;
  AccLock lock;
};
static_assert(sizeof(SegHeader) <= kHeaderBytes);

// What a member publishes about its segment (allgathered at creation). name[0] == 0: no segment.
// `host`: a hash of the launcher's host id (transport/router.h); only members with the same one are mapped,
// so ranks the launcher places on different hosts talk by messages even when they share a machine.
// MPI_Win_create / dynamic windows (rma/cma.h) add the owner's pid, its window base address and the
// address of its header's nonce (the probe).
struct SegCard {
  char name[48];
  std::uint64_t nonce;
  std::uint64_t data_bytes;
  std::uint64_t host;
  std::int64_t pid;
  std::uint64_t base;
  std::uint64_t probe;
};

// This process's segment for `data_bytes` of window memory: created, sized, mapped, header initialised.
// The name is still linked: unlink it (unlink_segment) once the peers had their chance to map it.
struct OwnSegment {
  void* map = nullptr;
  std::size_t len = 0;
  SegCard card{};
  SegHeader* header() const { return static_cast<SegHeader*>(map); }
  std::byte* data() const { return static_cast<std::byte*>(map) + kHeaderBytes; }
};
Result<OwnSegment> create_segment(std::size_t data_bytes);
void unlink_segment(const SegCard& card);
// Map a peer's segment; null when it cannot be reached (other host, gone, not the segment the card names).
// *len receives the mapping's length (for munmap).
SegHeader* map_segment(const SegCard& card, std::size_t* len);

// True unless FTMPI_RMA_DIRECT=0.
bool direct_enabled();
// Single-copy access (process_vm_readv/writev, rma/cma.h) to MPI_Win_create / dynamic windows: only with
// FTMPI_RMA_CMA=1 (and direct access not off). Off by default because on the machines measured (a VM whose
// system calls cost microseconds) it lost to active messages: 8-byte put 1.85 vs 0.92 us, accumulates 0.30 vs
// 2.6 M/s, 1 MiB put 8.6 vs 10.0 GB/s (docs/performance.md, 2026-11-26 17:10). Its gain is progress: with it a
// passive target needs no MPI call for an operation to land.
bool cma_enabled();

// ---- the copies (target memory mapped here; `at` = target base + disp * disp_unit) ----
// Put: `ocount` x `otype` at `obuf` into `tcount` x `ttype` at `at` (same packed size: checked by the caller).
void direct_put(std::byte* at, std::size_t tcount, const dt::Datatype* ttype, const void* obuf, std::size_t ocount,
                const dt::Datatype* otype);
// Get: the target region into `rcount` x `rtype` at `rbuf`.
void direct_get(const std::byte* at, std::size_t tcount, const dt::Datatype* ttype, void* rbuf, std::size_t rcount,
                const dt::Datatype* rtype);
// Accumulates: rma/acc_apply.h (element-wise, lock-free on aligned 4/8-byte elements, else under the AccLock).

}  // namespace ftmpi::rma
