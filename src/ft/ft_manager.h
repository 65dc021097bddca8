// The fault-tolerance layer of one process: failure knowledge per communicator (acknowledgements), revoke
// (seed 000 §1.3.1 MPI_Comm_invalidate / MPIX_Comm_revoke), and the agreement instances behind agree and
// shrink. It plugs into the p2p engine as its FtHandler.
//
// Contracts: every method runs on the application thread holding the runtime lock (if any), like the
// engine. Communicators are registered by their constructors and unregistered when they are retired
// (comm::retire, after MPI_Comm_free and their last request), so FT frames can be routed by context id;
// frames for a context not registered yet are kept until it is. A communicator's CommFt (ft/comm_ft.h) is
// created here on first use and deleted by its retirement.
#pragma once
#include <array>
#include <cstdint>
#include <deque>
#include <memory>
#include <map>
#include <optional>
#include <set>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "comm/communicator.h"
#include "ft/agreement.h"
#include "ft/bridge_key.h"
#include "ft/channel_key.h"
#include "ft/comm_ft.h"
#include "ft/failure_state.h"
#include "p2p/engine.h"

namespace ftmpi {
class Runtime;
}

namespace ftmpi::ft {

class Service;

// Decided agreement instances kept per communicator (bounds memory; docs/fault-tolerance.md: at most this
// many iagree/ishrink may be outstanding on one communicator at a time).
inline constexpr std::uint64_t kAgreementsKept = 64;  // each ~1 KB: communicator creation in FT mode agrees on the parent too

// Instance ids with this bit set are *keyed* (start_keyed_agreement): chosen by the caller instead of taken
// from the communicator's sequence, for agreements whose start order may differ between members (the rounds
// of concurrent MPI_Comm_idup). Sequential ids stay below it.
inline constexpr std::uint64_t kKeyedInstance = 0x80000000u;

// FT frame sub-kinds (Envelope::tag of FrameKind::ft).
// kUserEvent: an application event (MPIX_Event_publish, src/models/events/), handed to the FailureObserver.
// kBridgeHello: a bridge member's greeting (ft/bridge.h): [u64 instance][the bridge's key, ft/bridge_key.h].
// kBridgeAgree: a bridge's agreement message (ft/agree_wire.h, then the bridge's key), on MPI_COMM_WORLD's
// context: its members' own agreements and a refuser's answer to a greeting.
// kChannelRevoke: "the parent of this create_group channel was revoked while I waited in a round on it" (on
// MPI_COMM_WORLD's context; payload: the channel's key, ft/channel_key.h): a member that holds no such channel
// makes it, to veto the round (FtManager::revoke_channel).
enum FtFrame : int {
  kRevoke = 1, kAgree = 2, kCollGiveUp = p2p::kFtFrameCollGiveUp, kUserEvent = 4, kBridgeHello = 5, kChannelRevoke = 6,
  kBridgeAgree = 7
};

class FtManager final : public p2p::FtHandler {
 public:
  FtManager(Runtime& rt, FailureState& failures, bool ft_mode);
  ~FtManager() override;

  bool ft_mode() const { return ft_mode_; }
  int revoke_radix() const { return revoke_radix_; }  // the revoke tree's fan-out (MPI_T control variable)
  void set_service(Service* s) { service_ = s; }

  void register_comm(ftmpi_comm_s* c);
  void unregister_comm(ftmpi_comm_s* c);
  // Every registered communicator (Reinit rollback invalidates them all).
  std::vector<ftmpi_comm_s*> registered_comms() const {
    std::vector<ftmpi_comm_s*> v;
    for (const auto& [ctx, c] : by_ctx_) v.push_back(c);
    return v;
  }

  // Revoke (four steps: mark, purge, wake, broadcast; ft/revoke.h). Idempotent. `from` is the member whose
  // revoke message triggered it (revoke_member_index) and `origin` and `radix` the message's (a tree's root
  // and radix, or RevokeOut::kFlood), or -1 for the local call. On an intercommunicator the members are both groups (the
  // broadcast reaches the remote group too) and the hidden local communicator of its collectives is marked
  // and purged as well.
  void revoke(ftmpi_comm_s* c, int from = -1, int origin = -1, int radix = 0);
  // The flood's numbering of a communicator's members: the local group's ranks 0..size-1, then (on an
  // intercommunicator) the remote group's ranks shifted by size. -1 when `world` is not a member.
  static int revoke_member_index(const ftmpi_comm_s* c, int world);

