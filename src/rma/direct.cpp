// Direct access to same-host window memory: segments, the accumulate lock and the copies (model in
// rma/direct.h).
#include "rma/direct.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <vector>

#include "datatype/builtin_types.h"
#include "util/log.h"

namespace ftmpi::rma {

Status init_acc_lock(AccLock* l) {
  pthread_mutexattr_t a;
  if (pthread_mutexattr_init(&a) != 0) return Status(Errc::other, "pthread_mutexattr_init failed");
  int rc = pthread_mutexattr_setpshared(&a, PTHREAD_PROCESS_SHARED);
  if (rc == 0) rc = pthread_mutexattr_setrobust(&a, PTHREAD_MUTEX_ROBUST);
  if (rc == 0) rc = pthread_mutex_init(&l->m, &a);
  pthread_mutexattr_destroy(&a);
  if (rc != 0) return Status(Errc::other, std::string("cannot initialise the accumulate lock: ") + std::strerror(rc));
  return Status::Ok();
}

AccGuard::AccGuard(AccLock* l, void (*idle)(void*), void* ctx) : l_(l) {
  for (;;) {
    const int rc = idle ? pthread_mutex_trylock(&l->m) : pthread_mutex_lock(&l->m);
    if (rc == 0) return;
    if (rc == EOWNERDEAD) {  // the holder died inside its copy: take over
      log::debug("rma: the holder of an accumulate lock died inside its update; lock taken over");
      pthread_mutex_consistent(&l->m);
      return;
    }
    if (rc == EBUSY && idle) {
      idle(ctx);
      continue;
    }
    // ENOTRECOVERABLE cannot happen (every EOWNERDEAD is made consistent); anything else: give up the lock
    // rather than hang, the operation runs unprotected.
    l_ = nullptr;
    return;
  }
}

AccGuard::~AccGuard() {
  if (l_) pthread_mutex_unlock(&l_->m);
}

bool direct_enabled() {
  const char* v = std::getenv("FTMPI_RMA_DIRECT");
  return !(v && v[0] == '0' && v[1] == '\0');
}

bool cma_enabled() {
  const char* v = std::getenv("FTMPI_RMA_CMA");
  return v && v[0] == '1' && v[1] == '\0' && direct_enabled();
}

namespace {
std::atomic<unsigned> g_counter{0};

std::uint64_t fresh_nonce() {
  std::random_device rd;
  std::uint64_t n = (static_cast<std::uint64_t>(rd()) << 32) ^ rd();
  n ^= static_cast<std::uint64_t>(std::chrono::steady_clock::now().time_since_epoch().count());
  return n | 1;  // never 0
}
}  // namespace

Result<OwnSegment> create_segment(std::size_t data_bytes) {
  OwnSegment s;
  std::snprintf(s.card.name, sizeof s.card.name, "/ftmpi-rwin-%d-%u", static_cast<int>(getpid()), g_counter++);
  s.card.nonce = fresh_nonce();
  s.card.data_bytes = data_bytes;
  s.len = kHeaderBytes + (data_bytes == 0 ? 64 : data_bytes);
  const int fd = shm_open(s.card.name, O_CREAT | O_EXCL | O_RDWR, 0600);
  if (fd < 0) return Status(Errc::no_mem, std::string("shm_open: ") + std::strerror(errno));
  int err = 0;
  if (ftruncate(fd, static_cast<off_t>(s.len)) != 0) err = errno;
  // Reserve the pages now: a full /dev/shm shows here (fallback to the heap), not as SIGBUS later.
  if (!err) err = posix_fallocate(fd, 0, static_cast<off_t>(s.len));
  void* map = MAP_FAILED;
  if (!err) {
    map = mmap(nullptr, s.len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    if (map == MAP_FAILED) err = errno;
  }
  close(fd);
  if (err) {
    shm_unlink(s.card.name);
    return Status(Errc::no_mem, std::string("window segment: ") + std::strerror(err));
  }
  s.map = map;
  auto* h = static_cast<SegHeader*>(map);
  Status st = init_acc_lock(&h->lock);
  if (!st.ok()) {
    munmap(map, s.len);
    shm_unlink(s.card.name);
    return st;
  }
  h->nonce = s.card.nonce;
  h->data_bytes = data_bytes;
  std::atomic_thread_fence(std::memory_order_release);
  h->magic = kSegMagic;
  return s;
}

void unlink_segment(const SegCard& card) {
  if (card.name[0]) shm_unlink(card.name);
}

SegHeader* map_segment(const SegCard& card, std::size_t* len) {
  if (!card.name[0] || card.name[sizeof card.name - 1] != 0) return nullptr;
  const int fd = shm_open(card.name, O_RDWR, 0600);
  if (fd < 0) return nullptr;
  const std::size_t want = kHeaderBytes + (card.data_bytes == 0 ? 64 : card.data_bytes);
  struct stat sb {};
  void* map = MAP_FAILED;
  if (fstat(fd, &sb) == 0 && static_cast<std::size_t>(sb.st_size) == want)
    map = mmap(nullptr, want, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
  close(fd);
  if (map == MAP_FAILED) return nullptr;
  auto* h = static_cast<SegHeader*>(map);
  // Same name on another machine's /dev/shm (or a stale one): the nonce tells.
  if (h->magic != kSegMagic || h->nonce != card.nonce || h->data_bytes != card.data_bytes) {
    munmap(map, want);
    return nullptr;
  }
  std::atomic_thread_fence(std::memory_order_acquire);
  *len = want;
  return h;
}

// ---- copies ----

void direct_put(std::byte* at, std::size_t tcount, const dt::Datatype* ttype, const void* obuf, std::size_t ocount,
                const dt::Datatype* otype) {
  const std::size_t bytes = dt::packed_size(ttype, tcount);
  if (bytes == 0) return;
  if (ttype->contiguous) return dt::pack(obuf, ocount, otype, at);
  if (otype->contiguous) return dt::unpack(obuf, bytes, ttype, at);
  std::vector<std::byte> tmp(bytes);
  dt::pack(obuf, ocount, otype, tmp.data());
  dt::unpack(tmp.data(), bytes, ttype, at);
}

void direct_get(const std::byte* at, std::size_t tcount, const dt::Datatype* ttype, void* rbuf, std::size_t rcount,
                const dt::Datatype* rtype) {
  const std::size_t bytes = dt::packed_size(ttype, tcount);
  if (bytes == 0) return;
  if (ttype->contiguous) return dt::unpack(at, bytes, rtype, rbuf);
  if (rtype->contiguous) return dt::pack(at, tcount, ttype, rbuf);
  std::vector<std::byte> tmp(bytes);
  dt::pack(at, tcount, ttype, tmp.data());
  dt::unpack(tmp.data(), bytes, rtype, rbuf);
}

}  // namespace ftmpi::rma
