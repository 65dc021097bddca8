// The shared-memory collective area of a communicator whose members are all on this host (issue 13
// target 5): small Bcast / Allreduce / Reduce / Barrier without envelopes, matching or rings.
//
// Model. One POSIX shared-memory segment per communicator, made by its rank 0 at the kSetupAfter-th small
// collective (coll/shm_coll.cpp decides what is small; every member counts the same calls, so all set up
// at the same call), its name sent with a point-to-point Bcast, mapped by every member, agreed on with a
// point-to-point Allreduce, and unlinked at once (a killed job leaves nothing in /dev/shm). Each member r
// owns one RankArea: `ack` (the last operation it finished), `gave_up` (see Failures), and kSlots buffers
// `in` (its contribution, or the data it broadcasts) and kOutSlots buffers `out` (its result as a leader).
// A buffer is a 64-bit sequence word followed by up to kMaxBytes packed bytes: the writer stores the bytes,
// then the sequence number of the operation (release); a reader waits for that number (acquire) and reads.
// Operations are numbered 1, 2, ... per communicator (every member issues them in the same order) and op s
// uses in[s % kSlots] and out[s % kOutSlots]. A leader writes out[] only once every member arrived at op s,
// i.e. finished op s - 1 and every read of out[] before it: out[] needs no window.
//
// Algorithms (flat, one cache-line hand-off per member and direction for up to 56 bytes):
//   Bcast      the root writes in[s], the others read it.                 the root waits for nobody
//   Reduce     every rank writes in[s]; the root reduces them in rank order (non-commutative ops too).
//   Allreduce  every rank writes in[s], then arrives (below); the last arriver reduces them in rank order
//              into out[s] of rank 0's area (any member may write it) and publishes it; the others read it.
//              Up to 24 / p bytes (12 at 2 ranks): in the counted line, every member reduces (below).
//   Barrier    arrive (below); the last arrival is the release: no in[s] (so no window), no out[s].
// Last arriver. Barrier and Allreduce are *counted* ops, numbered c = 1, 2, ... per member (each member
// counts the same calls). Arriving at counted op c is a fetch_add(1) on the area's `arrivals` word (acq_rel);
// the member whose add brings it to c * p is the last: every other member's contribution to op c is
// visible to it (the adds form one release sequence), and no member can arrive at c + 1 before the count
// reached c * p (it must first see op c's release, which the last arriver writes only after its add). The
// leader-based flat version (rank 0 waits for every contribution, then publishes) needed rank 0 to be
// scheduled after the last arrival before anybody could leave; with more ranks than cores that was one more
// context switch on the critical path of every call, and the last arriver is running by definition
// (measured 2x faster at 4 and 8 ranks on 2 cores, and 0.34 against 0.53 us at 2 ranks bound: Barrier;
// docs/performance.md "Collectives", 2026-11-26 21:40). A member that fails before arriving leaves the count
// short: the others wait until the failure or revoke reaches them (see Failures), as they waited for the
// leader before; out[s] is written once every member arrived at op s, as before, so its reuse rule holds.
// In the line (2026-11-27, coll13s). The arrivals word shares its cache line (ShmCountedLine) with 48 bytes
// in two halves of 24: counted op c's contributions to a small Allreduce (p * b <= 24 bytes: 12 at 2 ranks,
// 6 at 4) go to half c % 2, member r's at [r b, (r + 1) b). Each member stores its contribution there, then
// adds to `arrivals` (the add needs the line anyway, so the contribution travels with it), then waits until
// `arrivals` >= c * p, i.e. every member arrived; each member then reduces the p contributions itself, in
// rank order, from the line it now holds: the same inputs, order and code, so the same bits at every member
// (a user op is called at every member instead of once). A Barrier is the same without data: the last add
// is the release. The last arriver rings the sleepers after a seq_cst fence (the Dekker side of
// "Waiting", as publish()). Why: at 2 ranks the leader-based form cost the last arriver the add (one line
// transfer), a read of the other's in[s] (a second) and a store to out[s], which the other polls (a third
// on the other's path); now the critical path is the last add and the others' re-read of that line, the
// same as a Barrier. Measured, 2 ranks bound, 8 B, medians (docs/performance.md, coll13s): slow placement
// Allreduce 0.33-0.47 -> 0.22-0.25 us, Barrier 0.22-0.28 -> 0.17-0.18; fast placement Allreduce 0.16-0.19
// -> 0.11-0.17 in one sub-regime but 0.09-0.11 -> 0.125-0.13 in another (the one open cost: still ~0.6x
// Open MPI there), Barrier no worse in either. Tried first and
// dropped: (a) a 2-member exchange (each publishes its own line and reads the other's): no better in the slow
// placement, 20-40 % slower in the fast one (a waiter's poll pulls the writer's line back before its
// store, so that store needs a second transfer); (b) the last arriver reducing into the line and
// publishing a `done` word there: as fast in the slow placement, but ~25 % slower than before in the fast
// one (the others' polls took the line back between the add and the result's store); (c) a fence-free
// publish toward members that sleep with the asymmetric fence: no difference (as small13g found).
// Reuse, for any mix of counted ops (Barrier, Allreduce in or out of the line): a member writes half h at
// counted op c' only after it finished op c' - 1, so op c' - 1 completed, so every member arrived at it and
// so had finished op c' - 2, the previous op whose contributions were in half h, and its reads of them.
// `arrivals` only grows, so a waiter for op c never mistakes an older op's count for its own.
//
// Buffer reuse (the window): before writing slot s % kSlots, a member waits until every member's `ack`
// is >= s - kSlots, i.e. every reader of that slot's previous use (op s - kSlots) has finished. Every
// member stores `ack` = s when it finished op s, but only when s is a multiple of kShmAckEvery (16): the
// published ack lags the finished op by at most 15, so a member at op s that waits for ack >= s - kSlots
// waits for ops <= s - 17 that every member reaches without anything from it (induction over the smallest op
// in progress: its window needs ack >= t - 32 <= floor16(t - 1)). The minimum is cached, so the scan of the
// p ack words happens at most once per kSlots - 15 operations; a Bcast root may run 17-32 operations ahead.
// Why not every op: in a Reduce (Bcast) loop at 2 ranks the contributor (root) runs ahead to the window's
// end, then polls the other's ack line; each ack store then had to take that line back (an ownership
// transfer, ~150-250 ns in the slow placement) before finish()'s fence let the op end: one extra cache-line
// crossing per op on the critical path, the whole gap to Open MPI (docs/performance.md, reduce13h). Now it is
// one per 16 ops, and 15 ops in 16 skip finish()'s fence.
//
// Waiting. First 64 pause-spins, but only when the progress policy spins (the rank has a core of its own;
// when ranks outnumber cores the writer is likely waiting for our core: measured, an 8-rank Barrier on 2 cores took
// 1.4x as long with the spin). Then through the progress loop (Progress::wait_until): the engine
// keeps running (revoke notices, failure notices, point-to-point traffic) and the waiter backs off — spin
// (not when oversubscribed), yield, then sleep on its shm
// segment's futex doorbell, the one frames and failure notices ring. A writer rings the doorbell of each
// member that may wait for what it wrote when that member sleeps (the Dekker protocol of shm_doorbell.h;
// the waiter's re-check after raising `sleeping` includes the flag it waits for: ShmTransport's wake check).
// Members waiting for an `ack` (a Bcast root ahead by kSlots) announce it in the area's `ack_waiters`
// bit mask, which every ack store tests (one load of a line that is written only in that case).
//
// Failures (ULFM). A wait for member x's word of op s ends with an error when: the communicator is revoked
// (Errc::revoked); or a member is known to have failed (Errc::proc_failed: the same blanket rule as a
// point-to-point collective started after a failure, p2p/engine.h "Collective failures"). A member whose
// operation fails stores gave_up (once; it never changes) and rings every member, and from then on fails
// every later operation on the communicator at once. Its cause (a failure notice, a revoke) reaches every
// member, whose waits then end with it; so nobody waits for a member that left, and an error is reported
// only once its cause is known here (MPIX_Comm_failure_ack right after it sees the failure). A member
// stopped (SIGSTOP) is the detector's business like any hung peer: the others wait until it is declared
// failed or the communicator is revoked.
// The set-up's point-to-point Bcast and Allreduce follow the same blanket rule (Schedule::blanket_failures),
// not the precise one of the point-to-point collectives. Found with launcher ft_early_stop (3 ranks, rank 1
// SIGSTOPped in a Barrier loop, 1 run in ~60 under load): the 2nd Barrier (point-to-point, precise) failed at
// rank 0, which needed rank 1's message, and succeeded at rank 2, which did not; rank 0 left the loop, rank 2
// entered the 3rd Barrier, i.e. the set-up, and waited in its Bcast for the name from rank 0 — alive, so a
// precise receive never failed, although rank 1's failure was known there. A Barrier must fail when a member
// is dead; the hidden Bcast from rank 0 did not depend on rank 1. With the blanket rule the wait ends with
// MPI_ERR_PROC_FAILED once rank 1's failure is known, as the area's own waits do.
//
// Prefetch. In a loop of Bcasts (or Reduces) the writer runs ahead of the reader within the window, and each
// op's in[] line crossed between the cores on demand: the reader missed on it, and the writer's store waited
// for the line to come back from the reader's cache. Now the writer asks for its slot of op s + 2 for
// writing (PREFETCHW, as the ring's producer does: transport/shm/shm_ring.h) and the reader asks for the
// writer's slot of op s + 2, so the transfers overlap the calls. Measured (2 ranks bound, slow placement,
// 8-byte Bcast): 0.15-0.25 -> 0.11-0.13 us (Open MPI 0.12-0.13); reader alone 0.155; distance 4 no better;
// fast placement unchanged (docs/performance.md, 2026-11-27 small13g).
// The Bcast reader now asks for the root's slot of op s + 8 (kShmReadPrefetchSlots; the writer stays at
// 2): in a loop the root is 17-32 ops ahead (see "Buffer reuse"), so that slot is written already, and at
// 2 ahead the reader waited for most of a line transfer per op (a transfer takes longer than an op).
// Measured (coll13s), 2 ranks bound, 8 B, medians: slow placement 0.186 -> 0.137 and 0.143 -> 0.128 us in
// two sub-regimes (Open MPI 0.163 / 0.137), fast 0.055 -> 0.030 in one and unchanged (0.064) in another;
// reader distance 4, writer distance 4 and a Reduce root at distance 8 measured no different. A reader that
// is not behind may pull a line the root has yet to write, which costs the root one more transfer then and
// moves nothing wrong (a hint).
//
// Why kSlots = 32: with 8 ranks on 2 cores (oversubscribed) a window of 8 made a Bcast loop ~8x slower than
// the point-to-point tree, whose rings buffer 64 messages: every reader must run once per window.
//
// The agreement board (ft/agree_board.h) lives here too: agree_done and kShmAgreeRing entries per member, and
// kShmAgreeRing outcomes in the header (4 KiB), used only by ft/shm_board.h (agreements do not count as small collectives and never set the area up).
//
// Bcast is used when ranks outnumber cores too (it was not, until the oversubscribed wait policy yielded
// instead of sleeping: then every Bcast woke each sleeping reader by futex); measured 0.4-0.6x the tree there.
//
// Cost. Memory: 2 header lines and the board's 64 plus (3 + 5 * (kSlots + kOutSlots) + kShmAgreeRing) cache lines per member (~13.5 KiB), one mapping per communicator that did
// kSetupAfter small collectives. Set-up: one shm_open/ftruncate/mmap per member plus a point-to-point
// Bcast and Allreduce, once.
#pragma once
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

