// Cross-memory attach transfers and the dynamic windows' region table (model in rma/cma.h).
#include "rma/cma.h"

#include <sys/uio.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <string>

#include "rma/region_cover.h"
#include "util/spin_wait.h"

namespace ftmpi::rma {

namespace cma {

namespace {

constexpr std::size_t kIovMax = 1024;  // IOV_MAX on Linux

Status error_of(int err) {
  switch (err) {
    case ESRCH: return Status(Errc::proc_failed, "the target of a one-sided operation is gone (process_vm_*: ESRCH)");
    case EFAULT: return Status(Errc::rma_range, "target memory not accessible (process_vm_*: EFAULT)");
    default: return Status(Errc::other, std::string("process_vm_readv/writev failed: ") + std::strerror(err));
  }
}

// Moves len bytes between one local buffer and the runs, IOV_MAX runs per call, resuming after short
// transfers (the kernel stops at a run boundary or inside one on a fault).
Status transfer(pid_t pid, std::byte* local, std::size_t len, const Run* runs, std::size_t nruns, bool write) {
  std::size_t ri = 0, roff = 0, done = 0;
  iovec riov[kIovMax];
  while (done < len && ri < nruns) {
    std::size_t k = 0, want = 0;
    for (std::size_t j = ri; j < nruns && k < kIovMax; ++j, ++k) {
      const std::size_t off = j == ri ? roff : 0;
      riov[k].iov_base = reinterpret_cast<void*>(runs[j].addr + off);
      riov[k].iov_len = runs[j].len - off;
      want += riov[k].iov_len;
    }
    iovec liov{local + done, want};
    const ssize_t n = write ? process_vm_writev(pid, &liov, 1, riov, k, 0) : process_vm_readv(pid, &liov, 1, riov, k, 0);
    if (n < 0) {
      if (errno == EINTR) continue;
      return error_of(errno);
    }
    if (n == 0) return error_of(EFAULT);
    done += static_cast<std::size_t>(n);
    std::size_t left = static_cast<std::size_t>(n);
    while (left > 0 && ri < nruns) {
      const std::size_t rem = runs[ri].len - roff;
      if (left < rem) {
        roff += left;
        left = 0;
      } else {
        left -= rem;
        ++ri;
        roff = 0;
      }
    }
  }
  return Status::Ok();
}

}  // namespace

Status write(pid_t pid, const void* local, std::size_t len, const Run* runs, std::size_t nruns) {
  return transfer(pid, const_cast<std::byte*>(static_cast<const std::byte*>(local)), len, runs, nruns, true);
}

Status read(pid_t pid, void* local, std::size_t len, const Run* runs, std::size_t nruns) {
  return transfer(pid, static_cast<std::byte*>(local), len, runs, nruns, false);
}

void runs_of(std::uintptr_t at, std::size_t count, const dt::Datatype* type, std::vector<Run>* out) {
  out->clear();
  if (count == 0 || type->size == 0) return;
  auto add = [&](std::uintptr_t a, std::size_t len) {
    if (len == 0) return;
    if (!out->empty() && out->back().addr + out->back().len == a) {
      out->back().len += len;
      return;
    }
    out->push_back({a, len});
  };
  if (type->contiguous) return add(at, count * type->size);
  const std::vector<dt::Block> blocks = dt::flatten(type);
  for (std::size_t i = 0; i < count; ++i) {
    const std::uintptr_t e = at + static_cast<std::uintptr_t>(static_cast<std::int64_t>(i) * type->extent);
    for (const dt::Block& b : blocks) add(e + static_cast<std::uintptr_t>(b.offset), b.length);
  }
}

bool probe(pid_t pid, std::uintptr_t addr, std::uint64_t expect) {
  std::uint64_t got = 0;
  iovec l{&got, sizeof got};
  iovec r{reinterpret_cast<void*>(addr), sizeof got};
  return process_vm_readv(pid, &l, 1, &r, 1, 0) == static_cast<ssize_t>(sizeof got) && got == expect;
}

}  // namespace cma

void publish_regions(RegionTable* t, const std::uint64_t* lo_hi, std::size_t n) {
  const std::uint64_t s = __atomic_load_n(&t->seq, __ATOMIC_RELAXED);
  __atomic_store_n(&t->seq, s + 1, __ATOMIC_RELAXED);
  __atomic_thread_fence(__ATOMIC_RELEASE);
  if (n > kMaxRegions) {
    __atomic_store_n(&t->overflow, 1u, __ATOMIC_RELAXED);
    n = 0;
  }
  for (std::size_t i = 0; i < n; ++i) {
    __atomic_store_n(&t->r[i].lo, lo_hi[2 * i], __ATOMIC_RELAXED);
    __atomic_store_n(&t->r[i].hi, lo_hi[2 * i + 1], __ATOMIC_RELAXED);
  }
  __atomic_store_n(&t->n, static_cast<std::uint32_t>(n), __ATOMIC_RELAXED);
  __atomic_store_n(&t->seq, s + 2, __ATOMIC_RELEASE);
}

int regions_cover(const RegionTable* t, std::uint64_t lo, std::uint64_t hi, bool (*still_alive)(void*), void* ctx) {
  util::SpinWait wait;  // the shared back-off rule (util/spin_wait.h): the owner may be off its core for long
  for (int spins = 0;; ++spins) {
    const std::uint64_t s1 = __atomic_load_n(&t->seq, __ATOMIC_ACQUIRE);
    if (s1 & 1) {  // the owner is inside MPI_Win_attach/detach
      if (spins > 64 && !still_alive(ctx)) return 0;
      wait.idle();
      continue;
    }
    if (__atomic_load_n(&t->overflow, __ATOMIC_RELAXED)) return -1;
    const std::uint32_t n = std::min<std::uint32_t>(__atomic_load_n(&t->n, __ATOMIC_RELAXED), kMaxRegions);
    // A copy read under the sequence lock; used only once the sequence shows it was not torn.
    RegionTable::Entry copy[kMaxRegions];
    for (std::uint32_t i = 0; i < n; ++i) {
      copy[i].lo = __atomic_load_n(&t->r[i].lo, __ATOMIC_RELAXED);
      copy[i].hi = __atomic_load_n(&t->r[i].hi, __ATOMIC_RELAXED);
    }
    __atomic_thread_fence(__ATOMIC_ACQUIRE);
    if (__atomic_load_n(&t->seq, __ATOMIC_RELAXED) == s1) return regions_hold(copy, n, lo, hi) ? 1 : 0;
  }
}

}  // namespace ftmpi::rma
