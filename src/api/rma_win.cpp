// One-sided communication, window objects (MPI-3.1 §11.2, §11.2.6 attributes, §8.3.2 window error
// handlers, §6.7.3 window attributes, seed 000 §1.2.3): creation in its four flavours, free, group, info,
// name, attributes, error handlers, invalidate / get_failed. The operations and synchronisation calls are in
// rma_ops.cpp; the machinery in src/rma/ (model: rma/window.h).
//
// Creation is collective: one private communicator (MPI_Comm_split of the user's, which copies no
// attributes; requests and replies are two tag spaces of it, rma/wire.h), an allgather of every rank's size and displacement unit (origin-side range checks),
// memory (allocate: this process's heap; allocate_shared: one POSIX shared-memory segment mapped by every
// member, unlinked as soon as all mapped it, so nothing stays in /dev/shm), then the target Service.
#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "api/attr.h"
#include "api/errors.h"
#include "api/info_object.h"
#include "api/rma_common.h"
#include "comm/errhandler.h"
#include "util/log.h"

using ftmpi::Errc;
using ftmpi::Status;
using ftmpi::api::ret;
using ftmpi::api::rt;
using ftmpi::api::valid_win;
using ftmpi::api::win_ret;
using ftmpi::rma::Flavor;

namespace ftmpi::api {

int win_raise(ftmpi_win_s* w, int code, const std::string& detail, const char* fn) {
  ftmpi_errhandler_s* eh = w->errhandler;
  auto kind = eh ? eh->kind : ftmpi_errhandler_s::Kind::fatal;
  if (kind == ftmpi_errhandler_s::Kind::return_) return code;
  if (kind == ftmpi_errhandler_s::Kind::user && eh->fn) {
    MPI_Win handle = w;
    int c = code;
    reinterpret_cast<MPI_Win_errhandler_function*>(eh->fn)(&handle, &c);
    return code;
  }
  char line[MPI_MAX_ERROR_STRING + 256];
  std::snprintf(line, sizeof line, "%s: %s (%s)", fn, detail.c_str(), error_class_sentence(code));
  log::error("%s; aborting the job (%s on window %s)", line,
             kind == ftmpi_errhandler_s::Kind::abort ? "MPI_ERRORS_ABORT" : "MPI_ERRORS_ARE_FATAL", w->name.c_str());
  abort_job(code, line);
}

int win_ret(ftmpi_win_s* w, const Status& st, const char* fn) {
  if (st.ok()) return MPI_SUCCESS;
  if (!valid_win(w)) return ret(nullptr, st, fn);
  if ((st.code() == Errc::proc_failed || st.code() == Errc::revoked) && g_api.rt) g_api.rt->progress().poll();
  const int code = error_class_of(st.code());
  return win_raise(w, code, st.message().empty() ? std::string(error_class_sentence(code)) : st.message(), fn);
}

}  // namespace ftmpi::api

