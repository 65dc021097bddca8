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
// Protocol (frames on the ordered shared-memory ring between the two processes, plus one gate word in shared
// memory per receive in flight: p2p/rndv_gate.h, whose state machine decides whether the sender writes):
//   receiver, on matching a request-to-send {sreq, addr} of n bytes:
//     0. takes a gate slot of that sender (none free: first the slots whose word says written are given
//        back, their receives marked kGateReturned and still waiting for the answer; still none free: this
//        message takes the single copy instead) and opens it;
//     1. sends cts with kFlagSplit {sreq, rreq, len = n, addr = its buffer, tag = h (the split point,
//        a multiple of 64 below n), reserved2 = the gate token} and enters kRecvSplit (state `kAsked`);
//     2. reads [0, h) itself (process_vm_readv of the sender's buffer); it sends fin either way (the
//        sender's buffer is no longer needed by the receiver);
//     3. completes only when may_complete() below says so.
//   sender, on that cts, in the same progress call, for its request still waiting (kSendWaitRndv):
//     claims the gate; if that worked, writes [h, n) with process_vm_writev into the receiver's buffer and
//     marks the gate written; then sends split_done {rreq, sreq} ("written", or kFlagDeclined when it did
//     not write: the claim failed, the write failed, or its request had ended: revoked, failed, purged).
//     It completes its send on fin, as for a single copy. Every split cts gets exactly one answer from a
//     live sender: the answer is sent by the progress call that handles the cts.
//
// Safety (the receive's buffer is never written after the receive completed). The sender writes only
// between a successful claim of the gate and marking it written, inside the one progress call that handles
// the cts, before it sends the answer. So the receive may complete when (a) the answer came, (b) the
// receiver closed the gate before the sender claimed it or after it marked it written (rndv_gate.h:
// exactly one of claim and close wins an open gate), or (c) the sender is known failed: in ftmpi a
// failure notice is sent by the launcher after it reaped the process (tools/launch/failure_judge.h: a hung
// or suspected rank is killed first), and a reaped process makes no system call.
// An early end — revoke, MPI_Abort of a communicator part, a failure of another process, a collective given
// up, a purge of the context — dooms the receive (the first error is kept) and closes its gate: if the
// sender had not claimed it, the receive completes at once with the error (the sender, handling the cts
// later, fails to claim and writes nothing); if the sender is writing, the receive completes as soon as
// the gate says written (Engine::progress polls it), or at the sender's failure notice if it died in the
// write.
// A job epoch change (Reinit) drops frames of the old epoch; survivors pass a global synchronisation before
// the new epoch, and a sender handles an old cts (and writes) only before it enters that synchronisation,
// so the write precedes the receiver's restart (and a restarted engine's gate tokens start afresh).
// Where it holds: ftmpi's launcher (notices after reaping; MPI_Finalize's fence keeps a sender progressing
// until every rank is in MPI_Finalize). In FT mode under a foreign launcher (Hydra, srun) failures are
// judged from lost connections and ranks leave MPI_Finalize on their own: the engine then never takes
// this way (Engine::set_split_allowed, runtime.cpp). Without FT mode a send cannot end before the
// receiver's fin, and the sender handles the cts (ordered before the fin on the ring) before it.
// Liveness (the bounded wait). A receive that is not doomed waits for the answer: the sender's next
// progress call (a sender blocked in MPI, the common case, answers at once) or its death. A doomed one
// waits at most for a write system call already in progress (or the death of a sender that died in it);
// it never waits for the sender's next entry into MPI.
// Errors: answer "declined" with the receive not doomed — the sender's request had ended (it was revoked
// or failed there: the answer says which, and the receive ends with MPI_ERR_REVOKED or PROC_FAILED even if
// the revoke notice has not arrived here yet) or its write failed: the receive fails (its bytes are
// incomplete), with the kept error if any. The receiver's own read failing (the sender died) — the answer
// or the failure completes it with an error.
#pragma once
#include <cstdint>

namespace ftmpi::p2p::split {

// Bits of Request::split (0 = not a split receive).
inline constexpr std::uint16_t kAsked = 1;      // cts sent: the sender may write until it answers
inline constexpr std::uint16_t kAnswered = 2;   // split_done arrived: no write can come any more
inline constexpr std::uint16_t kDeclined = 4;   // ... and the sender did not write its part
inline constexpr std::uint16_t kOwnFailed = 8;  // the receiver's own read of the head failed
inline constexpr std::uint16_t kDoomed = 16;    // an early end was asked for; the error is kept in the request
inline constexpr std::uint16_t kSenderDead = 32;  // the sender is known failed (reaped)
inline constexpr std::uint16_t kSenderEnded = 64;  // declined because its send had ended (revoked, purged)
inline constexpr std::uint16_t kEndedFailed = 128; // ... with MPI_ERR_PROC_FAILED
inline constexpr std::uint16_t kGateClosed = 256;  // doomed, and the gate (rndv_gate.h) closed: no write can come
inline constexpr std::uint16_t kGateReturned = 512;  // the gate said written (rndv_gate.h returned()): its slot was
                                                     // given back early; no write can come, the answer still will

// Why a sender declined (split_done's tag).
inline constexpr std::int32_t kWhyWriteFailed = 0, kWhyEnded = 1, kWhyEndedFailed = 2;

// May the receive complete now: no write of the sender can reach its buffer any more.
constexpr bool may_complete(std::uint16_t s) {
  return (s & kAsked) == 0 || (s & (kAnswered | kSenderDead | kGateClosed)) != 0;
}

enum class Outcome : std::uint16_t { ok, doomed, sender_failed, sender_ended, incomplete };
// How a receive that may complete ends: with the kept early error (doomed), with MPI_ERR_PROC_FAILED (the
// sender died before answering, or before the receiver read its part, or its send had ended with that
// error), with MPI_ERR_REVOKED (sender_ended: its send had ended otherwise — a send ends early only by a
// revoke or a purge of its communicator, whose notice may not have reached this process yet), incomplete
// (its write or the receiver's own read failed with the sender alive), or ok.
constexpr Outcome outcome(std::uint16_t s) {
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
