// ShmTransport: one receive segment per rank, one SPSC ring per (sender, receiver) pair, futex doorbell,
// process_vm_readv for single-copy reads. See shm_transport.h for the phases and shm_layout.h for the bytes.
#include "transport/shm/shm_transport.h"

#include <sys/mman.h>

#include <sys/prctl.h>
#include <sys/uio.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "transport/shm/shm_doorbell.h"
#include "transport/shm/shm_ring.h"
#include "transport/shm/shm_segment.h"
#include "util/log.h"

namespace ftmpi::transport {
namespace {

using shm::Geometry;
using shm::RingConsumer;
using shm::RingControl;
using shm::RingProducer;
using shm::Segment;
using shm::SegmentHeader;
using shm::SegmentLayout;

// Frames delivered from one ring per poll() before moving to the next (fairness between senders).
constexpr int kBurstPerRing = 16;

SegmentHeader& header_of(const Segment& s) { return *reinterpret_cast<SegmentHeader*>(s.base()); }

RingControl* ring_control(const Segment& s, const SegmentLayout& l, int sender) {
  return reinterpret_cast<RingControl*>(s.base() + l.ctrl_offset) + sender;
}

std::byte* ring_cells(const Segment& s, const SegmentLayout& l, int sender) {
  return s.base() + l.cells_offset + static_cast<std::size_t>(sender) * l.ring_bytes;
}

// One process_vm_readv/writev call moves at most this much. The kernel stops a call at MAX_RW_COUNT (2 GiB minus
// a page) and reports a short read; asking for at most 1 GiB keeps every call well inside that limit.
constexpr std::size_t kMaxReadPerCall = std::size_t{1} << 30;
// Segments of one remote_readv call (its iovec arrays live on the stack).
constexpr std::size_t kMaxReadSegs = 32;

// Move `len` bytes between `local` here and `addr` in process `pid` with `op` (process_vm_readv: there to
// here; process_vm_writev: here to there), looping over short transfers (a message of more than 2 GiB always
// takes several calls). 0 or an errno.
using VmCopy = ssize_t (*)(pid_t, const struct iovec*, unsigned long, const struct iovec*, unsigned long, unsigned long);
int copy_process_memory(VmCopy op, pid_t pid, char* local, std::uint64_t addr, std::size_t len) {
  while (len > 0) {
    const std::size_t ask = len < kMaxReadPerCall ? len : kMaxReadPerCall;
    struct iovec here {local, ask};
    struct iovec there {reinterpret_cast<void*>(addr), ask};
    ssize_t n = op(pid, &here, 1, &there, 1, 0);
    if (n < 0) {
      if (errno == EINTR) continue;
      return errno;
    }
    if (n == 0) return EFAULT;
    local += n;
    addr += static_cast<std::uint64_t>(n);
    len -= static_cast<std::size_t>(n);
  }
  return 0;
}
int read_process_memory(pid_t pid, void* dst, std::uint64_t addr, std::size_t len) {
  return copy_process_memory(::process_vm_readv, pid, static_cast<char*>(dst), addr, len);
}
int write_process_memory(pid_t pid, std::uint64_t addr, const void* src, std::size_t len) {
  return copy_process_memory(::process_vm_writev, pid, const_cast<char*>(static_cast<const char*>(src)), addr, len);
}

// With ShmOptions::reserve_by_chunks the producer reserves its ring in the receiver's segment (backing pages
// allocated, then mapped into its page tables) in chunks of this many bytes, as its first lap reaches them
// (reserve_ring, grow_ring), and the consumer maps pages as its reads fault them in (16 per fault, the
// kernel's fault-around) instead of the whole ring at the first frame. A pair that only exchanges small
// messages touches a few KiB of its 1 MiB ring, yet paid for all of it otherwise — 256 pages allocated and
// zeroed, 256 page-table entries on each side — at its first frame: on a Reinit rollback's new links, while
// the job comes back (docs/performance.md, Reinit). A stream pays 16 extra fallocate+madvise calls per MiB in
// its first lap, then nothing.
constexpr std::size_t kReserveChunk = 64 << 10;

// Map every page of [p, p + len) into this process's page tables now (they exist in the segment: the
// sender reserved them). A byte ring walks all its pages in turn, so without this the resident set would
// creep up to the ring's size over the first laps (and a stream would take its page faults one by one on
// the hot path); with it, the ring costs its full size from the first frame on and stays flat.
void populate(std::byte* p, std::size_t len, bool write) {
  const auto page = static_cast<std::uintptr_t>(shm::kPage);
  const std::uintptr_t start = reinterpret_cast<std::uintptr_t>(p) & ~(page - 1);
  const std::uintptr_t end = (reinterpret_cast<std::uintptr_t>(p) + len + page - 1) & ~(page - 1);
#ifdef MADV_POPULATE_WRITE
  if (::madvise(reinterpret_cast<void*>(start), end - start, write ? MADV_POPULATE_WRITE : MADV_POPULATE_READ) == 0)
    return;
#endif
  (void)write;
  for (std::uintptr_t a = start; a < end; a += page)  // older kernels: one read fault per page
    (void)*reinterpret_cast<volatile const std::uint8_t*>(a);
}

class ShmTransportImpl final : public ShmTransport {
 public:
  // `boot` must stay valid until attach() has returned (it is used only there).
  ShmTransportImpl(boot::Bootstrap& boot, int rank, int size, const Geometry& g, Segment own, bool asym,
                   bool by_chunks)
      : boot_(boot),
        rank_(rank),
        size_(size),
        geometry_(g),
        layout_(shm::layout_for(static_cast<std::uint32_t>(size), g)),
        own_(std::move(own)),
        links_(static_cast<std::size_t>(size)),
        max_payload_(shm::max_payload(g)),
        asym_fence_(asym),
        by_chunks_(by_chunks) {}