  // Members of `c` known to have failed, as communicator ranks of the local group in the order the failures
  // were detected; with `both_groups`, as member indices (revoke_member_index: on an intercommunicator the
  // remote group's ranks come after the local group's), the members of both groups.
  std::vector<int> failed_members(const ftmpi_comm_s* c, bool both_groups = false) const;
  // World rank of member index `i` of `c` (see failed_members).
  static int member_world(const ftmpi_comm_s* c, int i);
  // Acknowledge the first `n` of failed_members(c, true) (all when n < 0). Returns how many are acknowledged.
  int acknowledge(ftmpi_comm_s* c, int n);
  // Members of `c` (communicator ranks) an agreement decided as failed: recorded as failed here too (notices
  // are true, the launcher's own notice may still be on its way), so that failed_members() and a later
  // acknowledge() include them (ULFM: failure_ack after an agreement acknowledges every process that did not
  // contribute).
  void adopt_failed(const ftmpi_comm_s* c, const RankSet& failed);
  // Acknowledged members, as member indices (see failed_members).
  std::vector<int> acked_members(const ftmpi_comm_s* c) const;

  // The *span* of an intercommunicator: an intracommunicator-like object over the union of both groups
  // (the group with the lower smallest world rank first, so that both sides number the members alike),
  // on the intercommunicator's context, over which its agreements run (MPIX_Comm_agree/shrink and the
  // uniform MPI_Comm_idup on an intercommunicator). Agreement frames arriving on the intercommunicator's
  // context are routed to it. Created on first use; dropped (or kept as a zombie while its agreements may
  // still be needed, like an intracommunicator's) when the intercommunicator is unregistered.
  ftmpi_comm_s* span(ftmpi_comm_s* inter);
  // True for an unmatched ANY_SOURCE receive while `c` has a failed member not acknowledged (seed 000
  // §1.2.1: the receive reports MPI_ERR_PROC_FAILED_PENDING and stays valid).
  bool any_source_blocked(const p2p::Request* r);

  // Start this process's part of the next agreement instance on `c` with `contribution`. The instance lives
  // as long as the communicator's FT state; callers poll decided() from a GenericOp (api/ft.cpp), the
  // progress loop feeds it messages and failures.
  // `waits_decided`: the caller waits until the instance decides, without a time limit (a blocking agree, a
  // commit without timeout): the instance may then decide on the communicator's shared-memory board
  // (ft/agree_board.h), and the start spins on the board briefly before returning.
  // `reads_at_once` (with waits_decided): the caller also reads the decision as soon as it is decided, before
  // it starts another agreement on `c` and before any progress pass once decided (MPIX_Comm_agree, a blocking
  // commit): an instance decided on the board during the start then lives in a per-communicator slot that the
  // next such start reuses, and costs no instance-map insert and erase.
  const Agreement& start_agreement(ftmpi_comm_s* c, std::span<const std::uint64_t> contribution, bool waits_decided = false,
                                   bool reads_at_once = false);
  // The same with a caller-chosen instance `key` (< 2^31), identical at every member and never reused for
  // another agreement on `c` while an earlier use may still be remembered (the last kAgreementsKept started
  // keyed instances and the 1024 forgotten before them). Members may start keyed instances in any order
  // relative to each other and to the sequential ones.
  const Agreement& start_keyed_agreement(ftmpi_comm_s* c, std::uint32_t key, std::span<const std::uint64_t> contribution);

  // Communicator creation (ft/creation_keys.h) agreeing on `c` (a communicator, a channel or a bridge):
  // creation_pin(c, +1/-1) brackets one creation (a channel is not dropped meanwhile). start_creation_round
  // starts the creation's next round with `contribution` (kCreationWords words, the last one the flags of
  // comm::agree_context), or returns nullptr when a revoke of `c` was seen here (the round was vetoed: the
  // creation ends with Errc::revoked). end_creation_round: the round's decision was read (`revoked`: its "not
  // revoked" flag is cleared); starts a veto if the rule says so.
  // A revoke of `c` (revoke() above) vetoes the next round unless one is in progress.
  void creation_pin(ftmpi_comm_s* c, int delta);
  const Agreement* start_creation_round(ftmpi_comm_s* c, std::span<const std::uint64_t> contribution);
  void end_creation_round(ftmpi_comm_s* c, bool revoked);