#include "comm/communicator.h"
#include "transport/shm/shm_ring.h"
#include "transport/shm/shm_segment.h"
#include "util/status.h"

namespace ftmpi {
class Runtime;
}
namespace ftmpi::transport {
class ShmTransport;
}
namespace ftmpi::transport::shm {
struct SegmentHeader;
}

namespace ftmpi::coll {

inline constexpr std::size_t kShmLine = 64;
inline constexpr std::size_t kShmMaxBytes = 256;  // largest packed payload of the shm collectives
inline constexpr int kShmMaxRanks = 64;           // ack_waiters is one 64-bit mask
inline constexpr std::uint64_t kShmSlots = 32;    // `in` buffers: a Bcast root may run this far ahead
inline constexpr std::uint64_t kShmOutSlots = 8;  // `out` buffers (written only once every reader arrived)
inline constexpr std::uint64_t kShmPrefetchSlots = 2;  // how far ahead a writer asks for its in[] lines
inline constexpr std::uint64_t kShmReadPrefetchSlots = 8;  // how far ahead a Bcast reader asks for the root's (see "Prefetch")
inline constexpr std::uint64_t kShmAckEvery = 16;  // `ack` is stored at ops that are multiples of this (<= kShmSlots)
static_assert(kShmAckEvery <= kShmSlots && kShmSlots % kShmAckEvery == 0);
static_assert(kShmReadPrefetchSlots < kShmSlots - kShmAckEvery);  // the root is >= 17 ops ahead in a loop

struct alignas(kShmLine) ShmBuf {
  std::atomic<std::uint64_t> seq;  // op number whose bytes `data` holds (0: never written)
  std::uint32_t bytes;             // how many (a Bcast root's count may exceed a reader's: MPI_ERR_TRUNCATE)
  std::byte data[kShmMaxBytes];
};

// The agreement board's entry (ft/agree_board.h; ft/shm_board.h reads and writes it): one cache line.
inline constexpr std::uint64_t kShmAgreeRing = 8;  // = ft::kBoardRing
struct alignas(kShmLine) ShmAgreeEntry {
  std::atomic<std::uint64_t> state;  // ft::board_state(instance, contributed|closed); 0: never written
  std::uint32_t total;
  std::uint16_t off;
  std::uint16_t len;
  std::uint64_t words[6];            // ft::kBoardWords
};

// The agreement board's outcome of an instance (ft/agree_board.h "Algorithm" 2-4; ft/shm_board.h): the
// arrivals word, the outcome word and up to 60 words of the decided value, on 8 cache lines (4 words on the
// first, the one a waiter reads for a one-word flag).
struct alignas(kShmLine) ShmAgreeOutcome {
  std::atomic<std::uint64_t> arrivals;  // (instance << 8) | 0x80 if one arrived closed | count
  std::atomic<std::uint64_t> outcome;   // ft::board_state(instance, contributed = decided | closed = fall back)
  std::uint32_t total;                  // ft::kBoardNoResult: the value is not here
  std::uint32_t off;
  std::uint32_t len;
  std::uint32_t repeated;               // 1: [off, off+len) are all words[0] (ft::AgreeBoard::publish's repeated form)
  std::uint64_t words[60];              // ft::kBoardResultWords
};

struct alignas(kShmLine) ShmRankArea {
  alignas(kShmLine) std::atomic<std::uint64_t> ack;      // last op this member finished, rounded down to kShmAckEvery
  alignas(kShmLine) std::atomic<std::uint64_t> gave_up;  // 2 * first op it failed + 1 if revoked (0: none)
  ShmBuf in[kShmSlots];
  ShmBuf out[kShmOutSlots];
  alignas(kShmLine) std::atomic<std::uint64_t> agree_done;  // the board's window (ft/agree_board.h)
  ShmAgreeEntry agree[kShmAgreeRing];
};

// The counted ops' line (see "Last arriver" and "In the line").
struct alignas(kShmLine) ShmCountedLine {
  std::atomic<std::uint64_t> arrivals;  // arrivals at counted ops
  std::uint64_t unused;
  std::byte bytes[48];                  // counted op c's contributions in half c % 2, member r's at [r b, (r + 1) b)
};
inline constexpr std::size_t kShmLineHalf = sizeof(ShmCountedLine::bytes) / 2;
static_assert(sizeof(ShmCountedLine) == kShmLine);

struct alignas(kShmLine) ShmAreaHeader {
  alignas(kShmLine) std::atomic<std::uint64_t> ack_waiters;  // bit r: member r waits for acks
  ShmCountedLine counted;
  alignas(kShmLine) std::atomic<std::uint64_t> agree_kind;   // the board's kind: 0 not chosen, 1 scanned, 2 counted
  ShmAgreeOutcome agree_outcome[kShmAgreeRing];              // the agreement board's (ft/shm_board.h)
};

inline constexpr std::size_t shm_area_bytes(int p) {
  return sizeof(ShmAreaHeader) + static_cast<std::size_t>(p) * sizeof(ShmRankArea);
}

// One communicator's mapped area plus this member's view of it. Owned by the communicator
// (ftmpi_comm_s::shm_area), released by release_shm_area().
class ShmArea {
 public:
  ShmArea(transport::shm::Segment seg, int size, int rank, transport::ShmTransport* shm,
          std::vector<transport::shm::SegmentHeader*> headers);

