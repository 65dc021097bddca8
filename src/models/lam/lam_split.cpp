#include "models/lam/lam_split.h"

#include <vector>

#include "comm/comm_ops.h"
#include "comm/context_alloc.h"
#include "comm/group.h"
#include "comm/pool_rounds.h"
#include "ft/ft_manager.h"
#include "runtime/runtime.h"

namespace ftmpi::lam {
namespace {

// The shrink agreement (as MPIX_Comm_shrink, api/ft.cpp), blocking: the survivors of `parent`, in their old
// order, on an agreed context id. The id comes from the non-blocking pool, reserved round by round
// (comm/pool_rounds.h), as the shrink's: the agreement waits in the progress loop, where another thread may run
// a blocking creation (MPI_Comm_dup, create_group, split) meanwhile — offering the blocking allocator's free
// slots unreserved let that creation claim the slot the agreement then decided: MPI_ERR_INTERN "context id
// already in use" (test ft_pending_shrink_lamthread). A round with no common slot runs another round.
Status survivors(Runtime& rt, Communicator* parent, Communicator** out) {
  using Alloc = comm::ContextAllocator;
  comm::PoolRounds rounds(rt.contexts(), rt.ft(), parent, parent, 1);
  for (;;) {
    const ft::Agreement& a = rounds.begin([](const Alloc::Mask& m) { return ft::Bits(m.begin(), m.end()); });
    rt.progress().wait_until([&a] { return a.decided(); });
    rt.ft().adopt_failed(parent, a.failed());
    Alloc::Mask common{};
    for (std::size_t i = 0; i < common.size() && i < a.value().size(); ++i) common[i] = a.value()[i];
    auto slot = Alloc::lowest_common(common);
    if (!slot.ok()) {
      FTMPI_TRY(rounds.retry());  // too few common slots: the next round, elsewhere in the pool
      continue;
    }
    Alloc::Mask give = rounds.take();  // every reserved slot but the one decided goes back
    Alloc::mask_drop(give, slot.value());
    rt.contexts().give_back_async_mask(give);
    std::vector<int> world;
    for (int r = 0; r < parent->size; ++r)
      if (!a.failed().contains(r)) world.push_back(parent->world_rank(r));
    Communicator* c = comm::make_comm(comm::make_group(std::move(world), rt.world_rank()), Alloc::async_id_of(slot.value()), parent);
    rt.ft().register_comm(c);
    *out = c;
    return Status::Ok();
  }
}

}  // namespace

Status split(Runtime& rt, Communicator* parent, int color, int key, Communicator** out) {
  Status st = comm::split(rt, parent, color, key, out);
  if (st.ok() || st.code() != Errc::proc_failed) return st;
  for (int attempt = 0; attempt <= parent->size; ++attempt) {
    Communicator* alive = nullptr;
    FTMPI_TRY(survivors(rt, parent, &alive));
    st = comm::split(rt, alive, color, key, out);
    Status freed = comm::free(rt, alive);
    if (st.ok() && !freed.ok()) return freed;
    if (st.ok() || st.code() != Errc::proc_failed) return st;
  }
  return Status(Errc::proc_failed, "MPI_Comm_split (LAM mode): processes kept failing during the split");
}

}  // namespace ftmpi::lam