namespace {

std::atomic<int> g_shm_counter{0};

std::size_t peer_locks_bytes(int n) { return sizeof(ftmpi::rma::AccLock) * static_cast<std::size_t>(n); }

struct SizeUnit {
  std::int64_t bytes;
  std::int64_t disp_unit;
};

// The window hints this implementation knows (MPI-3.1 §11.2.1, MPI-4.0 mpi_accumulate_granularity). MPI-3.1
// §11.2.7: MPI_Win_get_info returns the hints "actually used by the system", so keys of other meanings (a
// typo, another implementation's hint) are ignored at creation and at MPI_Win_set_info, as MPICH and Open
// MPI do (MPICH's rma/win_info checks it).
static bool is_window_hint(const std::string& key) {
  static const char* const known[] = {"no_locks",       "accumulate_ordering",    "accumulate_ops",
                                      "same_size",      "same_disp_unit",         "alloc_shared_noncontig",
                                      "mpi_accumulate_granularity"};
  for (const char* k : known)
    if (key == k) return true;
  return false;
}

// Collective: everything but the memory. On failure nothing is left behind (the communicators are freed).
int make_window(MPI_Comm comm, MPI_Info info, Flavor flavor, MPI_Aint size, int disp_unit, MPI_Win* win,
                ftmpi_win_s** out, const char* fn) {
  FTMPI_CHECK_COMM(comm, fn);
  if (comm->remote_group) return ret(comm, Status(Errc::comm, "windows need an intracommunicator"), fn);
  if (!win) return ret(comm, Status(Errc::arg, "win is NULL"), fn);
  if (size < 0) return ret(comm, Status(Errc::size, "negative window size"), fn);
  if (disp_unit <= 0) return ret(comm, Status(Errc::disp, "displacement unit must be positive"), fn);
  if (info != MPI_INFO_NULL && !ftmpi::api::valid_info(info)) return ret(comm, Status(Errc::info, "invalid info"), fn);
  // One private communicator: requests and replies are two tag spaces of it (rma/wire.h).
  MPI_Comm req = MPI_COMM_NULL;
  int rc = PMPI_Comm_split(comm, 0, comm->rank, &req);
  if (rc != MPI_SUCCESS) return rc;
  PMPI_Comm_set_errhandler(req, MPI_ERRORS_RETURN);
  PMPI_Comm_set_name(req, "ftmpi-window");
  std::vector<SizeUnit> all(static_cast<std::size_t>(comm->size));
  SizeUnit mine{size, disp_unit};
  rc = PMPI_Allgather(&mine, 2, MPI_INT64_T, all.data(), 2, MPI_INT64_T, req);
  if (rc != MPI_SUCCESS) {
    PMPI_Comm_free(&req);
    const Errc e = rc == MPI_ERR_PROC_FAILED ? Errc::proc_failed : rc == MPI_ERR_REVOKED ? Errc::revoked : Errc::other;
    return ret(comm, Status(e, "window creation: exchange of sizes failed"), fn);
  }
  auto* w = new ftmpi_win_s(rt().engine(), &rt().failures(), req, req, rt().progress());
  w->flavor = flavor;
  w->bytes = static_cast<std::size_t>(size);
  w->disp_unit = disp_unit;
  w->errhandler = &ftmpi_errors_are_fatal;
  w->attr_size = size;
  w->attr_disp_unit = disp_unit;
  w->attr_flavor = static_cast<int>(flavor);
  w->attr_model = MPI_WIN_UNIFIED;
  for (const SizeUnit& s : all) {
    w->peer_bytes.push_back(static_cast<std::size_t>(s.bytes));
    w->peer_disp_unit.push_back(static_cast<int>(s.disp_unit));
  }
  if (info != MPI_INFO_NULL)
    for (const auto& [k, v] : info->info.entries())
      if (is_window_hint(k)) w->info[k] = v;
  *out = w;
  return MPI_SUCCESS;
}

void release_window(ftmpi_win_s* w) {
  MPI_Comm req = w->req_comm(), rep = w->rep_comm();
  if (rep != req) PMPI_Comm_free(&rep);
  PMPI_Comm_free(&req);
  if (w->owned_mem) std::free(w->owned_mem);
  if (w->shm_map) munmap(w->shm_map, w->shm_len);
  for (const auto& m : w->mappings) munmap(m.addr, m.len);
  w->mappings.clear();
  w->direct.clear();
  w->own_lock = nullptr;
  w->own_regions = nullptr;
  w->owned_mem = nullptr;
  w->shm_map = nullptr;
  w->magic = ftmpi::kMagicFreed;  // the shell stays: stale handles are detected (MPI_ERR_WIN)
}

// The shared segment of MPI_Win_allocate_shared: rank 0 creates it, the others map it, rank 0 unlinks it
// once everyone has (whatever happened), so no /dev/shm file outlives the call.
Status map_shared(ftmpi_win_s* w) {
  MPI_Comm c = w->req_comm();
  std::size_t total = 0;
  std::vector<std::size_t> offs;
  for (std::size_t b : w->peer_bytes) {
    offs.push_back(total);
    total += b;
  }
  // One accumulate lock per member (rma/direct.h) in the first page(s), then the members' memory.
  using ftmpi::rma::AccLock;
  const std::size_t locks = (peer_locks_bytes(w->size()) + 4095) / 4096 * 4096;
  const std::size_t len = locks + (total == 0 ? 1 : total);
  char name[64] = {0};
  int fd = -1;
  int ok = 1;
  void* map = MAP_FAILED;
  if (w->rank() == 0) {
    std::snprintf(name, sizeof name, "/ftmpi-rma-%d-%d", static_cast<int>(getpid()), g_shm_counter++);
    fd = shm_open(name, O_CREAT | O_EXCL | O_RDWR, 0600);
    if (fd < 0 || ftruncate(fd, static_cast<off_t>(len)) != 0) ok = 0;
    if (ok) map = mmap(nullptr, len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    if (map == MAP_FAILED) ok = 0;
    for (int r = 0; ok && r < w->size(); ++r)
      if (!ftmpi::rma::init_acc_lock(static_cast<AccLock*>(map) + r).ok()) ok = 0;
  }
  PMPI_Bcast(name, sizeof name, MPI_CHAR, 0, c);
  if (w->rank() != 0) {
    fd = shm_open(name, O_RDWR, 0600);
    if (fd < 0) ok = 0;
    if (ok) map = mmap(nullptr, len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    if (map == MAP_FAILED) ok = 0;
  }
  if (fd >= 0) close(fd);
  int all_ok = 0;
  int rc = PMPI_Allreduce(&ok, &all_ok, 1, MPI_INT, MPI_MIN, c);
  if (w->rank() == 0 && name[0]) shm_unlink(name);
  if (rc != MPI_SUCCESS || !all_ok) {
    if (map != MAP_FAILED) munmap(map, len);
    return Status(rc == MPI_ERR_PROC_FAILED ? Errc::proc_failed : Errc::rma_shared,
                  "MPI_Win_allocate_shared: the members cannot share one memory segment (all on one host?)");
  }
  w->shm_map = map;
  w->shm_len = len;
  for (std::size_t r = 0; r < offs.size(); ++r)
    w->shared_base.push_back(static_cast<std::byte*>(map) + locks + offs[r]);
  w->base = w->shared_base[static_cast<std::size_t>(w->rank())];
  // Every member is a direct target (rma/direct.h).
  if (ftmpi::rma::direct_enabled()) {
    for (std::size_t r = 0; r < offs.size(); ++r) {
      ftmpi::rma::Window::DirectPeer d;
      d.how = ftmpi::rma::Window::Access::mapped;
      d.atomics = true;
      d.base = reinterpret_cast<std::uintptr_t>(w->shared_base[r]);
      d.lock = static_cast<AccLock*>(map) + r;
      w->direct.push_back(d);
    }
  }
  w->own_lock = static_cast<AccLock*>(map) + w->rank();
  w->atomic_elems = true;  // every member's memory is in the one mapped segment (rma/acc_apply.h)
  return Status::Ok();
}

// MPI_Win_allocate's memory (rma/direct.h): a segment of our own that the same-host members map, so that
// their operations on it are copies. Collective: the cards are allgathered, every member maps what it can
// reach, a barrier, and each owner unlinks its name (nothing stays in /dev/shm). A member whose segment
// cannot be made (/dev/shm full, direct access off) uses the heap and is reached by messages.
int allocate_memory(ftmpi_win_s* w, std::size_t bytes, void** mem) {
  using ftmpi::rma::SegCard;
  SegCard mine{};
  const bool direct = ftmpi::rma::direct_enabled();
  if (direct) {
    auto seg = ftmpi::rma::create_segment(bytes);
    if (seg.ok()) {
      mine = seg->card;
      w->mappings.push_back({seg->map, seg->len});
      w->own_lock = &seg->header()->lock;
      *mem = seg->data();
    } else {
      ftmpi::log::debug("MPI_Win_allocate: %s; this member is reached by messages", seg.status().message().c_str());
    }
  }
  int result = MPI_SUCCESS;
  if (!*mem) {
    if (posix_memalign(mem, 64, bytes > 0 ? bytes : 64) != 0)
      result = MPI_ERR_NO_MEM;  // after the collective part, which every member joins
    else
      w->owned_mem = *mem;
  }
  mine.host = std::hash<std::string>{}(rt().router().host_id());
  std::vector<SegCard> cards(static_cast<std::size_t>(w->size()));
  int rc = PMPI_Allgather(&mine, sizeof mine, MPI_BYTE, cards.data(), sizeof mine, MPI_BYTE, w->req_comm());
  if (rc == MPI_SUCCESS) {
    using Peer = ftmpi::rma::Window::DirectPeer;
    w->direct.assign(cards.size(), Peer{});
    w->atomic_elems = mine.name[0] != 0;  // our memory is a segment the same-host members map
    for (std::size_t r = 0; r < cards.size(); ++r) {
      Peer& d = w->direct[r];
      d.atomics = true;
      if (static_cast<int>(r) == w->rank()) {
        if (mine.name[0]) {
          d.how = ftmpi::rma::Window::Access::mapped;
          d.base = reinterpret_cast<std::uintptr_t>(*mem);
          d.lock = w->own_lock;
        }
        continue;
      }
      std::size_t len = 0;
      if (!direct || cards[r].host != mine.host) continue;
      if (ftmpi::rma::SegHeader* h = ftmpi::rma::map_segment(cards[r], &len)) {
        w->mappings.push_back({h, len});
        d.how = ftmpi::rma::Window::Access::mapped;
        d.base = reinterpret_cast<std::uintptr_t>(h) + ftmpi::rma::kHeaderBytes;
        d.lock = &h->lock;
      }
    }
    (void)PMPI_Barrier(w->req_comm());  // everybody mapped (a failure here only means fewer direct targets)
  }
  ftmpi::rma::unlink_segment(mine);
  return result;
}

// MPI_Win_create / MPI_Win_create_dynamic (rma/cma.h): user memory, reached by process_vm_readv/writev from
// the same-host members that may (probed). Every member makes a small control segment (its AccLock and, for
// dynamic windows, its RegionTable); the cards (segment, pid, base, probe address) are allgathered, every
// member maps the same-host members' segments and probes them, a barrier, and each owner unlinks its name.
// A member without a segment (/dev/shm full, FTMPI_RMA_CMA not 1 — the default —, FTMPI_RMA_DIRECT=0) is
// reached, and reaches others, by messages.
// Failures only mean fewer direct targets.
void setup_cma(ftmpi_win_s* w) {
  using ftmpi::rma::SegCard;
  using Peer = ftmpi::rma::Window::DirectPeer;
  using Access = ftmpi::rma::Window::Access;
  const bool dynamic = w->flavor == Flavor::dynamic;
  SegCard mine{};
  ftmpi::rma::SegHeader* own = nullptr;
  if (ftmpi::rma::cma_enabled()) {
    auto seg = ftmpi::rma::create_segment(dynamic ? sizeof(ftmpi::rma::RegionTable) : 0);
    if (seg.ok()) {
      mine = seg->card;
      own = seg->header();
      w->mappings.push_back({seg->map, seg->len});
      w->own_lock = &own->lock;
      if (dynamic) w->own_regions = reinterpret_cast<ftmpi::rma::RegionTable*>(seg->data());
      mine.pid = static_cast<std::int64_t>(getpid());
      mine.base = reinterpret_cast<std::uintptr_t>(w->base);
      mine.probe = reinterpret_cast<std::uintptr_t>(&own->nonce);
    } else {
      ftmpi::log::debug("MPI_Win_create: %s; this member is reached by messages", seg.status().message().c_str());
    }
  }
  mine.host = std::hash<std::string>{}(rt().router().host_id());
  std::vector<SegCard> cards(static_cast<std::size_t>(w->size()));
  int rc = PMPI_Allgather(&mine, sizeof mine, MPI_BYTE, cards.data(), sizeof mine, MPI_BYTE, w->req_comm());
  if (rc == MPI_SUCCESS && own) {
    w->direct.assign(cards.size(), Peer{});
    for (std::size_t r = 0; r < cards.size(); ++r) {
      Peer& d = w->direct[r];
      d.base = dynamic ? 0 : static_cast<std::uintptr_t>(cards[r].base);
      if (static_cast<int>(r) == w->rank()) {  // ourselves: plain copies (the lock still guards accumulates)
        d.how = Access::mapped;
        d.lock = w->own_lock;
        d.regions = w->own_regions;
        continue;
      }
      std::size_t len = 0;
      if (cards[r].host != mine.host || !cards[r].name[0]) continue;
      ftmpi::rma::SegHeader* h = ftmpi::rma::map_segment(cards[r], &len);
      if (!h) continue;
      if (!ftmpi::rma::cma::probe(static_cast<pid_t>(cards[r].pid), cards[r].probe, cards[r].nonce)) {
        munmap(h, len);
        ftmpi::log::debug("MPI_Win_create: process_vm_readv on member %zu not permitted; messages", r);
        continue;
      }
      w->mappings.push_back({h, len});
      d.how = Access::cma;
      d.pid = static_cast<pid_t>(cards[r].pid);
      d.lock = &h->lock;
      if (dynamic)
        d.regions = reinterpret_cast<const ftmpi::rma::RegionTable*>(reinterpret_cast<std::byte*>(h) +
                                                                     ftmpi::rma::kHeaderBytes);
    }
  }
  if (rc == MPI_SUCCESS) (void)PMPI_Barrier(w->req_comm());
  ftmpi::rma::unlink_segment(mine);
}

// A dynamic window's attached regions, published for its direct origins (rma/cma.h).
void publish_attached(ftmpi_win_s* w) {
  if (!w->own_regions) return;
  std::vector<std::uint64_t> v;
  for (const auto& r : w->attached) {
    v.push_back(r.lo);
    v.push_back(r.hi);
  }
  ftmpi::rma::publish_regions(w->own_regions, v.data(), w->attached.size());
}

int finish(ftmpi_win_s* w, MPI_Win* win) {
  w->start_service();
  *win = w;
  return MPI_SUCCESS;
}

}  // namespace

extern "C" int PMPI_Win_create(void* base, MPI_Aint size, int disp_unit, MPI_Info info, MPI_Comm comm, MPI_Win* win) {
  FTMPI_ENTER("MPI_Win_create");
  if (size > 0 && !base) return ret(comm, Status(Errc::base, "NULL base for a non-empty window"), "MPI_Win_create");
  ftmpi_win_s* w = nullptr;
  if (int rc = make_window(comm, info, Flavor::create, size, disp_unit, win, &w, "MPI_Win_create"); rc) return rc;
  w->base = base;
  setup_cma(w);
  return finish(w, win);
}
FTMPI_ALIAS(Win_create)

extern "C" int PMPI_Win_allocate(MPI_Aint size, int disp_unit, MPI_Info info, MPI_Comm comm, void* baseptr,
                                 MPI_Win* win) {
  FTMPI_ENTER("MPI_Win_allocate");
  if (!baseptr) return ret(comm, Status(Errc::arg, "baseptr is NULL"), "MPI_Win_allocate");
  ftmpi_win_s* w = nullptr;
  if (int rc = make_window(comm, info, Flavor::allocate, size, disp_unit, win, &w, "MPI_Win_allocate"); rc) return rc;
  void* mem = nullptr;
  if (allocate_memory(w, static_cast<std::size_t>(size), &mem) != MPI_SUCCESS) {
    release_window(w);
    return ret(comm, Status(Errc::no_mem, "cannot allocate the window memory"), "MPI_Win_allocate");
  }
  w->base = mem;
  *static_cast<void**>(baseptr) = mem;
  return finish(w, win);
}
FTMPI_ALIAS(Win_allocate)

extern "C" int PMPI_Win_allocate_shared(MPI_Aint size, int disp_unit, MPI_Info info, MPI_Comm comm, void* baseptr,
                                        MPI_Win* win) {
  FTMPI_ENTER("MPI_Win_allocate_shared");
  if (!baseptr) return ret(comm, Status(Errc::arg, "baseptr is NULL"), "MPI_Win_allocate_shared");
  ftmpi_win_s* w = nullptr;
  if (int rc = make_window(comm, info, Flavor::shared, size, disp_unit, win, &w, "MPI_Win_allocate_shared"); rc)
    return rc;
  Status st = map_shared(w);
  if (!st.ok()) {
    release_window(w);
    return ret(comm, st, "MPI_Win_allocate_shared");
  }
  *static_cast<void**>(baseptr) = w->base;
  return finish(w, win);
}
FTMPI_ALIAS(Win_allocate_shared)

namespace {
// MPI_Win_shared_query on a window of MPI_Win_create or MPI_Win_allocate (MPI-4.1 §12.2.3): a rank whose
// segment this process can load from and store to answers its size, unit and local address: this process's
// own, and on one host the peers' segments of MPI_Win_allocate, which ftmpi maps here (rma/direct.h). Any
// other rank answers size 0 and NULL. MPI_PROC_NULL: the lowest rank with a non-empty accessible segment
// (size 0 and NULL when there is none).
int query_unshared(MPI_Win win, int rank, MPI_Aint* size, int* disp_unit, void* baseptr) {
  const auto access = [win](int r, void** at) -> bool {
    const auto i = static_cast<std::size_t>(r);
    if (r == win->rank()) {
      *at = win->base;
      return true;
    }
    if (i < win->direct.size() && win->direct[i].how == ftmpi_win_s::Access::mapped) {
      *at = reinterpret_cast<void*>(win->direct[i].base);
      return true;
    }
    return false;
  };
  int r = rank;
  if (rank == MPI_PROC_NULL) {
    r = -1;
    for (int i = 0; i < win->size() && r < 0; ++i) {
      void* at = nullptr;
      if (win->peer_bytes[static_cast<std::size_t>(i)] > 0 && access(i, &at)) r = i;
    }
  }
  void* at = nullptr;
  if (r < 0 || !access(r, &at) || win->peer_bytes[static_cast<std::size_t>(r)] == 0) {
    *size = 0;
    *disp_unit = r < 0 ? 1 : win->peer_disp_unit[static_cast<std::size_t>(r)];
    *static_cast<void**>(baseptr) = nullptr;
    return MPI_SUCCESS;
  }
  *size = static_cast<MPI_Aint>(win->peer_bytes[static_cast<std::size_t>(r)]);
  *disp_unit = win->peer_disp_unit[static_cast<std::size_t>(r)];
  *static_cast<void**>(baseptr) = at;
  return MPI_SUCCESS;
}
}  // namespace

extern "C" int PMPI_Win_shared_query(MPI_Win win, int rank, MPI_Aint* size, int* disp_unit, void* baseptr) {
  FTMPI_ENTER("MPI_Win_shared_query");
  FTMPI_CHECK_WIN(win, "MPI_Win_shared_query");
  if (!size || !disp_unit || !baseptr)
    return win_ret(win, Status(Errc::arg, "NULL output argument"), "MPI_Win_shared_query");
  if (win->flavor == Flavor::dynamic)
    return win_ret(win, Status(Errc::rma_flavor, "a dynamic window has no segment to query"), "MPI_Win_shared_query");
  if (rank != MPI_PROC_NULL && (rank < 0 || rank >= win->size()))
    return win_ret(win, Status(Errc::rank, "rank out of range"), "MPI_Win_shared_query");
  if (win->flavor != Flavor::shared) return query_unshared(win, rank, size, disp_unit, baseptr);
  int r = rank;
  if (rank == MPI_PROC_NULL) {  // the first rank with a non-empty segment
    r = 0;
    for (int i = 0; i < win->size(); ++i)
      if (win->peer_bytes[static_cast<std::size_t>(i)] > 0) {
        r = i;
        break;
      }
  }
  *size = static_cast<MPI_Aint>(win->peer_bytes[static_cast<std::size_t>(r)]);
  *disp_unit = win->peer_disp_unit[static_cast<std::size_t>(r)];
  // A rank whose segment is empty has no memory to point to: NULL, as MPICH and Open MPI answer (MPICH's
  // rma/win_shared_noncontig_put asserts it). MPI_PROC_NULL on an all-empty window keeps rank 0's base, "as if
  // MPI_ALLOC_MEM was called with size = 0" (MPI-3.1 11.2.3).
  const bool empty_rank = rank != MPI_PROC_NULL && *size == 0;
  *static_cast<void**>(baseptr) = empty_rank ? nullptr : win->shared_base[static_cast<std::size_t>(r)];
  return MPI_SUCCESS;
}
FTMPI_ALIAS(Win_shared_query)

extern "C" int PMPI_Win_create_dynamic(MPI_Info info, MPI_Comm comm, MPI_Win* win) {
  FTMPI_ENTER("MPI_Win_create_dynamic");
  ftmpi_win_s* w = nullptr;
  if (int rc = make_window(comm, info, Flavor::dynamic, 0, 1, win, &w, "MPI_Win_create_dynamic"); rc) return rc;
  w->base = MPI_BOTTOM;
  setup_cma(w);
  return finish(w, win);
}
FTMPI_ALIAS(Win_create_dynamic)

extern "C" int PMPI_Win_attach(MPI_Win win, void* base, MPI_Aint size) {
  FTMPI_ENTER("MPI_Win_attach");
  FTMPI_CHECK_WIN(win, "MPI_Win_attach");
  if (win->flavor != Flavor::dynamic)
    return win_ret(win, Status(Errc::rma_flavor, "MPI_Win_attach needs a dynamic window"), "MPI_Win_attach");
  if (size < 0 || (size > 0 && !base))
    return win_ret(win, Status(Errc::rma_attach, "invalid region to attach"), "MPI_Win_attach");
  const auto lo = reinterpret_cast<std::uintptr_t>(base);
  const auto hi = lo + static_cast<std::uintptr_t>(size);
  for (const auto& r : win->attached)
    if (lo < r.hi && r.lo < hi)
      return win_ret(win, Status(Errc::rma_attach, "region overlaps one already attached"), "MPI_Win_attach");
  win->attached.push_back({lo, hi});
  publish_attached(win);
  return MPI_SUCCESS;
}
FTMPI_ALIAS(Win_attach)

extern "C" int PMPI_Win_detach(MPI_Win win, const void* base) {
  FTMPI_ENTER("MPI_Win_detach");
  FTMPI_CHECK_WIN(win, "MPI_Win_detach");
  if (win->flavor != Flavor::dynamic)
    return win_ret(win, Status(Errc::rma_flavor, "MPI_Win_detach needs a dynamic window"), "MPI_Win_detach");
  const auto lo = reinterpret_cast<std::uintptr_t>(base);
  for (auto it = win->attached.begin(); it != win->attached.end(); ++it)
    if (it->lo == lo) {
      win->attached.erase(it);
      publish_attached(win);
      return MPI_SUCCESS;
    }
  return win_ret(win, Status(Errc::rma_attach, "no region attached at this address"), "MPI_Win_detach");
}
FTMPI_ALIAS(Win_detach)

// Collective. After failures (a member died, the window was invalidated) the closing barrier fails; the
// window is freed locally all the same and MPI_Win_free succeeds, so survivors can release it.
extern "C" int PMPI_Win_free(MPI_Win* win) {
  FTMPI_ENTER("MPI_Win_free");
  if (!win) return ret(nullptr, Status(Errc::arg, "win is NULL"), "MPI_Win_free");
  ftmpi_win_s* w = *win;
  FTMPI_CHECK_WIN(w, "MPI_Win_free");
  if (w->epoch_open() && w->check_live().ok())
    return win_ret(w, Status(Errc::rma_sync, "MPI_Win_free with an epoch still open (unlock/complete/wait first)"),
                   "MPI_Win_free");
  if (w->check_live().ok()) PMPI_Barrier(w->req_comm());  // every origin is done with us
  w->stop_service();
  auto r = ftmpi::api::attributes().delete_all(ftmpi::attr::ObjectKind::win, w);
  if (!r.ok()) {
    if (r.callback_code) return ftmpi::api::win_raise(w, r.callback_code, r.status.message(), "MPI_Win_free");
    return win_ret(w, r.status, "MPI_Win_free");
  }
  release_window(w);
  *win = MPI_WIN_NULL;
  return MPI_SUCCESS;
}
FTMPI_ALIAS(Win_free)

extern "C" int PMPI_Win_get_group(MPI_Win win, MPI_Group* group) {
  FTMPI_ENTER("MPI_Win_get_group");
  FTMPI_CHECK_WIN(win, "MPI_Win_get_group");
  if (!group) return win_ret(win, Status(Errc::arg, "group is NULL"), "MPI_Win_get_group");
  return PMPI_Comm_group(win->req_comm(), group);
}
FTMPI_ALIAS(Win_get_group)

extern "C" int PMPI_Win_set_info(MPI_Win win, MPI_Info info) {
  FTMPI_ENTER("MPI_Win_set_info");
  FTMPI_CHECK_WIN(win, "MPI_Win_set_info");
  if (info == MPI_INFO_NULL) return MPI_SUCCESS;
  if (!ftmpi::api::valid_info(info)) return win_ret(win, Status(Errc::info, "invalid info"), "MPI_Win_set_info");
  for (const auto& [k, v] : info->info.entries())
    if (is_window_hint(k)) win->info[k] = v;
  return MPI_SUCCESS;
}
FTMPI_ALIAS(Win_set_info)

extern "C" int PMPI_Win_get_info(MPI_Win win, MPI_Info* info_used) {
  FTMPI_ENTER("MPI_Win_get_info");
  FTMPI_CHECK_WIN(win, "MPI_Win_get_info");
  if (!info_used) return win_ret(win, Status(Errc::arg, "info is NULL"), "MPI_Win_get_info");
  ftmpi::Info i;
  // What this implementation does (defaults of MPI-3.1 §11.2.1), then the keys the user set.
  (void)i.set("no_locks", "false");
  (void)i.set("accumulate_ordering", "rar,raw,war,waw");
  (void)i.set("accumulate_ops", "same_op_no_op");
  (void)i.set("same_size", "false");
  (void)i.set("same_disp_unit", "false");
  if (win->flavor == Flavor::shared) (void)i.set("alloc_shared_noncontig", "false");
  for (const auto& [k, v] : win->info) (void)i.set(k, v);
  *info_used = ftmpi::api::new_info(i);
  return MPI_SUCCESS;
}
FTMPI_ALIAS(Win_get_info)

extern "C" int PMPI_Win_set_name(MPI_Win win, const char* name) {
  FTMPI_ENTER("MPI_Win_set_name");
  FTMPI_CHECK_WIN(win, "MPI_Win_set_name");
  if (!name) return win_ret(win, Status(Errc::arg, "name is NULL"), "MPI_Win_set_name");
  win->name.assign(name, strnlen(name, MPI_MAX_OBJECT_NAME - 1));
  return MPI_SUCCESS;
}
FTMPI_ALIAS(Win_set_name)

extern "C" int PMPI_Win_get_name(MPI_Win win, char* name, int* resultlen) {
  FTMPI_ENTER("MPI_Win_get_name");
  FTMPI_CHECK_WIN(win, "MPI_Win_get_name");
  if (!name || !resultlen) return win_ret(win, Status(Errc::arg, "NULL argument"), "MPI_Win_get_name");
  std::memcpy(name, win->name.c_str(), win->name.size() + 1);
  *resultlen = static_cast<int>(win->name.size());
  return MPI_SUCCESS;
}
FTMPI_ALIAS(Win_get_name)

// ---- error handlers ----

extern "C" int PMPI_Win_create_errhandler(MPI_Win_errhandler_function* fn, MPI_Errhandler* errhandler) {
  FTMPI_ENTER("MPI_Win_create_errhandler");
  if (!fn || !errhandler)
    return ret(nullptr, Status(Errc::arg, "NULL function or handle"), "MPI_Win_create_errhandler");
  auto* e = new ftmpi_errhandler_s;
  e->kind = ftmpi_errhandler_s::Kind::user;
  e->fn = reinterpret_cast<ftmpi_comm_errhandler_fn*>(fn);
  *errhandler = e;
  return MPI_SUCCESS;
}
FTMPI_ALIAS(Win_create_errhandler)

extern "C" int PMPI_Win_set_errhandler(MPI_Win win, MPI_Errhandler errhandler) {
  FTMPI_ENTER("MPI_Win_set_errhandler");
  FTMPI_CHECK_WIN(win, "MPI_Win_set_errhandler");
  if (!errhandler || errhandler->magic != ftmpi::kMagicErrhandler)
    return win_ret(win, Status(Errc::arg, "invalid error handler"), "MPI_Win_set_errhandler");
  if (!errhandler->predefined) ++errhandler->refs;
  ftmpi_errhandler_s* old = win->errhandler;
  win->errhandler = errhandler;
  if (old && !old->predefined && --old->refs == 0) old->magic = ftmpi::kMagicFreed;
  return MPI_SUCCESS;
}
FTMPI_ALIAS(Win_set_errhandler)

extern "C" int PMPI_Win_get_errhandler(MPI_Win win, MPI_Errhandler* errhandler) {
  FTMPI_ENTER("MPI_Win_get_errhandler");
  FTMPI_CHECK_WIN(win, "MPI_Win_get_errhandler");
  if (!errhandler) return win_ret(win, Status(Errc::arg, "errhandler is NULL"), "MPI_Win_get_errhandler");
  *errhandler = win->errhandler;
  if (!win->errhandler->predefined) ++win->errhandler->refs;
  return MPI_SUCCESS;
}
FTMPI_ALIAS(Win_get_errhandler)

extern "C" int PMPI_Win_call_errhandler(MPI_Win win, int errorcode) {
  FTMPI_ENTER("MPI_Win_call_errhandler");
  FTMPI_CHECK_WIN(win, "MPI_Win_call_errhandler");
  ftmpi::api::win_raise(win, errorcode, "error raised by MPI_Win_call_errhandler", "MPI_Win_call_errhandler");
  return MPI_SUCCESS;
}
FTMPI_ALIAS(Win_call_errhandler)

// ---- attributes ----

extern "C" int PMPI_Win_create_keyval(MPI_Win_copy_attr_function* copy_fn, MPI_Win_delete_attr_function* delete_fn,
                                      int* keyval, void* extra) {
  FTMPI_ENTER("MPI_Win_create_keyval");
  if (!keyval) return ret(nullptr, Status(Errc::arg, "keyval is NULL"), "MPI_Win_create_keyval");
  ftmpi::attr::CopyFn copy;  // windows are never duplicated: the copy function is never called
  (void)copy_fn;
  ftmpi::attr::DeleteFn del;
  if (delete_fn && delete_fn != MPI_WIN_NULL_DELETE_FN)
    del = [delete_fn, extra](const void* obj, int kv, void* value) {
      return delete_fn(static_cast<MPI_Win>(const_cast<void*>(obj)), kv, value, extra);
    };
  auto id = ftmpi::api::attributes().create_keyval(ftmpi::attr::ObjectKind::win, std::move(copy), std::move(del));
  if (!id.ok()) return ret(nullptr, id.status(), "MPI_Win_create_keyval");
  *keyval = *id;
  return MPI_SUCCESS;
}
FTMPI_ALIAS(Win_create_keyval)

extern "C" int PMPI_Win_free_keyval(int* keyval) {
  FTMPI_ENTER("MPI_Win_free_keyval");
  if (!keyval) return ret(nullptr, Status(Errc::arg, "keyval is NULL"), "MPI_Win_free_keyval");
  Status st = ftmpi::api::attributes().free_keyval(ftmpi::attr::ObjectKind::win, *keyval);
  if (!st.ok()) return ret(nullptr, st, "MPI_Win_free_keyval");
  *keyval = MPI_KEYVAL_INVALID;
  return MPI_SUCCESS;
}
FTMPI_ALIAS(Win_free_keyval)

namespace {
bool predefined_win_key(int k) {
  return k == MPI_WIN_BASE || k == MPI_WIN_SIZE || k == MPI_WIN_DISP_UNIT || k == MPI_WIN_CREATE_FLAVOR ||
         k == MPI_WIN_MODEL;
}
int attr_fail(ftmpi_win_s* w, const ftmpi::attr::AttrResult& r, const char* fn) {
  if (r.ok()) return MPI_SUCCESS;
  if (r.callback_code) return ftmpi::api::win_raise(w, r.callback_code, r.status.message(), fn);
  return win_ret(w, r.status, fn);
}
}  // namespace

extern "C" int PMPI_Win_set_attr(MPI_Win win, int keyval, void* value) {
  FTMPI_ENTER("MPI_Win_set_attr");
  FTMPI_CHECK_WIN(win, "MPI_Win_set_attr");
  if (predefined_win_key(keyval))
    return win_ret(win, Status(Errc::keyval, "predefined window attributes cannot be set"), "MPI_Win_set_attr");
  return attr_fail(win, ftmpi::api::attributes().set(ftmpi::attr::ObjectKind::win, win, keyval, value),
                   "MPI_Win_set_attr");
}
FTMPI_ALIAS(Win_set_attr)

extern "C" int PMPI_Win_get_attr(MPI_Win win, int keyval, void* value, int* flag) {
  FTMPI_ENTER("MPI_Win_get_attr");
  FTMPI_CHECK_WIN(win, "MPI_Win_get_attr");
  if (!value || !flag) return win_ret(win, Status(Errc::arg, "NULL argument"), "MPI_Win_get_attr");
  void* v = nullptr;
  *flag = 1;
  switch (keyval) {
    case MPI_WIN_BASE: v = win->base; break;
    case MPI_WIN_SIZE: v = &win->attr_size; break;
    case MPI_WIN_DISP_UNIT: v = &win->attr_disp_unit; break;
    case MPI_WIN_CREATE_FLAVOR: v = &win->attr_flavor; break;
    case MPI_WIN_MODEL: v = &win->attr_model; break;
    default: {
      bool found = false;
      Status st = ftmpi::api::attributes().get(ftmpi::attr::ObjectKind::win, win, keyval, &v, &found);
      if (!st.ok()) return win_ret(win, st, "MPI_Win_get_attr");
      *flag = found ? 1 : 0;
      if (!found) return MPI_SUCCESS;
    }
  }
  *static_cast<void**>(value) = v;
  return MPI_SUCCESS;
}
FTMPI_ALIAS(Win_get_attr)

extern "C" int PMPI_Win_delete_attr(MPI_Win win, int keyval) {
  FTMPI_ENTER("MPI_Win_delete_attr");
  FTMPI_CHECK_WIN(win, "MPI_Win_delete_attr");
  if (predefined_win_key(keyval))
    return win_ret(win, Status(Errc::keyval, "predefined window attributes cannot be deleted"), "MPI_Win_delete_attr");
  return attr_fail(win, ftmpi::api::attributes().remove(ftmpi::attr::ObjectKind::win, win, keyval),
                   "MPI_Win_delete_attr");
}
FTMPI_ALIAS(Win_delete_attr)

// ---- fault tolerance (seed 000 §1.2.3) ----

// Revokes both private communicators: every pending operation and epoch, here and (through the revoke
// flood) at every other member, completes with MPI_ERR_REVOKED; later calls on the window fail alike.
extern "C" int PMPI_Win_invalidate(MPI_Win win) {
  FTMPI_ENTER("MPI_Win_invalidate");
  FTMPI_CHECK_WIN(win, "MPI_Win_invalidate");
  win->invalidate();
  int rc = PMPIX_Comm_revoke(win->req_comm());
  if (rc == MPI_SUCCESS && win->rep_comm() != win->req_comm()) rc = PMPIX_Comm_revoke(win->rep_comm());
  if (rc != MPI_SUCCESS)
    return win_ret(win, Status(Errc::other, "MPI_Win_invalidate: revoking the window failed"), "MPI_Win_invalidate");
  return MPI_SUCCESS;
}
FTMPI_ALIAS(Win_invalidate)

extern "C" int PMPIX_Win_revoke(MPI_Win win) { return PMPI_Win_invalidate(win); }
extern "C" __attribute__((weak, alias("PMPIX_Win_revoke"), visibility("default"))) decltype(PMPIX_Win_revoke)
    MPIX_Win_revoke;

extern "C" int PMPI_Win_get_failed(MPI_Win win, MPI_Group* failedgroup) {
  FTMPI_ENTER("MPI_Win_get_failed");
  FTMPI_CHECK_WIN(win, "MPI_Win_get_failed");
  if (!failedgroup) return win_ret(win, Status(Errc::arg, "failedgroup is NULL"), "MPI_Win_get_failed");
  return PMPIX_Comm_get_failed(win->req_comm(), failedgroup);
}
FTMPI_ALIAS(Win_get_failed)
