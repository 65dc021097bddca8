// The collective half of ContextAllocator: AND the members' masks over the parent's collective context.
#include <chrono>
#include <cstring>

#include "coll/mask_allreduce.h"
#include "coll/schedule.h"
#include "comm/context_alloc.h"
#include "runtime/runtime.h"

namespace ftmpi::comm {

// Between two rounds (another thread's round here cut ours): let the other threads' rounds run for a while
// (the lock is released in the wait), at most 2 ms, so that this thread does not spin on the lock they need.
// Bounded, not "until they end": their ends may need members that wait between rounds of their own.
void ContextAllocator::between_rounds(Runtime& rt) {
  const Mask seen = reserved_;
  const auto until = std::chrono::steady_clock::now() + std::chrono::milliseconds(2);
  rt.progress().wait_until([&] { return reserved_ != seen || std::chrono::steady_clock::now() >= until; });
}

Status ContextAllocator::allocate(Runtime& rt, ftmpi_comm_s* parent, std::uint32_t* id) {
  if (!parent->is_inter() && parent->size == 1) {
    auto local = allocate_local();
    if (!local.ok()) return local.status();
    *id = *local;
    return {};
  }
  Round round(*this, std::uint64_t{parent->ctx_pt2pt} << 32 | 0xffffffffu);
  for (;;) {
    Contribution common = round.begin();
    FTMPI_TRY(coll::allreduce_band(rt, parent, std::span<std::uint64_t>(common)));
    auto done = round.finish(common, id);
    if (!done.ok()) return done.status();
    if (*done) return {};
    between_rounds(rt);
  }
}

// AND of the members' masks: binomial reduce to peers[0] over the member indices, then the binomial
// broadcast back; 2 log2(n) steps, each a mask (kWords words) to or from one peer.
Status ContextAllocator::allocate_among(Runtime& rt, ftmpi_comm_s* numbering, const std::vector<int>& peers, int me,
                                        int tag, std::uint32_t* id) {
  Round round(*this, std::uint64_t{numbering->ctx_pt2pt} << 32 | static_cast<std::uint32_t>(tag));
  for (;;) {
    Contribution common = round.begin();
    FTMPI_TRY(and_among(rt, numbering, peers, me, tag, common));
    auto done = round.finish(common, id);
    if (!done.ok()) return done.status();
    if (*done) return {};
    between_rounds(rt);
  }
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
