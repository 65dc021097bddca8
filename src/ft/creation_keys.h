// Communicator creation in FT mode: which agreement instance each round of a creation runs, and what a
// revoke does to them (the rule that makes creation uniform when a revoke races it). A plain state machine
// per agreement "owner" (the parent communicator, or the agreement channel of a create_group / an
// intercommunicator constructor, FtManager::channel); comm::agree_context and FtManager::revoke drive it,
// tests/sim/creation_sim_test.cpp simulates it with the agreement (ft/agreement.h) and a revoke injected at
// every step.
//
// Model. The members of an owner O run *creations* on O one after the other, in the same order (MPI's
// collective order on the parent; one creation per identity at a time on a channel). A creation is a
// sequence of *rounds*, each one fault-tolerant agreement (ft/agreement.h) on O; every survivor sees the
// same decision in every round, so all run the same rounds and the next round or the end of the creation
// follows the decision alike everywhere (comm/context_alloc.h run_rounds). So the rounds of all creations on
// O form one sequence, the same at every member: the i-th round on O runs the keyed instance key(i)
// (FtManager::start_keyed_agreement): keyed, not O's sequential instances, so that a member that skipped the
// creation (after revoking O) and calls MPIX_Comm_agree/shrink on O never meets a creation round in its
// instance.
//
// The revoke rule. O may be revoked at any time (a member's MPIX_Comm_revoke, seen by every survivor
// eventually). Each member calls on_revoke() when it first sees it. From then on it starts no round of its
// own; instead it *vetoes* the instance it would have started next — key(s, r) of the round it is between,
// or of the next creation's first round when it is in none — by starting that instance with a contribution whose
// "not revoked" flag is cleared (comm::agree_context reads it as Errc::revoked), exactly once. A member
// inside a round (started, not decided) when it sees the revoke keeps waiting for that round's decision and
// vetoes the next key when the round ends (end_round). A round's decision with the flag cleared ends the
// creation with Errc::revoked and counts as seeing the revoke, without a veto: every survivor contributed to
// that round and reads the same decision, so nobody starts the next key. (The library may start the veto that
// on_revoke() returns later, FtManager::defer_veto: that is the member seeing the revoke later, as long as the
// veto is started eventually and before any round of its own — tests/sim/creation_sim_test.cpp, defer mode.)
// Then:
//  * Uniform outcome. Every member either starts or vetoes each key, never both (it starts only before the
//    revoke, vetoes only after, once). A key's decision is the same at every survivor (agreement), so every
//    member that ends a creation ends it with the decided outcome: the communicator (decided before any
//    veto reached it: the revoke then affects the parent only) or the error (Errc::revoked, or
//    Errc::proc_failed) — never some with the communicator and some with the error. A member that sees the
//    revoke before calling the creation returns Errc::revoked at once (begin_round), which is that
//    creation's outcome everywhere: its veto took part in the creation's next round.
//  * No hang. Let K be the first key some survivor waits on that a member m never starts. m is alive and
//    eventually sees the revoke; its keys before K were decided (each needed m's start or veto, and was
//    decided at the waiter, so at m: agreement termination), so m's next key is K when it is not in a round:
//    it vetoes K. So every survivor contributes to K and K decides (ft/agreement.h termination).
// Keys: bit 30 set (comm/comm_idup.h's keyed instances leave it clear), the round's number on O mod 2^30. Not
// (creation, round) with a few bits each: a creation starved for 128 rounds by other threads' creations
// (context_alloc.h) reused a key while a faster member's frame for the new use reached a member that still
// counted the old one as forgotten, and dropped it (a hang in ft_comm_threads_group).
#pragma once
#include <cstddef>
#include <cstdint>
#include <optional>

namespace ftmpi::ft {

// The size of a creation round's contribution: the context-id mask (comm/context_alloc.h, kWords words) and
// the flags word (comm_ops.cpp agree_once). A veto is that many zero words.
inline constexpr std::size_t kCreationWords = 33;

class CreationKeys {
 public:
  static constexpr std::uint32_t kBit = 1u << 30;
  static constexpr std::uint32_t key(std::uint32_t round) { return kBit | (round & (kBit - 1)); }

  // A round is about to start: the key to start it with, or nothing when a revoke was seen here (the
  // creation returns Errc::revoked; the key was vetoed).
  std::optional<std::uint32_t> begin_round() {
    if (revoked_) return std::nullopt;
    in_round_ = true;
    return key(round_);
  }
  // The round's agreement decided; `revoked`: the decision's "not revoked" flag is cleared. Returns the key
  // to veto now, if any.
  std::optional<std::uint32_t> end_round(bool revoked) {
    in_round_ = false;
    ++round_;
    if (revoked) {  // every member that contributed to the round reads the same: nobody starts the next key
      revoked_ = true;
      vetoed_ = true;
      return std::nullopt;
    }
    return revoked_ ? veto() : std::nullopt;
  }
  // The owner's revoke, seen here (every call after the first is ignored). Returns the key to veto now
  // (nothing while a round is in progress: end_round returns it).
  std::optional<std::uint32_t> on_revoke() {
    if (revoked_) return std::nullopt;
    revoked_ = true;
    return in_round_ ? std::nullopt : veto();
  }
  bool revoked() const { return revoked_; }
  bool in_round() const { return in_round_; }
  // The round in progress or next (a channel drops frames of rounds before the one before it: every
  // member decided those, FtManager::handle_agree).
  std::uint32_t round() const { return round_; }

 private:
  std::optional<std::uint32_t> veto() {
    if (vetoed_) return std::nullopt;
    vetoed_ = true;
    return key(round_);
  }
  std::uint32_t round_ = 0;  // the round on O in progress or next
  bool in_round_ = false;
  bool revoked_ = false;
  bool vetoed_ = false;
};

}  // namespace ftmpi::ft
