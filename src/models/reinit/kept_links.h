// Reinit: survivors keep their links across a rollback (issue 9 item 4) — the rules, as pure functions.
// The runtime applies them (Runtime::enter_epoch, Router::create_links/adopt_links, the engine's epoch
// stamp); the simulator (tests/sim/reinit_sim_test.cpp) runs them against the epoch change
// (epoch_change.h) with kills at every step and checks the properties below.
//
// Model. As in epoch_change.h: a coordinator that never fails, ranks that crash at any moment and are
// restarted with the same rank number, numbered epochs. Between two ranks there are FIFO links (a
// shared-memory ring each way, or one TCP connection) that live as long as both processes do. A link
// can hold frames of any age: frames are not lost, reordered or duplicated, but nobody promises that
// the receiver reads them before a rollback.
//
// Algorithm.
//  * Every frame carries its sender's epoch (p2p::Envelope::epoch, stamped by the engine of that epoch).
//  * A rank's engine of epoch E delivers a frame only if its stamp is E; any other is dropped on
//    receipt (deliverable()).
//  * Changing to E' (epoch_change.h: notice, fence 1, fence 2, commit), a rank decides per peer
//    (link_fate()): a survivor — a process that has committed an epoch — keeps its links to the other
//    survivors and builds new ones with the ranks whose processes are new in E' (the coordinator's
//    `failed` list: ranks failed since the last commit, the same list for every member of E'); a new
//    process builds links with everybody. The link set-up (segment names, TCP cards) is published under
//    E'-prefixed keys between fence 1 and fence 2 as before, but only for those pairs. The old links to
//    a replaced rank are forgotten without a failure report (the dead process's frames are never read).
//  * The old engine (its requests, its backlog, its unexpected messages) is dropped at the start of the
//    change: nothing of the old epoch is sent after it; what the old epoch left in kept links is
//    dropped by the new engine's stamp check when it is read.
// Safety. (1) Nothing of an old epoch is delivered or completed after the rollback: a frame delivered
// by an engine of epoch E carries stamp E, so it was sent by an engine of E, i.e. after its sender
// committed E; the old epoch's requests belong to dropped engines that nobody polls. A rendezvous of
// the old epoch cannot complete either: its RTS / CTS / data / FIN frames are old-stamped, and a
// single-copy read (CMA) is only started on an RTS delivered to the current engine.
// (2) No frame of the current epoch is dropped: a frame with a stamp E'' newer than the receiver's
// engine (epoch E < E'') would be lost; but its sender committed E'' only after every member entered
// fence 2 of E'', after having dropped its engine of E — so no engine of E reads anything once an E''
// frame exists. (A frame stamped with an epoch the receiver never committed — superseded during its
// change — is older than the receiver's next epoch and rightly dropped.)
// (3) Both ends agree on which links are kept: a process is new in E' (builds everything) exactly when
// the coordinator lists it as failed since the last commit, which is what every survivor uses.
// Cost. Per rollback, per survivor: one new shared-memory segment (mapped by the new processes only)
// and one listening socket, the links with the k replaced ranks (k maps / k TCP handshakes instead of
// n-1), no teardown. The new process: links with everybody, as at start-up. Per frame: a 4-byte stamp
// (in the existing envelope) and one comparison on receipt. Kept links carry the old epoch's leftovers
// until they are read and dropped (bounded by the ring size / socket buffers).
#pragma once
#include <algorithm>
#include <cstdint>
#include <vector>

namespace ftmpi::reinit {

// What a rank building an epoch does with its link to a peer.
enum class LinkFate : std::uint8_t {
  keep,     // both processes lived through the last commit: the link stays, old frames are dropped by stamp
  rebuild,  // this rank survives, the peer's process is new: forget the old link, build a new one
  build,    // this process is new (restarted or an adopted spare): every link is new
};

// `survivor`: this process has committed an epoch (it has links). `peer_replaced`: the peer is in the
// coordinator's failed list for the epoch being built.
constexpr LinkFate link_fate(bool survivor, bool peer_replaced) {
  if (!survivor) return LinkFate::build;
  return peer_replaced ? LinkFate::rebuild : LinkFate::keep;
}

inline LinkFate link_fate(bool survivor, const std::vector<int>& replaced, int peer) {
  return link_fate(survivor, std::find(replaced.begin(), replaced.end(), peer) != replaced.end());
}

// A process counts as a survivor for the epoch being built when it has links (it resumed in some epoch,
// `has_links`) and the coordinator does not list it as failed since its last commit (`me` not in
// `replaced`). Since ranks resume as soon as fence 1 of an epoch is released (epoch_change.h), a process
// restarted in epoch E may have links of E while the coordinator never committed E (a failure came before
// fence 2 of E was released): the next failed list still names it, every peer rebuilds its link with it,
// and so it must build every link anew too.
inline bool survivor_for(bool has_links, const std::vector<int>& replaced, int me) {
  return has_links && std::find(replaced.begin(), replaced.end(), me) == replaced.end();
}

// The engine of epoch `mine` delivers a frame stamped `stamp` only when they are equal.
constexpr bool deliverable(std::uint32_t stamp, std::uint32_t mine) { return stamp == mine; }

}  // namespace ftmpi::reinit
