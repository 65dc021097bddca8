// Single-copy access to a same-host target's *user* memory (MPI_Win_create and MPI_Win_create_dynamic
// windows, whose memory is not in a segment we could map): Linux cross-memory attach, process_vm_writev /
// process_vm_readv, one system call that copies between this process's buffer and the target's pages.
//
// Permission. The kernel allows it when this process could ptrace the target (same uid, the target
// dumpable, and the Yama ptrace_scope / seccomp / container policy permitting). Rather than guess from
// /proc/sys/kernel/yama/ptrace_scope, each origin *probes* every same-host member at window creation: it
// reads an 8-byte nonce the member published at a known address of its own memory; a member whose nonce
// reads back is a CMA target, any failure (EPERM under ptrace_scope >= 1 or 3, ENOSYS, ESRCH, another
// process behind the pid in another pid namespace: wrong nonce) leaves it on the message path.
//
// Dynamic windows. The attached regions of a member live in its RegionTable, kept in the small shared
// control segment every member of a CMA window has (rma/direct.h's segment: header with the AccLock, the
// table as its data). The owner rewrites it under a sequence lock at MPI_Win_attach / detach; an origin
// reads it before each operation to check that the target range is attached, possibly across adjacent
// regions (MPI_ERR_RMA_RANGE otherwise, as the Service would say), so a write never lands in memory the
// target did not expose. More than
// kMaxRegions attached regions: the table says `overflow` (sticky) and origins use messages to that member.
//
// Failures. A target that died fails the call with ESRCH: the operation completes in error
// (MPI_ERR_PROC_FAILED at its synchronisation). A pid recycled by an unrelated process within the window's
// lifetime is not detected (pids are not reused before the pid space wraps).
#pragma once
#include <sys/types.h>

#include <cstddef>
#include <cstdint>
#include <vector>

#include "datatype/datatype.h"
#include "util/status.h"

namespace ftmpi::rma {

// One run of target memory (an address in the target process).
struct Run {
  std::uintptr_t addr;
  std::size_t len;
};

namespace cma {

// Copy `len` bytes from `local` into the target's runs (total length len), or from them into `local`.
// Errors: proc_failed (the target is gone), rma_range (a run is not mapped writable/readable there), other.
Status write(pid_t pid, const void* local, std::size_t len, const Run* runs, std::size_t nruns);
Status read(pid_t pid, void* local, std::size_t len, const Run* runs, std::size_t nruns);

// The runs of `count` x `type` at target address `at` (in pack order; adjacent runs merged).
void runs_of(std::uintptr_t at, std::size_t count, const dt::Datatype* type, std::vector<Run>* out);

// True when process_vm_readv on `pid` works here and reads `expect` at `addr` (see the file comment).
bool probe(pid_t pid, std::uintptr_t addr, std::uint64_t expect);

}  // namespace cma

// The attached regions of a dynamic window's member, in its shared control segment (see the file comment).
inline constexpr std::size_t kMaxRegions = 254;
struct RegionTable {
  std::uint64_t seq;       // odd while the owner rewrites the table (accessed with __atomic builtins)
  std::uint32_t n;
  std::uint32_t overflow;  // 1: more regions than fit; origins use messages (never cleared)
  struct Entry {
    std::uint64_t lo, hi;
  } r[kMaxRegions];
};
static_assert(sizeof(RegionTable) <= 4096);

// Owner: publish `n` regions (lo_hi: 2n words, lo then hi of each).
void publish_regions(RegionTable* t, const std::uint64_t* lo_hi, std::size_t n);
// Origin: 1 when [lo, hi) lies in attached regions (one, or several adjacent in memory: rma/region_cover.h),
// 0 when not, -1 when the table overflowed.
// `still_alive` is asked while the owner is inside an update (odd sequence) for more than a few spins;
// false: give up (returns 0).
int regions_cover(const RegionTable* t, std::uint64_t lo, std::uint64_t hi, bool (*still_alive)(void*), void* ctx);

}  // namespace ftmpi::rma
