// Scatter: linear. The root sends each rank its block of sendbuf (engine handles sendtype) and copies
// its own block locally unless recvbuf is MPI_IN_PLACE; every other rank receives once.
#include "coll/builders.h"
#include "coll/coll.h"
#include "coll/local_copy.h"
#include "coll/schedule.h"

namespace ftmpi::coll {

void build_scatter(Schedule& s, const void* sendbuf, std::size_t sendcount,
                   const Datatype* sendtype, void* recvbuf, std::size_t recvcount, const Datatype* recvtype, int root) {
  const int p = s.comm()->size, me = s.comm()->rank;
  if (me != root) {
    s.recv(root, recvbuf, recvcount, recvtype);
    return;
  }
  for (int i = 0; i < p; ++i) {
    if (i != root) s.send(i, block_at(sendbuf, static_cast<std::size_t>(i), sendcount, sendtype), sendcount, sendtype);
  }
  if (!is_in_place(recvbuf)) {
    copy_typed(block_at(sendbuf, static_cast<std::size_t>(me), sendcount, sendtype), sendcount, sendtype, recvbuf,
               recvcount, recvtype);
  }
}

Status scatter(Runtime& rt, ftmpi_comm_s* comm, const void* sendbuf, std::size_t sendcount,
               const Datatype* sendtype, void* recvbuf, std::size_t recvcount, const Datatype* recvtype, int root) {
  Schedule s(comm);
  build_scatter(s, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root);
  return run(rt, s);
}

}  // namespace ftmpi::coll
