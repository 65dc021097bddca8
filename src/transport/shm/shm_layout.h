// The bytes of one rank's shared-memory receive segment, as every process of the job sees them.
//
//   [0, kPage)                    SegmentHeader: identity (written once by the owner before fence 1)
//                                 and the futex doorbell (sleeping flag + doorbell word)
//   [kPage, cells_offset)         one RingControl (head, tail, split gates: four cache lines) per potential sender
//   [cells_offset, total)         one byte ring of `cells` * `cell_bytes` bytes per potential sender
//
// The ring that carries frames from sender S to this segment's owner is ring S. The file is created by
// ftruncate, so it reads as zeros and pages are only allocated when a sender first writes into its ring:
// a job of 64 ranks reserves 64 rings per segment but pays only for the pairs that talk.
//
// Zero memory is a valid empty ring (head = tail = 0, the frame word at offset 0 is 0), so there is no
// initialisation step and no initialisation race.
#pragma once
#include <cstddef>
#include <cstdint>

#include "transport/transport.h"

namespace ftmpi::transport::shm {

inline constexpr std::size_t kCacheLine = 64;
inline constexpr std::size_t kPage = 4096;
inline constexpr std::uint64_t kSegmentMagic = 0x66746d7069736d31ull;  // "ftmpism1"
inline constexpr std::uint32_t kLayoutVersion = 5;  // 3: byte ring of packed frames; 4: owner_flags; 5: gates

// Ring length (cells * cell_bytes bytes) and largest frame (cell_bytes); identical on every rank of a job
// (checked at attach).
//
// Default, measured on the 2-core EPYC VM (stream of max-size frames, receiver copying out; see
// shm_transport_test DISABLED_GeometrySweep): 64 cells of 16 KiB + 128 B carry 16 KiB payloads (so the
// engine's 16 KiB eager limit fits in one cell) and stream about 1.5-2x faster than 8 KiB cells, at 1 MiB
// per talking pair. ShmOptions::for_job() shortens the ring for large jobs.
struct Geometry {
  std::uint32_t cells = 64;                // power of two, 2..128
  std::uint32_t cell_bytes = 16384 + 128;  // multiple of 64, 128..128 KiB
};

// --- Frames in the ring --------------------------------------------------------------------------------
// The ring of one (sender, receiver) pair is a byte ring of cells * cell_bytes bytes (the "cells" are only
// its unit of size): frames are packed back to back, at offsets that are multiples of 32. A frame starts
// with one 32-bit word that the producer stores last (release) and the consumer loads first (acquire),
// then the header, then the payload. Its size (frame_bytes, at most cell_bytes: max_payload):
//  * 32 bytes when word + header + payload fit in 32 (a standard eager message of up to 8 bytes with its
//    20-byte header, p2p/envelope.h): two small messages per 64-byte cache line;
//  * else up to the first offset 32 bytes into a cache line at or after its end, so that the word after it
//    (which the producer zeroes, and the consumer polls, next section) lies in the frame's own last line:
//    a consumer waiting for the next frame polls a line it already holds, instead of pulling a fresh line
//    from the producer before that frame is written.
//
// The frame word: 0 = nothing here yet; bit 0 set = a frame, bits 1-7 its header length, bits 8-31 its
// payload length; kWrapWord = the frames go on at offset 0 (the rest of the ring is too short for the next).
//
// Why a word is never read stale: the consumer only reads the word at its head, where the producer wrote,
// before publishing the frame that ends there (release), a 0 word (or the wrap word, or a frame at offset 0
// of the ring when the frame ended exactly at the ring's end). Zero memory is an empty ring.
inline constexpr std::size_t kCellMeta = 4;  // the frame word
inline constexpr std::size_t kSmallFrame = 32;
inline constexpr std::uint32_t kMaxPayloadField = (1u << 17) - 1;
inline constexpr std::uint32_t kWrapWord = 0xfffffffeu;  // bit 0 clear: no frame (header length 127)

constexpr std::uint32_t frame_word(std::size_t hdr_len, std::size_t payload_len) {
  return 1u | static_cast<std::uint32_t>(hdr_len << 1) | static_cast<std::uint32_t>(payload_len << 8);
}
constexpr bool frame_word_full(std::uint32_t w) { return (w & 1u) != 0; }
constexpr std::size_t frame_word_hdr_len(std::uint32_t w) { return (w >> 1) & 0x7f; }
constexpr std::size_t frame_word_payload_len(std::uint32_t w) { return w >> 8; }
// Bytes of a frame starting at ring offset `at` (a multiple of 32).
constexpr std::size_t frame_bytes(std::size_t at, std::size_t hdr_len, std::size_t payload_len) {
  const std::size_t raw = kCellMeta + hdr_len + payload_len;
  if (raw <= kSmallFrame) return kSmallFrame;
  const std::size_t end = ((at + raw + kCacheLine / 2 + kCacheLine - 1) & ~(kCacheLine - 1)) - kCacheLine / 2;
  return end - at;
}

constexpr bool valid(const Geometry& g) {
  bool pow2 = g.cells != 0 && (g.cells & (g.cells - 1)) == 0;
  return pow2 && g.cells >= 2 && g.cells <= 128 && g.cell_bytes % kCacheLine == 0 &&
         g.cell_bytes >= 2 * kCacheLine && g.cell_bytes <= (128u << 10);
}

// Largest payload a frame with a header of up to kMaxHeader bytes can carry (the frame is then at most
// cell_bytes long wherever it starts, at most half the ring, which the producer's wrap-around needs).
constexpr std::size_t max_payload(const Geometry& g) {
  std::size_t room = g.cell_bytes - kCellMeta - kMaxHeader - kCacheLine / 2;
  return room < kMaxPayloadField ? room : kMaxPayloadField;
}

// --- Ring control -------------------------------------------------------------------------------------
// head: bytes consumed so far, written only by the consumer (release, once per drain), read by the producer
//       (acquire) only when its cached copy says the ring has no room for the next frame.
// tail: bytes produced so far, written only by the producer (where a new producer of the ring resumes;
//       the consumer detects new frames by the frame word).
// gates: the split rendezvous' gate words of this (sender, owner) pair (p2p/rndv_gate.h,
//       Transport::split_gates): set by the owner (receiver), claimed by the sender with a CAS.
struct RingControl {
  alignas(kCacheLine) std::uint64_t head;
  alignas(kCacheLine) std::uint64_t tail;
  alignas(kCacheLine) std::uint64_t gates[kSplitGates];
};
static_assert(sizeof(RingControl) == 4 * kCacheLine);

// --- Segment header -----------------------------------------------------------------------------------
// SegmentHeader::owner_flags: the owner issues membarrier(MEMBARRIER_CMD_GLOBAL_EXPEDITED) after raising
// `sleeping`, so a sender registered for it needs no fence of its own after a frame (shm_doorbell.h).
inline constexpr std::uint32_t kOwnerMembarrier = 1;

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
  std::uint32_t owner_flags;  // kOwnerMembarrier (shm_doorbell.h)
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
