// The gate of one split rendezvous (p2p/rndv_split.h): a word in memory shared by the receiver and the
// sender that decides, once, whether the sender's write into the receiver's buffer happens. It lets a
// receive that ends early (revoke, abort, another failure) complete at once without waiting for the
// sender, and still never be written after it completed.
//
// Words. The shared-memory transport keeps kGates words per (sender, receiver) pair in the receiver's
// segment (Transport::split_gates). One word per split receive in flight, found by a token {slot, gen}
// that the clear-to-send carries; the generation makes a word reused by a later receive unclaimable by a
// stale token. Value: gen << 2 | state.
//
// State machine of one word for one token (every transition a single atomic operation):
//   receiver, before sending the split cts:    (anything) --store--> open      [open(): slot is its own]
//   sender, handling that cts, its send live:  open --CAS--> writing           [claim(): true = may write]
//                                              ... process_vm_writev of its part ...
//                                              writing --store--> written      [written()]
//   receiver, the receive ending early:        open --CAS--> closed            [close(): Closed::shut]
//                                              seeing writing: wait (Closed::busy) until written
//                                              seeing written: Closed::done
// Contract. The sender writes into the receiver's buffer only between a successful claim() and its
// written(); a claim after close() fails (the CAS sees closed, or another generation), so after close()
// returned shut or done no byte of this receive is written any more, and the receiver may hand the buffer
// back. While the word says writing, the write is one system call in progress in a live sender (or the
// sender died in it: the failure notice, sent after the process was reaped, ends the wait), so the wait
// is bounded by that call, not by the sender's next entry into MPI. A sender that finds its send ended
// (revoked, purged) does not claim and declines, as before; a sender that fails to claim declines too.
//
// The receiver's side allocates slots (GateSlots, per sender): a slot is free again once no claim with its
// token can succeed any more — after the answer (split_done: the sender handled the cts), after close()
// returned shut or done, when the sender is known dead, or when the word says written for its token
// (returned(): the one claim a token allows was made and its write is over; the receive itself still waits
// for the answer, which says whether the write succeeded). The last lets a receiver that matched more
// split receives than there are words (a window of 64 Isends: their requests-to-send are all on the ring
// before the first answer) take a word again as soon as the sender's write is over, instead of sending the
// rest the single-copy way. Tokens are never 0 (gen starts at 1), so a cts
// without a gate (0) is refused by the sender.
#pragma once
#include <atomic>
#include <cstdint>

namespace ftmpi::p2p::gate {

inline constexpr int kGates = 16;  // words per (sender, receiver) pair: split receives in flight from one sender

enum State : std::uint64_t { kClosed = 0, kOpen = 1, kWriting = 2, kWritten = 3 };

constexpr std::uint32_t token(unsigned slot, std::uint32_t gen) { return (gen << 4) | (slot & 15u); }
constexpr unsigned slot_of(std::uint32_t tok) { return tok & 15u; }
constexpr std::uint32_t gen_of(std::uint32_t tok) { return tok >> 4; }
constexpr std::uint64_t word(std::uint32_t gen, State s) { return (std::uint64_t{gen} << 2) | s; }

inline std::atomic_ref<std::uint64_t> at(std::uint64_t* gates, std::uint32_t tok) {
  return std::atomic_ref<std::uint64_t>(gates[slot_of(tok)]);
}

// Receiver: the word is ours for `tok` (the slot was free); before the cts is sent (the ring's release
// publishes it with the frame).
inline void open(std::uint64_t* gates, std::uint32_t tok) {
  at(gates, tok).store(word(gen_of(tok), kOpen), std::memory_order_release);
}

// Sender: may it write for `tok`? Exactly one of claim() and the receiver's close() wins an open word.
inline bool claim(std::uint64_t* gates, std::uint32_t tok) {
  std::uint64_t expect = word(gen_of(tok), kOpen);
  return at(gates, tok).compare_exchange_strong(expect, word(gen_of(tok), kWriting), std::memory_order_acq_rel,
                                                std::memory_order_acquire);
}

// Sender: its write for `tok` returned (whatever its result).
inline void written(std::uint64_t* gates, std::uint32_t tok) {
  at(gates, tok).store(word(gen_of(tok), kWritten), std::memory_order_release);
}

// Receiver: has the sender's write for `tok` returned (the word says written for this generation)? Then no
// claim with `tok` can succeed any more and its slot may be given back (the receive still waits for the
// answer to learn whether the write succeeded).
inline bool returned(std::uint64_t* gates, std::uint32_t tok) {
  return at(gates, tok).load(std::memory_order_acquire) == word(gen_of(tok), kWritten);
}

enum class Closed : std::uint8_t { shut, busy, done };
// Receiver: no write for `tok` may start from now on. shut: the sender had not claimed (it never will);
// done: its write has returned; busy: it is writing now — call again (the state moves to written).
inline Closed close(std::uint64_t* gates, std::uint32_t tok) {
  std::uint64_t expect = word(gen_of(tok), kOpen);
  if (at(gates, tok).compare_exchange_strong(expect, word(gen_of(tok), kClosed), std::memory_order_acq_rel,
                                             std::memory_order_acquire))
    return Closed::shut;
  return expect == word(gen_of(tok), kWriting) ? Closed::busy : Closed::done;
}

// Receiver: the slots of one sender. Single-threaded (the progress loop).
class GateSlots {
 public:
  // A token for a new split receive, or 0 when all kGates are in use (the receive takes another way).
  std::uint32_t take() {
    if (used_ == (1u << kGates) - 1) return 0;
    unsigned s = 0;
    while (used_ & (1u << s)) ++s;
    used_ |= 1u << s;
    if (++gen_ >= (1u << 28)) gen_ = 1;
    return token(s, gen_);
  }
  // The slot of `tok` is free again (see the contract above for when).
  void give_back(std::uint32_t tok) { used_ &= ~(1u << slot_of(tok)); }
  int in_use() const { return __builtin_popcount(used_); }

 private:
  std::uint32_t used_ = 0;
  std::uint32_t gen_ = 0;
};

}  // namespace ftmpi::p2p::gate
