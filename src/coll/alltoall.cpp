// Alltoall, Alltoallv, Alltoallw.
//  * Post-all (small blocks, and every v/w form): every send and receive posted at once, peers visited in
//    the order me+1, me+2, ... (receives from me-1, me-2, ...) so that ranks do not all hit rank 0 first.
//  * Pairwise (large blocks): p-1 rounds; in round i a rank sends to me+i and receives from me-i, then
//    waits, which bounds the data in flight to one block each way.
//  * Bruck (tiny blocks, many ranks): ceil(log2 p) rounds instead of p-1 messages. The packed blocks are
//    rotated so that slot i holds the block for rank me+i; in round k every slot whose index has bit k set
//    moves to rank me+2^k (all such slots in one message), which after the last round leaves in slot i the
//    block from rank me-i; an inverse rotation puts them in place. Each block travels up to log2 p times,
//    so it only pays while latency dominates.
// MPI_IN_PLACE (sendbuf): the data to send is in recvbuf, described by the receive arguments; it is copied
// to a scratch buffer of the same layout first, so receives may overwrite recvbuf at once.
// The v/w forms skip blocks of zero bytes on both sides (type signatures match pairwise).
#include <algorithm>
#include <cstring>

#include "coll/builders.h"
#include "coll/local_copy.h"
#include "coll/schedule.h"
#include "coll/tuning.h"

namespace ftmpi::coll {

namespace {

// The blocks of an alltoall as (address, count, type) per peer, on both sides.
struct Side {
  const char* base;
  IndexArray counts;
  IndexArray displs;           // in elements of `type`, or bytes when `byte_displs`
  const Dt* type;              // all peers (unless `types`)
  const Dt* const* types;      // per peer (Alltoallw)
  std::size_t fixed_count;     // Alltoall: every peer gets fixed_count, blocks adjacent
  bool byte_displs = false;

