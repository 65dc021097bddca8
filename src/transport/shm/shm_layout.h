// The bytes of one rank's shared-memory receive segment, as every process of the job sees them.
//
//   [0, kPage)                    SegmentHeader: identity (written once by the owner before fence 1)
//                                 and the futex doorbell (sleeping flag + doorbell word)
//   [kPage, cells_offset)         one RingControl (two cache lines: head, tail) per potential sender
//   [cells_offset, total)         one array of `cells` cells of `cell_bytes` bytes per potential sender
//
// The ring that carries frames from sender S to this segment's owner is ring S. The file is created by
// ftruncate, so it reads as zeros and pages are only allocated when a sender first writes into its ring:
// a job of 64 ranks reserves 64 rings per segment but pays only for the pairs that talk.
//
// Zero memory is a valid empty ring (head = tail = 0, every cell word 0, which never equals the word
// expected at position 0), so there is no initialisation step and no initialisation race.
#pragma once
#include <cstddef>
#include <cstdint>

#include "transport/transport.h"

namespace ftmpi::transport::shm {

inline constexpr std::size_t kCacheLine = 64;
inline constexpr std::size_t kPage = 4096;
inline constexpr std::uint64_t kSegmentMagic = 0x66746d7069736d31ull;  // "ftmpism1"
inline constexpr std::uint32_t kLayoutVersion = 2;

// Ring length and cell size; identical on every rank of a job (checked at attach).
//
// Default, measured on the 2-core EPYC VM (stream of max-size frames, receiver copying out; see
// shm_transport_test DISABLED_GeometrySweep): 64 cells of 16 KiB + 128 B carry 16 KiB payloads (so the
// engine's 16 KiB eager limit fits in one cell) and stream about 1.5-2x faster than 8 KiB cells, at 1 MiB
// per talking pair. ShmOptions::for_job() shortens the ring for large jobs.
struct Geometry {
  std::uint32_t cells = 64;                // power of two, 2..128 (the cell word keeps an 8-bit sequence)
  std::uint32_t cell_bytes = 16384 + 128;  // multiple of 64, 128..128 KiB
};

// --- The cell word ------------------------------------------------------------------------------------
// A cell starts with one 32-bit word that the producer stores last (release) and the consumer loads first
// (acquire): bits 0-7 the low byte of (position + 1), bits 8-14 the header length, bits 15-31 the payload
// length. The header follows at byte 4 and the payload right after it, so a 56-byte header and up to 4
// payload bytes travel in the cell's first cache line, an eager frame's 40-byte header and up to 20.
//
// Why 8 bits of sequence are enough: the cell at position p's slot holds either position p (full) or
// position p - cells (already consumed); with cells <= 128 their low bytes differ. A never-written cell
// holds 0, which equals the expected byte only at p = 255, by which time every slot has been written.
inline constexpr std::size_t kCellMeta = 4;
inline constexpr std::uint32_t kMaxPayloadField = (1u << 17) - 1;

constexpr std::uint32_t cell_word(std::uint64_t pos, std::size_t hdr_len, std::size_t payload_len) {
  return static_cast<std::uint32_t>((pos + 1) & 0xff) | static_cast<std::uint32_t>(hdr_len << 8) |
         static_cast<std::uint32_t>(payload_len << 15);
}
constexpr bool cell_word_full(std::uint32_t w, std::uint64_t pos) {
  return (w & 0xff) == static_cast<std::uint32_t>((pos + 1) & 0xff);
}
constexpr std::size_t cell_word_hdr_len(std::uint32_t w) { return (w >> 8) & 0x7f; }
constexpr std::size_t cell_word_payload_len(std::uint32_t w) { return w >> 15; }

constexpr bool valid(const Geometry& g) {
  bool pow2 = g.cells != 0 && (g.cells & (g.cells - 1)) == 0;
  return pow2 && g.cells >= 2 && g.cells <= 128 && g.cell_bytes % kCacheLine == 0 &&
         g.cell_bytes >= 2 * kCacheLine && g.cell_bytes <= (128u << 10);
}

// Largest payload a frame with a header of up to kMaxHeader bytes can carry.
constexpr std::size_t max_payload(const Geometry& g) {
  std::size_t room = g.cell_bytes - kCellMeta - kMaxHeader;
  return room < kMaxPayloadField ? room : kMaxPayloadField;
}

// --- Ring control -------------------------------------------------------------------------------------
// head: positions consumed so far, written only by the consumer (release), read by the producer (acquire)
//       only when its cached copy says the ring is full.
// tail: positions produced so far, written only by the producer (informational: state inspection/tests;
//       the consumer detects new frames by the cell word, which costs one cache line per small frame).
struct RingControl {
  alignas(kCacheLine) std::uint64_t head;
  alignas(kCacheLine) std::uint64_t tail;
};
static_assert(sizeof(RingControl) == 2 * kCacheLine);

// --- Segment header -----------------------------------------------------------------------------------
struct SegmentHeader {
  // Line 0: identity, written by the owner in create() before the first fence, read-only afterwards.
  alignas(kCacheLine) std::uint64_t magic;
  std::uint32_t version;
  std::uint32_t nranks;      // rings in this segment (job size)
  std::uint32_t cells;
  std::uint32_t cell_bytes;
  std::int32_t owner_rank;
  std::int32_t owner_pid;    // for process_vm_readv
  std::uint64_t owner_addr;  // where the owner mapped this segment (remote-read probe target)
  // Line 1: the doorbell. `sleeping` is set by the owner around a futex wait on `doorbell`; a sender that
  // sees it set bumps `doorbell` and wakes the owner.
  alignas(kCacheLine) std::uint32_t sleeping;
  std::uint32_t doorbell;
  // Line 2: how many local peers have mapped this segment (atomic add by each, in attach()); the one that
  // brings it to the number of local peers removes the segment's name, so that a job killed right after
  // start-up (mpiexec and all) leaves nothing in /dev/shm even before the owner's unlink after fence 2.
  alignas(kCacheLine) std::uint32_t attached;
};
static_assert(sizeof(SegmentHeader) <= kPage);

struct SegmentLayout {
  std::size_t ctrl_offset = 0;
  std::size_t cells_offset = 0;
  std::size_t ring_bytes = 0;  // cells * cell_bytes
  std::size_t total = 0;
};

constexpr std::size_t round_up(std::size_t v, std::size_t to) { return (v + to - 1) / to * to; }

constexpr SegmentLayout layout_for(std::uint32_t nranks, const Geometry& g) {
  SegmentLayout l;
  l.ctrl_offset = kPage;
  l.cells_offset = l.ctrl_offset + round_up(std::size_t{nranks} * sizeof(RingControl), kPage);
  l.ring_bytes = std::size_t{g.cells} * g.cell_bytes;
  l.total = l.cells_offset + std::size_t{nranks} * l.ring_bytes;
  return l;
}

}  // namespace ftmpi::transport::shm
