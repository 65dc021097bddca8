// Creating and destroying intracommunicators (MPI-3.1 §6.4): dup, split, create, free, compare.
//
// Contracts:
//  * `parent` is a live intracommunicator; dup/split/create are collective over it: every member calls
//    the same function, in the same order relative to its other collectives on parent.
//  * A new communicator gets a fresh context-id pair from the mask allocator (comm/context_alloc.h),
//    the parent's error handler (one more reference), rank/size from its group, an empty name.
//  * On error nothing is created and no context id stays claimed.
//  * Life cycle: free() stamps kMagicFreed at once (a stale handle is rejected by valid_comm()); the
//    communicator is *retired* when no request holds it any more (comm_hold/comm_unhold in
//    communicator.h): its context slot is given back and the other members told (p2p/stale_filter.h),
//    its FT state, group(s), error handler, topology and hints are released. Until then pending
//    operations complete normally, with this communicator's error handler. The object itself is kept
//    for the next 64 retirements (stale handles stay detectable), then deleted.
#pragma once
#include <span>
#include <vector>

#include "comm/communicator.h"
#include "comm/context_alloc.h"
#include "util/status.h"

namespace ftmpi {
class Runtime;
}

namespace ftmpi::comm {

// MPI_Comm_dup: same group(s), new context, same topology and info hints (intercommunicators too).
Status dup(Runtime& rt, Communicator* parent, Communicator** out);

// MPI_Comm_split: ranks with the same `color` form a communicator ordered by (key, parent rank).
// color == kUndefined (MPI_UNDEFINED) yields *out == nullptr. Errc::arg for a negative color.
Status split(Runtime& rt, Communicator* parent, int color, int key, Communicator** out);

// MPI_Comm_create: the members of `group` (a subset of parent's group; Errc::group otherwise) get a
// communicator in group order; everybody else gets nullptr.
Status create(Runtime& rt, Communicator* parent, const Group* group, Communicator** out);

// MPI_Comm_free (local): stamp kMagicFreed, free an intercommunicator's hidden local communicator, and
// retire the communicator now or when its last request is released. Attributes are the C API's business
// (their delete callbacks run before this). Errc::comm for a predefined communicator.
Status free(Runtime& rt, Communicator* comm);

// Retirement (see the life cycle above): called by free() or by the engine's idle-communicator hook.
void retire(Runtime& rt, Communicator* comm);

// MPI_Comm_compare: IDENT (0) same object, CONGRUENT (1) same members in the same order, SIMILAR (2)
// same members, UNEQUAL (3) otherwise.
int compare(const Communicator* a, const Communicator* b);

// Pure part of split: given every parent rank's (color, key) as a flat array [c0, k0, c1, k1, ...] and
// the parent's group (parent rank -> world rank), the world ranks of `color`'s communicator ordered by
// key, ties broken by parent rank.
std::vector<int> split_members(std::span<const int> color_key, std::span<const int> parent_world, int color);

// The collective context-id allocation the three constructors share (exposed for shrink, issue 3).
// `before` is the outcome of the constructor's earlier steps at this process (e.g. split's allgather).
// In fault-tolerant mode the id is agreed with the fault-tolerant agreement (ft/agreement.h) instead of an
// allreduce, which makes creation uniform (issue 12 item 2): every survivor gets the new id, or every
// survivor gets an error — Errc::proc_failed when a member failed before contributing to the agreement or
// another member's earlier steps failed, or this process's own `before` error. Every member must call it,
// also after its earlier steps failed (otherwise the others' agreement would wait for it forever).
// Without FT mode: `before` is returned at once if it is an error, then the allreduce (context_alloc.h).
Status allocate_context(Runtime& rt, Communicator* parent, const Status& before, std::uint32_t* ctx);
inline Status allocate_context(Runtime& rt, Communicator* parent, std::uint32_t* ctx) {
  return allocate_context(rt, parent, Status::Ok(), ctx);
}

// The fault-tolerant half of allocate_context: agree on a context id free at every member of `on` (a
// communicator, or an agreement channel or bridge, ft/ft_manager.h) with the fault-tolerant agreement.
// Uniform: every survivor gets the id (claimed), or every survivor an error — Errc::revoked when some
// member's `before` was a revoke or `on` was revoked before the decision (ft/creation_keys.h), Errc::proc_failed
// when another member's `before` failed or a member did not contribute — or its own `before` error. Every
// live member of `on` must call it (in the same order on `on`), whatever its `before`.
// The allocation rounds of context_alloc.h "Threads" under `key` (the allocation's AllocKey), each round's AND
// one agreement on `on`, keyed per creation and round (ft/creation_keys.h): constructors from several threads
// on different parents, or over one member set with different parents or tags (each has its own channel,
// FtManager::channel), get distinct ids and never share an agreement instance.
// A revoke of `on` (a communicator) does not end a round in progress: its decision stands at every member,
// and the revoke ends the creation in the next round (vetoed); a creation called after the revoke was seen
// here returns Errc::revoked at once — the same outcome every other member reads (ft/creation_keys.h).
Status agree_context(Runtime& rt, Communicator* on, const Status& before, std::uint32_t* ctx, const AllocKey& key);

// Build a communicator object around `group` (reference taken over) with context pair (ctx, ctx+1),
// inheriting `parent`'s error handler. Does no communication.
Communicator* make_comm(Group* group, std::uint32_t ctx, const Communicator* parent);

}  // namespace ftmpi::comm
