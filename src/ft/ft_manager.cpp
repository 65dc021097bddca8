#include "ft/ft_manager.h"

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <ctime>

#include "ft/agree_wire.h"
#include "ft/bridge.h"
#include "ft/failure_observer.h"
#include "ft/frame_route.h"
#include "ft/revoke.h"
#include "ft/service.h"
#include "coll/shm_area.h"
#include "transport/shm/shm_transport.h"
#include "comm/group.h"
#include "dpm/universe.h"
#include "mpi.h"
#include "util/magic.h"
#include "runtime/runtime.h"
#include "util/log.h"

namespace ftmpi::ft {

FtManager::FtManager(Runtime& rt, FailureState& failures, bool ft_mode)
    : rt_(rt), failures_(failures), ft_mode_(ft_mode) {
  // FTMPI_REVOKE_RADIX: the revoke tree's fan-out (ft/revoke.h; tests make it binary to get inner nodes).
  if (const char* r = std::getenv("FTMPI_REVOKE_RADIX")) {
    const long v = std::strtol(r, nullptr, 10);
    if (v >= 2 && v <= 1 << 20) revoke_radix_ = static_cast<int>(v);
    else log::warn("FTMPI_REVOKE_RADIX=%s ignored (want an integer >= 2)", r);
  }
  // FTMPI_BRIDGES_LIVE: live bridges kept before compacting (tests make it 1, so that a member still deciding a
  // bridge after a failure reaches one that compacted it).
  if (const char* b = std::getenv("FTMPI_BRIDGES_LIVE")) {
    const long v = std::strtol(b, nullptr, 10);
    if (v >= 1 && v <= 1 << 20) bridges_live_ = static_cast<std::size_t>(v);
    else log::warn("FTMPI_BRIDGES_LIVE=%s ignored (want an integer >= 1)", b);
  }
}

FtManager::~FtManager() = default;

namespace {
// The agreement frame's instance word carries the members hash in its high half (a late frame of another
// communicator on a recycled context is dropped), whose top bit says "sent by a freed communicator's zombie":
// such a frame went out after its sender's retire notice (p2p/stale_filter.h), so it must never be taken for a
// frame of a newer communicator on the slot; only a zombie, or a live communicator still deciding that very
// instance (the survivor the zombie exists for), takes it.
constexpr std::uint32_t kFromFreed = 0x80000000u;

bool from_freed(std::span<const std::byte> payload) {
  std::uint64_t instance = 0;
  if (payload.size() < sizeof instance) return false;
  std::memcpy(&instance, payload.data(), sizeof instance);
  return (instance >> 32) & kFromFreed;
}

struct Fnv {  // FNV-1a over 32-bit words
  std::uint32_t h = 2166136261u;
  void mix(std::uint32_t v) {
    for (int i = 0; i < 4; ++i) {
      h ^= (v >> (8 * i)) & 0xffu;
      h *= 16777619u;
    }
  }
};

std::uint32_t hash_members(const ftmpi_comm_s* c) {
  Fnv f;  // over the world ranks of both groups
  for (const ftmpi_group_s* g : {static_cast<const ftmpi_group_s*>(c->group), static_cast<const ftmpi_group_s*>(c->remote_group)}) {
    if (g == nullptr) continue;
    f.mix(static_cast<std::uint32_t>(g->world_ranks.size()));
    for (int w : g->world_ranks) f.mix(static_cast<std::uint32_t>(w));
  }
  return f.h & ~kFromFreed;
}

// A channel's members hash: the set and the salt, and never MPI_COMM_WORLD's own hash (whose frames must
// not be taken for a channel's).
std::uint32_t hash_channel(const std::vector<int>& world, std::uint32_t salt, std::uint32_t world_hash) {
  Fnv f;
  f.mix(0x43484e4cu);  // "CHNL"
  f.mix(salt);
  f.mix(static_cast<std::uint32_t>(world.size()));
  for (int w : world) f.mix(static_cast<std::uint32_t>(w));
  std::uint32_t h = f.h & ~kFromFreed;
  return h == world_hash ? h ^ 1u : h;
}

std::uint32_t peek_hash(std::span<const std::byte> payload) {
  std::uint64_t instance = 0;
  if (payload.size() < sizeof instance) return 0;
  std::memcpy(&instance, payload.data(), sizeof instance);
  return static_cast<std::uint32_t>(instance >> 32) & ~kFromFreed;
}
}  // namespace

CommFt& FtManager::state(ftmpi_comm_s* c) {
  if (!c->ft) {  // owned by the communicator: deleted when it is retired (comm::retire), or by its zombie
    c->ft = new CommFt;
    c->ft->members_hash = hash_members(c);
  }
  return *c->ft;
}

FtManager::Channel::~Channel() {
  delete comm.ft;
  if (comm.group != nullptr) comm::group_release(comm.group);
}

// --- agreement channels (ft/channel_key.h) --------------------------------------------------------------

ftmpi_comm_s* FtManager::channel(const ChannelKey& key) {
  if (auto it = channels_.find(key); it != channels_.end()) {
    it->second->last_used = ++channel_clock_;
    return &it->second->comm;
  }
  Channel* ch = make_channel(key);
  return ch == nullptr ? nullptr : &ch->comm;
}

bool FtManager::parent_revoked(const ChannelKey& key) const {
  if (key.parent_ctx == ChannelKey::kNoParent) return false;
  if (revoked_retired_.count(key.parent_ctx)) return true;
  auto p = by_ctx_.find(key.parent_ctx);
  return p != by_ctx_.end() && !p->second->is_inter() && p->second->revoked.load();
}

FtManager::Channel* FtManager::make_channel(const ChannelKey& key) {
  if (std::find(key.members.begin(), key.members.end(), rt_.world_rank()) == key.members.end()) return nullptr;
  if (channels_.size() >= kMaxChannels) compact_one();
  auto ch = std::make_unique<Channel>();
  ch->key = key;
  ftmpi_comm_s& c = ch->comm;
  c.group = comm::make_group(key.members, rt_.world_rank());
  c.rank = c.group->my_rank;
  c.size = c.group->size();
  // Frames travel on the parent's context (MPI_COMM_WORLD's without one): a frame of a freed parent's channel
  // is then told from one of the next communicator's on the slot as any frame is (p2p/stale_filter.h).
  c.ctx_pt2pt = key.parent_ctx == ChannelKey::kNoParent ? comm::kCtxWorld : key.parent_ctx;
  c.ctx_coll = c.ctx_pt2pt + 1;
  c.ft = new CommFt;
  auto w = by_ctx_.find(comm::kCtxWorld);
  std::uint32_t salt = 0;  // the frames' members hash: only tells channel frames from world's now
  for (std::uint32_t x : key.words) salt = (salt ^ x) * 0x9e3779b1u;
  c.ft->members_hash = hash_channel(key.members, salt ^ key.parent_ctx, w == by_ctx_.end() ? 0u : state(w->second).members_hash);
  c.ft->channel_key = &ch->key;
  // Never an application handle (nobody sees it); a freed one when its parent was freed here (only a frame or
  // a notice for it makes it then: see unregister_comm).
  const bool orphan = key.parent_ctx != ChannelKey::kNoParent && !by_ctx_.count(key.parent_ctx);
  c.magic = orphan ? kMagicFreed : kMagicComm;
  ch->last_used = ++channel_clock_;
  Channel* out = ch.get();
  channels_[key] = std::move(ch);
  if (auto r = channel_records_.find(key); r != channel_records_.end()) {
    restore_record(&c, r->second);
    channel_records_.erase(r);
  }
  if (auto e = channel_early_keyed_.find(key); e != channel_early_keyed_.end()) {
    std::vector<Early> frames = std::move(e->second);
    channel_early_keyed_.erase(e);
    for (auto& f : frames) handle_agree(&c, f.src_world, f.payload);
  }
  if (parent_revoked(key)) revoke_channel(*out);
  return out;
}

void FtManager::compact_one() {
  auto victim = channels_.end();
  for (auto c = channels_.begin(); c != channels_.end(); ++c) {
    const CommFt& s = *c->second->comm.ft;
    bool idle = s.creating == 0 && s.held == 0 && !s.quick_live;
    for (auto& [id, a] : s.agreements) idle = idle && a->decided();
    if (idle && (victim == channels_.end() || c->second->last_used < victim->second->last_used)) victim = c;
  }
  if (victim == channels_.end()) return;  // every channel is in use: grow
  channel_records_[victim->first] = record_of(victim->second->comm);
  std::erase_if(board_watch_, [&](const BoardWatch& bw) { return bw.c == &victim->second->comm; });
  channels_.erase(victim);
}

void FtManager::revoke_channel(Channel& ch) {
  CreationKeys& k = ch.comm.ft->creation;
  if (k.revoked()) return;
  const bool waiting = k.in_round();
  veto_creation(&ch.comm, k.on_revoke());
  if (!waiting) return;
  // This member waits in a round that a member holding no channel (it skipped the creation) must veto: tell
  // every member; those that hold the channel see the parent's revoke themselves.
  std::vector<std::byte> notice;
  append_key(notice, ch.key);
  for (int w : ch.key.members)
    if (w != rt_.world_rank()) rt_.engine().send_ft_frame(w, ch.comm.ctx_pt2pt, kChannelRevoke, notice);
}

void FtManager::handle_channel_notice(std::span<const std::byte> payload, bool stale) {
  std::span<const std::byte> head;
  ChannelKey key;
  if (!split_key(payload, &head, &key) || !head.empty() || key.parent_ctx == ChannelKey::kNoParent) {
    log::warn("dropping malformed channel revoke notice");
    return;
  }
  if (stale && by_ctx_.count(key.parent_ctx)) return;  // for the freed parent: its channels are gone
  if (channels_.count(key)) return;  // held here: the parent's revoke reaches it (revoke())
  if (parent_revoked(key)) {
    make_channel(key);  // vetoes at once
    return;
  }
  auto& pending = channel_notices_[key.parent_ctx];  // until the parent's revoke comes
  if (pending.size() < 1024 && channel_notices_.size() < 4096) pending.insert(std::move(key));
}

// --- bridges (ft/bridge.h, ft/bridge_key.h) ----------------------------------------------------------

namespace {
// The members hash of every bridge's frames (its instance word's high half): bridges are told apart by the key
// each frame carries, on their own frame kind, so this only keeps handle_agree's check uniform.
constexpr std::uint32_t kBridgeTag = 0x42524447u & ~kFromFreed;  // "BRDG"
}  // namespace

FtManager::ChannelRecord FtManager::record_of(const ftmpi_comm_s& c) {
  const CommFt& s = *c.ft;
  ChannelRecord rec;
  rec.creation = s.creation;
  rec.idup_seq = c.idup_seq;
  rec.next_instance = s.next_instance;
  for (auto id = s.keyed_started.rbegin(); id != s.keyed_started.rend(); ++id) {
    auto a = s.agreements.find(*id);
    if (a == s.agreements.end()) continue;
    rec.last.push_back(ChannelRecord::Decision{*id, a->second->value(), a->second->failed()});
    break;
  }
  for (auto a = s.agreements.rbegin(); a != s.agreements.rend(); ++a)
    if (!(a->first & kKeyedInstance)) {
      rec.last.push_back(ChannelRecord::Decision{a->first, a->second->value(), a->second->failed()});
      break;
    }
  return rec;
}

void FtManager::restore_record(ftmpi_comm_s* c, ChannelRecord& r) {
  c->ft->creation = r.creation;
  c->ft->next_instance = r.next_instance;
  c->idup_seq = r.idup_seq;
  for (ChannelRecord::Decision& d : r.last) {
    // The decision, for a survivor still deciding it: an instance that adopted it (a decided UP from this
    // member itself; what it would send is not needed, so it is dropped).
    Agreement& a = instance(c, d.id);
    AgreeMsg m;
    m.kind = AgreeMsg::Kind::up;
    m.decided = true;
    m.view = d.failed;
    m.value = std::move(d.value);
    m.failed = d.failed;
    a.on_message(c->rank, m);
    a.clear_outgoing();
    if (d.id & kKeyedInstance) c->ft->keyed_started.push_back(d.id);
  }
}

BridgeSide FtManager::take_bridge_side(std::uint32_t ctx, std::int32_t low, std::vector<int> members) {
  BridgeSide side{ctx, low, 0, std::move(members)};
  side.count = bridge_counts_[side]++;  // (the map's key has count 0)
  bridge_pending_.insert(side);
  return side;
}

FtManager::Channel* FtManager::make_bridge(const BridgeKey& key) {
  const BridgeSide* mine = key.side_of(rt_.world_rank());
  if (mine == nullptr) return nullptr;
  if (bridges_.size() >= bridges_live_) compact_bridge();
  auto ch = std::make_unique<Channel>();
  ch->bridge = key;
  ftmpi_comm_s& c = ch->comm;
  c.group = comm::make_group(key.members(), rt_.world_rank());
  c.rank = c.group->my_rank;
  c.size = c.group->size();
  c.ctx_pt2pt = comm::kCtxWorld;
  c.ctx_coll = comm::kCtxWorld + 1;
  c.ft = new CommFt;
  c.ft->members_hash = kBridgeTag;
  c.ft->bridge_key = &ch->bridge;
  c.magic = kMagicComm;  // never an application handle (nobody sees it), but not a freed one either
  ch->last_used = ++channel_clock_;
  Channel* out = ch.get();
  bridges_[key] = std::move(ch);
  if (auto r = bridge_records_.find(key); r != bridge_records_.end()) {
    log::debug("bridge made live again from its record (a frame of a member still deciding it)");
    restore_record(&c, r->second);
    bridge_records_.erase(r);
    std::erase(bridge_record_order_, key);
  }
  if (auto e = bridge_early_.find(key); e != bridge_early_.end()) {
    std::vector<Early> frames = std::move(e->second);
    bridge_early_.erase(e);
    for (auto& f : frames)
      if (f.kind == kBridgeAgree) handle_agree(&c, f.src_world, f.payload);  // a knower ignores HELLOs
  }
  return out;
}

void FtManager::compact_bridge() {
  auto victim = bridges_.end();
  for (auto c = bridges_.begin(); c != bridges_.end(); ++c) {
    const CommFt& s = *c->second->comm.ft;
    bool idle = s.creating == 0 && s.held == 0 && !s.quick_live;
    for (auto& [id, a] : s.agreements) idle = idle && a->decided();
    if (idle && (victim == bridges_.end() || c->second->last_used < victim->second->last_used)) victim = c;
  }
  if (victim == bridges_.end()) return;  // every bridge is in use: grow
  bridge_records_[victim->first] = record_of(victim->second->comm);
  bridge_record_order_.push_back(victim->first);
  // Beyond kBridgeRecordsKept the oldest record is forgotten (docs/fault-tolerance.md "Bridges": a member still
  // deciding that bridge after a failure would wait for this one; bridge_succeeded drops most records first).
  while (bridge_records_.size() > kBridgeRecordsKept && !bridge_record_order_.empty()) {
    bridge_records_.erase(bridge_record_order_.front());
    bridge_record_order_.pop_front();
  }
  if (bridge_record_order_.size() > 2 * bridge_records_.size() + 64)  // names of records dropped since
    std::erase_if(bridge_record_order_, [&](const BridgeKey& k) { return !bridge_records_.count(k); });
  std::erase_if(board_watch_, [&](const BoardWatch& bw) { return bw.c == &victim->second->comm; });
  bridges_.erase(victim);
}

ftmpi_comm_s* FtManager::bridge(const BridgeKey& key) {
  if (const BridgeSide* mine = key.side_of(rt_.world_rank())) bridge_pending_.erase(*mine);
  if (auto it = bridges_.find(key); it != bridges_.end()) {  // (cannot be: a side's count is taken once)
    it->second->last_used = ++channel_clock_;
    return &it->second->comm;
  }
  Channel* ch = make_bridge(key);
  return ch == nullptr ? nullptr : &ch->comm;
}

void FtManager::bridge_succeeded(const BridgeKey& key) {
  // An earlier bridge of the same two callers: each side's count is lower. Every live member of `key` started
  // its last round after its call on the earlier bridge returned (calls on a local communicator follow each
  // other), and that round decided fresh (a success is never a refusal): nobody alive still needs it.
  auto earlier = [&](const BridgeKey& k) {
    return k.a.same_caller(key.a) && k.b.same_caller(key.b) && k.a.count < key.a.count && k.b.count < key.b.count;
  };
  for (auto it = bridges_.begin(); it != bridges_.end();) {
    const CommFt& s = *it->second->comm.ft;
    if (earlier(it->first) && s.creating == 0 && s.held == 0) {
      std::erase_if(board_watch_, [&](const BoardWatch& bw) { return bw.c == &it->second->comm; });
      it = bridges_.erase(it);
    } else {
      ++it;
    }
  }
  std::erase_if(bridge_records_, [&](const auto& r) { return earlier(r.first); });
}

void FtManager::refuse_bridge(const BridgeSide& mine, Bits refusal) {
  bridge_pending_.erase(mine);
  if (!refusals_.count(mine)) {
    refusal_order_.push_back(mine);
    if (refusal_order_.size() > kRefusalsKept) {
      refusals_.erase(refusal_order_.front());
      refusal_order_.pop_front();
    }
  }
  refusals_[mine] = std::move(refusal);
  // Greetings that came before this member knew it would refuse.
  for (auto e = bridge_early_.begin(); e != bridge_early_.end();) {
    const BridgeSide* side = e->first.side_of(rt_.world_rank());
    if (side == nullptr || *side != mine) {
      ++e;
      continue;
    }
    const BridgeKey key = e->first;
    std::vector<Early> frames = std::move(e->second);
    e = bridge_early_.erase(e);
    for (auto& f : frames) {
      std::uint64_t instance = 0;
      if (f.kind == kBridgeHello && f.payload.size() >= sizeof instance) {
        std::memcpy(&instance, f.payload.data(), sizeof instance);
        answer_hello(f.src_world, instance, key, refusals_[mine]);
      }
    }
  }
}

void FtManager::answer_hello(int src_world, std::uint64_t instance, const BridgeKey& key, const Bits& refusal) {
  std::vector<std::byte> bytes = encode((std::uint64_t{kBridgeTag} << 32) | (instance & 0xffffffffu), refusal_msg(refusal));
  append_bridge_key(bytes, key);
  rt_.engine().send_ft_frame(src_world, comm::kCtxWorld, kBridgeAgree, bytes);
}

void FtManager::handle_bridge_frame(int src_world, std::span<const std::byte> payload, bool hello) {
  std::span<const std::byte> head;
  BridgeKey key;
  switch (split_bridge_key(payload, &head, &key)) {
    case BridgeKeyParse::ok:
      break;
    case BridgeKeyParse::unknown_version:
      log::error("internal error: dropping a bridge frame (kind %d) from rank %d with a key of an unknown version",
                 hello ? kBridgeHello : kBridgeAgree, src_world);
      return;
    default:
      log::error("internal error: dropping a malformed bridge frame (kind %d, %zu bytes) from rank %d",
                 hello ? kBridgeHello : kBridgeAgree, payload.size(), src_world);
      return;
  }
  const BridgeSide* mine = key.side_of(rt_.world_rank());
  if (mine == nullptr || (hello && head.size() != sizeof(std::uint64_t))) {
    log::error("internal error: dropping a bridge frame (kind %d) from rank %d %s", hello ? kBridgeHello : kBridgeAgree,
               src_world, mine == nullptr ? "for a bridge this process is not a member of" : "of a wrong length");
    return;
  }
  // A knower ignores HELLOs; a frame for a compacted bridge makes it live again (a survivor still deciding).
  if (auto it = bridges_.find(key); it != bridges_.end()) {
    if (!hello) handle_agree(&it->second->comm, src_world, head);
    return;
  }
  if (bridge_records_.count(key)) {
    if (!hello) handle_agree(&make_bridge(key)->comm, src_world, head);
    return;
  }
  if (auto r = refusals_.find(*mine); r != refusals_.end()) {
    if (hello) {  // a refuser ignores the bridge's agreement frames (ft/bridge.h)
      std::uint64_t instance = 0;
      std::memcpy(&instance, head.data(), sizeof instance);
      answer_hello(src_world, instance, key, r->second);
    }
    return;
  }
  // A bridge not made (or refused) here yet — this member's side is still before or in its call — or one this
  // member left and forgot (its record dropped, or a refusal beyond the last kRefusalsKept): nobody needs an
  // answer from here then, or the bound was exceeded (docs/fault-tolerance.md "Bridges").
  BridgeSide caller = *mine;
  caller.count = 0;
  auto next = bridge_counts_.find(caller);
  const bool future = next == bridge_counts_.end() || mine->count >= next->second || bridge_pending_.count(*mine);
  if (!future) {
    log::debug("dropping a frame (kind %d) from rank %d of a bridge left and forgotten here", hello ? kBridgeHello : kBridgeAgree,
               src_world);
    return;
  }
  auto& q = bridge_early_[key];
  if (q.size() < 4096 && bridge_early_.size() < 4 * kMaxChannels)
    q.push_back(Early{src_world, hello ? kBridgeHello : kBridgeAgree, {head.begin(), head.end()}});
  else if (q.empty())
    bridge_early_.erase(key);
}

void FtManager::greet(ftmpi_comm_s* c, const Agreement& a, std::uint64_t id) {
  if (c->ft->bridge_key == nullptr || a.decided()) return;
  for (int t : hello_targets(a)) {
    if (!c->ft->greeted.insert(t).second) continue;
    std::vector<std::byte> bytes(sizeof(std::uint64_t));
    const std::uint64_t instance = id & 0xffffffffu;
    std::memcpy(bytes.data(), &instance, sizeof instance);
    append_bridge_key(bytes, *c->ft->bridge_key);
    rt_.engine().send_ft_frame(c->world_rank(t), comm::kCtxWorld, kBridgeHello, bytes);
  }
}

void FtManager::handle_channel_frame(int src_world, std::span<const std::byte> payload, bool stale) {
  std::span<const std::byte> head;
  ChannelKey key;
  if (split_key(payload, &head, &key)) {  // a channel's: exactly this one
    if (stale && by_ctx_.count(key.parent_ctx)) return;  // for the freed parent: its channels are gone
    auto it = channels_.find(key);
    Channel* ch = it != channels_.end() ? it->second.get() : nullptr;
    if (ch == nullptr && (channel_records_.count(key) || parent_revoked(key))) ch = make_channel(key);
    if (ch != nullptr) {
      handle_agree(&ch->comm, src_world, head);
      return;
    }
    // Not used here yet (a faster member): keep a bounded number of its frames.
    auto& q = channel_early_keyed_[key];
    if (q.size() < 4096 && channel_early_keyed_.size() < 4 * kMaxChannels)
      q.push_back(Early{src_world, kAgree, {head.begin(), head.end()}});
    else if (q.empty())
      channel_early_keyed_.erase(key);
    return;
  }
  // No channel's (a bridge's frames have a kind of their own): most likely a late frame of another communicator.
  log::debug("dropping agreement message from rank %d of no known channel", src_world);
}

FtManager::Zombie::~Zombie() {
  delete comm.ft;  // (its board first: it points into the area)
  coll::release_shm_area(&comm);  // kept for instances in their board phase (unregister_comm)
  if (comm.group != nullptr) comm::group_release(comm.group);
}

void FtManager::register_comm(ftmpi_comm_s* c) {
  state(c);
  if (auto z = zombies_.find(c->ctx_pt2pt); z != zombies_.end())  // the context has a new owner
    std::erase_if(board_watch_, [&](const BoardWatch& w) { return w.c == &z->second->comm; });
  zombies_.erase(c->ctx_pt2pt);
  if (auto sp = spans_.find(c->ctx_pt2pt); sp != spans_.end() && by_ctx_.find(c->ctx_pt2pt) == by_ctx_.end()) spans_.erase(sp);
  by_ctx_[c->ctx_pt2pt] = c;
  // The channels of create_group calls on the communicator that had this context id here are no longer
  // needed (as its zombie: every member has retired it, or left its creations, before making the new one).
  revoked_retired_.erase(c->ctx_pt2pt);
  if (c->ctx_pt2pt != ChannelKey::kNoParent) {
    for (auto it = channels_.lower_bound(ChannelKey{c->ctx_pt2pt, INT32_MIN, {}, {}});
         it != channels_.end() && it->first.parent_ctx == c->ctx_pt2pt;) {
      if (it->second->comm.ft->creating != 0 || it->second->comm.ft->held != 0) {  // (cannot be: a creation pins its parent)
        ++it;
        continue;
      }
      std::erase_if(board_watch_, [&](const BoardWatch& bw) { return bw.c == &it->second->comm; });
      it = channels_.erase(it);
    }
    for (auto it = channel_records_.lower_bound(ChannelKey{c->ctx_pt2pt, INT32_MIN, {}, {}});
         it != channel_records_.end() && it->first.parent_ctx == c->ctx_pt2pt;)
      it = channel_records_.erase(it);
    channel_notices_.erase(c->ctx_pt2pt);
  }
  if (auto r = early_retired_.find(c->ctx_pt2pt); r != early_retired_.end()) {
    std::vector<int> worlds = std::move(r->second);
    early_retired_.erase(r);
    for (int w : worlds) on_retire_notice(w, c->ctx_pt2pt);
  }
  auto it = early_.find(c->ctx_pt2pt);
  if (it == early_.end()) return;
  std::vector<Early> frames = std::move(it->second);
  early_.erase(it);
  for (auto& f : frames) on_ft_frame(f.src_world, c->ctx_pt2pt, f.kind, f.payload);
}

ftmpi_comm_s* FtManager::span(ftmpi_comm_s* inter) {
  auto it = spans_.find(inter->ctx_pt2pt);
  if (it != spans_.end()) return &it->second->comm;
  const std::vector<int>& a = inter->group->world_ranks;
  const std::vector<int>& b = inter->remote_group->world_ranks;
  const bool local_first = !a.empty() && (b.empty() || *std::min_element(a.begin(), a.end()) < *std::min_element(b.begin(), b.end()));
  std::vector<int> world = local_first ? a : b;
  const std::vector<int>& second = local_first ? b : a;
  world.insert(world.end(), second.begin(), second.end());
  auto z = std::make_unique<Zombie>();
  z->comm.group = comm::make_group(std::move(world), rt_.world_rank());
  z->comm.rank = z->comm.group->my_rank;
  z->comm.size = z->comm.group->size();
  z->comm.ctx_pt2pt = inter->ctx_pt2pt;
  z->comm.ctx_coll = inter->ctx_coll;
  z->comm.magic = kMagicComm;  // never an application handle
  state(&z->comm);
  ftmpi_comm_s* out = &z->comm;
  spans_[inter->ctx_pt2pt] = std::move(z);
  return out;
}

void FtManager::unregister_comm(ftmpi_comm_s* c) {
  start_deferred_veto(c);  // before the retire notices and the zombie (defer_veto)
  rt_.engine().forget_given_up(c->ctx_coll);
  if (!c->is_inter()) {
    if (c->revoked.load()) revoked_retired_.insert(c->ctx_pt2pt);  // (handle_channel_notice)
    // Its create_group channels live on until a new communicator takes the context id (register_comm), as
    // a zombie: their frames say so (kFromFreed), and they take any frame.
    for (auto it = channels_.lower_bound(ChannelKey{c->ctx_pt2pt, INT32_MIN, {}, {}});
         it != channels_.end() && it->first.parent_ctx == c->ctx_pt2pt; ++it)
      it->second->comm.magic = kMagicFreed;
  }
  if (c->ft && c->ft->revoke) {  // the broadcast's rule D: flood before the retire notices (ft/revoke.h)
    c->ft->revoke->retire();
    flush_revoke(c);
  }
  auto it = by_ctx_.find(c->ctx_pt2pt);
  if (it != by_ctx_.end() && it->second == c) by_ctx_.erase(it);
  if (c->is_inter()) {
    // The span's agreements may still be needed by a survivor still deciding (see zombies_): keep it.
    auto s = spans_.find(c->ctx_pt2pt);
    if (s == spans_.end()) return;
    std::unique_ptr<Zombie> z = std::move(s->second);
    spans_.erase(s);
    if (z->comm.ft != nullptr && z->comm.ft->quick_live) promote_quick(*z->comm.ft);
    if (z->comm.ft == nullptr || z->comm.ft->agreements.empty()) return;
    z->comm.magic = kMagicFreed;
    zombies_[c->ctx_pt2pt] = std::move(z);
    return;
  }
  if (c->ft != nullptr && c->ft->quick_live) promote_quick(*c->ft);
  if (c->ft == nullptr || c->ft->agreements.empty() || c->is_inter() || c->group == nullptr) return;
  auto z = std::make_unique<Zombie>();
  z->comm.group = comm::make_group(c->group->world_ranks, rt_.world_rank());
  z->comm.rank = c->rank;
  z->comm.size = c->size;
  z->comm.ctx_pt2pt = c->ctx_pt2pt;
  z->comm.ctx_coll = c->ctx_coll;
  z->comm.ft = c->ft;  // the zombie takes the FT state over (comm::retire deletes c->ft otherwise)
  c->ft = nullptr;
  // Instances still in their board phase read the shared-memory area: the zombie keeps it mapped.
  bool on_board = false;
  for (BoardWatch& w : board_watch_)
    if (w.c == c) {
      w.c = &z->comm;
      on_board = true;
    }
  if (on_board) {
    z->comm.shm_area = c->shm_area;
    z->comm.shm_state = c->shm_state;
    c->shm_area = nullptr;
    c->shm_state = 0;
  }
  z->comm.magic = kMagicFreed;  // never an application handle
  zombies_[c->ctx_pt2pt] = std::move(z);
}

// --- revoke (seed 000 §1.3.1) -------------------------------------------------------------------------

int FtManager::revoke_member_index(const ftmpi_comm_s* c, int world) {
  const int r = c->group->rank_of_world(world);
  if (r >= 0 || !c->is_inter()) return r;
  const int rr = c->remote_group->rank_of_world(world);
  return rr < 0 ? -1 : c->size + rr;
}

void FtManager::revoke(ftmpi_comm_s* c, int from, int origin, int radix) {
  // 1. mark (the broadcast's state machine decides whom to forward to; ft/revoke.h)
  CommFt& s = state(c);
  if (!s.revoke) {
    const int members = c->size + (c->is_inter() ? c->remote_group->size() : 0);
    s.revoke = std::make_unique<RevokeBroadcast>(c->rank, members, revoke_radix_);
    for (int m : failed_members(c, true)) s.revoke->on_failure(m);
    for (int m : s.retired_members) s.revoke->on_retired(m);
  }
  if (from < 0)
    s.revoke->start();
  else
    s.revoke->on_message(from, origin, radix);
  // 4 first: forward down the tree before the local work below, so that the next hop's ranks (asleep in
  // their waits, each needing a wake-up and a core) start as early as possible.
  flush_revoke(c);
  if (!c->revoked.exchange(true)) {
    failures_.bump();
    if (FailureObserver* o = failures_.observer()) {  // the event hub (src/models/events/)
      int revoker = rt_.world_rank();
      if (from >= 0) revoker = member_world(c, from);
      o->on_comm_revoked(c, revoker);
    }  // operation starts check the epoch first: now they look at the revoked flag too
    // 2. purge pending matching on both contexts, 3. wake waiters (their requests complete now)
    const Status why(Errc::revoked, "the communicator has been revoked");
    rt_.engine().purge_contexts(c->ctx_pt2pt, c->ctx_coll, why);
    if (ftmpi_comm_s* hidden = c->local_comm; hidden != nullptr && !hidden->revoked.exchange(true)) {
      // Every local member gets the intercommunicator's revoke, so no broadcast of its own is needed.
      rt_.engine().purge_contexts(hidden->ctx_pt2pt, hidden->ctx_coll, why);
      veto_creation(hidden, state(hidden).creation.on_revoke());
    }
    // The creation rule (ft/creation_keys.h): veto the creation round this process would start next (an
    // intercommunicator's constructors agree on its span).
    if (c->is_inter())
      veto_creation(c, s.creation.on_revoke());
    else
      defer_veto(c, s.creation.on_revoke());  // off the revoke's critical path (defer_veto)
    if (!c->is_inter()) {
      // The same rule on the channels of MPI_Comm_create_group calls on c (ft/channel_key.h); compacted ones
      // veto when they are made live again (make_channel), and so do those other members asked about.
      for (auto it = channels_.lower_bound(ChannelKey{c->ctx_pt2pt, INT32_MIN, {}, {}});
           it != channels_.end() && it->first.parent_ctx == c->ctx_pt2pt; ++it)
        revoke_channel(*it->second);
      if (auto n = channel_notices_.find(c->ctx_pt2pt); n != channel_notices_.end()) {
        std::set<ChannelKey> keys = std::move(n->second);
        channel_notices_.erase(n);
        for (const ChannelKey& k : keys) channel(k);
      }
    }
    if (c->is_inter() && c->magic == kMagicComm) {
      ftmpi_comm_s* sp = span(c);
      veto_creation(sp, state(sp).creation.on_revoke());
    }
  }
  // 4. reliable broadcast (ft/revoke.h): down the revoker's tree, and a flood whenever a failure could have
  //    cut it — sent above, before the purge (nothing the purge does changes what is sent).
}

void FtManager::flush_revoke(ftmpi_comm_s* c) {
  if (!c->ft || !c->ft->revoke) return;
  std::vector<RevokeOut> out = c->ft->revoke->take_outgoing();
  if (out.empty()) return;
  // The frame carries the failures this process knows of, so a process interrupted by the revoke knows at
  // least as much as the revoker (MPIX_Comm_get_failed after MPI_ERR_REVOKED names the culprit even if the
  // launcher's notice is still on its way), and routes the tree around them.
  std::vector<std::byte> frame(2 * sizeof(std::int32_t));
  for (const FailureRecord& rec : failures_.records()) {
    const auto* p = reinterpret_cast<const std::byte*>(&rec.world_rank);
    frame.insert(frame.end(), p, p + sizeof(std::int32_t));
  }
  for (const RevokeOut& o : out) {
    const std::int32_t head[2] = {o.origin, o.radix};
    std::memcpy(frame.data(), head, sizeof head);
    rt_.engine().send_ft_frame(member_world(c, o.dest), c->ctx_pt2pt, kRevoke, frame);
  }
}

void FtManager::on_retire_notice(int world, std::uint32_t context) {
  auto it = by_ctx_.find(context);
  if (it == by_ctx_.end()) {  // for the next communicator on the slot (its member was faster)
    auto& v = early_retired_[context];
    if (v.size() < 4096 && early_retired_.size() < 4096) v.push_back(world);
    return;
  }
  ftmpi_comm_s* c = it->second;
  const int m = revoke_member_index(c, world);
  if (m < 0) return;
  CommFt& s = state(c);
  s.retired_members.push_back(m);
  if (s.revoke) {
    s.revoke->on_retired(m);
    flush_revoke(c);
  }
}

void FtManager::learn_failures(std::span<const std::byte> payload) {
  for (std::size_t off = 0; off + sizeof(std::int32_t) <= payload.size(); off += sizeof(std::int32_t)) {
    std::int32_t w;
    std::memcpy(&w, payload.data() + off, sizeof w);
    if (w >= 0 && w < failures_.capacity() && w != rt_.world_rank())
      failures_.mark_failed(FailureRecord{w, Cause::reported, 0, 0.0});
  }
}

// --- failure knowledge --------------------------------------------------------------------------------

std::vector<int> FtManager::failed_members(const ftmpi_comm_s* c, bool both_groups) const {
  std::vector<int> out;
  if (failures_.epoch() == 0) return out;
  for (const FailureRecord& rec : failures_.records()) {
    int r = both_groups ? revoke_member_index(c, rec.world_rank) : c->group->rank_of_world(rec.world_rank);
    if (r >= 0) out.push_back(r);
  }
  return out;
}

int FtManager::member_world(const ftmpi_comm_s* c, int i) {
  return i < c->size ? c->world_rank(i) : c->remote_group->world_ranks[static_cast<std::size_t>(i - c->size)];
}

int FtManager::acknowledge(ftmpi_comm_s* c, int n) {
  CommFt& s = state(c);
  std::vector<int> failed = failed_members(c, true);
  std::size_t upto = n < 0 ? failed.size() : std::min(failed.size(), static_cast<std::size_t>(n));
  for (std::size_t i = 0; i < upto; ++i) {
    int w = member_world(c, failed[i]);
    if (std::find(s.acked.begin(), s.acked.end(), w) == s.acked.end()) s.acked.push_back(w);
  }
  return static_cast<int>(s.acked.size());
}

void FtManager::adopt_failed(const ftmpi_comm_s* c, const RankSet& failed) {
  for (int r : failed.ranks()) {
    if (r < 0 || r >= c->size) continue;
    const int w = c->world_rank(r);
    if (w != rt_.world_rank()) failures_.mark_failed(FailureRecord{w, Cause::reported, 0, 0.0});
  }
}

std::vector<int> FtManager::acked_members(const ftmpi_comm_s* c) const {
  std::vector<int> out;
  if (!c->ft) return out;
  for (int w : c->ft->acked) out.push_back(revoke_member_index(c, w));
  return out;
}

bool FtManager::comm_has_failure(const ftmpi_comm_s* comm) {
  std::uint64_t e = failures_.epoch();
  if (e == 0) return false;
  auto* c = const_cast<ftmpi_comm_s*>(comm);
  CommFt& s = state(c);
  if (s.cached_epoch != e) {
    s.cached_epoch = e;
    auto any_failed = [this](const ftmpi_group_s* g) {
      return g && std::any_of(g->world_ranks.begin(), g->world_ranks.end(),
                              [this](int w) { return failures_.failed(w); });
    };
    // An intercommunicator's members are both groups (its collectives depend on the remote group too).
    s.cached_has_failure = any_failed(c->group) || any_failed(c->remote_group);
  }
  return s.cached_has_failure;
}

bool FtManager::any_source_blocked(const p2p::Request* r) {
  if (failures_.epoch() == 0 || r->complete || r->kind != p2p::ReqKind::recv || r->peer != -1) return false;
  if (!rt_.engine().is_unmatched_recv(r)) return false;
  ftmpi_comm_s* c = r->comm;
  const CommFt& s = state(c);
  for (int w : c->group->world_ranks)
    if (failures_.failed(w) && std::find(s.acked.begin(), s.acked.end(), w) == s.acked.end()) return true;
  return false;
}

// --- agreement ----------------------------------------------------------------------------------------

// Largest group whose agreements take the fast path without failures (ft/agreement.h: the recursive-doubling
// exchange of an Allreduce, log2(n) rounds, instead of the tree's 2·log2(n); at most log2(n)+1 messages per
// process). Issue 13's range is 2-16 ranks; beyond, the tree's 2 messages per process win.
constexpr int kFastAgreeMax = 16;

Agreement& FtManager::instance(ftmpi_comm_s* c, std::uint64_t id) {
  CommFt& s = state(c);
  auto it = s.agreements.lower_bound(id);
  if (it != s.agreements.end() && it->first == id) return *it->second;
  // The fast path (ft/agreement.h) for small groups; not for bridges, whose members greet each other along
  // the tree first (ft/bridge.h). Every member makes the same choice (same size, same kind).
  const bool fast = c->size <= kFastAgreeMax && s.bridge_key == nullptr;
  Agreement* a;
  if (!s.spare.empty()) {  // reuse a forgotten instance: no allocation
    auto node = std::move(s.spare.back());
    s.spare.pop_back();
    node.key() = id;
    a = node.mapped().get();
    a->reset(c->rank, c->size, fast);
    s.agreements.insert(it, std::move(node));
  } else {
    auto made = std::make_unique<Agreement>(c->rank, c->size, fast);
    a = made.get();
    s.agreements.emplace_hint(it, id, std::move(made));
  }
  feed_failures(c, *a);
  return *a;
}

void FtManager::forget(CommFt& s, std::map<std::uint64_t, std::unique_ptr<Agreement>>::iterator it) {
  constexpr std::size_t kSpareAgreements = 4;
  if (s.spare.size() < kSpareAgreements)
    s.spare.push_back(s.agreements.extract(it));
  else
    s.agreements.erase(it);
}

void FtManager::feed_failures(ftmpi_comm_s* c, Agreement& a) {
  if (failures_.epoch() == 0) return;
  for (int r : failed_members(c)) a.on_failure(r);
}

void FtManager::flush(ftmpi_comm_s* c, Agreement& a, std::uint64_t id) {
  greet(c, a, id);
  for (const Outgoing& o : a.outgoing()) {
    const std::uint32_t tag = c->ft->members_hash | (c->magic == kMagicFreed ? kFromFreed : 0u);  // zombie?
    encode_into(wire_, (std::uint64_t{tag} << 32) | (id & 0xffffffffu), o.msg);
    if (c->ft->channel_key != nullptr) append_key(wire_, *c->ft->channel_key);  // ft/channel_key.h
    if (c->ft->bridge_key != nullptr) append_bridge_key(wire_, *c->ft->bridge_key);  // ft/bridge_key.h
    rt_.engine().send_ft_frame(c->world_rank(o.dest), c->ctx_pt2pt, c->ft->bridge_key != nullptr ? kBridgeAgree : kAgree, wire_);
  }
  a.clear_outgoing();
}

const Agreement& FtManager::start_keyed_agreement(ftmpi_comm_s* c, std::uint32_t key, std::span<const std::uint64_t> contribution) {
  CommFt& s = state(c);
  const std::uint64_t id = kKeyedInstance | (key & (kKeyedInstance - 1));
  // Forget the oldest decided keyed instances beyond kAgreementsKept (same argument as start_agreement:
  // only instances some member has not decided yet can still be asked for, and a member keeps at most
  // that many outstanding); their late frames are then dropped (keyed_forgotten) instead of creating a
  // fresh instance nobody would start.
  while (s.keyed_started.size() >= kAgreementsKept) {
    const std::uint64_t old = s.keyed_started.front();
    auto it = s.agreements.find(old);
    if (it != s.agreements.end() && !it->second->decided()) break;
    if (it != s.agreements.end()) forget(s, it);
    s.keyed_started.pop_front();
    s.keyed_forgotten.insert(old);
    s.keyed_forgotten_order.push_back(old);
    if (s.keyed_forgotten_order.size() > 1024) {
      s.keyed_forgotten.erase(s.keyed_forgotten_order.front());
      s.keyed_forgotten_order.pop_front();
    }
  }
  s.keyed_forgotten.erase(id);  // reused after a long time (the caller's contract): a new instance
  s.keyed_started.push_back(id);
  Agreement& a = instance(c, id);
  a.start(contribution, failures_.epoch() == 0 ? RankSet() : RankSet(failed_members(c)));
  flush(c, a, id);
  return a;
}

// --- communicator creation (ft/creation_keys.h) ---------------------------------------------------------

void FtManager::creation_pin(ftmpi_comm_s* c, int delta) { state(c).creating += delta; }

const Agreement* FtManager::start_creation_round(ftmpi_comm_s* c, std::span<const std::uint64_t> contribution) {
  start_deferred_veto(c);  // a creation after the revoke: the veto goes first (defer_veto)
  auto key = state(c).creation.begin_round();
  if (!key) return nullptr;
  return &start_keyed_agreement(c, *key, contribution);
}

void FtManager::end_creation_round(ftmpi_comm_s* c, bool revoked) {
  veto_creation(c, state(c).creation.end_round(revoked));
}

void FtManager::veto_creation(ftmpi_comm_s* c, std::optional<std::uint32_t> key) {
  if (!key) return;
  const std::array<std::uint64_t, kCreationWords> veto{};  // every flag cleared: "revoked" (comm::agree_context)
  start_keyed_agreement(c, *key, veto);
}

namespace {
// The veto poller: a generic request the progress loop runs while vetoes are deferred (FtManager::defer_veto).
class VetoPoller final : public p2p::GenericOp {
 public:
  explicit VetoPoller(FtManager& m) : m_(m) {}
  bool progress() override { return m_.poll_deferred_vetoes(); }
  Status restart() override { return Status::Ok(); }

