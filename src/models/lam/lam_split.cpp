#include "models/lam/lam_split.h"

#include <vector>

#include "comm/comm_ops.h"
#include "comm/context_alloc.h"
#include "comm/group.h"
#include "ft/ft_manager.h"
#include "runtime/runtime.h"

namespace ftmpi::lam {
namespace {

// The shrink agreement (as MPIX_Comm_shrink, api/ft.cpp), blocking: the survivors of `parent`, in their old
// order, on an agreed context id.
Status survivors(Runtime& rt, Communicator* parent, Communicator** out) {
  const comm::ContextAllocator::Mask m = rt.contexts().free_mask();
  const ft::Agreement& a = rt.ft().start_agreement(parent, ft::Bits(m.begin(), m.end()));
  rt.progress().wait_until([&a] { return a.decided(); });
  rt.ft().adopt_failed(parent, a.failed());
  comm::ContextAllocator::Mask common{};
  for (std::size_t i = 0; i < common.size() && i < a.value().size(); ++i) common[i] = a.value()[i];
  auto slot = comm::ContextAllocator::lowest_common(common);
  if (!slot.ok()) return slot.status();
  FTMPI_TRY(rt.contexts().claim(slot.value()));
  std::vector<int> world;
  for (int r = 0; r < parent->size; ++r)
    if (!a.failed().contains(r)) world.push_back(parent->world_rank(r));
  Communicator* c = comm::make_comm(comm::make_group(std::move(world), rt.world_rank()), slot.value(), parent);
  rt.ft().register_comm(c);
  *out = c;
  return Status::Ok();
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
