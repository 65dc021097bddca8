// Intercommunicator Gatherv, Scatterv and Allgatherv (see coll/inter.h).
//  * Gatherv / Scatterv: direct. Every member of the non-root group exchanges its block with the root, which
//    posts one receive (send) per remote rank at its displacement: one phase, no local step (the group that
//    does not hold the root does not know the other members' counts, so it could not pack them anyway).
//  * Allgatherv: every member sends its block to the remote leader, which receives them in place; then each
//    leader broadcasts what it received to its group as one packed message, unpacked at every displacement.
// Blocks of zero bytes are skipped on both sides (type signatures match, so the other side skips too).
#include <vector>

#include "coll/builders.h"
#include "coll/inter.h"
#include "coll/schedule.h"
#include "mpi.h"

namespace ftmpi::coll {

namespace {

char* at(void* base, long long displ, const Dt* type) {
  return static_cast<char*>(base) + static_cast<std::ptrdiff_t>(displ) * type->extent;
}
const char* at(const void* base, long long displ, const Dt* type) {
  return static_cast<const char*>(base) + static_cast<std::ptrdiff_t>(displ) * type->extent;
}
std::vector<long long> copy_of(IndexArray a, int n) {
  std::vector<long long> v(static_cast<std::size_t>(n));
  for (int i = 0; i < n; ++i) v[static_cast<std::size_t>(i)] = a[i];
  return v;
}
std::size_t sz(long long n) { return static_cast<std::size_t>(n); }

}  // namespace

void inter_gatherv(InterPlan& p, const void* sendbuf, std::size_t sendcount, const Dt* sendtype, void* recvbuf,
                   IndexArray recvcounts, IndexArray displs, const Dt* recvtype, int root) {
  const int rs = p.comm()->peer_size();
  std::vector<long long> counts, offs;
  if (root == kInterRootHere) counts = copy_of(recvcounts, rs), offs = copy_of(displs, rs);
  p.inter([=, counts = std::move(counts), offs = std::move(offs)](Schedule& x) {
    if (root >= 0 && dt::packed_size(sendtype, sendcount) > 0) x.send(root, sendbuf, sendcount, sendtype);
    if (root != kInterRootHere) return;
    for (int i = 0; i < rs; ++i) {
      const std::size_t n = sz(counts[sz(i)]);
      if (dt::packed_size(recvtype, n) > 0) x.recv(i, at(recvbuf, offs[sz(i)], recvtype), n, recvtype);
    }
  });
}

void inter_scatterv(InterPlan& p, const void* sendbuf, IndexArray sendcounts, IndexArray displs, const Dt* sendtype,
                    void* recvbuf, std::size_t recvcount, const Dt* recvtype, int root) {
  const int rs = p.comm()->peer_size();
  std::vector<long long> counts, offs;
  if (root == kInterRootHere) counts = copy_of(sendcounts, rs), offs = copy_of(displs, rs);
  p.inter([=, counts = std::move(counts), offs = std::move(offs)](Schedule& x) {
    if (root >= 0 && dt::packed_size(recvtype, recvcount) > 0) x.recv(root, recvbuf, recvcount, recvtype);
    if (root != kInterRootHere) return;
    for (int i = 0; i < rs; ++i) {
      const std::size_t n = sz(counts[sz(i)]);
      if (dt::packed_size(sendtype, n) > 0) x.send(i, at(sendbuf, offs[sz(i)], sendtype), n, sendtype);
    }
  });
}

void inter_allgatherv(InterPlan& p, const void* sendbuf, std::size_t sendcount, const Dt* sendtype, void* recvbuf,
                      IndexArray recvcounts, IndexArray displs, const Dt* recvtype) {
  ftmpi_comm_s* comm = p.comm();
  const int rs = comm->peer_size();
  const bool leader = comm->rank == 0;
  std::vector<long long> counts = copy_of(recvcounts, rs), offs = copy_of(displs, rs);
  std::size_t total = 0;  // packed bytes of everything the remote group contributes
  for (long long c : counts) total += dt::packed_size(recvtype, sz(c));
  p.inter([=](Schedule& x) {
    if (dt::packed_size(sendtype, sendcount) > 0) x.send(0, sendbuf, sendcount, sendtype);
    if (!leader) return;
    for (int i = 0; i < rs; ++i) {
      const std::size_t n = sz(counts[sz(i)]);
      if (dt::packed_size(recvtype, n) > 0) x.recv(i, at(recvbuf, offs[sz(i)], recvtype), n, recvtype);
    }
  });
  if (comm->size == 1 || total == 0) return;
  p.local([=, counts = std::move(counts), offs = std::move(offs)](Schedule& s) {
    std::byte* packed = s.scratch(total);
    // Walk the blocks in rank order: pack (leader, now: phase one is over) or unpack (the others, at the end).
    auto each_block = [=](auto&& fn) {
      std::size_t pos = 0;
      for (int i = 0; i < rs; ++i) {
        const std::size_t n = sz(counts[sz(i)]);
        fn(packed + pos, at(recvbuf, offs[sz(i)], recvtype), n);
        pos += dt::packed_size(recvtype, n);
      }
    };
    if (leader) each_block([=](std::byte* to, char* from, std::size_t n) { dt::pack(from, n, recvtype, to); });
    build_bcast(s, packed, total, &ftmpi_dt_byte, 0);
    if (!leader) {
      s.local([=] {
        each_block([=](std::byte* from, char* to, std::size_t n) {
          dt::unpack(from, dt::packed_size(recvtype, n), recvtype, to);
        });
      });
    }
  });
}

}  // namespace ftmpi::coll