  // An agreement channel: a communicator-like object over the members of `key` (world ranks, sorted,
  // including this one) whose agreements travel on MPI_COMM_WORLD's context, each frame carrying the key
  // (ft/channel_key.h), so channels are told apart exactly. Used where a constructor's members are not the
  // group of one communicator (MPI_Comm_create_group, create_from_group, FA-MPI group syncs): its instances are
  // uniform as long as the members start them in the same order (true of blocking constructors over the same
  // members). A channel with a parent (key.parent_ctx: MPI_Comm_create_group's) is reached by the parent's
  // revoke — the creation rule of ft/creation_keys.h runs on it — and dropped when a new communicator takes the
  // parent's context id here. At most kMaxChannels channels are live; beyond, the least recently used idle one
  // (no creation on it, every instance decided) is compacted into a record of what a member may still need
  // (its creation keys and its last decision, ChannelRecord), made live again by its next use or frame.
  ftmpi_comm_s* channel(const ChannelKey& key);
  // The same without a parent, for one purpose (`salt`) over `world`.
  ftmpi_comm_s* channel(const std::vector<int>& world, std::uint32_t salt) {
    return channel(ChannelKey{ChannelKey::kNoParent, -1, {salt}, world});
  }
  // A caller that keeps a channel's pointer (or a reference to one of its instances) beyond the call that
  // got it — past a progress pass, which may make another channel live and compact the least recently used
  // idle one — holds it (+1) until it no longer needs it (-1): a held channel is never compacted. Use
  // ChannelHold below. `c` must be a live channel (from channel()).
  void hold_channel(ftmpi_comm_s* c, int delta) { state(c).held += delta; }
  // Live channels and records (tests, docs/fault-tolerance.md's memory figures).
  std::size_t live_channels() const { return channels_.size(); }
  std::size_t channel_records() const { return channel_records_.size(); }

  // Bridges (ft/bridge.h): MPI_Intercomm_create's agreement over two groups that learnt of each other through
  // their leaders, named exactly by their key (ft/bridge_key.h): every frame carries it.
  // This side's name in the next MPI_Intercomm_create over the local communicator of context id `ctx`, lowest
  // member `low` and sorted members `members`: its count is the number of earlier calls over a communicator
  // with the same three (the same at every member). Taken once per call by every member of the side, which
  // then calls bridge() or refuse_bridge() with it; meanwhile the bridge's frames are kept for it.
  BridgeSide take_bridge_side(std::uint32_t ctx, std::int32_t low, std::vector<int> members);
  // A knower's bridge: an agreement channel over both sides' members (sorted), frames carrying `key`.
  // At most kMaxChannels bridges are live (FTMPI_BRIDGES_LIVE overrides it); beyond, the least recently used idle
  // one is compacted into a record
  // (its creation keys and last decision, as a channel's), made live again by a frame for it.
  ftmpi_comm_s* bridge(const BridgeKey& key);
  // The creation on bridge `key` succeeded here: every live member of both sides contributed to its last
  // round after leaving every earlier bridge of the same two local communicators, so those (live or records)
  // are dropped.
  void bridge_succeeded(const BridgeKey& key);
  // A refuser: from now on answer every greeting of a bridge whose side `mine` is, with refusal_msg(refusal)
  // (the last kRefusalsKept refusals are kept; a greeting that arrived earlier is answered now).
  void refuse_bridge(const BridgeSide& mine, Bits refusal);
  static constexpr std::size_t kRefusalsKept = 256;
  static constexpr std::size_t kBridgeRecordsKept = 1024;
  // Live bridges and records (tests, docs/fault-tolerance.md's memory figures).
  std::size_t live_bridges() const { return bridges_.size(); }
  std::size_t bridge_records() const { return bridge_records_.size(); }

