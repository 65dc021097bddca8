// Gatherv and Scatterv: linear. The root posts one receive (send) per rank with that rank's count at its
// displacement; blocks of zero bytes are skipped on both sides (type signatures match, so the other side
// skips too). The root's own block is copied locally unless MPI_IN_PLACE.
#include "coll/builders.h"
#include "coll/local_copy.h"
#include "coll/schedule.h"

namespace ftmpi::coll {

namespace {
char* at(void* base, IndexArray displs, int i, const Dt* type) {
  return static_cast<char*>(base) + static_cast<std::ptrdiff_t>(displs[i]) * type->extent;
}
const char* at(const void* base, IndexArray displs, int i, const Dt* type) {
  return static_cast<const char*>(base) + static_cast<std::ptrdiff_t>(displs[i]) * type->extent;
}
}  // namespace

void build_gatherv(Schedule& s, const void* sendbuf, std::size_t sendcount, const Dt* sendtype, void* recvbuf,
                   IndexArray recvcounts, IndexArray displs, const Dt* recvtype, int root) {
  const int p = s.comm()->size, me = s.comm()->rank;
  if (me != root) {
    if (dt::packed_size(sendtype, sendcount) > 0) s.send(root, sendbuf, sendcount, sendtype);
    return;
  }
  for (int i = 0; i < p; ++i) {
    const auto n = static_cast<std::size_t>(recvcounts[i]);
    if (i != root && dt::packed_size(recvtype, n) > 0) s.recv(i, at(recvbuf, displs, i, recvtype), n, recvtype);
  }
  if (!is_in_place(sendbuf)) {
    copy_typed(sendbuf, sendcount, sendtype, at(recvbuf, displs, me, recvtype),
               static_cast<std::size_t>(recvcounts[me]), recvtype);
  }
}

void build_scatterv(Schedule& s, const void* sendbuf, IndexArray sendcounts, IndexArray displs, const Dt* sendtype,
                    void* recvbuf, std::size_t recvcount, const Dt* recvtype, int root) {
  const int p = s.comm()->size, me = s.comm()->rank;
  if (me != root) {
    if (dt::packed_size(recvtype, recvcount) > 0) s.recv(root, recvbuf, recvcount, recvtype);
    return;
  }
  for (int i = 0; i < p; ++i) {
    const auto n = static_cast<std::size_t>(sendcounts[i]);
    if (i != root && dt::packed_size(sendtype, n) > 0) s.send(i, at(sendbuf, displs, i, sendtype), n, sendtype);
  }
  if (!is_in_place(recvbuf)) {
    copy_typed(at(sendbuf, displs, me, sendtype), static_cast<std::size_t>(sendcounts[me]), sendtype, recvbuf,
               recvcount, recvtype);
  }
}

}  // namespace ftmpi::coll
