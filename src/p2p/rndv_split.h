// The split rendezvous (Way::split of p2p/rndv_path.h): both cores copy one message at once — the receiver
// reads the first part of the sender's buffer with process_vm_readv while the sender writes the rest into
// the receiver's buffer with process_vm_writev. The receiver-side state of one such receive as a plain
// state machine (events in, "may it complete, and how" out), so that the rule below is testable without
// processes (tests/unit/rndv_split_test.cpp); Engine::Impl drives it (engine_recv.cpp, engine.cpp fail()).
//
// Why. Where the VM's two cores do not share a cache (docs/performance.md, "Streaming bandwidth"), a
// pipeline through shared cells crosses the interconnect for every line (2 GB/s here) while one
// process_vm_readv copies at 9-13 GB/s, alone on the receiver's core. Split, each core copies half of the
// message inside its own cache hierarchy: 19-25 GB/s at 128 KiB-1 MiB in the standalone experiment
// (bench/cma_split.c). The price is that the *sender* now writes into the receiver's memory, which a receive
// that ended early must never see.
//
// Protocol (frames on the ordered shared-memory ring between the two processes):
//   receiver, on matching a request-to-send {sreq, addr} of n bytes:
//     1. sends cts with kFlagSplit {sreq, rreq, len = n, addr = its buffer, tag = h (the split point,
//        a multiple of 64 below n)} and enters kRecvSplit (state `kAsked` here);
//     2. reads [0, h) itself (process_vm_readv of the sender's buffer); if that worked it sends fin
//        (the sender's buffer is no longer needed by the receiver);
//     3. completes only when may_complete() below says so.
//   sender, on that cts, in the same progress call, for its request still waiting (kSendWaitRndv):
//     writes [h, n) with process_vm_writev into the receiver's buffer, then sends split_done {rreq, sreq}
//     ("written", or kFlagDeclined when the write failed or its request had ended: revoked, failed,
//     purged). It completes its send on fin, as for a single copy. Every split cts gets exactly one answer
//     from a live sender: the answer is sent by the progress call that handles the cts.
//
// Safety (the receive's buffer is never written after the receive completed). The sender's only write is
// one synchronous system call made while it handles the cts, before it sends the answer; so after the
// receiver got the answer no write of this receive can come. Otherwise the receiver may complete only when
// the sender is known failed: in ftmpi a failure notice is sent by the launcher after it reaped the process
// (tools/launch/failure_judge.h: a hung or suspected rank is killed first), and a reaped process makes no
// system call. Every other early end — revoke, MPI_Abort of a communicator part, a failure of another
// process, a collective given up, a purge of the context — only *dooms* the receive here: the error is
// kept (the first one), and the receive completes with it when the answer or the sender's failure arrives.
// A job epoch change (Reinit) drops frames of the old epoch; survivors pass a global synchronisation before
// the new epoch, and a sender handles an old cts (and writes) only before it enters that synchronisation,
// so the write precedes the receiver's restart.
// Where it holds: ftmpi's launcher (notices after reaping; MPI_Finalize's fence keeps a sender progressing
// until every rank is in MPI_Finalize). In FT mode under a foreign launcher (Hydra, srun) failures are
// judged from lost connections and ranks leave MPI_Finalize on their own: the engine then never takes
// this way (Engine::set_split_allowed, runtime.cpp). Without FT mode a send cannot end before the
// receiver's fin, and the sender handles the cts (ordered before the fin on the ring) before it.
// Liveness (the bounded wait). A doomed receive waits for the sender's next progress call (any MPI call,
// MPI_Finalize included) or its death; a stopped or hung sender is killed by the detector (FT mode) after
// its timeout, a sender that exits is reaped. Without FT mode a dead process ends the job. This is weaker
// than the single copy, which needs nothing from the sender once matched: a revoke can now wait until the
// sender calls MPI again. It does not wait for the sender's *application*: a sender blocked in MPI (the
// common case, e.g. in MPI_Wait on this very send) answers at once.
// Errors: answer "declined" with the receive not doomed — the sender's request had ended (it was revoked
// or failed there: the answer says which, and the receive ends with MPI_ERR_REVOKED or PROC_FAILED even if
// the revoke notice has not arrived here yet) or its write failed: the receive fails (its bytes are
// incomplete), with the kept error if any. The receiver's own read failing (the sender died) — no fin; the answer or the failure completes
// it with an error.
#pragma once
#include <cstdint>

namespace ftmpi::p2p::split {

// Bits of Request::split (0 = not a split receive).
inline constexpr std::uint8_t kAsked = 1;      // cts sent: the sender may write until it answers
inline constexpr std::uint8_t kAnswered = 2;   // split_done arrived: no write can come any more
inline constexpr std::uint8_t kDeclined = 4;   // ... and the sender did not write its part
inline constexpr std::uint8_t kOwnFailed = 8;  // the receiver's own read of the head failed
inline constexpr std::uint8_t kDoomed = 16;    // an early end was asked for; the error is kept in the request
inline constexpr std::uint8_t kSenderDead = 32;  // the sender is known failed (reaped)
inline constexpr std::uint8_t kSenderEnded = 64;  // declined because its send had ended (revoked, purged)
inline constexpr std::uint8_t kEndedFailed = 128; // ... with MPI_ERR_PROC_FAILED

// Why a sender declined (split_done's tag).
inline constexpr std::int32_t kWhyWriteFailed = 0, kWhyEnded = 1, kWhyEndedFailed = 2;

// May the receive complete now: no write of the sender can reach its buffer any more.
constexpr bool may_complete(std::uint8_t s) { return (s & kAsked) == 0 || (s & (kAnswered | kSenderDead)) != 0; }

enum class Outcome : std::uint8_t { ok, doomed, sender_failed, sender_ended, incomplete };
// How a receive that may complete ends: with the kept early error (doomed), with MPI_ERR_PROC_FAILED (the
// sender died before answering, or before the receiver read its part, or its send had ended with that
// error), with MPI_ERR_REVOKED (sender_ended: its send had ended otherwise — a send ends early only by a
// revoke or a purge of its communicator, whose notice may not have reached this process yet), incomplete
// (its write or the receiver's own read failed with the sender alive), or ok.
constexpr Outcome outcome(std::uint8_t s) {
  if (s & kDoomed) return Outcome::doomed;
  if ((s & kSenderDead) && (s & kAnswered) == 0) return Outcome::sender_failed;
  if (s & kSenderEnded) return (s & kEndedFailed) ? Outcome::sender_failed : Outcome::sender_ended;
  if (s & kDeclined) return (s & kSenderDead) ? Outcome::sender_failed : Outcome::incomplete;
  if (s & kOwnFailed) return (s & kSenderDead) ? Outcome::sender_failed : Outcome::incomplete;
  return Outcome::ok;
}

// The split point of an n-byte message: the receiver's share, `sixteenths` of 16 (default 8: half), rounded
// down to a cache line (the two writers never share a line).
constexpr std::uint64_t head_of(std::uint64_t n, unsigned sixteenths = 8) {
  return (n / 16 * sixteenths) & ~std::uint64_t{63};
}

}  // namespace ftmpi::p2p::split
