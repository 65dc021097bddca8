// Bridge agreements: a fault-tolerant agreement over the union of two groups that learn of each other only
// through one process each (MPI_Intercomm_create: the two leaders), uniform even when a leader dies while
// the groups learn of each other. Pure parts here (shared by the library, ft/ft_manager.cpp and
// comm/intercomm_create_ft.cpp, and the simulator, tests/sim/bridge_sim_test.cpp).
//
// Model: as ft/agreement.h (fail-stop, perfect failure detector, reliable channels between live processes).
// Each member of A (resp. B) knows A (B) and A's *side name* computed from A alone (ft/bridge_key.h: its local
// communicator, how many bridges A made over it before, its sorted world ranks). Some members also learn the
// other group and its side name ("knowers": the leader's broadcast reached them, ok): they name the bridge
// exactly (BridgeKey: both sides). The others ("refusers": the leader or its exchange failed, or the broadcast
// did not reach them) cannot even name the other group, only their own side.
//
// Protocol (one bridge = one MPI_Intercomm_create):
//  * A knower runs an ordinary agreement (ft/agreement.h) over the union, members numbered by sorted world
//    rank; every frame carries the bridge's key (a refuser of S finds its side S in it). Whenever its
//    tree in the current view changes it sends a HELLO (carrying the key) to its parent and to
//    each child it has not greeted yet (hello_targets).
//  * A refuser answers every HELLO of a bridge with its side (also ones that arrived before it knew it
//    would refuse) with a *decided* UP carrying the refusal value (refusal_msg), and ignores every other
//    agreement frame of the bridge. It never sends an undecided UP. It does this in the background after
//    its MPI call has returned the error (FtManager::refuse_bridge keeps the answer).
//  * The refusal value has the "ok" flag cleared; a knower's contribution has it set. Outcome at a knower:
//    success iff the decided value's flag is set and the decided failed set is empty (comm::agree_context).
// Safety (every survivor gets the same outcome): refusers always fail. A knower decides success only from
// a decision that a root made fresh (never from a refusal: a refusal's flag is cleared and adopting it
// means failure), which needs an undecided UP from every live member of the root's view; a refuser never
// sends one, and a dead member lands in the decided failed set. So if some member refused (alive: no fresh
// decision possible; dead: in the failed set) or died before contributing, every knower fails; if nobody
// refused, the bridge is an ordinary agreement among knowers, uniform by ft/agreement.h. Different knowers
// may adopt different refusals (failed sets may differ) but all of them fail, with the same error class.
// Termination: a knower waiting in view V waits for UPs of its children and, through its parent, for the
// rest of the tree. A refuser among its neighbours gets its HELLO and answers with a decided UP, so the
// knower decides at once and spreads the decision (DOWN to children, decided UP to its parent) in every
// later view; every knower is either next to a live refuser or connected to one through knowers; with no
// live refuser the agreement terminates by ft/agreement.h. Views converge (finitely many failures).
// Cost without failures: the agreement's (n UPs, at most n log n DOWNs) plus one HELLO per tree edge; with
// deaths one more HELLO per new tree edge. Refusals stay bounded (FtManager keeps the last 256), and so do
// bridges (live ones, then records: FtManager::bridge, docs/fault-tolerance.md "Bridges").
#pragma once
#include <cstdint>
#include <vector>

#include "ft/agreement.h"

namespace ftmpi::ft {

// The members a knower greets in its current tree: its parent (if any) and its children.
inline std::vector<int> hello_targets(const Agreement& a) {
  std::vector<int> t = a.children();
  if (a.parent() >= 0) t.push_back(a.parent());
  return t;
}

// A refuser's answer to a HELLO: a decided UP with the refusal value (empty view and failed set, so that
// any member of any view accepts it).
inline AgreeMsg refusal_msg(const Bits& refusal) {
  AgreeMsg m;
  m.kind = AgreeMsg::Kind::up;
  m.decided = true;
  m.value = refusal;
  return m;
}

}  // namespace ftmpi::ft