  const Dt* type_of(int i) const { return types ? types[i] : type; }
  std::size_t count_of(int i) const { return counts ? static_cast<std::size_t>(counts[i]) : fixed_count; }
  std::ptrdiff_t offset_of(int i) const {
    if (!counts) return static_cast<std::ptrdiff_t>(static_cast<std::size_t>(i) * fixed_count) * type->extent;
    return byte_displs ? displs[i] : static_cast<std::ptrdiff_t>(displs[i]) * type_of(i)->extent;
  }
  const char* block(int i) const { return base + offset_of(i); }
  std::size_t bytes_of(int i) const { return dt::packed_size(type_of(i), count_of(i)); }
};

// In-place: copy every receive block to a scratch buffer with the same layout; return it as a send side.
Side shadow_of_recv(Schedule& s, const Side& recv, int p) {
  std::ptrdiff_t lo = 0, hi = 0;
  bool any = false;
  for (int i = 0; i < p; ++i) {
    const std::size_t n = recv.count_of(i);
    if (n == 0) continue;
    const Dt* t = recv.type_of(i);
    const std::ptrdiff_t b = recv.offset_of(i) + t->true_lb;
    const std::ptrdiff_t e = b + t->true_extent + static_cast<std::ptrdiff_t>(n - 1) * t->extent;
    lo = any ? std::min(lo, b) : b;
    hi = any ? std::max(hi, e) : e;
    any = true;
  }
  char* shadow = reinterpret_cast<char*>(s.scratch(static_cast<std::size_t>(hi - lo))) - lo;
  Side out = recv;
  for (int i = 0; i < p; ++i) {
    const std::size_t n = recv.count_of(i);
    if (n > 0) copy_typed(recv.block(i), n, recv.type_of(i), shadow + recv.offset_of(i), n, recv.type_of(i));
  }
  out.base = shadow;
  return out;
}

void post_all(Schedule& s, const Side& snd, const Side& rcv, bool skip_empty) {
  const int p = s.comm()->size, me = s.comm()->rank;
  copy_typed(snd.block(me), snd.count_of(me), snd.type_of(me), const_cast<char*>(rcv.block(me)), rcv.count_of(me),
             rcv.type_of(me));
  for (int i = 1; i < p; ++i) {
    const int from = (me - i + p) % p;
    if (!skip_empty || rcv.bytes_of(from) > 0)
      s.recv(from, const_cast<char*>(rcv.block(from)), rcv.count_of(from), rcv.type_of(from));
  }
  for (int i = 1; i < p; ++i) {
    const int to = (me + i) % p;
    if (!skip_empty || snd.bytes_of(to) > 0) s.send(to, snd.block(to), snd.count_of(to), snd.type_of(to));
  }
}

void pairwise(Schedule& s, const Side& snd, const Side& rcv) {
  const int p = s.comm()->size, me = s.comm()->rank;
  copy_typed(snd.block(me), snd.count_of(me), snd.type_of(me), const_cast<char*>(rcv.block(me)), rcv.count_of(me),
             rcv.type_of(me));
  for (int i = 1; i < p; ++i) {
    const int to = (me + i) % p, from = (me - i + p) % p;
    s.send(to, snd.block(to), snd.count_of(to), snd.type_of(to));
    s.recv(from, const_cast<char*>(rcv.block(from)), rcv.count_of(from), rcv.type_of(from));
    s.fence();
  }
}

void bruck(Schedule& s, const Side& snd, const Side& rcv) {
  const int p = s.comm()->size, me = s.comm()->rank;
  const std::size_t blk = rcv.bytes_of(0);
  std::byte* slots = s.scratch(blk * static_cast<std::size_t>(p));
  for (int i = 0; i < p; ++i) {  // slot i: my block for rank me+i
    const int to = (me + i) % p;
    dt::pack(snd.block(to), snd.count_of(to), snd.type_of(to), slots + static_cast<std::size_t>(i) * blk);
  }
  std::byte* out = s.scratch(blk * static_cast<std::size_t>((p + 1) / 2));
  std::byte* in = s.scratch(blk * static_cast<std::size_t>((p + 1) / 2));
  for (int bit = 1; bit < p; bit <<= 1) {
    std::size_t n = 0;
    for (int i = 0; i < p; ++i) n += (i & bit) ? 1 : 0;
    s.local([=] {
      std::size_t j = 0;
      for (int i = 0; i < p; ++i)
        if (i & bit) std::memcpy(out + blk * j++, slots + static_cast<std::size_t>(i) * blk, blk);
    });
    s.send_bytes((me + bit) % p, out, n * blk);
    s.recv_bytes((me - bit + p) % p, in, n * blk);
    s.local([=] {
      std::size_t j = 0;
      for (int i = 0; i < p; ++i)
        if (i & bit) std::memcpy(slots + static_cast<std::size_t>(i) * blk, in + blk * j++, blk);
    });
  }
  s.local([=] {  // slot i now holds the block from rank me-i
    for (int i = 0; i < p; ++i) {
      const int from = (me - i + p) % p;
      dt::unpack(slots + static_cast<std::size_t>(i) * blk, blk, rcv.type_of(from),
                 const_cast<char*>(rcv.block(from)));
    }
  });
}

Side fixed(const void* buf, std::size_t count, const Dt* type) {
  return Side{static_cast<const char*>(buf), nullptr, nullptr, type, nullptr, count};
}

Side send_side(Schedule& s, const void* sendbuf, const Side& snd, const Side& rcv) {
  return is_in_place(sendbuf) ? shadow_of_recv(s, rcv, s.comm()->size) : snd;
}

}  // namespace

void build_alltoall_post_all(Schedule& s, const void* sendbuf, std::size_t sendcount, const Dt* sendtype,
                             void* recvbuf, std::size_t recvcount, const Dt* recvtype) {
  const Side rcv = fixed(recvbuf, recvcount, recvtype);
  post_all(s, send_side(s, sendbuf, fixed(sendbuf, sendcount, sendtype), rcv), rcv, false);
}

void build_alltoall_pairwise(Schedule& s, const void* sendbuf, std::size_t sendcount, const Dt* sendtype,
                             void* recvbuf, std::size_t recvcount, const Dt* recvtype) {
  const Side rcv = fixed(recvbuf, recvcount, recvtype);
  pairwise(s, send_side(s, sendbuf, fixed(sendbuf, sendcount, sendtype), rcv), rcv);
}

void build_alltoall_bruck(Schedule& s, const void* sendbuf, std::size_t sendcount, const Dt* sendtype,
                          void* recvbuf, std::size_t recvcount, const Dt* recvtype) {
  const Side rcv = fixed(recvbuf, recvcount, recvtype);
  bruck(s, send_side(s, sendbuf, fixed(sendbuf, sendcount, sendtype), rcv), rcv);
}

void build_alltoall(Schedule& s, const void* sendbuf, std::size_t sendcount, const Dt* sendtype, void* recvbuf,
                    std::size_t recvcount, const Dt* recvtype) {
  const std::size_t blk = dt::packed_size(recvtype, recvcount);
  if (blk <= tuning::kAlltoallBruckMaxBlock && s.comm()->size >= tuning::kAlltoallBruckMinRanks) {
    build_alltoall_bruck(s, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype);
  } else if (blk <= tuning::kAlltoallPostAllMaxBlock) {
    build_alltoall_post_all(s, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype);
  } else {
    build_alltoall_pairwise(s, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype);
  }
}

void build_alltoallv(Schedule& s, const void* sendbuf, IndexArray sendcounts, IndexArray sdispls, const Dt* sendtype,
                     void* recvbuf, IndexArray recvcounts, IndexArray rdispls, const Dt* recvtype) {
  const Side rcv{static_cast<const char*>(recvbuf), recvcounts, rdispls, recvtype, nullptr, 0};
  const Side snd{static_cast<const char*>(sendbuf), sendcounts, sdispls, sendtype, nullptr, 0};
  post_all(s, send_side(s, sendbuf, snd, rcv), rcv, true);
}

void build_alltoallw(Schedule& s, const void* sendbuf, IndexArray sendcounts, IndexArray sdispls,
                     const Dt* const* sendtypes, void* recvbuf, IndexArray recvcounts, IndexArray rdispls,
                     const Dt* const* recvtypes) {
  const Side rcv{static_cast<const char*>(recvbuf), recvcounts, rdispls, nullptr, recvtypes, 0, true};
  const Side snd{static_cast<const char*>(sendbuf), sendcounts, sdispls, nullptr, sendtypes, 0, true};
  post_all(s, send_side(s, sendbuf, snd, rcv), rcv, true);
}

}  // namespace ftmpi::coll
