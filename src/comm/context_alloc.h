// Context ids for new communicators (MPICH's mask method).
//
// Every communicator owns a pair of context ids: an even one for point-to-point traffic and the next odd
// one for collective traffic. A *slot* is such a pair: slot s = ids 2s and 2s+1. Slots 0 and 1 belong to
// MPI_COMM_WORLD and MPI_COMM_SELF and are never handed out.
//
// Allocation is collective over a parent communicator: each member contributes its mask of free slots,
// the masks are combined with a bitwise AND over the parent's collective context, and every member
// claims the lowest slot free everywhere. Because a process's own mask takes part in every allocation it
// joins, two communicators that share a process can never get the same id, whatever the order in which
// overlapping creations happen on other processes.
//
// Not thread-safe by itself: callers hold the runtime lock (one MPI call at a time).
#pragma once
#include <array>
#include <cstdint>
#include <span>

#include "util/status.h"

struct ftmpi_comm_s;
namespace ftmpi {
class Runtime;
}

namespace ftmpi::comm {

class ContextAllocator {
 public:
  static constexpr std::uint32_t kSlots = 2048;  // 4096 context ids
  static constexpr std::size_t kWords = kSlots / 64;
  using Mask = std::array<std::uint64_t, kWords>;  // bit set = slot free

  ContextAllocator();

  // This process's mask of free slots (what it contributes to an allocation).
  const Mask& free_mask() const { return free_; }

  // Pure part of an allocation: the lowest slot set in `common` (the AND of every member's mask).
  // Errc::no_mem (MPI_ERR_OTHER-ish "out of context ids") when no bit is set.
  static Result<std::uint32_t> lowest_common(const Mask& common);

  // Mark the slot of context id `id` (even) used here. Errc::intern if it is already used or reserved.
  Status claim(std::uint32_t id);
  // Give the slot of context id `id` back. Ids of reserved slots and ids not in use are ignored.
  void release(std::uint32_t id);
  bool in_use(std::uint32_t id) const;

  // Collective over `parent` (every member calls it, in the same order as its other collectives on
  // parent): agree on a fresh even context id, claimed on every member. On error nothing is claimed.
  Status allocate(Runtime& rt, ftmpi_comm_s* parent, std::uint32_t* id);

 private:
  Mask free_{};
};

}  // namespace ftmpi::comm
