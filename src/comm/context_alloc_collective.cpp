// The collective half of ContextAllocator: AND the members' masks over the parent's collective context.
#include <cstring>

#include "coll/mask_allreduce.h"
#include "coll/schedule.h"
#include "comm/context_alloc.h"
#include "runtime/runtime.h"

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

// AND of the members' masks: binomial reduce to peers[0] over the member indices, then the binomial
// broadcast back; 2 log2(n) steps, each a mask (kWords words) to or from one peer.
Status ContextAllocator::allocate_among(Runtime& rt, ftmpi_comm_s* numbering, const std::vector<int>& peers, int me,
                                        int tag, std::uint32_t* id) {
  Mask common = free_;
  const int n = static_cast<int>(peers.size());
  const std::size_t bytes = sizeof(Mask);
  coll::Schedule s(numbering, tag, &rt.scratch());
  int up = 1;  // distance to the member this one reports to (for member 0: past the last member)
  while (up < n && (me & up) == 0) {
    if (me + up < n) {
      std::byte* in = s.scratch(bytes);
      s.recv_bytes(peers[static_cast<std::size_t>(me + up)], in, bytes);
      s.local([&common, in] {
        Mask theirs;
        std::memcpy(theirs.data(), in, sizeof theirs);
        for (std::size_t w = 0; w < kWords; ++w) common[w] &= theirs[w];
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
  FTMPI_TRY(coll::run(rt, s));
  auto lowest = lowest_common(common);
  if (!lowest.ok()) return lowest.status();
  FTMPI_TRY(claim(*lowest));
  *id = *lowest;
  return {};
}

}  // namespace ftmpi::comm
