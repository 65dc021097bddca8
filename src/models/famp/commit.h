// The TryBlock commit of FA-MPI (seed 001 §7.2: MPI_TryBlock_waitall/testall/..., "a synchronizing
// collective operation that reports consistent error state to all participants") as a plain state machine
// on top of the fault-tolerant agreement (ft/agreement.h). The same code runs inside the library
// (api/famp_tryblock.cpp feeds it from a GenericOp polled by the progress loop, the agreement instance
// being FtManager's) and in the deterministic simulator (tests/sim/tryblock_sim_test.cpp), which kills
// processes at every step and checks the properties below.
//
// Model. That of the agreement: fail-stop processes, a perfect failure detector (every notice is true and
// reaches every survivor), messages between live processes eventually delivered in any order. On top of
// it, every process has a local clock for its own timeout; a process that stops answering (SIGSTOP) is,
// until the detector declares it, indistinguishable from a slow one.
//
// What a member contributes (Contribution): a set of local fault flags (kFlag*: a request of the block
// failed, did not complete before the timeout, the member raised an error on the block/a request/the
// communicator, a nested block failed, a non-zero local_error_injection), the communicator ranks it
// declared failed itself (MPI_Comm_rank(s)_raise_*), and its local_error_injection bytes.
//
// Algorithm. A commit is one agreement instance whose AND-combined value encodes a *gather*: the value is
// n slots, one per communicator rank; member i writes its contribution into slot i (top bit of the slot's
// first word cleared = "present") and all-ones into every other slot. AND over the contributors therefore
// leaves slot i = member i's contribution if i contributed, all-ones ("absent") otherwise. The agreement
// decides one value and one failed set F at every survivor; the outcome (return class, try_flag, the
// gathered group_error_state, the failed group) is a pure function decode(value, F) — so it is the same
// everywhere. Classes: a member in F or declared failed, or a request that failed with a process
// failure -> task fault; another request error -> communication fault; injections/raised errors/failed
// nested blocks -> local error injection; a member whose requests did not complete in time -> timeout;
// several -> multiple faults; none -> success (try_flag = 1).
//
// Phases: open --contribute()--> agreeing --on_decided()--> decided; agreeing --on_deadline()-->
// timed_out --on_decided()--> decided. A member contributes even when its own waiting timed out (with
// kFlagTimeout), so the others are never left waiting for a live member's contribution; a member whose
// timeout runs out *during* the agreement returns MPI_TIMEOUT locally (the only local outcome) and may
// wait again on the same instance later, getting the same decision as everyone else.
//
// Safety. Agreement gives every decided survivor the same (value, F); decode() reads nothing else, so rc,
// try_flag, group_error_state and the failed group are identical at every survivor that decides, whoever
// dies before, during or after the commit (a member dying after contributing may or may not be in F: the
// agreement decides that once for all). Validity: every contributor's slot is its own contribution
// (nobody else clears bits of slot i: they contribute all-ones there); a member that did not contribute is
// in F (the agreement's failed set contains every member whose value is missing), hence a task fault.
// Liveness: that of the agreement; timeouts only shorten local waits.
//
// Cost: one agreement, nothing else (without failures, up to 16 members: the agreement's recursive-doubling
// exchange, log2(n) rounds and at most log2(n)+1 messages per member; beyond, the tree's 2·log2(n) rounds);
// the value and the outcome are built in buffers the library reuses (encode_into/decode_into); each
// message carries n slots of 2 + ceil(n/64) + ceil(b/8) words (b = bytes of local_error_injection) —
// 48 words (384 bytes) at 16 ranks with an int injection.
#pragma once
#include <cstddef>
#include <cstdint>
#include <utility>
#include <vector>

#include "ft/agreement.h"