  // FtHandler
  void on_ft_frame(int src_world, std::uint32_t context, int kind, std::span<const std::byte> payload) override;
  void on_stale_ft_frame(int src_world, std::uint32_t context, int kind, std::span<const std::byte> payload) override;
  void on_failures() override;
  bool comm_has_failure(const ftmpi_comm_s* comm) override;
  void on_peer_lost(int world) override;
  void on_retire_notice(int world, std::uint32_t context) override;

 private:
  CommFt& state(ftmpi_comm_s* c);
  Agreement& instance(ftmpi_comm_s* c, std::uint64_t id);
  // Drop instance `it` of `s`, keeping its node for reuse (at most kSpareAgreements).
  static void forget(CommFt& s, std::map<std::uint64_t, std::unique_ptr<Agreement>>::iterator it);
  void flush(ftmpi_comm_s* c, Agreement& a, std::uint64_t id);
  // The board of `c` (nullptr: none; ft/shm_board.h says when there is one).
  AgreeBoard* board_for(ftmpi_comm_s* c, CommFt& s);
  bool board_counted();  // this member's choice of the board's kind (ft/agree_board.h "Two kinds")
  // Instances in their board phase, scanned by the board poller (a persistent generic request that the
  // progress loop runs while this list is not empty), and the poller's pass.
  struct BoardWatch {
    ftmpi_comm_s* c;
    std::uint64_t id;
    Agreement* a;
  };
  std::vector<BoardWatch> board_watch_;
  p2p::Request* board_poller_ = nullptr;
  transport::ShmTransport* board_wake_on_ = nullptr;  // the transport whose wake check is ours
  void watch_board(ftmpi_comm_s* c, std::uint64_t id, Agreement& a);
  // The quick instance of `s` (CommFt::quick) into `agreements` unless it decided on the board; no longer live.
  static void promote_quick(CommFt& s);
  // A blocking start's short spin on the board before the caller's wait (none when the core is shared).
  void spin_on_board(Agreement& a);
  static bool board_wake(void* self);
 public:
  bool poll_boards();  // the poller's pass: true when no instance is in its board phase any more
 private:
  void feed_failures(ftmpi_comm_s* c, Agreement& a);
  // Send what the revoke broadcast of `c` produced (frame: [i32 origin][i32 known failed world ranks...]).
  void flush_revoke(ftmpi_comm_s* c);
  void handle_agree(ftmpi_comm_s* c, int src_world, std::span<const std::byte> payload);
  // Failures named by a peer's revoke frame (world ranks, i32 each).
  void learn_failures(std::span<const std::byte> payload);
  // Scratch of the agreement frames (reused: no allocation per message).
  std::vector<std::byte> wire_;
  AgreeMsg rx_;

  struct Early {
    int src_world;
    int kind;
    std::vector<std::byte> payload;
  };

