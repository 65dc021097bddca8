// Partitioned point-to-point communication (MPI-4.0 chapter 4): MPI_Psend_init / MPI_Precv_init requests,
// MPI_Pready* and MPI_Parrived, built on the engine's matched messages.
//
// Protocol (all on the communicator's collective context, tags from 0x60000000 up, which its collectives
// never use (ordinary collective tags stay below 2^30, persistent collectives' channels below 0x60000000:
// coll/schedule.h TagChannel); point-to-point failure rules: SendArgs::peer_rules):
//  * MPI_Psend_init sends one handshake message to the destination with tag hs_tag(user tag): the send's
//    partition count, bytes per partition, user tag and the first of `partitions` data tags it reserved
//    from its communicator's part_seq (unique per sender and communicator among live requests).
//  * MPI_Precv_init posts the receive of that handshake from the source at once, so partitioned sends and
//    receives pair in the order of their init calls, per (source, tag, communicator) (MPI-4.0 §4.2.2);
//    a partitioned send never matches an ordinary receive (other context) and the reverse.
//  * Every round (MPI_Start .. completion), the sender sends partition i as one message with tag
//    data_base + i as soon as MPI_Pready* marks it; the receiver posts one receive per *send* partition
//    (once it knows the handshake) straight into its buffer (packed staging unpacked per partition for a
//    non-contiguous type). Non-overtaking per tag keeps rounds apart: a round's message waits (unexpected)
//    until the receiver's next MPI_Start posts its receive, so data never lands in a buffer that is not
//    the library's. The send and receive partition counts may differ: a receive partition has arrived
//    once every send partition overlapping its bytes has landed (send_span below).
//  * Failures: the sub-messages fail like point-to-point ones (the peer died: MPI_ERR_PROC_FAILED; the
//    communicator revoked: purged, MPI_ERR_REVOKED); a send still waiting for MPI_Pready completes with
//    the error once its peer is known failed or its communicator revoked, so MPI_Wait never hangs on a
//    dead peer.
//
// Limit: user tags that differ by a multiple of 2^28 share a handshake tag; a receive whose handshake
// carries another user tag than its own fails with MPI_ERR_UNSUPPORTED_OPERATION rather than pair wrongly.
//
// Contract: every call under the runtime's API lock (the engine's contract); partitioned requests are
// generic persistent requests of the engine (Engine::generic_init), so MPI_Start / Wait / Test /
// Request_free work on them as on any persistent request.
#pragma once
#include <cstddef>
#include <cstdint>

#include "p2p/engine.h"
#include "util/status.h"

namespace ftmpi::ft {
class FailureState;
}

namespace ftmpi::p2p::part {

inline constexpr int kHsTagBase = 3 << 29;  // 0x60000000
inline constexpr int kHsTagSpan = 1 << 28;
inline constexpr int kDataTagBase = kHsTagBase + kHsTagSpan;
inline constexpr std::uint32_t kDataTagSpan = 1u << 28;  // data tags up to 0x7fffffff

// The handshake tag of a user tag (>= 0).
inline int hs_tag(int user_tag) { return kHsTagBase + (user_tag & (kHsTagSpan - 1)); }
// The tag of partition i of a request whose data tags start at `base` (an offset in [0, kDataTagSpan)).
inline int data_tag(std::uint32_t base, std::uint64_t i) {
  return kDataTagBase + static_cast<int>((base + i) & (kDataTagSpan - 1));
}

// The send partitions [*lo, *hi] holding the bytes of receive partition j, for receive partitions of
// `rbytes` bytes and `nsend` send partitions of `sbytes` bytes each. Empty (*lo > *hi) when the receive
// partition holds no byte the send covers. Zero-byte partitions on either side: every send partition.
inline void send_span(std::uint64_t j, std::uint64_t rbytes, std::uint64_t sbytes, std::uint64_t nsend,
                      std::uint64_t* lo, std::uint64_t* hi) {
  if (nsend == 0) {
    *lo = 1;
    *hi = 0;
    return;
  }
  if (rbytes == 0 || sbytes == 0) {
    *lo = 0;
    *hi = nsend - 1;
    return;
  }
  const std::uint64_t first = j * rbytes, last = first + rbytes - 1;  // bytes of receive partition j
  *lo = first / sbytes;
  *hi = last / sbytes;
  if (*hi >= nsend) *hi = nsend - 1;  // beyond the message: nothing to wait for there
}

// Arguments of MPI_Psend_init / MPI_Precv_init, checked by the caller (valid communicator and type, peer a
// rank of it or MPI_PROC_NULL (-2), tag >= 0, partitions >= 0).
struct PartArgs {
  void* buf;                     // const for a send
  std::uint64_t partitions;
  std::uint64_t count;           // elements of `type` per partition
  const ftmpi_datatype_s* type;
  int peer;
  int tag;
  ftmpi_comm_s* comm;
};

// A new inactive partitioned send / receive request (the handshake sent / its receive posted).
// `failures` (may be null) lets a send waiting for MPI_Pready see its peer's failure.
Status psend_init(Engine& engine, const ft::FailureState* failures, const PartArgs& a, Request** out);
Status precv_init(Engine& engine, const PartArgs& a, Request** out);

// MPI_Pready*: mark send partitions ready (each sent at once). Errc::request: not an active partitioned
// send; Errc::arg: a partition out of range or marked twice this round (nothing is marked then:
// every index is checked first).
Status pready(Request* r, const int* partitions, std::size_t n);
Status pready_range(Request* r, int lo, int hi);
// MPI_Parrived. An inactive partitioned receive gives *flag = true (MPI-4.0 §4.2.2). Errc::request: not a
// partitioned receive; Errc::arg: partition out of range (of an active request).
// Reports the operation's error when the partition can no longer arrive (peer failed, revoked).
Status parrived(Request* r, int partition, bool* flag);

// True for a partitioned send / receive request.
bool is_psend(const Request* r);
bool is_precv(const Request* r);
// True for an active partitioned send some of whose partitions are not marked ready this round: it cannot
// complete without further MPI_Pready calls.
bool psend_waits_for_pready(const Request* r);

}  // namespace ftmpi::p2p::part
