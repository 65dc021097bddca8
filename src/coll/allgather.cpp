// Allgather: ring. Each rank first places its own block in recvbuf (unless MPI_IN_PLACE), then in p-1
// rounds passes to its right neighbour the block it received in the previous round and receives the next
// one from its left neighbour. Bandwidth-optimal; p-1 latency terms.
#include "coll/builders.h"
#include "coll/coll.h"
#include "coll/local_copy.h"
#include "coll/schedule.h"

namespace ftmpi::coll {

void build_allgather(Schedule& s, const void* sendbuf, std::size_t sendcount,
                     const Datatype* sendtype, void* recvbuf, std::size_t recvcount, const Datatype* recvtype) {
  const int p = s.comm()->size, me = s.comm()->rank;
  if (!is_in_place(sendbuf)) {
    copy_typed(sendbuf, sendcount, sendtype, block_at(recvbuf, static_cast<std::size_t>(me), recvcount, recvtype),
               recvcount, recvtype);
  }
  const int right = (me + 1) % p, left = (me - 1 + p) % p;
  for (int i = 0; i < p - 1; ++i) {
    const auto out = static_cast<std::size_t>((me - i + p) % p);
    const auto in = static_cast<std::size_t>((me - i - 1 + p) % p);
    s.send(right, block_at(recvbuf, out, recvcount, recvtype), recvcount, recvtype);
    s.recv(left, block_at(recvbuf, in, recvcount, recvtype), recvcount, recvtype);
    s.fence();
  }
}

Status allgather(Runtime& rt, ftmpi_comm_s* comm, const void* sendbuf, std::size_t sendcount,
                 const Datatype* sendtype, void* recvbuf, std::size_t recvcount, const Datatype* recvtype) {
  Schedule s(comm);
  build_allgather(s, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype);
  return run(rt, s);
}

}  // namespace ftmpi::coll