  const char* name() const override { return "shm"; }
  size_t max_payload() const override { return shm::max_payload(geometry_); }

  Status attach(std::span<const int> local_world_ranks) override;
  void unlink() override { own_.unlink_name(); }
  void set_last_attacher_unlinks(bool on) override { last_attacher_unlinks_ = on; }
  // The dead process's ring into our segment is not read any more, and nothing is sent into its segment.
  // Its mapping stays until this transport closes (unmapping here would gain nothing).
  void forget(int peer) override {
    if (peer < 0 || peer >= size_ || peer == rank_) return;
    std::erase_if(inbound_, [peer](const Inbound& in) { return in.src == peer; });
    next_ = 0;
    links_[static_cast<std::size_t>(peer)].out = RingProducer();
    links_[static_cast<std::size_t>(peer)].reserved = false;  // try_send's fast path needs an attached ring
  }
  void wake_self() override {
    wake_pending_.store(true, std::memory_order_seq_cst);
    shm::ring_doorbell(header_of(own_));
  }

  // The hot path (every eager send) calls nothing but the cold helpers, so it needs no stack frame: the first
  // frame to a peer (ring pages reserved), an unattached peer, oversized frames, a payload above 16 bytes
  // and a sleeping receiver are taken out of line.
  bool try_send(int peer, std::span<const std::byte> hdr, std::span<const std::byte> payload) override {
    if (static_cast<unsigned>(peer) >= static_cast<unsigned>(size_)) [[unlikely]] return false;
    Link& l = links_[static_cast<std::size_t>(peer)];
    if (!l.reserved || hdr.size() > kMaxHeader || payload.size() > 16) [[unlikely]]
      return try_send_slow(peer, l, hdr, payload);
    if (!l.out.try_push(hdr, payload)) [[unlikely]]
      return try_send_grown(peer, l, hdr, payload);
    shm::ring_doorbell_if_sleeping(*l.peer_header, l.fenced);
    return true;
  }