  int size() const { return p_; }
  int rank() const { return me_; }
  ShmRankArea& of(int r) {
    return reinterpret_cast<ShmRankArea*>(seg_.base() + sizeof(ShmAreaHeader))[r];
  }
  ShmAreaHeader& header() { return *reinterpret_cast<ShmAreaHeader*>(seg_.base()); }

  // The next op number.
  std::uint64_t begin_op() { return ++seq_; }
  // The next counted op (Barrier / Allreduce by the last arriver): its number c; arrive() then says whether
  // this member is the last of the p members to arrive at it.
  std::uint64_t begin_counted() { return ++counted_; }
  bool arrive(std::uint64_t c) {
    return header().counted.arrivals.fetch_add(1, std::memory_order_acq_rel) + 1 == c * static_cast<std::uint64_t>(p_);
  }
  // An Allreduce of `b` packed bytes fits in the counted line (see "In the line").
  bool fits_in_line(std::size_t b) const { return static_cast<std::size_t>(p_) * b <= kShmLineHalf; }
  // Wait until slot s % kShmSlots may be written (see "Buffer reuse").
  Status window(Runtime& rt, ftmpi_comm_s* comm, std::uint64_t s);
  // Wait until member x's `word` holds s (see "Failures" for the errors).
  Status wait_for(Runtime& rt, ftmpi_comm_s* comm, int x, const std::atomic<std::uint64_t>& word, std::uint64_t s);
  // Publish `word` = s, then ring `to` (a member) or every member when to < 0.
  void publish(std::atomic<std::uint64_t>& word, std::uint64_t s, int to);
  // Hints (see "Prefetch"): this member will write its in[] slot of op s + kShmPrefetchSlots, and read
  // member x's. They move no data that matters: correctness never depends on them.
  void prefetch_own_slot(std::uint64_t s) {
    transport::shm::prefetch_for_write(
        reinterpret_cast<const std::byte*>(&of(me_).in[(s + kShmPrefetchSlots) % kShmSlots]));
  }
  void prefetch_slot_of(int x, std::uint64_t s, std::uint64_t ahead = kShmPrefetchSlots) {
    __builtin_prefetch(&of(x).in[(s + ahead) % kShmSlots], 0, 3);
  }
  // This member finished op s (publishes `ack` when s is a multiple of kShmAckEvery: see "Buffer reuse").
  void finish(std::uint64_t s) {
    if (s % kShmAckEvery == 0) [[unlikely]]
      publish_ack(s);
  }
  // This member fails op s and every later one: stores gave_up and wakes everybody. Returns `st`.
  Status give_up(std::uint64_t s, Status st);
  // A failure stored earlier (every later op fails with it), or ok.
  const Status& broken() const { return broken_; }
  // The set-up succeeded here (then every member has the area mapped: ft/shm_board.h relies on it).
  bool setup_ok() const { return !setup_failed_; }
  void mark_setup_failed() { setup_failed_ = true; }
  // Ring every other member that sleeps (after a store it may wait for; the caller fenced).
  void ring_others() {
    for (int r = 0; r < p_; ++r)
      if (r != me_) ring(r);
  }
  transport::ShmTransport* transport() const { return shm_; }

