// Allgather (tuning.h chooses):
//  * Recursive doubling (p a power of two, small results): in round k every rank swaps with rank^2^k the
//    2^k blocks its group already holds; the blocks of a group are adjacent in recvbuf, so each round is
//    one send and one receive of a contiguous range. log2 p rounds.
//  * Ring: each rank first places its own block in recvbuf (unless MPI_IN_PLACE), then in p-1 rounds
//    passes to its right neighbour the block it received in the previous round and receives the next one
//    from its left neighbour. Bandwidth-optimal; p-1 latency terms.
#include "coll/builders.h"
#include "runtime/runtime.h"
#include "coll/coll.h"
#include "coll/local_copy.h"
#include "coll/schedule.h"
#include "coll/tuning.h"

namespace ftmpi::coll {

static void place_own_block(const void* sendbuf, std::size_t sendcount, const Datatype* sendtype, void* recvbuf,
                            std::size_t recvcount, const Datatype* recvtype, int me) {
  if (!is_in_place(sendbuf)) {
    copy_typed(sendbuf, sendcount, sendtype, block_at(recvbuf, static_cast<std::size_t>(me), recvcount, recvtype),
               recvcount, recvtype);
  }
}

void build_allgather_ring(Schedule& s, const void* sendbuf, std::size_t sendcount, const Datatype* sendtype,
                          void* recvbuf, std::size_t recvcount, const Datatype* recvtype) {
  const int p = s.comm()->size, me = s.comm()->rank;
  place_own_block(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, me);
  const int right = (me + 1) % p, left = (me - 1 + p) % p;
  for (int i = 0; i < p - 1; ++i) {
    const auto out = static_cast<std::size_t>((me - i + p) % p);
    const auto in = static_cast<std::size_t>((me - i - 1 + p) % p);
    s.send(right, block_at(recvbuf, out, recvcount, recvtype), recvcount, recvtype);
    s.recv(left, block_at(recvbuf, in, recvcount, recvtype), recvcount, recvtype);
    s.fence();
  }
}

void build_allgather_recursive_doubling(Schedule& s, const void* sendbuf, std::size_t sendcount,
                                        const Datatype* sendtype, void* recvbuf, std::size_t recvcount,
                                        const Datatype* recvtype) {
  const int p = s.comm()->size, me = s.comm()->rank;
  place_own_block(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, me);
  for (int mask = 1; mask < p; mask <<= 1) {
    const int peer = me ^ mask;
    const auto mine = static_cast<std::size_t>(me & ~(mask - 1));
    const auto theirs = static_cast<std::size_t>(peer & ~(mask - 1));
    const std::size_t n = recvcount * static_cast<std::size_t>(mask);
    s.send(peer, block_at(recvbuf, mine, recvcount, recvtype), n, recvtype);
    s.recv(peer, block_at(recvbuf, theirs, recvcount, recvtype), n, recvtype);
    s.fence();
  }
}

void build_allgather(Schedule& s, const void* sendbuf, std::size_t sendcount, const Datatype* sendtype,
                     void* recvbuf, std::size_t recvcount, const Datatype* recvtype) {
  const int p = s.comm()->size;
  const std::size_t total = dt::packed_size(recvtype, recvcount) * static_cast<std::size_t>(p);
  if ((p & (p - 1)) == 0 && total <= tuning::kRecursiveDoublingAllgatherMaxTotal) {
    build_allgather_recursive_doubling(s, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype);
  } else {
    build_allgather_ring(s, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype);
  }
}

// Allgatherv: ring, with each block at its own displacement and count.
void build_allgatherv(Schedule& s, const void* sendbuf, std::size_t sendcount, const Datatype* sendtype,
                      void* recvbuf, IndexArray recvcounts, IndexArray displs, const Datatype* recvtype) {
  const int p = s.comm()->size, me = s.comm()->rank;
  auto block = [&](int i) { return static_cast<char*>(recvbuf) + static_cast<std::ptrdiff_t>(displs[i]) * recvtype->extent; };
  auto count = [&](int i) { return static_cast<std::size_t>(recvcounts[i]); };
  if (!is_in_place(sendbuf)) copy_typed(sendbuf, sendcount, sendtype, block(me), count(me), recvtype);
  const int right = (me + 1) % p, left = (me - 1 + p) % p;
  for (int i = 0; i < p - 1; ++i) {
    const int out = (me - i + p) % p, in = (me - i - 1 + p) % p;
    s.send(right, block(out), count(out), recvtype);
    s.recv(left, block(in), count(in), recvtype);
    s.fence();
  }
}

Status allgather(Runtime& rt, ftmpi_comm_s* comm, const void* sendbuf, std::size_t sendcount,
                 const Datatype* sendtype, void* recvbuf, std::size_t recvcount, const Datatype* recvtype) {
  Schedule s(comm, &rt.scratch());
  s.run_immediately(rt);  // build-time copies come before the first step (or touch no pending buffer)
  build_allgather(s, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype);
  return run(rt, s);
}

}  // namespace ftmpi::coll