 private:
  FtManager& m_;
};

long long mono_now_ns() {
  timespec ts{};
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<long long>(ts.tv_sec) * 1000000000LL + ts.tv_nsec;
}
}  // namespace

void FtManager::defer_veto(ftmpi_comm_s* c, std::optional<std::uint32_t> key) {
  if (!key) return;
  CommFt& s = state(c);
  if (s.deferred_veto) {  // (on_revoke answers once: not reached)
    veto_creation(c, key);
    return;
  }
  s.deferred_veto = key;
  s.veto_due_ns = mono_now_ns() + kVetoDelayNs;
  deferred_vetoes_.push_back(c);
  if (veto_poller_ == nullptr) veto_poller_ = rt_.engine().generic_init(std::make_unique<VetoPoller>(*this));
  if (veto_poller_->complete) (void)rt_.engine().start(veto_poller_);
}

void FtManager::start_deferred_veto(ftmpi_comm_s* c) {
  if (c->ft == nullptr || !c->ft->deferred_veto) return;
  const std::uint32_t key = *c->ft->deferred_veto;
  c->ft->deferred_veto.reset();
  std::erase(deferred_vetoes_, c);
  veto_creation(c, key);
}

void FtManager::start_deferred_vetoes() {
  while (!deferred_vetoes_.empty()) start_deferred_veto(deferred_vetoes_.back());
}

bool FtManager::poll_deferred_vetoes() {
  if (deferred_vetoes_.empty()) return true;
  const long long now = mono_now_ns();
  for (std::size_t i = deferred_vetoes_.size(); i-- > 0;) {
    ftmpi_comm_s* c = deferred_vetoes_[i];
    if (c->ft == nullptr || !c->ft->deferred_veto)
      deferred_vetoes_.erase(deferred_vetoes_.begin() + static_cast<std::ptrdiff_t>(i));
    else if (now >= c->ft->veto_due_ns)
      start_deferred_veto(c);
  }
  return deferred_vetoes_.empty();
}

// --- the board (ft/agree_board.h, ft/shm_board.h) ------------------------------------------------------

namespace {
// FTMPI_AGREE_SHM=0 turns the board off (a job-wide setting: mpiexec gives every rank the same environment,
// and a member with the area that ignored the board would leave the others waiting for its entry).
bool board_enabled() {
  static const bool on = [] {
    const char* v = std::getenv("FTMPI_AGREE_SHM");
    return v == nullptr || std::strcmp(v, "0") != 0;
  }();
  return on;
}

// The board's kind (ft/agree_board.h "Two kinds"): counted when ranks outnumber cores (a wait policy
// without a spin phase), scanned otherwise; FTMPI_AGREE_COUNTED=0/1 forces it (measurements). The first
// member's choice is the board's (ShmBoard).
bool board_counted_by_env(int* forced) {
  const char* v = std::getenv("FTMPI_AGREE_COUNTED");
  if (v == nullptr || (*v != '0' && *v != '1')) return false;
  *forced = *v - '0';
  return true;
}

// The board poller: a persistent generic request the progress loop runs while instances are in their board
// phase (FtManager::board_watch_).
class BoardPoller final : public p2p::GenericOp {
 public:
  explicit BoardPoller(FtManager& m) : m_(m) {}
  bool progress() override { return m_.poll_boards(); }
  Status restart() override { return Status::Ok(); }

