// Algorithm choices of the collectives: the thresholds in one place (docs/collectives.md explains them).
// Sizes are packed bytes (what travels), counted per block (one rank's contribution) or for the whole
// vector, as each constant says. The values follow the defaults of MPICH and Open MPI's tuned component,
// rounded; they are tunables, not contracts — the algorithms on both sides of a threshold give the same
// result (up to floating-point reassociation for commutative ops).
#pragma once
#include <cstddef>

namespace ftmpi::coll::tuning {

// Gather / Scatter: binomial tree (log p latency, blocks forwarded through inner nodes) while the whole
// gathered buffer is at most this big; linear (root talks to every rank, data lands in place) above.
inline constexpr std::size_t kBinomialGatherMaxTotal = 64 * 1024;

// Allgather: recursive doubling (log p rounds, p a power of two) while the whole result is at most this
// big; ring (p-1 rounds, bandwidth-optimal) above and for other rank counts.
inline constexpr std::size_t kRecursiveDoublingAllgatherMaxTotal = 512 * 1024;

// Allreduce: Rabenseifner (recursive-halving reduce-scatter + recursive-doubling allgather) for
// commutative ops once the vector is at least this big and has at least one element per rank of the
// power-of-two core; recursive doubling below.
inline constexpr std::size_t kRabenseifnerMinBytes = 32 * 1024;

// Alltoall: every send and receive posted at once while a block is at most this big; pairwise exchange
// (p-1 rounds of one send + one receive) above, which bounds the data in flight.
inline constexpr std::size_t kAlltoallPostAllMaxBlock = 32 * 1024;
// Alltoall: Bruck (log2 p rounds, blocks forwarded) for blocks this small on at least this many ranks.
// MPICH starts at 8 ranks; measured here (8 ranks on 2 cores, 4-256 B blocks) posting everything at once
// took 23-27 us against 52-89 us for Bruck's dependent rounds, so Bruck waits for larger jobs.
inline constexpr std::size_t kAlltoallBruckMaxBlock = 256;
inline constexpr int kAlltoallBruckMinRanks = 32;

// Reduce_scatter: reduce to rank 0 then scatter while the whole vector is at most this big (log p
// latency); above, every rank receives its block from everyone (alltoall pattern, bandwidth-optimal) and
// reduces locally in rank order.
inline constexpr std::size_t kReduceScatterViaReduceMaxTotal = 8 * 1024;

}  // namespace ftmpi::coll::tuning
