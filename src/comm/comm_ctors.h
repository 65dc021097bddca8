// Communicator constructors beyond the foundation's dup/split/create (MPI-3.1 §6.4.2, §6.6):
// split by type (shared memory = same host), create_group (collective over the group only), and
// intercommunicators (create, merge, dup, and the context agreement they need).
//
// Intercommunicators (communicator.h): `group` is the local group, `remote_group` the remote one, point-to-
// point ranks name remote processes (the p2p engine addresses peers through peer_world_rank()), and
// `local_comm` is a hidden intracommunicator over the local group with its own context, used for the
// local half of agreements (context ids, merge order). The intercommunicator's own collective context
// carries the leaders' exchanges.
//
// Contracts: as in comm_ops.h — every member calls the same constructor in the same order relative to its
// other collectives on the communicators involved; on error nothing is created and no context id stays
// claimed (except when a peer fails half-way through, where the id may stay claimed until finalize).
#pragma once
#include <string_view>
#include "comm/comm_ops.h"

namespace ftmpi::comm {

// MPI_Comm_split_type(MPI_COMM_TYPE_SHARED): the ranks of parent on my host, ordered by (key, parent rank).
// type == kUndefined gives *out == nullptr (the call is still collective).
Status split_shared(Runtime& rt, Communicator* parent, bool undefined, int key, Communicator** out);

// MPI_Comm_create_group: collective over the members of `group` only (a subset of parent's group,
// Errc::group otherwise; the caller must be a member, Errc::group otherwise). `tag` separates
// concurrent calls on overlapping groups (0 <= tag < 2^28, Errc::tag otherwise).
// `stringtag` (MPI_Comm_create_from_group over MPI_COMM_WORLD's machinery, `tag` its hash): in FT mode it
// names the call's agreement channel exactly, and the creation is not an operation on `parent` (a revoke of
// MPI_COMM_WORLD does not end it).
Status create_group(Runtime& rt, Communicator* parent, const Group* group, int tag, Communicator** out,
                    std::string_view stringtag = {});

// MPI_Intercomm_create. local_comm: intracommunicator; local_leader: rank in it; peer_comm and
// remote_leader: meaningful at the local leader only (the leaders talk over peer_comm with `tag`).
// Errc::comm when the two groups overlap.
Status intercomm_create(Runtime& rt, Communicator* local_comm, int local_leader, Communicator* peer_comm,
                        int remote_leader, int tag, Communicator** out);

// MPI_Intercomm_merge: an intracommunicator of both groups; the group whose members passed high=false
// comes first (with equal flags: the group of the leader with the lower world rank).
Status intercomm_merge(Runtime& rt, Communicator* inter, bool high, Communicator** out);

// MPI_Comm_dup of an intercommunicator.
Status intercomm_dup(Runtime& rt, Communicator* inter, Communicator** out);

// MPI_Comm_split of an intercommunicator: an intercommunicator per color whose local side is the local
// processes with that color (ordered by key, then rank) and whose remote side is the remote ones with it.
// MPI_UNDEFINED, or a color with nobody on one of the two sides, gives *out == nullptr (on both sides).
Status intercomm_split(Runtime& rt, Communicator* inter, int color, int key, Communicator** out);

// MPI_Comm_create of an intercommunicator: `group` is a subgroup of the local group (Errc::group otherwise),
// the same at every local member; the result's local side is `group`, its remote side the group the remote
// side passed. Non-members, and everybody when either group is empty, get *out == nullptr.
Status intercomm_create_sub(Runtime& rt, Communicator* inter, const Group* group, Communicator** out);

// A context id free on every member of both groups of `inter`.
Status inter_allocate_context(Runtime& rt, Communicator* inter, std::uint32_t* ctx);

}  // namespace ftmpi::comm