 private:
  Status check(Runtime& rt, ftmpi_comm_s* comm, int x, std::uint64_t s);
  void ring(int r);
  void publish_ack(std::uint64_t s);

  transport::shm::Segment seg_;
  int p_;
  int me_;
  transport::ShmTransport* shm_;
  std::vector<transport::shm::SegmentHeader*> headers_;  // by communicator rank (doorbells)
  std::uint64_t seq_ = 0;
  std::uint64_t counted_ = 0;
  std::uint64_t min_ack_ = 0;  // a lower bound of every member's ack
  Status broken_;
  bool setup_failed_ = false;
  // The wake check of the transport's sleep (see "Waiting").
  const std::atomic<std::uint64_t>* watch_ = nullptr;
  std::uint64_t watch_value_ = 0;
  static bool watch_reached(void* self);
  friend class WatchScope;
};

// The area of `comm` for a small collective, set up at the kSetupAfter-th call. Returns:
//   ok + area      use it;
//   ok + nullptr   not for this communicator (members on other hosts, too many members, turned off by
//                  FTMPI_COLL_SHM=0, set-up not done yet or failed for lack of memory): use point-to-point;
//   an error       the set-up failed (a member failed, revoked): the collective fails with it.
Result<ShmArea*> shm_area_for(Runtime& rt, ftmpi_comm_s* comm);
inline constexpr int kSetupAfter = 3;

// Unmap the area of `comm` (its retirement; predefined communicators at a Reinit epoch change).
void release_shm_area(ftmpi_comm_s* comm);

}  // namespace ftmpi::coll