  Runtime& rt_;
  FailureState& failures_;
  bool ft_mode_;
  Service* service_ = nullptr;
  // Fan-out of the revoke tree (ft/revoke.h): a k-nomial tree of this radix, log_radix(n) hops, at most
  // (radix-1)·log_radix(n) frames sent by one process. 4: at 16 members 2 hops and 6 frames from the revoker
  // (a star, radix ≥ n, kept the revoker ~1 ms in the call at 16 oversubscribed ranks, waking 15 sleepers,
  // for no gain in the time to the last rank). FTMPI_REVOKE_RADIX overrides it.
  int revoke_radix_ = 4;
  std::size_t fenced_upto_ = 0;  // failure records already fenced (no-daemon FT mode)
  std::uint64_t fed_set_version_ = 0;  // FailureState::set_version() on_failures last fed to the communicators
  std::unordered_map<std::uint32_t, ftmpi_comm_s*> by_ctx_;
  std::unordered_map<std::uint32_t, std::vector<Early>> early_;  // frames for contexts not registered yet
  std::unordered_map<std::uint32_t, std::vector<int>> early_retired_;  // retire notices (world) for them
  // Freed intracommunicators whose agreements may still be needed: a process that decided keeps answering
  // late UPs and spreading its decision after failures (ft/agreement.h), or a survivor still deciding would
  // wait for it forever — also after MPI_Comm_free (e.g. the parent of a dup, freed right after). A private
  // copy (rank, size, members, contexts, FT state) keeps serving agreement frames until a new communicator
  // takes the context id.
  // The zombie owns the FT state it took over from the retired communicator (comm::retire deletes what is
  // left in `c->ft`, which is then null).
  struct Zombie {
    ftmpi_comm_s comm;
    ~Zombie();
  };
  std::unordered_map<std::uint32_t, std::unique_ptr<Zombie>> zombies_;
  std::unordered_map<std::uint32_t, std::unique_ptr<Zombie>> spans_;  // by the intercommunicator's context
  // Agreement channels (channel()) and bridges (bridge()) by key. Frames for a channel not created here yet are
  // kept by key (channel_early_keyed_), for a bridge by key (bridge_early_).
  struct Channel {
    ftmpi_comm_s comm;
    ChannelKey key;    // (empty for a bridge)
    BridgeKey bridge;  // (empty for a channel)
    std::uint64_t last_used = 0;
    ~Channel();
  };
  static constexpr std::size_t kMaxChannels = 256;
  std::map<ChannelKey, std::unique_ptr<Channel>> channels_;
  std::map<BridgeKey, std::unique_ptr<Channel>> bridges_;
  std::map<ChannelKey, std::vector<Early>> channel_early_keyed_;
  std::uint64_t channel_clock_ = 0;
  // A compacted channel: what a member may still ask of it. Its numbering (creation keys, next sequential
  // instance: the other members count on it) and its last decided keyed and sequential instances (a survivor
  // still deciding one after a failure asks this member for the decision; every older one was decided by
  // every survivor, since each started the last one after deciding the one before: creation rounds follow
  // each other, ft/creation_keys.h, and the sequential instances of channels are blocking agreements).
  struct ChannelRecord {
    CreationKeys creation;
    std::uint64_t next_instance = 0;
    std::uint32_t idup_seq = 0;  // the channel's count of non-blocking creations (keys of their rounds, api/famp_comm.cpp)
    struct Decision {
      std::uint64_t id;
      Bits value;
      RankSet failed;
    };
    std::vector<Decision> last;  // at most one keyed and one sequential
  };
  std::map<ChannelKey, ChannelRecord> channel_records_;
  // Revoke notices (kChannelRevoke) for channels not held here whose parent is not seen revoked yet, by the
  // parent's context id; and the context ids of revoked communicators retired here (a notice may come after
  // the parent's free), until a new communicator takes them.
  std::map<std::uint32_t, std::set<ChannelKey>> channel_notices_;
  std::set<std::uint32_t> revoked_retired_;
  void veto_creation(ftmpi_comm_s* c, std::optional<std::uint32_t> key);
  // The veto a revoke of intracommunicator `c` owes (ft/creation_keys.h), started later rather than inside
  // the revoke: every member's veto is a whole agreement (an instance of `c`'s members, ~2 frames per member,
  // each waking a sleeping rank), and started at the revoke it ran while the revoke was still being delivered,
  // taking the cores from the ranks not woken yet (16 oversubscribed ranks: ~20 % of the time to the last
  // one's MPI_ERR_REVOKED, docs/performance.md 2026-11-27 revoke13g). Started at the first of: kVetoDelayNs
  // after the revoke (the veto poller, a generic request of the progress loop), a frame of that instance from
  // another member (handle_agree: somebody runs the round and waits for us), a creation on `c` here
  // (start_creation_round), the free of `c` (unregister_comm), MPI_Finalize (start_deferred_vetoes). For the
  // creation rule this is the member seeing the revoke later (the rule allows any delay; it starts no round of
  // its own meanwhile, as begin_round answers "revoked"), so the uniformity and no-hang arguments stand. The
  // deadline is seen by a progress pass: a process that left MPI after the revoke starts the veto at its next
  // MPI call (or MPI_Finalize), as it would only then have seen a revoke frame arriving meanwhile.
  static constexpr long long kVetoDelayNs = 2'000'000;
  void defer_veto(ftmpi_comm_s* c, std::optional<std::uint32_t> key);
  void start_deferred_veto(ftmpi_comm_s* c);
  std::vector<ftmpi_comm_s*> deferred_vetoes_;  // communicators with CommFt::deferred_veto set
  p2p::Request* veto_poller_ = nullptr;
 public:
  // Start every deferred veto now (MPI_Finalize), and the poller's pass (true: none left).
  void start_deferred_vetoes();
  bool poll_deferred_vetoes();
 private:
  // Agreement frames not of the communicator they came on: a channel's (the key trailer says which), or dropped.
  // `stale`: it came for a parent freed here (on_stale_ft_frame).
  void handle_channel_frame(int src_world, std::span<const std::byte> payload, bool stale = false);
  // Make the channel of `key` live: from its record if it has one, replaying the frames kept for it, and
  // vetoed at once if its parent is revoked here (compacting the least recently used idle channel beyond
  // kMaxChannels). nullptr when this process is not a member.
  Channel* make_channel(const ChannelKey& key);
  void compact_one();
  // The parent of `key` was revoked here (or retired after its revoke).
  bool parent_revoked(const ChannelKey& key) const;
  // The creation rule on channel `ch` whose parent was revoked: veto its next round, or (in a round) tell the
  // other members, who may hold no such channel (kChannelRevoke).
  void revoke_channel(Channel& ch);
  void handle_channel_notice(std::span<const std::byte> payload, bool stale);
  // --- bridges (ft/bridge.h, ft/bridge_key.h)
  std::size_t bridges_live_ = kMaxChannels;  // live bridges kept before compacting (FTMPI_BRIDGES_LIVE)
  // Make bridge `key` live (from its record if it has one), replaying the frames kept for it, compacting the least
  // recently used idle bridge beyond kMaxChannels.
  Channel* make_bridge(const BridgeKey& key);
  void compact_bridge();
  // A compacted channel's or bridge's record (the creation keys, the next sequential instance, the last decided
  // keyed and sequential instances), and its FT state made live again from one (`c` fresh: no instance yet).
  static ChannelRecord record_of(const ftmpi_comm_s& c);
  void restore_record(ftmpi_comm_s* c, ChannelRecord& r);
  // A bridge frame (kBridgeAgree, or kBridgeHello when `hello`): routed by its key to the live bridge, a record
  // made live again, this member's refusal, or kept for a bridge not made here yet; a frame of a bridge this
  // member left and forgot is dropped, and so is a malformed one (with a warning).
  void handle_bridge_frame(int src_world, std::span<const std::byte> payload, bool hello);
  void answer_hello(int src_world, std::uint64_t instance, const BridgeKey& key, const Bits& refusal);
  void greet(ftmpi_comm_s* c, const Agreement& a, std::uint64_t id);
  // Bridge sides by caller (count zero): the next count. Sides taken and not yet bridged or refused.
  std::map<BridgeSide, std::uint64_t> bridge_counts_;
  std::set<BridgeSide> bridge_pending_;
  std::map<BridgeKey, std::vector<Early>> bridge_early_;
  std::map<BridgeKey, ChannelRecord> bridge_records_;
  std::deque<BridgeKey> bridge_record_order_;  // oldest first (may name records dropped since)
  std::map<BridgeSide, Bits> refusals_;
  std::deque<BridgeSide> refusal_order_;
};

// A hold on an agreement channel (FtManager::hold_channel) for the lifetime of this object; empty when made
// with nullptr. FA-MPI's generic operations own one (api/famp_comm.cpp, api/famp_tryblock.cpp): the
// request's operation is deleted by Engine::release while the runtime lives (a rolled-back epoch's requests
// are never released), so the manager outlives every hold.
class ChannelHold {
 public:
  ChannelHold() = default;
  ChannelHold(FtManager& m, ftmpi_comm_s* channel) : m_(channel ? &m : nullptr), c_(channel) {
    if (c_) m_->hold_channel(c_, +1);
  }
  ~ChannelHold() {
    if (c_) m_->hold_channel(c_, -1);
  }
  ChannelHold(ChannelHold&& o) noexcept : m_(o.m_), c_(o.c_) { o.c_ = nullptr; }
  ChannelHold& operator=(ChannelHold&&) = delete;
  ChannelHold(const ChannelHold&) = delete;
  ChannelHold& operator=(const ChannelHold&) = delete;

 private:
  FtManager* m_ = nullptr;
  ftmpi_comm_s* c_ = nullptr;
};

}  // namespace ftmpi::ft
