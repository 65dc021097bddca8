// Intercommunicator Alltoall, Alltoallv and Alltoallw (see coll/inter.h): direct. Every process posts one
// send and one receive per remote rank at once, in an order rotated by its own rank (so that the remote
// processes do not all start with the same peer); one phase, nothing local. Blocks of zero bytes are
// skipped on both sides (type signatures match, so the other side skips too).
#include <vector>

#include "coll/inter.h"
#include "coll/schedule.h"

namespace ftmpi::coll {

namespace {

std::size_t sz(long long n) { return static_cast<std::size_t>(n); }

// One block per remote rank: its count, its address, its type.
struct Blocks {
  std::vector<long long> counts;
  std::vector<std::ptrdiff_t> offsets;  // bytes from the buffer
  std::vector<const Dt*> types;
};

// Blocks at displacements counted in extents of one type (Alltoallv).
Blocks blocks_v(int n, IndexArray counts, IndexArray displs, const Dt* type) {
  Blocks b{{}, {}, std::vector<const Dt*>(sz(n), type)};
  for (int i = 0; i < n; ++i) {
    b.counts.push_back(counts[i]);
    b.offsets.push_back(static_cast<std::ptrdiff_t>(displs[i]) * type->extent);
  }
  return b;
}

// Blocks of `count` elements one after the other (Alltoall).
Blocks blocks_regular(int n, std::size_t count, const Dt* type) {
  Blocks b{std::vector<long long>(sz(n), static_cast<long long>(count)), {}, std::vector<const Dt*>(sz(n), type)};
  for (int i = 0; i < n; ++i) b.offsets.push_back(static_cast<std::ptrdiff_t>(sz(i) * count) * type->extent);
  return b;
}

// Blocks at displacements in bytes, one type each (Alltoallw).
Blocks blocks_w(int n, IndexArray counts, IndexArray displs, const Dt* const* types) {
  Blocks b{{}, {}, std::vector<const Dt*>(types, types + n)};
  for (int i = 0; i < n; ++i) {
    b.counts.push_back(counts[i]);
    b.offsets.push_back(static_cast<std::ptrdiff_t>(displs[i]));
  }
  return b;
}

void exchange(InterPlan& p, const void* sendbuf, Blocks out, void* recvbuf, Blocks in) {
  const int rs = p.comm()->peer_size(), me = p.comm()->rank;
  p.inter([=, out = std::move(out), in = std::move(in)](Schedule& x) {
    for (int k = 0; k < rs; ++k) {
      const std::size_t j = sz((me + k) % rs);
      const std::size_t nr = sz(in.counts[j]), ns = sz(out.counts[j]);
      // (a zero count's type is never read: Alltoallw allows any type there)
      if (nr > 0 && dt::packed_size(in.types[j], nr) > 0)
        x.recv(static_cast<int>(j), static_cast<char*>(recvbuf) + in.offsets[j], nr, in.types[j]);
      if (ns > 0 && dt::packed_size(out.types[j], ns) > 0)
        x.send(static_cast<int>(j), static_cast<const char*>(sendbuf) + out.offsets[j], ns, out.types[j]);
    }
  });
}

}  // namespace

void inter_alltoall(InterPlan& p, const void* sendbuf, std::size_t sendcount, const Dt* sendtype, void* recvbuf,
                    std::size_t recvcount, const Dt* recvtype) {
  const int rs = p.comm()->peer_size();
  exchange(p, sendbuf, blocks_regular(rs, sendcount, sendtype), recvbuf, blocks_regular(rs, recvcount, recvtype));
}

void inter_alltoallv(InterPlan& p, const void* sendbuf, IndexArray sendcounts, IndexArray sdispls,
                     const Dt* sendtype, void* recvbuf, IndexArray recvcounts, IndexArray rdispls, const Dt* recvtype) {
  const int rs = p.comm()->peer_size();
  exchange(p, sendbuf, blocks_v(rs, sendcounts, sdispls, sendtype), recvbuf,
           blocks_v(rs, recvcounts, rdispls, recvtype));
}

void inter_alltoallw(InterPlan& p, const void* sendbuf, IndexArray sendcounts, IndexArray sdispls,
                     const Dt* const* sendtypes, void* recvbuf, IndexArray recvcounts, IndexArray rdispls,
                     const Dt* const* recvtypes) {
  const int rs = p.comm()->peer_size();
  exchange(p, sendbuf, blocks_w(rs, sendcounts, sdispls, sendtypes), recvbuf,
           blocks_w(rs, recvcounts, rdispls, recvtypes));
}

}  // namespace ftmpi::coll