  // Round-robin over the attached senders, at most kBurstPerRing frames each. The sink may try_send() from
  // on_frame(), but must not call poll() again (the ring being drained is not re-entrant).
  int poll(FrameSink& sink) override {
    int delivered = 0;
    std::size_t n = inbound_.size();
    for (std::size_t i = 0; i < n; ++i) {
      std::size_t k = next_ + i;
      if (k >= n) k -= n;
      Inbound& in = inbound_[k];
      bool paused = false;
      const int got = in.ring.drain(kBurstPerRing, [&](auto h, auto p) {
        sink.on_frame(in.src, h, p);
        paused = sink.pause_requested();
        return !paused;
      });
      delivered += got;
      if (got > 0 && !in.populated) [[unlikely]] {  // the sender's first frames: its ring is reserved now
        in.populated = true;
        if (!by_chunks_) populate(ring_cells(own_, layout_, in.src), layout_.ring_bytes, false);
      }
      if (in.ring.broken() && !in.reported) [[unlikely]] {
        in.reported = true;
        log::error("shm: corrupted frame from rank %d; dropping its ring", in.src);
        sink.on_peer_lost(in.src);
      }
      if (paused) {
        next_ = k + 1 < n ? k + 1 : 0;  // round-robin goes on after the ring that paused
        return delivered;
      }
    }
    if (n > 0 && ++next_ >= n) next_ = 0;
    return delivered;
  }

  bool supports_remote_read() const override { return remote_read_ok_; }

  SegmentHeader* peer_header(int world_rank) override {
    if (world_rank < 0 || world_rank >= size_) return nullptr;
    return links_[static_cast<std::size_t>(world_rank)].peer_header;
  }
  void set_wake_check(WakeCheck fn, void* arg) override {
    wake_check_ = fn;
    wake_arg_ = arg;
  }

  // The same permission as a read (the kernel checks ptrace access either way), probed once by the read.
  bool supports_remote_write() const override { return remote_read_ok_; }
  Status remote_write(int peer, std::uint64_t remote_addr, const void* src, size_t len) override {
    if (peer < 0 || peer >= size_ || links_[static_cast<std::size_t>(peer)].peer_header == nullptr)
      return Status(Errc::arg, "shm remote_write: peer " + std::to_string(peer) + " is not attached");
    int err = write_process_memory(links_[static_cast<std::size_t>(peer)].pid, remote_addr, src, len);
    if (err == ESRCH) return Status(Errc::proc_failed, "shm remote_write: rank " + std::to_string(peer) + " is gone");
    if (err != 0)
      return Status(Errc::other, "shm remote_write to rank " + std::to_string(peer) + ": " + std::strerror(err));
    return Status::Ok();
  }

  // Ours (messages from `peer`): in our segment, beside the ring `peer` writes; theirs: in its segment,
  // beside our ring (shm_layout.h RingControl::gates). Both pages exist once the sender sent a frame.
  std::uint64_t* split_gates(int peer, bool from_peer) override {
    if (peer < 0 || peer >= size_ || links_[static_cast<std::size_t>(peer)].peer_header == nullptr) return nullptr;
    if (from_peer) return ring_control(own_, layout_, peer)->gates;
    const Segment& s = peer == rank_ ? own_ : links_[static_cast<std::size_t>(peer)].segment;
    return ring_control(s, layout_, rank_)->gates;
  }

  Status remote_read(int peer, void* dst, std::uint64_t remote_addr, size_t len) override {
    if (peer < 0 || peer >= size_ || links_[static_cast<std::size_t>(peer)].peer_header == nullptr)
      return Status(Errc::arg, "shm remote_read: peer " + std::to_string(peer) + " is not attached");
    int err = read_process_memory(links_[static_cast<std::size_t>(peer)].pid, dst, remote_addr, len);
    if (err != 0)
      return Status(Errc::other,
                    "shm remote_read from rank " + std::to_string(peer) + ": " + std::strerror(err));
    return Status::Ok();
  }

