// Gather: linear. The root posts one receive per rank straight into its block of recvbuf (the engine
// lays data out per recvtype) and copies its own contribution locally; every other rank sends once.
// O(p) at the root, which is fine at the scales of the foundation; a binomial version can replace it.
#include "coll/builders.h"
#include "coll/coll.h"
#include "coll/local_copy.h"
#include "coll/schedule.h"

namespace ftmpi::coll {

void build_gather(Schedule& s, const void* sendbuf, std::size_t sendcount, const Datatype* sendtype,
                  void* recvbuf, std::size_t recvcount, const Datatype* recvtype, int root) {
  const int p = s.comm()->size, me = s.comm()->rank;
  if (me != root) {
    s.send(root, sendbuf, sendcount, sendtype);
    return;
  }
  for (int i = 0; i < p; ++i) {
    if (i != root) s.recv(i, block_at(recvbuf, static_cast<std::size_t>(i), recvcount, recvtype), recvcount, recvtype);
  }
  if (!is_in_place(sendbuf)) {
    copy_typed(sendbuf, sendcount, sendtype, block_at(recvbuf, static_cast<std::size_t>(me), recvcount, recvtype),
               recvcount, recvtype);
  }
}

Status gather(Runtime& rt, ftmpi_comm_s* comm, const void* sendbuf, std::size_t sendcount, const Datatype* sendtype,
              void* recvbuf, std::size_t recvcount, const Datatype* recvtype, int root) {
  Schedule s(comm);
  build_gather(s, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root);
  return run(rt, s);
}

}  // namespace ftmpi::coll