 private:
  FtManager& m_;
};
}  // namespace

bool FtManager::board_counted() {
  static int forced = -1;
  static const bool by_env = board_counted_by_env(&forced);
  if (by_env) return forced == 1;
  return rt_.progress().policy().spin_iterations == 0;
}

AgreeBoard* FtManager::board_for(ftmpi_comm_s* c, CommFt& s) {
  if (c->shm_state != 1 || c->shm_area == nullptr || !board_enabled()) [[unlikely]]
    return nullptr;
  if (!s.board || &s.board->area() != c->shm_area) [[unlikely]]
    s.board = std::make_unique<ShmBoard>(*c->shm_area, board_counted());
  return s.board.get();
}

void FtManager::watch_board(ftmpi_comm_s* c, std::uint64_t id, Agreement& a) {
  board_watch_.push_back(BoardWatch{c, id, &a});
  if (board_poller_ == nullptr) board_poller_ = rt_.engine().generic_init(std::make_unique<BoardPoller>(*this));
  if (board_poller_->complete) (void)rt_.engine().start(board_poller_);
}

bool FtManager::board_wake(void* self) {
  for (const BoardWatch& w : static_cast<FtManager*>(self)->board_watch_)
    if (w.a->board_ready()) return true;
  return false;
}

bool FtManager::poll_boards() {
  for (std::size_t i = 0; i < board_watch_.size();) {
    BoardWatch& w = board_watch_[i];
    w.a->on_board();
    if (w.a->on_board_phase()) {
      ++i;
      continue;
    }
    if (!w.a->decided_on_board()) flush(w.c, *w.a, w.id);  // a fallback's first messages (none after a board decision)
    board_watch_[i] = board_watch_.back();
    board_watch_.pop_back();
  }
  // A sleeping waiter re-checks the board before it sleeps (coll/shm_area.h "Waiting"); an area collective's
  // own wait replaces the check meanwhile, which costs at most one sleep's length here.
  transport::ShmTransport* t = nullptr;
  for (const BoardWatch& w : board_watch_)
    if (w.c->shm_area != nullptr) t = w.c->shm_area->transport();
  if (t != board_wake_on_ || t != nullptr) {
    if (board_wake_on_ != nullptr && board_wake_on_ != t) board_wake_on_->set_wake_check(nullptr, nullptr);
    if (t != nullptr) t->set_wake_check(&FtManager::board_wake, this);
    board_wake_on_ = t;
  }
  return board_watch_.empty();
}

const Agreement& FtManager::start_agreement(ftmpi_comm_s* c, std::span<const std::uint64_t> contribution, bool waits_decided,
                                            bool reads_at_once) {
  CommFt& s = c->ft != nullptr ? *c->ft : state(c);
  std::uint64_t id = s.next_instance++;
  // Forget old decided instances. An instance is only needed while some live member may still send it an
  // UP, i.e. while that member has not decided it; every later decision needs that member to have started the
  // later instance, so only as many instances as a process keeps outstanding (iagree) can be needed.
  while (!s.agreements.empty() && s.agreements.begin()->first + kAgreementsKept < id &&
         s.agreements.begin()->second->decided())
    forget(s, s.agreements.begin());
  const RankSet known = failures_.epoch() == 0 ? RankSet() : RankSet(failed_members(c));
  // (board_for's answer when the board is made already, without the call)
  AgreeBoard* b = s.board != nullptr && c->shm_state == 1 && &s.board->area() == c->shm_area ? s.board.get() : board_for(c, s);
  const bool go_fast = b != nullptr && waits_decided && c->shm_area->setup_ok();
  // The quick slot (CommFt::quick): a blocking agreement that may decide on the board, no failure known, and
  // nothing kept for this instance yet (a message of it arrived before the start: only from a member that fell
  // back, so it will not decide on the board here either). Ids grow, so a kept instance of `id` or later is
  // the map's last (keyed instances sort after every sequential one: then the map path, which is also right).
  if (s.quick_live) promote_quick(s);
  if (go_fast && reads_at_once && known.empty() && (s.agreements.empty() || s.agreements.rbegin()->first < id))
      [[likely]] {
    if (!s.quick) [[unlikely]]
      s.quick = std::make_unique<Agreement>(c->rank, c->size, c->size <= kFastAgreeMax && s.bridge_key == nullptr);
    Agreement& a = *s.quick;
    a.reset(c->rank, c->size, c->size <= kFastAgreeMax && s.bridge_key == nullptr);
    a.start(contribution, known, b, id, true);
    if (a.on_board_phase()) spin_on_board(a);  // (decided at once: the last to arrive)
    if (a.decided_on_board()) return a;  // nothing to send, nothing to keep (ft/agree_board.h)
    // Still in its board phase: it stays here (quick_live) until a message or a notice for it comes (then it
    // moves into the map: handle_agree, on_failures) or it decides on the board. Fallen back already: an
    // ordinary instance from now on.
    s.quick_id = id;
    s.quick_live = true;
    if (!a.on_board_phase()) promote_quick(s);
    if (a.on_board_phase()) watch_board(c, id, a);
    flush(c, a, id);
    return a;
  }
  Agreement& a = instance(c, id);
  if (b != nullptr) {
    a.start(contribution, known, b, id, go_fast);
    if (waits_decided) spin_on_board(a);
    if (a.on_board_phase()) watch_board(c, id, a);
  } else {
    a.start(contribution, known);
  }
  flush(c, a, id);
  return a;
}

void FtManager::promote_quick(CommFt& s) {
  s.quick_live = false;
  if (s.quick->decided_on_board()) return;  // nothing to send, nothing to keep
  // Its object moves into the map (callers and board_watch_ keep its address); a spare object, if any,
  // becomes the next quick one.
  auto it = s.agreements.lower_bound(s.quick_id);
  if (!s.spare.empty()) {
    auto node = std::move(s.spare.back());
    s.spare.pop_back();
    node.key() = s.quick_id;
    std::swap(node.mapped(), s.quick);
    s.agreements.insert(it, std::move(node));
  } else {
    s.agreements.emplace_hint(it, s.quick_id, std::move(s.quick));
  }
}

void FtManager::spin_on_board(Agreement& a) {
  // The caller is about to wait: the others' entries are usually a cache miss away — when they run. Not in
  // an oversubscribed job (more ranks than cores: a wait policy without a spin phase): there the members we
  // wait for are usually not running, and 256 pauses (plus a scan of n states each) only delay them.
  // Measured 4 and 8 ranks on 2 cores: the agreement went from ~2x an 8-byte Allreduce to ~1x
  // (docs/performance.md, 2026-11-26 21:40 UTC). Kept while other programs take the core (contended): there
  // the wait that follows sleeps after a few passes, and a sleeper's wake-up costs far more than the spin
  // (without it, 2 ranks under load had medians of 3-160 µs instead of ~1 µs).
  const int spins = rt_.progress().policy().spin_iterations > 0 ? 256 : 0;
  for (int spin = 0; spin < spins && a.on_board_phase(); ++spin) {
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#endif
    if (a.board_ready()) a.on_board();
  }
}

void FtManager::handle_agree(ftmpi_comm_s* c, int src_world, std::span<const std::byte> payload) {
  std::uint64_t id;
  AgreeMsg& m = rx_;  // reused (decode keeps its buffers' capacity)
  int src = c->group->rank_of_world(src_world);
  // A channel's frame (its key trailer: no frame of a communicator ends like one, ft/channel_key.h), or on
  // MPI_COMM_WORLD one of another members hash (a bridge's).
  if (state(c).channel_key == nullptr &&
      (has_key_trailer(payload) ||
       (c->predefined && c->ctx_pt2pt == comm::kCtxWorld && peek_hash(payload) != c->ft->members_hash))) {
    if (from_freed(payload) && c->magic != kMagicFreed) {
      // Sent by the channel of a parent the sender freed (its veto after the free, or answers): about `c` only
      // if the sender retired `c` itself — its retire notice came first (frames are in order) and was
      // counted for `c` (p2p/stale_filter.h). Otherwise it is about an older communicator on the slot,
      // retired here already, whose channels are gone: a channel of `c` with the same key must not take it.
      const int m = revoke_member_index(c, src_world);
      const auto& gone = c->ft->retired_members;
      if (m < 0 || std::find(gone.begin(), gone.end(), m) == gone.end()) return;
    }
    handle_channel_frame(src_world, payload, c->magic == kMagicFreed);
    return;
  }
  if (src < 0 || !decode(payload, &id, &m, c->size) ||
      (static_cast<std::uint32_t>(id >> 32) & ~kFromFreed) != state(c).members_hash) {
    // Most likely a late frame of a freed communicator whose context id now belongs to this one.
    log::debug("dropping agreement message from rank %d that does not belong to this communicator", src_world);
    return;
  }
  const bool sender_freed = (id >> 32) & kFromFreed;
  id &= 0xffffffffu;
  // A zombie's answer (its sender freed the communicator after deciding): only for an instance still deciding
  // here. Not so on a channel: a freed parent's channel still *starts* instances (its veto, ft/creation_keys.h),
  // and its frames reached this channel only with its exact key, after the parent check above (the sender
  // retired this very parent); a veto UP that comes before this member starts the round must be kept (it was
  // dropped, and the round never decided here: ft_group_revoke skip_free, docs/fault-tolerance.md).
  if (sender_freed && c->magic != kMagicFreed && c->ft->channel_key == nullptr) {
    auto a = c->ft->agreements.find(id);
    if (a == c->ft->agreements.end() || a->second->decided()) return;
  }
  if (id & kKeyedInstance) {
    if (c->ft->keyed_forgotten.count(id)) return;  // long forgotten
    if ((c->ft->channel_key != nullptr || c->ft->bridge_key != nullptr) && (id & CreationKeys::kBit)) {
      // A channel's or bridge's creation round before the one before this member's: decided by every member (a
      // restored channel has forgotten it; ft/creation_keys.h; a bridge's rounds after the first have no
      // refuser, ft/bridge.h, so each was decided fresh).
      const std::uint32_t behind = (c->ft->creation.round() - static_cast<std::uint32_t>(id)) & (CreationKeys::kBit - 1);
      if (behind >= 2 && behind < CreationKeys::kBit / 2) return;
    }
  } else {
    if (id > c->ft->next_instance + kAgreementsKept) {
      log::warn("dropping agreement message for implausible instance %llu", static_cast<unsigned long long>(id));
      return;
    }
    if (id + kAgreementsKept < c->ft->next_instance && !c->ft->agreements.count(id)) return;  // long forgotten
  }
  if (c->ft->quick_live && id == c->ft->quick_id) promote_quick(*c->ft);
  // A member runs the round this process owes a veto for (defer_veto): veto first, then take its frame.
  if (c->ft->deferred_veto && id == (kKeyedInstance | (*c->ft->deferred_veto & (kKeyedInstance - 1))))
    start_deferred_veto(c);
  Agreement& a = instance(c, id);
  a.on_message(src, m);
  flush(c, a, id);
}

// --- FtHandler ----------------------------------------------------------------------------------------

void FtManager::on_stale_ft_frame(int src_world, std::uint32_t context, int kind, std::span<const std::byte> payload) {
  // The sender has not retired the communicator that this process retired on `context`'s slot: the frame is
  // that communicator's. Only its agreement may still need an answer (a survivor still deciding: see
  // zombies_); anything else of it is dropped (p2p/stale_filter.h).
  if (kind == kChannelRevoke) {  // (a parent revoked, then freed here: its channels still veto)
    handle_channel_notice(payload, true);
    return;
  }
  if (kind != kAgree) return;
  // A zombie's frame that is stale here is for a communicator whose zombie this process dropped already
  // (ft/frame_route.h), not for the one retired here last.
  if (from_freed(payload) && route_freed_frame(true, false, false, true) == FreedFrameRoute::drop) return;
  if (auto z = zombies_.find(context); z != zombies_.end())
    handle_agree(&z->second->comm, src_world, payload);
  else if (has_key_trailer(payload))
    handle_channel_frame(src_world, payload, true);  // a channel of the freed parent (ft/channel_key.h)
}

void FtManager::on_ft_frame(int src_world, std::uint32_t context, int kind, std::span<const std::byte> payload) {
  if (kind == kCollGiveUp) {  // the engine's own (p2p/engine.h), addressed by collective context
    std::int32_t w[2];
    if (payload.size() < sizeof w || payload.size() % sizeof(std::int32_t) != 0) {
      log::warn("dropping malformed collective notice from rank %d", src_world);
      return;
    }
    std::memcpy(w, payload.data(), sizeof w);
    // The failures the sender knew (engine.cpp, give_up_coll): known here before the collective fails.
    learn_failures(payload.subspan(sizeof w));
    rt_.engine().on_coll_given_up(src_world, context, w[0], w[1] != 0);
    return;
  }
  // Frames of a communicator retired here come through on_stale_ft_frame (p2p/stale_filter.h): this one
  // is for the communicator on `context` now, or for a future one (a fast peer that reused the id).
  auto it = by_ctx_.find(context);
  if (kind == kAgree && from_freed(payload)) {  // a zombie's: which communicator it is for (ft/frame_route.h)
    auto notices = early_retired_.find(context);
    const bool sender_retired_next = notices != early_retired_.end() &&
                                     std::find(notices->second.begin(), notices->second.end(), src_world) != notices->second.end();
    auto z = zombies_.find(context);
    switch (route_freed_frame(false, it != by_ctx_.end(), sender_retired_next, z != zombies_.end())) {
      case FreedFrameRoute::current:
        handle_agree(it->second->is_inter() ? span(it->second) : it->second, src_world, payload);
        return;
      case FreedFrameRoute::zombie:
        handle_agree(&z->second->comm, src_world, payload);
        return;
      case FreedFrameRoute::next:
        break;  // kept below, replayed after the notice when the communicator is registered
      case FreedFrameRoute::drop:
        return;
    }
  }
  if (it == by_ctx_.end()) {
    // The communicator does not exist here yet (a fast peer created and revoked it): keep the frame.
    if (early_[context].size() < 4096) early_[context].push_back(Early{src_world, kind, {payload.begin(), payload.end()}});
    return;
  }
  ftmpi_comm_s* c = it->second;
  switch (kind) {
    case kRevoke: {  // [i32 origin][i32 radix][i32 failed world ranks...] (flush_revoke)
      std::int32_t head[2] = {0, 0};
      const int from = revoke_member_index(c, src_world);
      if (payload.size() < sizeof head || payload.size() % sizeof head[0] != 0 || from < 0) {
        log::warn("dropping malformed revoke frame from rank %d", src_world);
        return;
      }
      std::memcpy(head, payload.data(), sizeof head);
      const int origin = head[0], radix = head[1];
      const int members = c->size + (c->is_inter() ? c->remote_group->size() : 0);
      if (origin != RevokeOut::kFlood && (origin < 0 || origin >= members || radix < 2)) {
        log::warn("dropping revoke frame with a bad origin %d or radix %d from rank %d", origin, radix, src_world);
        return;
      }
      learn_failures(payload.subspan(sizeof head));
      revoke(c, from, origin, radix);
      return;
    }
    case kAgree:
      handle_agree(c->is_inter() ? span(c) : c, src_world, payload);
      return;
    case kBridgeHello:
    case kBridgeAgree:
      handle_bridge_frame(src_world, payload, kind == kBridgeHello);
      return;
    case kChannelRevoke:
      handle_channel_notice(payload, false);
      return;
    case kUserEvent: {  // MPIX_Event_publish: an i32 code
      std::int32_t code = 0;
      if (payload.size() != sizeof code) break;
      std::memcpy(&code, payload.data(), sizeof code);
      if (FailureObserver* o = failures_.observer()) o->on_user_event(c, src_world, code);
      return;
    }
    default:
      log::warn("dropping FT frame of unknown kind %d from rank %d", kind, src_world);
  }
}

void FtManager::on_failures() {
  // The epoch also moves on a revoke (FailureState::bump): then the set of failures is what it was at the last
  // call and there is nothing to feed. Skipping saves each process of a revoked communicator a walk over every
  // communicator's agreement instances (up to 64 kept on each, ~10k instructions at 16 ranks) between the
  // revoke frame and its return with MPI_ERR_REVOKED (docs/performance.md, 2026-11-27 revoke13e).
  const std::uint64_t version = failures_.set_version();
  if (version == fed_set_version_) return;
  fed_set_version_ = version;
  if (ft_mode_ && !service_) {
    // No ftmpi daemon kills a suspect: a failed peer may still run (hung, cut off). Close its connections so
    // that it cannot go on as a member (ft/peer_watch.h; same-host suspects are killed by the detector).
    std::vector<FailureRecord> recs = failures_.records();
    for (; fenced_upto_ < recs.size(); ++fenced_upto_) rt_.router().fence(recs[fenced_upto_].world_rank);
  }
  auto feed = [this](ftmpi_comm_s* c) {
    if (!c->ft) return;
    if (c->ft->revoke) {  // the broadcast's rule C: a failure learnt while revoked floods
      for (int m : failed_members(c, true)) c->ft->revoke->on_failure(m);
      flush_revoke(c);
    }
    if (c->ft->quick_live) promote_quick(*c->ft);  // (a board phase must freeze: ft/agree_board.h 5)
    for (auto& [id, a] : c->ft->agreements) {
      // Decided instances keep running too: they answer late UPs and spread the decision in new trees.
      feed_failures(c, *a);
      flush(c, *a, id);
    }
  };
  for (auto& [ctx, c] : by_ctx_) feed(c);
  for (auto& [ctx, z] : zombies_) feed(&z->comm);
  for (auto& [ctx, z] : spans_) feed(&z->comm);
  for (auto& [k, ch] : channels_) feed(&ch->comm);
  for (auto& [h, ch] : bridges_) feed(&ch->comm);
}

void FtManager::on_peer_lost(int world) {
  if (dpm::slot_of(world) != dpm::slot_of(rt_.world_rank())) {
    // A process of another mpiexec job (connected through a name service, src/dpm/): our launcher knows
    // nothing of it, and the connection's end is all we learn. FT mode: it failed (as without an ftmpi
    // launcher, below). Otherwise its failure is this job's too: a connected job that died is an error
    // that ends this one, as a rank's failure does (never a hang on it).
    if (!ft_mode_) {
      log::error("process %d lost its connection to process %d of another job: ending this job", rt_.world_rank(), world);
      rt_.boot().abort(MPI_ERR_PROC_FAILED, "a process of a connected job failed");
      return;
    }
    timespec ts{};
    clock_gettime(CLOCK_REALTIME, &ts);
    if (failures_.mark_failed({world, Cause::disappeared, 0,
                               static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) * 1e-9})) {
      log::warn("rank %d lost its connection to process %d of another job: counted as failed", rt_.world_rank(), world);
      // Our launcher tells the rest of this job (those that share a communicator with it may never have
      // dialed it: src/dpm/failure_board.h); it knows the id is not one of its own.
      if (service_) service_->report_suspect(world);
    }
    return;
  }
  if (service_) {
    service_->report_suspect(world);  // ftmpi's launcher kills it and announces it to everybody
    return;
  }
  if (!ft_mode_) return;
  // No ftmpi launcher (FT mode under Hydra or srun): nobody else will announce it. A lost connection (the
  // kernel closes a killed process's sockets; a shared-memory peer's process is gone) is a failure of that
  // peer, recorded here; the others that talk to it see the same, and agreement spreads what they know.
  timespec ts{};
  clock_gettime(CLOCK_REALTIME, &ts);
  double now = static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) * 1e-9;
  if (failures_.mark_failed({world, Cause::disappeared, 0, now}))
    log::warn("rank %d lost its connection to rank %d: counted as failed (no ftmpi launcher to ask)",
              rt_.world_rank(), world);
}

}  // namespace ftmpi::ft
