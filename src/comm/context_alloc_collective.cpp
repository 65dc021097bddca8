// The collective half of ContextAllocator: AND the members' masks over the parent's collective context.
#include <algorithm>
#include <chrono>
#include <cstring>

#include "coll/mask_allreduce.h"
#include "coll/schedule.h"
#include "comm/communicator.h"
#include "comm/context_alloc.h"
#include "mpi.h"
#include "runtime/runtime.h"

namespace ftmpi::comm {

std::int32_t ContextAllocator::lowest_member(const ftmpi_comm_s* c) {
  int low = *std::min_element(c->group->world_ranks.begin(), c->group->world_ranks.end());
  if (c->remote_group != nullptr && c->remote_group->size() > 0)
    low = std::min(low, *std::min_element(c->remote_group->world_ranks.begin(), c->remote_group->world_ranks.end()));
  return low;
}

bool ContextAllocator::concurrent(Runtime& rt) { return rt.thread_level() == MPI_THREAD_MULTIPLE; }

// Between two rounds: let the other threads' rounds here run for a while (the lock is released in the wait)
// until one of them ends a round or ends, at most 2 ms, so that this thread does not spin on the lock they
// need. Bounded, never "until they end" (context_alloc.h "Threads", liveness (1)): a round of this allocation
// must not wait for another allocation, whose end may need this one's members.
void ContextAllocator::between_rounds(Runtime& rt) {
  const std::uint64_t seen = changes_;
  const auto until = std::chrono::steady_clock::now() + std::chrono::milliseconds(2);
  rt.progress().wait_until([&] { return changes_ != seen || std::chrono::steady_clock::now() >= until; });
}

Status ContextAllocator::allocate(Runtime& rt, ftmpi_comm_s* parent, std::uint32_t* id) {
  if (!parent->is_inter() && parent->size == 1) {
    auto local = allocate_local();
    if (!local.ok()) return local.status();
    *id = *local;
    return {};
  }
  const AllocKey key{parent->ctx_pt2pt, lowest_member(parent), AllocKey::kKindParent};
  return run_rounds(rt, key, [&](Contribution& c) { return coll::allreduce_band(rt, parent, std::span<std::uint64_t>(c)); },
                    id);
}

// AND of the members' masks: binomial reduce to peers[0] over the member indices, then the binomial
// broadcast back; 2 log2(n) steps, each a mask (kWords words) to or from one peer.
Status ContextAllocator::allocate_among(Runtime& rt, ftmpi_comm_s* numbering, const std::vector<int>& peers, int me,
                                        int tag, std::uint32_t* id) {
  if (peers.size() == 1) {  // this process alone (MPI_Comm_create_from_group over mpi://SELF)
    auto local = allocate_local();
    if (!local.ok()) return local.status();
    *id = *local;
    return {};
  }
  const AllocKey key{numbering->ctx_pt2pt, lowest_member(numbering), static_cast<std::uint32_t>(tag)};
  return run_rounds(rt, key, [&](Contribution& c) { return and_among(rt, numbering, peers, me, tag, c); }, id);
}

Status ContextAllocator::and_among(Runtime& rt, ftmpi_comm_s* numbering, const std::vector<int>& peers, int me, int tag,
                                   Contribution& common) {
  const int n = static_cast<int>(peers.size());
  const std::size_t bytes = sizeof(Contribution);
  coll::Schedule s(numbering, tag, &rt.scratch());
  int up = 1;  // distance to the member this one reports to (for member 0: past the last member)
  while (up < n && (me & up) == 0) {
    if (me + up < n) {
      std::byte* in = s.scratch(bytes);
      s.recv_bytes(peers[static_cast<std::size_t>(me + up)], in, bytes);
      s.local([&common, in] {
        Contribution theirs;
        std::memcpy(theirs.data(), in, sizeof theirs);
        for (std::size_t w = 0; w < theirs.size(); ++w) common[w] &= theirs[w];
      });
    }
    up <<= 1;
  }
  if (me != 0) {
    s.send_bytes(peers[static_cast<std::size_t>(me - up)], common.data(), bytes);
    s.fence();
    s.recv_bytes(peers[static_cast<std::size_t>(me - up)], common.data(), bytes);
    s.fence();
  }
  for (int d = up >> 1; d >= 1; d >>= 1)
    if (me + d < n) s.send_bytes(peers[static_cast<std::size_t>(me + d)], common.data(), bytes);
  return coll::run(rt, s);
}

}  // namespace ftmpi::comm
