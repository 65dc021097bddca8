// The collective half of ContextAllocator: AND the members' masks over the parent's collective context.
#include "coll/mask_allreduce.h"
#include "comm/context_alloc.h"

namespace ftmpi::comm {

Status ContextAllocator::allocate(Runtime& rt, ftmpi_comm_s* parent, std::uint32_t* id) {
  Mask common = free_;
  FTMPI_TRY(coll::allreduce_band(rt, parent, std::span<std::uint64_t>(common)));
  auto lowest = lowest_common(common);
  if (!lowest.ok()) return lowest.status();
  FTMPI_TRY(claim(*lowest));
  *id = *lowest;
  return {};
}

}  // namespace ftmpi::comm
