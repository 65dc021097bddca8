// Intercommunicator Reduce_scatter_block and Reduce_scatter (see coll/inter.h): each group reduces its input
// vectors to its leader (the intracommunicator Reduce: rank order kept for non-commutative ops), the two
// leaders swap their results, and each leader scatters the other group's result over its group.
#include <numeric>
#include <vector>

#include "coll/builders.h"
#include "coll/inter.h"
#include "coll/schedule.h"

namespace ftmpi::coll {

namespace {

// The three phases; `scatter` adds the last one's schedule from the received vector `theirs`.
template <class Scatter>
void reduce_swap_scatter(InterPlan& p, const void* sendbuf, std::size_t count, const Dt* type,
                         const ftmpi_op_s* op, Scatter scatter) {
  ftmpi_comm_s* comm = p.comm();
  const bool leader = comm->rank == 0;
  void* mine = p.scratch(leader ? count : 0, type);
  void* theirs = p.scratch(leader ? count : 0, type);
  p.local([=](Schedule& s) { build_reduce(s, sendbuf, mine, count, type, op, 0); });
  p.inter([=](Schedule& x) {
    if (!leader) return;
    x.recv(0, theirs, count, type);
    x.send(0, mine, count, type);
  });
  p.local([=](Schedule& s) { scatter(s, theirs); });
}

}  // namespace

void inter_reduce_scatter_block(InterPlan& p, const void* sendbuf, void* recvbuf, std::size_t recvcount,
                                const Dt* type, const ftmpi_op_s* op) {
  const std::size_t count = recvcount * static_cast<std::size_t>(p.comm()->size);
  reduce_swap_scatter(p, sendbuf, count, type, op, [=](Schedule& s, void* theirs) {
    build_scatter(s, theirs, recvcount, type, recvbuf, recvcount, type, 0);
  });
}

void inter_reduce_scatter(InterPlan& p, const void* sendbuf, void* recvbuf, IndexArray recvcounts, const Dt* type,
                          const ftmpi_op_s* op) {
  const int n = p.comm()->size, me = p.comm()->rank;
  std::vector<long long> counts(static_cast<std::size_t>(n)), displs(static_cast<std::size_t>(n));
  for (int i = 0; i < n; ++i) counts[static_cast<std::size_t>(i)] = recvcounts[i];
  std::exclusive_scan(counts.begin(), counts.end(), displs.begin(), 0LL);
  const std::size_t count = static_cast<std::size_t>(std::accumulate(counts.begin(), counts.end(), 0LL));
  reduce_swap_scatter(p, sendbuf, count, type, op, [=](Schedule& s, void* theirs) {
    build_scatterv(s, theirs, counts.data(), displs.data(), type, recvbuf,
                   static_cast<std::size_t>(counts[static_cast<std::size_t>(me)]), type, 0);
  });
}

}  // namespace ftmpi::coll