namespace ftmpi::famp {

using ft::Bits;
using ft::RankSet;

// Local fault flags (a member's slot, ORed over contributors in the outcome).
enum : std::uint32_t {
  kFlagProc = 1u << 0,       // a request of the block failed because a process failed (or was revoked)
  kFlagComm = 1u << 1,       // a request of the block failed with another error
  kFlagTimeout = 1u << 2,    // the block's requests (or its start) did not complete before the timeout
  kFlagRaised = 1u << 3,     // MPI_Request_raise_error / MPI_Comm_raise_error
  kFlagInner = 1u << 4,      // a nested TryBlock of this one failed
  kFlagInjection = 1u << 5,  // non-zero local_error_injection
  kFlagUnmodeled = 1u << 6,  // an error the library could not classify
};

struct Contribution {
  std::uint32_t flags = 0;
  int raised_code = 0;                  // the first code raised (0: none)
  std::vector<int> declared_failed;     // communicator ranks this member declared failed
  std::vector<std::byte> injection;     // local_error_injection, exactly the block's injection size
};

enum class CommitClass { success, local_error_injection, task_fault, communication_fault, timeout, multiple_faults, unmodeled };

struct CommitOutcome {
  CommitClass cls = CommitClass::success;
  bool try_flag = true;                 // the block committed (no fault anywhere)
  std::uint32_t flags = 0;              // union of the contributors' flags
  RankSet failed;                       // agreed failed members ∪ members declared failed by a contributor
  std::vector<bool> contributed;        // per communicator rank
  std::vector<int> raised_code;         // per rank (0: none or not contributed)
  std::vector<std::byte> gathered;      // n × injection bytes, rank order; zeros for non-contributors
  // decode_into's bookkeeping: contributed/raised_code/gathered already hold the fault-free outcome of
  // `clean_size` members × `clean_inj` bytes (a reused outcome is then not rewritten). -1: not known.
  int clean_size = -1;
  std::size_t clean_inj = 0;
};

// The encoding (pure). `size` members, `inj_bytes` bytes of injection per member.
struct CommitLayout {
  int size = 0;
  std::size_t inj_bytes = 0;
  std::size_t rank_words() const { return (static_cast<std::size_t>(size) + 63) / 64; }
  std::size_t inj_words() const { return (inj_bytes + 7) / 8; }
  std::size_t slot_words() const { return 2 + rank_words() + inj_words(); }
  std::size_t words() const { return slot_words() * static_cast<std::size_t>(size); }
};
Bits encode(const CommitLayout& l, int me, const Contribution& c);
CommitOutcome decode(const CommitLayout& l, const Bits& value, const RankSet& agreed_failed);
// The same into caller-owned objects, whose buffers are reused (the library keeps one of each per process:
// a fault-free commit then allocates nothing for its value or its outcome).
void encode_into(Bits& v, const CommitLayout& l, int me, const Contribution& c);
void decode_general(CommitOutcome& o, const CommitLayout& l, const Bits& value, const RankSet& agreed_failed);
// decode_into: decode_general, or (inline) the fault-free outcome when `o` already holds it for this layout
// (o.clean_size/clean_inj) and the decision says so — every member contributed an all-zero slot (no flag,
// code, declared failure or injection: the value is all zeros) and nobody failed: then only the fields that
// a fault-free outcome shares with no other are written, and the value is read once.
inline void decode_into(CommitOutcome& o, const CommitLayout& l, const Bits& value, const RankSet& agreed_failed) {
  std::uint64_t any = 0;  // (an OR over the words: no early exit, the value is all zeros in the common case)
  for (const std::uint64_t w : value) any |= w;
  if (any == 0 && agreed_failed.empty() && o.clean_size == l.size && o.clean_inj == l.inj_bytes &&
      value.size() == l.words()) [[likely]] {
    o.flags = 0;
    o.failed.clear();
    o.cls = CommitClass::success;
    o.try_flag = true;
    return;
  }
  decode_general(o, l, value, agreed_failed);
}

// Blocks on an intercommunicator. The commit is the same machine run over the intercommunicator's *span*
// (ft/ft_manager.h FtManager::span: one agreement over the union of both groups, the group with the lower
// smallest world rank first, so that both sides number the union alike). Members contribute in span ranks
// (declared failures are looked up by world rank), so the decision and decode() are shared by both sides
// exactly as on an intracommunicator — uniformity and validity carry over unchanged. Only the presentation
// differs: a member reads the outcome in its own *view*, its local group's ranks 0..L-1 then the remote
// group's ranks as L..L+R-1 (the numbering of FtManager::revoke_member_index), so group_error_state is
// "local group, then remote group" on each side. InterView maps between the two numberings (an
// intracommunicator is the view with remote_size 0). Simulator: tests/sim/tryblock_sim_test.cpp (Inter*).
struct InterView {
  int local_size = 0;
  int remote_size = 0;
  bool local_first = true;  // the local group comes first in the span
  int size() const { return local_size + remote_size; }
  int to_span(int view) const {
    if (local_first) return view;
    return view < local_size ? remote_size + view : view - local_size;
  }
  int to_view(int span) const {
    if (local_first) return span;
    return span < remote_size ? local_size + span : span - remote_size;
  }
};
// The outcome in view order (contributed, raised_code, gathered; `failed` as view indices).
CommitOutcome to_view(const InterView& v, const CommitOutcome& span_outcome, std::size_t inj_bytes);

class TryCommit {
 public:
  enum class Phase { open, agreeing, timed_out, decided };
  TryCommit(int me, int size, std::size_t inj_bytes) : me_(me), layout_{size, inj_bytes} {}
  // Back to open for another commit (of the same block, or of a reused block object): the outcome of the
  // last decision stays readable until the next one, and its buffers are reused by it.
  void reset(int me, int size, std::size_t inj_bytes) {
    me_ = me;
    layout_ = CommitLayout{size, inj_bytes};
    phase_ = Phase::open;
  }

  // open -> agreeing: the value to start this member's agreement instance with.
  Bits contribute(const Contribution& c);
  // The same into `out` (its capacity reused).
  void contribute_into(Bits& out, const Contribution& c);
  // open -> agreeing when the caller's buffer already holds this contribution's value (the same member,
  // layout and contribution as the contribute_into that wrote it: a fault-free block commits the same
  // value every time).
  void contribute_unchanged() { phase_ = Phase::agreeing; }
  // Buffers for the outcome (a spare CommitOutcome of an earlier block): decided reuses their capacity.
  void reuse_outcome(CommitOutcome&& spare) { outcome_ = std::move(spare); }
  // agreeing|timed_out -> decided (the agreement instance decided `value`, `failed`).
  void on_decided(const Bits& value, const RankSet& failed) {
    if (phase_ != Phase::agreeing && phase_ != Phase::timed_out) return;
    decode_into(outcome_, layout_, value, failed);
    phase_ = Phase::decided;
  }
  // agreeing -> timed_out (this member's timeout ran out); no effect in other phases.
  void on_deadline();

  Phase phase() const { return phase_; }
  const CommitOutcome& outcome() const { return outcome_; }  // valid when decided
  CommitOutcome take_outcome() { return std::move(outcome_); }  // decided: the outcome, moved out
  const CommitLayout& layout() const { return layout_; }

 private:
  int me_;
  CommitLayout layout_;
  Phase phase_ = Phase::open;
  CommitOutcome outcome_;
};

}  // namespace ftmpi::famp
