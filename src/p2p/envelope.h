// The wire header every p2p frame carries (the opaque `hdr` of a transport frame). Fixed layout, 56 bytes,
// encoded by memcpy (all ranks of a job run on the same architecture; the TCP transport checks lengths).
#pragma once
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <span>

#include "transport/transport.h"

namespace ftmpi::p2p {

enum class FrameKind : std::uint8_t {
  eager = 1,     // whole message in the payload; flags may carry kSync (receiver must answer sync_ack)
  rts = 2,       // rendezvous request-to-send: len, sender request id, sender buffer address
  cts = 3,       // clear-to-send (no single copy): receiver request id, bytes wanted; sender streams data
  data = 4,      // a chunk of rendezvous data at `offset` for receiver request `rreq`
  fin = 5,       // receiver pulled the data itself (single copy): sender request `sreq` is complete
  sync_ack = 6,  // synchronous-mode eager message was matched: sender request `sreq` is complete
  ft = 7,        // fault-tolerance protocol frame (revoke, agreement): bypasses matching; tag = sub-kind
  retire = 8,    // the sender retired its communicator on `context`'s slot: nothing more for it follows
                 // (p2p/stale_filter.h)
  split_done = 9,  // split rendezvous: the sender wrote its part of receive `rreq` (kFlagDeclined: it did
                   // not; len: the ticks its write took) (p2p/rndv_split.h); on its cts, reserved2 is the
                   // gate token (p2p/rndv_gate.h)
  cancel = 10,      // MPI_Cancel of a synchronous or rendezvous send `sreq` (context, src: its envelope's):
                    // the receiver drops the message if it is still unmatched and answers cancel_ack
  cancel_ack = 11,  // answer to cancel for send `sreq`: the message was dropped (kFlagDeclined: it had been
                    // matched already; the send completes as usual, its sync_ack/cts/fin went out before)
};

inline constexpr std::uint8_t kFlagSync = 1;
// On an rts: the sender has no packed copy of the message at `addr` (a large non-contiguous send packs each
// data frame as it goes): the receiver must ask for data frames (cts) instead of reading remotely.
inline constexpr std::uint8_t kFlagNoRemoteRead = 2;
// On a cts: split rendezvous (p2p/rndv_split.h): write bytes [tag, len) of the message to `addr` + tag in the
// receiver's memory, then answer split_done. On a split_done: the sender did not write its part.
inline constexpr std::uint8_t kFlagSplit = 4;
inline constexpr std::uint8_t kFlagDeclined = 8;

struct Envelope {
  FrameKind kind;
  std::uint8_t flags;
  std::uint16_t reserved;
  std::uint32_t epoch;    // job epoch (Reinit bumps it; frames of an old epoch are dropped)
  std::uint32_t context;  // communicator context id
  std::int32_t src;       // sender's rank in the communicator
  std::int32_t tag;
  std::uint32_t reserved2;
  std::uint64_t len;      // message length in bytes (eager, rts); bytes wanted (cts)
  std::uint64_t sreq;     // sender's request id
  std::uint64_t rreq;     // receiver's request id (cts, data)
  std::uint64_t addr;     // rts: sender buffer address; data: offset of this chunk
};
static_assert(sizeof(Envelope) <= transport::kMaxHeader);
static_assert(sizeof(Envelope) == 56);

// An eager frame carries a prefix of the envelope only:
//  * a standard/ready one (no kFlagSync) its first kShortEagerHeader = 20 bytes (kind .. tag): len is the
//    payload's length and sreq, rreq and addr mean nothing for it. With the shared-memory ring's 4-byte frame
//    word, a frame of up to 8 payload bytes takes 32 bytes: two small messages share a 64-byte cache line
//    (transport/shm/shm_ring.h);
//  * a synchronous one its first kEagerHeader = 40 bytes (kind .. sreq): the receiver's sync_ack needs sreq.
// decode() restores what a short header leaves out (len from the payload, the rest zeros).
inline constexpr std::size_t kShortEagerHeader = offsetof(Envelope, reserved2);
inline constexpr std::size_t kEagerHeader = offsetof(Envelope, rreq);
static_assert(kShortEagerHeader == 20);
static_assert(kEagerHeader == 40);

// The header bytes of a frame: the whole envelope, or the prefix above for an eager frame.
inline std::span<const std::byte> as_bytes(const Envelope& e) {
  const std::size_t n = e.kind != FrameKind::eager      ? sizeof e
                        : (e.flags & kFlagSync) == 0   ? kShortEagerHeader
                                                       : kEagerHeader;
  return {reinterpret_cast<const std::byte*>(&e), n};
}

// Decode a short eager header (hdr.size() == kShortEagerHeader) of a frame whose payload has `payload_len`
// bytes, restoring what it leaves out; false when it is not a standard/ready eager frame (malformed). Inline:
// the receive fast path (Engine::on_frame) and decode() share it.
inline bool decode_short_eager(std::span<const std::byte> hdr, std::size_t payload_len, Envelope* out) {
  std::memcpy(out, hdr.data(), kShortEagerHeader);
  out->reserved2 = 0;
  out->len = payload_len;
  out->sreq = 0;
  out->rreq = 0;
  out->addr = 0;
  return out->kind == FrameKind::eager && (out->flags & kFlagSync) == 0;
}

// Decode the header of a frame whose payload has `payload_len` bytes; false when the header is malformed
// (too short, or a short length for a frame that is not an eager one of its kind).
inline bool decode(std::span<const std::byte> hdr, std::size_t payload_len, Envelope* out) {
  if (hdr.size() == kShortEagerHeader) [[likely]] return decode_short_eager(hdr, payload_len, out);
  if (hdr.size() == kEagerHeader) {
    std::memcpy(out, hdr.data(), kEagerHeader);
    out->rreq = 0;
    out->addr = 0;
    return out->kind == FrameKind::eager;
  }
  if (hdr.size() < sizeof(Envelope)) return false;
  std::memcpy(out, hdr.data(), sizeof(Envelope));
  return true;
}

}  // namespace ftmpi::p2p