  // One process_vm_readv for up to kMaxReadSegs segments (the rest: the caller's one-by-one reads).
  size_t remote_readv(int peer, std::span<const ReadSeg> segs) override {
    if (peer < 0 || peer >= size_ || links_[static_cast<std::size_t>(peer)].peer_header == nullptr) return 0;
    const std::size_t k = segs.size() < kMaxReadSegs ? segs.size() : kMaxReadSegs;
    struct iovec here[kMaxReadSegs], there[kMaxReadSegs];
    std::size_t total = 0;
    for (std::size_t i = 0; i < k; ++i) {
      here[i] = {segs[i].dst, segs[i].len};
      there[i] = {reinterpret_cast<void*>(segs[i].remote_addr), segs[i].len};
      total += segs[i].len;
    }
    if (k == 0 || total > kMaxReadPerCall) return 0;
    ssize_t n;
    do {
      n = ::process_vm_readv(links_[static_cast<std::size_t>(peer)].pid, here, k, there, k, 0);
    } while (n < 0 && errno == EINTR);
    if (n <= 0) return 0;
    std::size_t done = 0;  // leading segments read whole
    for (auto left = static_cast<std::size_t>(n); done < k && segs[done].len <= left; ++done) left -= segs[done].len;
    return done;
  }

  void wait(int timeout_us) override {
    if (wake_pending_.exchange(false, std::memory_order_acq_rel)) return;
    if (timeout_us <= 0) return;
    shm::sleep_on_doorbell(header_of(own_), timeout_us, [&] {
      if (wake_pending_.load(std::memory_order_relaxed)) return true;
      if (wake_check_ != nullptr && wake_check_(wake_arg_)) return true;
      for (const Inbound& in : inbound_)
        if (in.ring.nonempty()) return true;
      return false;
    });
    wake_pending_.store(false, std::memory_order_relaxed);
  }

 private:
  // What we know of one local peer: its mapped segment and our producer end of the ring into it.
  struct Link {
    Segment segment;                      // empty for our own rank (we use own_)
    SegmentHeader* peer_header = nullptr;
    RingProducer out;
    pid_t pid = 0;
    bool reserved = false;  // reserve_ring() ran
    std::size_t reserved_to = 0;  // bytes [0, reserved_to) of our ring in the peer's segment are reserved
    // A fence after each frame (shm_doorbell.h): false when this process and the owner use the asymmetric
    // fence (membarrier) instead.
    bool fenced = true;
  };
  struct Inbound {
    int src;
    RingConsumer ring;
    bool reported = false;  // on_peer_lost() was called for a broken ring
    bool populated = false;  // the first frame was read (the whole ring mapped, unless by_chunks_)
  };

  [[gnu::noinline]] bool try_send_slow(int peer, Link& l, std::span<const std::byte> hdr,
                                       std::span<const std::byte> payload) {
    if (!l.out.attached() || hdr.size() > kMaxHeader || payload.size() > max_payload_) return false;
    if (!l.reserved) reserve_ring(peer, l);
    if (!l.out.try_push(hdr, payload)) return try_send_grown(peer, l, hdr, payload);
    shm::ring_doorbell_if_sleeping(*l.peer_header, l.fenced);
    return true;
  }
  // A push failed: if the reservation frontier stopped it (not a full ring), reserve further and push again.
  [[gnu::noinline]] bool try_send_grown(int peer, Link& l, std::span<const std::byte> hdr,
                                        std::span<const std::byte> payload) {
    if (!l.out.stopped_by_frontier()) return false;  // the ring is full: the consumer has to drain first
    grow_ring(peer, l);
    if (!l.out.try_push(hdr, payload)) return false;
    shm::ring_doorbell_if_sleeping(*l.peer_header, l.fenced);
    return true;
  }
  Status map_peer(int peer, Link& link);
  void add_inbound(int src) {
    inbound_.push_back(
        {src, RingConsumer(ring_control(own_, layout_, src), ring_cells(own_, layout_, src), geometry_)});
  }
  void reserve_ring(int peer, Link& link);
  void grow_ring(int peer, Link& link);
  // Reserve and populate bytes [from, to) of our ring in `peer`'s segment; false (logged) when /dev/shm is full.
  bool reserve_cells(int peer, Link& link, std::size_t from, std::size_t to);
  void probe_remote_read();

