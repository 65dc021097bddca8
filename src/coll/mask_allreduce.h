// Bitwise-AND allreduce of a word array over a communicator's collective context; used by context-id
// allocation (comm/context_alloc.h), which must not depend on the datatype/op tables.
#pragma once
#include <cstdint>
#include <span>

#include "comm/communicator.h"
#include "util/status.h"

namespace ftmpi {
class Runtime;
}

namespace ftmpi::coll {
// Collective over `comm`: on return every member's `words` holds the AND of all members' inputs.
Status allreduce_band(Runtime& rt, ftmpi_comm_s* comm, std::span<std::uint64_t> words);
}  // namespace ftmpi::coll
