// Reduce_scatter and Reduce_scatter_block (tuning.h chooses):
//  * Via reduce (small vectors): a binomial Reduce of the whole vector to rank 0 (reduce.cpp, rank order kept
//    for non-commutative ops), then rank 0 sends each rank its block. log p latency.
//  * Direct (large vectors): every rank sends block j of its input to rank j and receives block `me` of
//    every other rank's input (alltoall pattern, all posted at once), then reduces the p pieces locally in
//    rank order (x0 op (x1 op (... op x(p-1)))), so non-commutative ops are correct. Each rank moves about
//    n bytes each way, in one latency term; it needs p blocks of scratch.
// MPI_IN_PLACE (sendbuf): the input is recvbuf (the whole vector); the result replaces its first block.
#include <numeric>
#include <vector>

#include "coll/builders.h"
#include "coll/local_copy.h"
#include "coll/schedule.h"
#include "coll/tuning.h"

namespace ftmpi::coll {

namespace {
std::vector<std::size_t> prefix(IndexArray counts, int p) {
  std::vector<std::size_t> d(static_cast<std::size_t>(p) + 1, 0);
  for (int i = 0; i < p; ++i) d[static_cast<std::size_t>(i) + 1] = d[static_cast<std::size_t>(i)] + static_cast<std::size_t>(counts[i]);
  return d;
}
}  // namespace

void build_reduce_scatter_via_reduce(Schedule& s, const void* sendbuf, void* recvbuf, IndexArray recvcounts,
                                     const Dt* type, const ftmpi_op_s* op) {
  const int p = s.comm()->size, me = s.comm()->rank;
  const std::vector<std::size_t> displ = prefix(recvcounts, p);
  const std::size_t total = displ.back();
  const void* input = is_in_place(sendbuf) ? recvbuf : sendbuf;
  char* full = me == 0 ? static_cast<char*>(typed_scratch(s, total, type)) : nullptr;
  build_reduce(s, input, full, total, type, op, 0);
  const std::ptrdiff_t ext = type->extent;
  if (me != 0) {
    if (recvcounts[me] > 0) s.recv(0, recvbuf, static_cast<std::size_t>(recvcounts[me]), type);
    return;
  }
  for (int i = 1; i < p; ++i) {
    if (recvcounts[i] > 0)
      s.send(i, full + static_cast<std::ptrdiff_t>(displ[static_cast<std::size_t>(i)]) * ext,
             static_cast<std::size_t>(recvcounts[i]), type);
  }
  const auto mine = static_cast<std::size_t>(recvcounts[0]);
  s.local([=] { copy_typed(full, mine, type, recvbuf, mine, type); });
}

void build_reduce_scatter_direct(Schedule& s, const void* sendbuf, void* recvbuf, IndexArray recvcounts,
                                 const Dt* type, const ftmpi_op_s* op) {
  const int p = s.comm()->size, me = s.comm()->rank;
  const std::vector<std::size_t> displ = prefix(recvcounts, p);
  const char* input = static_cast<const char*>(is_in_place(sendbuf) ? recvbuf : sendbuf);
  const std::ptrdiff_t ext = type->extent;
  const auto mine = static_cast<std::size_t>(recvcounts[me]);
  // pieces[r] = block `me` of rank r's input.
  char* pieces = static_cast<char*>(typed_scratch(s, mine * static_cast<std::size_t>(p), type));
  auto piece = [=](int r) { return block_at(pieces, static_cast<std::size_t>(r), mine, type); };
  copy_typed(input + static_cast<std::ptrdiff_t>(displ[static_cast<std::size_t>(me)]) * ext, mine, type, piece(me),
             mine, type);
  for (int i = 1; i < p; ++i) {
    const int from = (me - i + p) % p;
    if (mine > 0) s.recv(from, piece(from), mine, type);
  }
  for (int i = 1; i < p; ++i) {
    const int to = (me + i) % p;
    if (recvcounts[to] > 0)
      s.send(to, input + static_cast<std::ptrdiff_t>(displ[static_cast<std::size_t>(to)]) * ext,
             static_cast<std::size_t>(recvcounts[to]), type);
  }
  if (mine == 0) return;
  s.local([=] {
    for (int r = p - 2; r >= 0; --r) dt::apply(op, piece(r), piece(p - 1), mine, type);
    copy_typed(piece(p - 1), mine, type, recvbuf, mine, type);
  });
}

void build_reduce_scatter(Schedule& s, const void* sendbuf, void* recvbuf, IndexArray recvcounts, const Dt* type,
                          const ftmpi_op_s* op) {
  const std::size_t total = prefix(recvcounts, s.comm()->size).back();
  if (dt::packed_size(type, total) <= tuning::kReduceScatterViaReduceMaxTotal) {
    build_reduce_scatter_via_reduce(s, sendbuf, recvbuf, recvcounts, type, op);
  } else {
    build_reduce_scatter_direct(s, sendbuf, recvbuf, recvcounts, type, op);
  }
}

void build_reduce_scatter_block(Schedule& s, const void* sendbuf, void* recvbuf, std::size_t recvcount, const Dt* type,
                                const ftmpi_op_s* op) {
  const std::vector<long long> counts(static_cast<std::size_t>(s.comm()->size), static_cast<long long>(recvcount));
  build_reduce_scatter(s, sendbuf, recvbuf, counts.data(), type, op);
}

}  // namespace ftmpi::coll
