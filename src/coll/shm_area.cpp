// The shared-memory collective area: set-up, waits, doorbells, failures (see shm_area.h).
#include "coll/shm_area.h"

#include <unistd.h>

#include <cstdlib>
#include <cstring>
#include <string>

#include "coll/builders.h"
#include "coll/allreduce_schedule.h"
#include "coll/schedule.h"
#include "mpi.h"
#include "runtime/runtime.h"
#include "transport/shm/shm_doorbell.h"
#include "transport/shm/shm_layout.h"
#include "transport/shm/shm_transport.h"

namespace ftmpi::coll {

using transport::shm::SegmentHeader;

namespace {

// The job-wide part of the decision, the same at every member (mpiexec gives every rank the same
// environment and FT model): on unless FTMPI_COLL_SHM=0, and not under Reinit (see shm_area_for).
bool shm_collectives_enabled(Runtime& rt) {
  static const bool on = [] {
    const char* v = std::getenv("FTMPI_COLL_SHM");
    return v == nullptr || std::strcmp(v, "0") != 0;
  }();
  return on && rt.reinit() == nullptr;
}

// The shm transport when it carries every member's traffic (nullptr otherwise), and their doorbells.
transport::ShmTransport* all_on_this_host(Runtime& rt, ftmpi_comm_s* comm, std::vector<SegmentHeader*>& headers) {
  transport::ShmTransport* shm = nullptr;
  headers.assign(static_cast<std::size_t>(comm->size), nullptr);
  for (int r = 0; r < comm->size; ++r) {
    if (r == comm->rank) continue;
    auto* t = dynamic_cast<transport::ShmTransport*>(&rt.router().for_peer(comm->world_rank(r)));
    if (t == nullptr || (shm != nullptr && t != shm)) return nullptr;
    shm = t;
    headers[static_cast<std::size_t>(r)] = t->peer_header(comm->world_rank(r));
    if (headers[static_cast<std::size_t>(r)] == nullptr) return nullptr;
  }
  if (shm == nullptr) return nullptr;
  headers[static_cast<std::size_t>(comm->rank)] = shm->peer_header(comm->world_rank(comm->rank));
  return headers[static_cast<std::size_t>(comm->rank)] != nullptr ? shm : nullptr;
}

Status poisoned(ftmpi_comm_s* comm) {
  if (comm->revoked.load(std::memory_order_acquire)) return Status(Errc::revoked, "the communicator has been revoked");
  return Status(Errc::proc_failed, "a member of the communicator has failed");
}

// The set-up (shm_area.h "Model"). Errors are failures of the point-to-point steps; a missing segment
// (no memory, no /dev/shm) is agreed on and makes the result nullptr everywhere.
Result<ShmArea*> set_up(Runtime& rt, ftmpi_comm_s* comm, transport::ShmTransport* shm,
                        std::vector<SegmentHeader*> headers) {
  static unsigned counter = 0;
  const std::size_t bytes = shm_area_bytes(comm->size);
  char name[64] = {};
  transport::shm::Segment seg;
  if (comm->rank == 0) {
    std::string n = "/ftmpi-coll-" + std::to_string(getpid()) + "-" + std::to_string(++counter);
    auto made = transport::shm::Segment::create(n, bytes);
    if (made.ok() && made->reserve(0, bytes).ok()) {
      seg = std::move(*made);
      std::memcpy(name, n.c_str(), n.size() + 1);
    }
  }
  // Both point-to-point steps run at every member whatever the first gave (a member that skipped the second
  // would leave the others waiting for its messages there). Both with the blanket failure rule (shm_area.h,
  // "Failures"): a member must not wait here for a live peer that has left the collective sequence.
  Status sent;
  {
    Schedule s(comm, &rt.scratch());
    s.run_immediately(rt);
    s.blanket_failures();
    build_bcast(s, name, sizeof name, &ftmpi_dt_byte, 0);
    sent = run(rt, s);
  }
  std::uint64_t ok = sent.ok() && name[0] != 0 ? 1 : 0;
  if (comm->rank != 0 && ok != 0) {
    name[sizeof name - 1] = 0;
    auto opened = transport::shm::Segment::open(name, bytes);
    if (opened.ok()) seg = std::move(*opened); else ok = 0;
  }
  Status agreed;
  {
    Schedule s(comm, &rt.scratch());
    s.blanket_failures();
    build_allreduce_into(s, &ok, sizeof ok, &ftmpi_dt_byte, true, [](const void* in, void* inout) {
      *static_cast<std::uint64_t*>(inout) &= *static_cast<const std::uint64_t*>(in);
    });
    agreed = run(rt, s);
  }
  if (comm->rank == 0) seg.unlink_name();  // everybody has mapped it (or gave up): the name goes
  Status st = !sent.ok() ? sent : agreed;
  if (!st.ok()) {
    // Not uniform under failures: members that succeeded may use the area already. Mark it (gave_up), so
    // that none of them waits for us; later small collectives here fail at once (shm_area.h "Failures").
    if (seg.base() == nullptr) return st;
    auto* a = new ShmArea(std::move(seg), comm->size, comm->rank, shm, std::move(headers));
    a->mark_setup_failed();
    (void)a->give_up(a->begin_op(), st);
    return a;
  }
  if (ok == 0) return static_cast<ShmArea*>(nullptr);
  // Every member is in its kSetupAfter-th collective here, past its start-up: when the members are all the
  // ranks of this host, long yields before were the job's own start-up work (Progress::forget_stolen_yields).
  if (comm->size == rt.router().local_ranks()) rt.progress().forget_stolen_yields();
  return new ShmArea(std::move(seg), comm->size, comm->rank, shm, std::move(headers));
}

}  // namespace

ShmArea::ShmArea(transport::shm::Segment seg, int size, int rank, transport::ShmTransport* shm,
                 std::vector<SegmentHeader*> headers)
    : seg_(std::move(seg)), p_(size), me_(rank), shm_(shm), headers_(std::move(headers)) {}

Result<ShmArea*> shm_area_for(Runtime& rt, ftmpi_comm_s* comm) {
  switch (comm->shm_state) {
    case 1: return comm->shm_area;
    case 2: return static_cast<ShmArea*>(nullptr);
    case 3: return poisoned(comm);
    default: break;
  }
  std::vector<SegmentHeader*> headers;
  transport::ShmTransport* shm = nullptr;
  // Not under Reinit: after a rollback survivors keep their old links and the restarted ranks have new
  // ones, so "one shm transport carries every member" would be decided differently at different members
  // (a restarted rank would wait in the area while the survivors use point-to-point). The decision must be
  // the same everywhere, and --with-ft reinit is a job-wide setting.
  if (!shm_collectives_enabled(rt) || comm->is_inter() || comm->size < 2 ||
      comm->size > kShmMaxRanks || (shm = all_on_this_host(rt, comm, headers)) == nullptr) {
    comm->shm_state = 2;
    return static_cast<ShmArea*>(nullptr);
  }
  if (++comm->shm_calls < kSetupAfter) return static_cast<ShmArea*>(nullptr);
  auto area = set_up(rt, comm, shm, std::move(headers));
  if (!area.ok()) {
    comm->shm_state = 3;
    return area.status();
  }
  comm->shm_area = *area;
  comm->shm_state = *area != nullptr ? 1 : 2;
  if (*area != nullptr && !(*area)->broken().ok()) return (*area)->broken();  // set-up failed here
  return *area;
}

void release_shm_area(ftmpi_comm_s* comm) {
  delete comm->shm_area;  // unmaps
  comm->shm_area = nullptr;
  comm->shm_state = 0;
  comm->shm_calls = 0;
}

// ---- waits --------------------------------------------------------------------------------------------

bool ShmArea::watch_reached(void* self) {
  auto* a = static_cast<ShmArea*>(self);
  return a->watch_ != nullptr && a->watch_->load(std::memory_order_acquire) >= a->watch_value_;
}

Status ShmArea::check(Runtime& rt, ftmpi_comm_s* comm, int x, std::uint64_t s) {
  if (comm->revoked.load(std::memory_order_acquire)) return Status(Errc::revoked, "communicator revoked during a collective");
  if (rt.engine().comm_known_failed(comm)) return Status(Errc::proc_failed, "a member of the communicator has failed");
  // x gave up (gave_up = 2 * op + 1 if it saw a revoke): its cause, a failure notice or a revoke of this
  // communicator, reaches us too; we report it once it has (the tests above), so that MPIX_Comm_failure_ack
  // after a failed collective sees the failure, as with the point-to-point algorithms.
  (void)x;
  return {};
}

Status ShmArea::wait_for(Runtime& rt, ftmpi_comm_s* comm, int x, const std::atomic<std::uint64_t>& word,
                         std::uint64_t s) {
  if (word.load(std::memory_order_acquire) >= s) [[likely]]
    return {};
  // The writer is usually a cache miss away when it has a core of its own; when ranks outnumber cores (the
  // progress policy has no spin phase) it is more likely waiting for ours: give the core away at once.
  const int spins = rt.progress().policy().spin_iterations > 0 ? 64 : 0;
  for (int spin = 0; spin < spins; ++spin) {
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#endif
    if (word.load(std::memory_order_acquire) >= s) return {};
  }
  Status st;
  watch_ = &word;
  watch_value_ = s;
  shm_->set_wake_check(&ShmArea::watch_reached, this);
  rt.progress().wait_until([&] {
    if (word.load(std::memory_order_acquire) >= s) return true;
    st = check(rt, comm, x, s);
    return !st.ok();
  });
  shm_->set_wake_check(nullptr, nullptr);
  watch_ = nullptr;
  return st;
}

Status ShmArea::window(Runtime& rt, ftmpi_comm_s* comm, std::uint64_t s) {
  if (s <= kShmSlots || min_ack_ >= s - kShmSlots) [[likely]]
    return {};
  const std::uint64_t need = s - kShmSlots;
  for (;;) {
    std::uint64_t lo = ~std::uint64_t{0};
    int lagging = -1;
    for (int r = 0; r < p_; ++r) {
      std::uint64_t a = of(r).ack.load(std::memory_order_acquire);
      if (a < lo) {
        lo = a;
        if (a < need) lagging = r;
      }
    }
    min_ack_ = lo;
    if (lagging < 0) return {};
    // Wait for the lagging member's ack, announced in ack_waiters (see "Waiting").
    header().ack_waiters.fetch_or(std::uint64_t{1} << me_, std::memory_order_seq_cst);
    Status st = wait_for(rt, comm, lagging, of(lagging).ack, need);
    header().ack_waiters.fetch_and(~(std::uint64_t{1} << me_), std::memory_order_seq_cst);
    if (!st.ok()) return st;
  }
}

void ShmArea::ring(int r) {
  SegmentHeader* h = headers_[static_cast<std::size_t>(r)];
  if (std::atomic_ref<std::uint32_t>(h->sleeping).load(std::memory_order_relaxed) != 0) [[unlikely]]
    transport::shm::ring_doorbell(*h);
}

void ShmArea::publish(std::atomic<std::uint64_t>& word, std::uint64_t s, int to) {
  word.store(s, std::memory_order_release);
  std::atomic_thread_fence(std::memory_order_seq_cst);
  if (to >= 0) {
    ring(to);
    return;
  }
  for (int r = 0; r < p_; ++r)
    if (r != me_) ring(r);
}

void ShmArea::publish_ack(std::uint64_t s) {
  of(me_).ack.store(s, std::memory_order_release);
  std::atomic_thread_fence(std::memory_order_seq_cst);
  std::uint64_t w = header().ack_waiters.load(std::memory_order_relaxed);
  while (w != 0) [[unlikely]] {
    ring(__builtin_ctzll(w));
    w &= w - 1;
  }
}

Status ShmArea::give_up(std::uint64_t s, Status st) {
  std::uint64_t none = 0;
  of(me_).gave_up.compare_exchange_strong(none, 2 * s + (st.code() == Errc::revoked ? 1 : 0),
                                          std::memory_order_acq_rel);
  if (broken_.ok()) broken_ = st;
  std::atomic_thread_fence(std::memory_order_seq_cst);
  for (int r = 0; r < p_; ++r)
    if (r != me_) transport::shm::ring_doorbell(*headers_[static_cast<std::size_t>(r)]);
  return st;
}

}  // namespace ftmpi::coll
