// MPI_Comm_idup: a communicator duplication that returns at once and completes in the progress loop
// (MPI-3.1 §6.4.2), for intra- and intercommunicators.
//
// Model. Every member starts the duplication in the same order as its other collectives on the parent (MPI's
// rule); between start and completion a member may start other idups (on this or other communicators, in
// an order that differs between members when the communicators differ), run blocking collectives, or wait
// on anything. Nothing may block: a member that starts idup A then waits on idup B must let A's peers make
// progress.
//
// Algorithm (randomised reservation rounds over the allocator's non-blocking pool, comm/context_alloc.h).
// Round r of duplication D (key = parent's context id and D's sequence number on the parent, the same at
// every member):
//   1. every member takes all free slots of pool word w = hash(key, r) mod 32 out of its pool (reserves
//      them for D) and contributes them as a 64-bit word;
//   2. the words are ANDed over the members (intercommunicator: over each side's hidden local communicator,
//      the two leaders swap their side's result, each leader sends the AND of both to its side);
//   3. if the AND has enough bits (1 for an intracommunicator; 2 for an intercommunicator: its context
//      and its new hidden local communicator's), every member keeps the lowest ones, gives back the rest
//      and builds the communicator; otherwise it gives back everything and runs round r+1.
// Safety: a slot kept by D was reserved for D at every member (the AND is a subset of each contribution),
// and a reserved slot is in nobody else's contribution, so no two communicators sharing a process get the
// same id; the pool is disjoint from the blocking allocator's, so blocking constructors running meanwhile
// are unaffected. Every member sees the same AND, so all decide alike (same round count, same slot).
// Liveness: no duplication ever waits for another one to finish (a round only needs the members of D to
// have started it); concurrent duplications that meet in one word in a different order on two members fail
// that round and retry in (pseudo-randomly) different words. After kMaxRounds fruitless rounds every member
// reports Errc::no_mem ("out of context ids"): the pool is really full (or pathologically contended).
// Cost: per round one 8-byte allreduce (log p steps), plus one exchange and a linear broadcast of 8 bytes
// per side for an intercommunicator; a single idup with a free pool finishes in one round.
//
// Failures, FT mode: uniform. Each round's AND is a fault-tolerant agreement on the parent (ft/agreement.h;
// on an intercommunicator over both groups, on its span, FtManager::span) keyed by (the idup's number on the
// parent mod 2^23, round mod 2^7; bit 30 of the key clear: blocking creations' rounds, ft/creation_keys.h, have
// it set) — FtManager::start_keyed_agreement, since members may start rounds of concurrent idups in
// different orders — contributing the reserved word and a flag "the parent is not revoked here". The
// decision is the same at every survivor, so is the outcome: the slot(s), or Errc::proc_failed when a member
// did not contribute, or Errc::revoked when a contributor saw the parent revoked (so the idup of a revoked
// communicator is started, not refused, and fails at completion).
// Otherwise (no FT mode): a round runs as a collective on the parent's collective context, so a failed
// member or a revoke ends the duplication with Errc::proc_failed / Errc::revoked at the survivors (never a
// hang), not necessarily uniformly. Either way nothing stays reserved.
//
// Messages use the parent's collective context with tags 0x30000000 | (sequence mod 2^13) << 15 |
// (round mod 2^13) << 2 | phase, a range the parent's own collectives (sequence numbers below 2^29) and
// MPI_Comm_create_group (2^29 + tag) never use; two idups on one parent alias only if 8192 collectives
// separate their starts while the first is still unfinished.
#pragma once
#include "comm/communicator.h"
#include "p2p/request.h"
#include "util/status.h"

namespace ftmpi {
class Runtime;
}

namespace ftmpi::comm {

// Start duplicating `parent` (live; intra or inter). `out` is a new communicator object that the caller
// already created with new_pending_comm() (so that attributes can be copied to it at once): it stays invalid
// (rejected by valid_comm) until completion; on success it is then a duplicate of parent (same group(s),
// topology and the parent's hints, which the caller may replace before completion), on failure it is
// stamped freed and `*handle` (if not null) is set to nullptr. Returns the request (never null); its
// completion is the duplication's end, its error the outcome.
p2p::Request* start_idup(Runtime& rt, Communicator* parent, Communicator* out, Communicator** handle);

// A blank communicator object for start_idup (magic 0: not a valid handle yet).
Communicator* new_pending_comm();

}  // namespace ftmpi::comm
