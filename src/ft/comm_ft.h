// Per-communicator fault-tolerance state (owned by FtManager, reached through ftmpi_comm_s::ft).
#pragma once
#include <cstdint>
#include <deque>
#include <map>
#include <optional>
#include <set>
#include <memory>
#include <vector>

#include "ft/agreement.h"
#include "ft/bridge_key.h"
#include "ft/channel_key.h"
#include "ft/creation_keys.h"
#include "ft/revoke.h"
#include "ft/shm_board.h"

namespace ftmpi::ft {

struct CommFt {
  std::vector<int> acked;           // world ranks acknowledged by failure_ack/ack_failed, in order
  std::uint64_t next_instance = 0;
  // Hash of the members (world ranks), carried in the high half of every agreement frame's instance field:
  // a late frame of a freed communicator whose context id was reused by one with other members is dropped
  // instead of being taken for an instance of the new one (FtManager::handle_agree).
  std::uint32_t members_hash = 0;  // agreement instances started here (agree, shrink) — same order everywhere
  std::map<std::uint64_t, std::unique_ptr<Agreement>> agreements;
  // Forgotten instances kept for reuse (map node and Agreement, reset() on reuse): a fault-free agreement
  // allocates nothing (FtManager::instance/forget).
  std::vector<std::map<std::uint64_t, std::unique_ptr<Agreement>>::node_type> spare;
  // The instance of a blocking agreement that may decide on the board (FtManager::start_agreement,
  // `reads_at_once`): not in `agreements` while it is in its board phase or decided there (no member sends
  // or accepts a message of such an instance: ft/agree_board.h); moved there (FtManager::promote_quick) by
  // the first thing that needs it in the map — a message or a failure notice for it, the next start, the
  // communicator's retirement — unless it decided on the board. Reused by the next such start.
  std::unique_ptr<Agreement> quick;
  std::uint64_t quick_id = 0;  // its instance id, while quick_live
  bool quick_live = false;     // `quick` holds instance quick_id, not in `agreements`
  // Keyed instances (FtManager::start_keyed_agreement; ids with kKeyedInstance set): the started ones in
  // start order, and the ids forgotten since (their late frames are dropped, not taken for new instances).
  std::deque<std::uint64_t> keyed_started;
  std::deque<std::uint64_t> keyed_forgotten_order;
  std::set<std::uint64_t> keyed_forgotten;
  // Communicator creations agreeing on this object (comm::agree_context): their rounds' instance keys and the
  // revoke rule (ft/creation_keys.h); `creating`: creations in progress here (a channel is not dropped then).
  CreationKeys creation;
  int creating = 0;
  // The veto a revoke owes (creation.on_revoke()'s key), not started yet: FtManager::defer_veto.
  std::optional<std::uint32_t> deferred_veto;
  long long veto_due_ns = 0;  // CLOCK_MONOTONIC: started by then at the latest
  // An agreement channel's holders beyond a call (FtManager::hold_channel, ChannelHold): FA-MPI operations
  // that keep the channel's pointer and an instance of it until they are released. Not compacted while > 0.
  int held = 0;
  // Bridges (ft/bridge.h, FtManager::bridge): the bridge's key, appended to every frame it sends (nullptr for
  // any other communicator or channel), and the members greeted with a HELLO so far.
  const BridgeKey* bridge_key = nullptr;
  std::set<int> greeted;
  // An agreement channel's key (FtManager::channel, ft/channel_key.h): appended to every frame it sends.
  const ChannelKey* channel_key = nullptr;
  // This process's part in the revoke broadcast (ft/revoke.h), created by the first revoke seen here.
  std::unique_ptr<RevokeBroadcast> revoke;
  std::vector<int> retired_members;  // members (revoke_member_index) whose retire notice came (rule E)
  // The agreement board over the communicator's shared-memory area (ft/shm_board.h), made by the first
  // agreement that finds the area set up (FtManager::board_for).
  std::unique_ptr<ShmBoard> board;
  // Cache for comm_has_failure(): valid while the failure epoch is `cached_epoch`.
  std::uint64_t cached_epoch = ~std::uint64_t{0};
  bool cached_has_failure = false;
};

}  // namespace ftmpi::ft