  boot::Bootstrap& boot_;
  const int rank_;
  const int size_;
  const Geometry geometry_;
  const SegmentLayout layout_;
  Segment own_;
  std::vector<Link> links_;       // by world rank; unattached peers have no producer
  std::vector<Inbound> inbound_;  // rings of our segment with an attached sender
  std::size_t next_ = 0;          // round-robin start for poll()
  bool remote_read_ok_ = false;
  bool last_attacher_unlinks_ = true;
  std::atomic<bool> wake_pending_{false};
  const std::size_t max_payload_;  // max_payload(), for try_send
  const bool asym_fence_;          // we raised kOwnerMembarrier and are registered (shm_doorbell.h)
  const bool by_chunks_;           // ShmOptions::reserve_by_chunks
  WakeCheck wake_check_ = nullptr;  // coll/shm_area.h
  void* wake_arg_ = nullptr;
};

Status ShmTransportImpl::map_peer(int peer, Link& link) {
  if (peer == rank_) {
    link.peer_header = &header_of(own_);
  } else {
    auto name = boot_.get("shm." + std::to_string(peer));
    if (!name.ok()) return Status(Errc::other, "shm: rank " + std::to_string(peer) + " published no segment");
    auto seg = Segment::open(*name, shm::kPage);
    if (!seg.ok()) return seg.status();
    const SegmentHeader& h = header_of(*seg);
    if (h.magic != shm::kSegmentMagic || h.version != shm::kLayoutVersion || h.owner_rank != peer ||
        h.nranks != static_cast<std::uint32_t>(size_) || h.cells != geometry_.cells ||
        h.cell_bytes != geometry_.cell_bytes || seg->size() < layout_.total)
      return Status(Errc::other, "shm: segment " + *name + " does not match this job's layout");
    link.segment = std::move(*seg);
    link.peer_header = &header_of(link.segment);
  }
  const Segment& s = peer == rank_ ? own_ : link.segment;
  link.pid = link.peer_header->owner_pid;
  link.fenced = !(asym_fence_ && (link.peer_header->owner_flags & shm::kOwnerMembarrier) != 0);
  link.out = RingProducer(ring_control(s, layout_, rank_), ring_cells(s, layout_, rank_), geometry_);
  return Status::Ok();
}

// First frame to `peer`: allocate the backing pages of our ring's control and of the ring in its segment
// (pairs that never talk cost nothing) — all of it, or (reserve_by_chunks) its first chunk, with the
// producer's frontier there: grow_ring() takes the rest chunk by chunk as the first lap reaches it. A full /dev/shm is reported here,
// clearly, instead of only as a SIGBUS at some later store into the ring. A producer that starts on a ring
// already in use (tail != 0) reserves all of it at once: its positions are not offsets from 0.
void ShmTransportImpl::reserve_ring(int peer, Link& link) {
  link.reserved = true;
  if (peer == rank_ && std::none_of(inbound_.begin(), inbound_.end(), [&](const Inbound& in) { return in.src == rank_; }))
    add_inbound(rank_);  // before our first frame to ourselves (attach() leaves our own ring out)
  Segment& s = peer == rank_ ? own_ : link.segment;
  std::size_t ctl_page =
      (layout_.ctrl_offset + static_cast<std::size_t>(rank_) * sizeof(RingControl)) / shm::kPage * shm::kPage;
  Status st = s.reserve(ctl_page, shm::kPage);
  if (!st.ok()) {
    log::error("%s; sending to rank %d may crash with SIGBUS (make /dev/shm larger, or set "
               "FTMPI_SHM_CELLS / FTMPI_SHM_CELL_BYTES lower)",
               st.message().c_str(), peer);
    return;  // no frontier: as before, the stores will tell
  }
  const std::size_t first =
      by_chunks_ && link.out.tail() == 0 && kReserveChunk < layout_.ring_bytes ? kReserveChunk : layout_.ring_bytes;
  if (!reserve_cells(peer, link, 0, first)) return;
  link.reserved_to = first;
  link.out.set_frontier(first < layout_.ring_bytes ? first : RingProducer::kNoFrontier);
}

// A push reached the frontier: reserve up to the chunk that holds its end (the whole ring once the first lap
// wraps: positions past the ring's end are offsets from 0 again, all reserved by then).
void ShmTransportImpl::grow_ring(int peer, Link& link) {
  const std::uint64_t want = link.out.wanted();
  std::size_t to = layout_.ring_bytes;
  if (want < layout_.ring_bytes)
    to = std::min(shm::round_up(static_cast<std::size_t>(want), kReserveChunk), layout_.ring_bytes);
  if (to > link.reserved_to && !reserve_cells(peer, link, link.reserved_to, to)) {
    link.out.set_frontier(RingProducer::kNoFrontier);  // reported once; as before, the stores will tell
    return;
  }
  link.reserved_to = std::max(link.reserved_to, to);
  link.out.set_frontier(link.reserved_to < layout_.ring_bytes ? link.reserved_to : RingProducer::kNoFrontier);
}

bool ShmTransportImpl::reserve_cells(int peer, Link& link, std::size_t from, std::size_t to) {
  Segment& s = peer == rank_ ? own_ : link.segment;
  std::byte* ring = s.base() + layout_.cells_offset + static_cast<std::size_t>(rank_) * layout_.ring_bytes;
  Status st = s.reserve(static_cast<std::size_t>(ring - s.base()) + from, to - from);
  if (!st.ok()) {
    log::error("%s; sending to rank %d may crash with SIGBUS (make /dev/shm larger, or set "
               "FTMPI_SHM_CELLS / FTMPI_SHM_CELL_BYTES lower)",
               st.message().c_str(), peer);
    return false;
  }
  populate(ring + from, to - from, true);
  return true;
}

Status ShmTransportImpl::attach(std::span<const int> local_world_ranks) {
  for (int peer : local_world_ranks) {
    if (peer < 0 || peer >= size_) return Status(Errc::arg, "shm attach: bad rank " + std::to_string(peer));
    Link& link = links_[static_cast<std::size_t>(peer)];
    if (link.peer_header != nullptr) continue;
    FTMPI_TRY(map_peer(peer, link));
    if (peer != rank_ && last_attacher_unlinks_) {  // the last local peer to map a segment removes its name (shm_layout.h, line 2)
      const auto others = static_cast<std::uint32_t>(local_world_ranks.size() - 1);
      auto* hdr = const_cast<SegmentHeader*>(link.peer_header);
      if (__atomic_add_fetch(&hdr->attached, 1u, __ATOMIC_ACQ_REL) == others) ::shm_unlink(link.segment.name().c_str());
    }
    // Our own ring is read only once we send to ourselves through shm (reserve_ring): the router sends a
    // rank's frames to itself through the self transport, so every progress pass would look at it in vain.
    if (peer != rank_) add_inbound(peer);
  }
  probe_remote_read();
  return Status::Ok();
}

// process_vm_readv may be forbidden (seccomp in containers: EPERM/ENOSYS; Yama ptrace_scope). Read one
// peer's segment magic through it once; if that fails, say so and let the engine pipeline through rings.
void ShmTransportImpl::probe_remote_read() {
  remote_read_ok_ = true;
  for (const Link& link : links_) {
    if (link.peer_header == nullptr || link.peer_header == &header_of(own_)) continue;
    std::uint64_t magic = 0;
    int err = read_process_memory(link.pid, &magic, link.peer_header->owner_addr, sizeof magic);
    if (err != 0 || magic != shm::kSegmentMagic) {
      remote_read_ok_ = false;
      log::debug("shm: process_vm_readv unavailable (%s); large messages use pipelined chunks",
                 err != 0 ? std::strerror(err) : "wrong data");
    }
    return;
  }
}

}  // namespace

Result<ShmOptions> ShmOptions::for_job(int job_size) {
  ShmOptions o;
  // Each talking pair touches up to cells * cell_bytes; with many ranks per host, shorter rings.
  if (job_size > 64)
    o.geometry.cells = 16;
  else if (job_size > 16)
    o.geometry.cells = 32;
  auto from_env = [](const char* name, std::uint32_t* out) {
    const char* v = std::getenv(name);
    if (v == nullptr || *v == '\0') return true;
    char* end = nullptr;
    unsigned long n = std::strtoul(v, &end, 10);
    if (*end != '\0' || n > (1u << 20)) return false;
    *out = static_cast<std::uint32_t>(n);
    return true;
  };
  long cores = ::sysconf(_SC_NPROCESSORS_ONLN);
  if (const char* c = std::getenv("FTMPI_NUM_CORES"); c != nullptr && std::atoi(c) > 0) cores = std::atoi(c);
  o.asymmetric_fence = job_size <= cores;
  if (const char* m = std::getenv("FTMPI_SHM_MEMBARRIER"); m != nullptr && (m[0] == '0' || m[0] == '1') && m[1] == '\0')
    o.asymmetric_fence = m[0] == '1';
  if (!from_env("FTMPI_SHM_CELLS", &o.geometry.cells) ||
      !from_env("FTMPI_SHM_CELL_BYTES", &o.geometry.cell_bytes) || !shm::valid(o.geometry))
    return Status(Errc::arg, "shm: FTMPI_SHM_CELLS must be a power of two in 2..128 and FTMPI_SHM_CELL_BYTES "
                             "a multiple of 64 in 128..131072");
  return o;
}

Result<std::unique_ptr<ShmTransport>> ShmTransport::create(boot::Bootstrap& boot) {
  auto opts = ShmOptions::for_job(boot.size());
  if (!opts.ok()) return opts.status();
  return create(boot, *opts);
}

Result<std::unique_ptr<ShmTransport>> ShmTransport::create(boot::Bootstrap& boot, const ShmOptions& opts) {
  const Geometry& g = opts.geometry;
  if (!shm::valid(g)) return Status(Errc::arg, "shm: invalid ring geometry");
  int rank = boot.rank();
  int size = boot.size();
  SegmentLayout layout = shm::layout_for(static_cast<std::uint32_t>(size), g);
  std::string name = shm::segment_name(boot.job_id(), rank);
  auto seg = Segment::create(name, layout.total);
  if (!seg.ok()) return seg.status();

  SegmentHeader& h = header_of(*seg);
  h.version = shm::kLayoutVersion;
  h.nranks = static_cast<std::uint32_t>(size);
  h.cells = g.cells;
  h.cell_bytes = g.cell_bytes;
  h.owner_rank = rank;
  h.owner_pid = static_cast<std::int32_t>(::getpid());
  h.owner_addr = reinterpret_cast<std::uint64_t>(seg->base());
  const bool asym = opts.asymmetric_fence && shm::register_asymmetric_fence();
  h.owner_flags = asym ? shm::kOwnerMembarrier : 0u;
  h.magic = shm::kSegmentMagic;

  // Under Yama ptrace_scope=1 only ancestors may process_vm_readv us; our siblings descend from our
  // launcher (mpiexec or Hydra's proxy), so name it as our allowed "tracer". Harmless without Yama.
  ::prctl(PR_SET_PTRACER, static_cast<unsigned long>(::getppid()), 0, 0, 0);

  FTMPI_TRY(boot.put("shm." + std::to_string(rank), name));
  return std::unique_ptr<ShmTransport>(new ShmTransportImpl(boot, rank, size, g, std::move(*seg), asym, opts.reserve_by_chunks));
}

}  // namespace ftmpi::transport
