// Small collectives through the shared-memory area: flat fan-in / fan-out (algorithms and their safety
// argument in coll/shm_area.h).
#include "coll/shm_coll.h"

#include <cstring>

#include "coll/schedule.h"
#include "coll/shm_area.h"
#include "runtime/runtime.h"

namespace ftmpi::coll {
namespace {

void pack_into(const void* src, std::size_t count, const ftmpi_datatype_s* t, std::byte* dst) {
  if (t->contiguous) std::memcpy(dst, src, t->size * count);
  else dt::pack(src, count, t, dst);
}
void unpack_from(const std::byte* src, std::size_t count, const ftmpi_datatype_s* t, void* dst) {
  if (t->contiguous) std::memcpy(dst, src, t->size * count);
  else dt::unpack(src, t->size * count, t, dst);
}

// The area for a call of `bytes` packed bytes; nullptr (with ok) when the call is not for it.
Result<ShmArea*> area_for(Runtime& rt, ftmpi_comm_s* comm, std::size_t bytes) {
  if (bytes > kShmMaxBytes) return static_cast<ShmArea*>(nullptr);
  return shm_area_for(rt, comm);
}

// Start op s: fails at once after an earlier failure, on a revoked communicator or one with a known failure
// (the rule of a point-to-point collective, coll/schedule.cpp).
Status start(Runtime& rt, ftmpi_comm_s* comm, ShmArea& a, std::uint64_t s) {
  // Revoked first: after MPIX_Comm_revoke every operation reports MPI_ERR_REVOKED, also on an area that
  // gave up earlier with a failure (ft_mpich_compat: an Allreduce fails with PROC_FAILED, the rank revokes,
  // the next Bcast must say REVOKED, as the point-to-point path does).
  if (comm->revoked.load(std::memory_order_acquire))
    return a.give_up(s, Status(Errc::revoked, "the communicator has been revoked"));
  if (!a.broken().ok()) return a.give_up(s, a.broken());
  if (rt.engine().comm_known_failed(comm))
    return a.give_up(s, Status(Errc::proc_failed, "a member of the communicator has failed"));
  return {};
}

// Every call's opening: the area for `bytes` packed bytes and a new op number `s`, started. nullptr (with ok)
// when the call is not for the area; an error when the area cannot be had or the op cannot start.
Result<ShmArea*> open_op(Runtime& rt, ftmpi_comm_s* comm, std::size_t bytes, std::uint64_t& s) {
  auto got = area_for(rt, comm, bytes);
  if (!got.ok() || *got == nullptr) return got;
  s = (*got)->begin_op();
  FTMPI_TRY(start(rt, comm, **got, s));
  return got;
}

// A reduction's contribution: waits for op s's window, then packs this rank's data (recvbuf if in place)
// into its in-slot, which it returns.
Result<ShmBuf*> contribute(Runtime& rt, ftmpi_comm_s* comm, ShmArea& a, std::uint64_t s, const void* sendbuf,
                           void* recvbuf, std::size_t count, const ftmpi_datatype_s* type) {
  if (Status st = a.window(rt, comm, s); !st.ok()) return a.give_up(s, st);
  a.prefetch_own_slot(s);
  ShmBuf& mine = a.of(a.rank()).in[s % kShmSlots];
  pack_into(is_in_place(sendbuf) ? recvbuf : sendbuf, count, type, mine.data);
  return &mine;
}

// Root `root` (the leader) collects every member's in[s] and reduces them in rank order into `acc`
// (x_0 op (x_1 op (... op x_{p-1}))); its own contribution is `mine` (packed).
Status gather_reduce(Runtime& rt, ftmpi_comm_s* comm, ShmArea& a, std::uint64_t s, const std::byte* mine,
                     std::byte* acc, std::size_t count, const ftmpi_datatype_s* type, const ftmpi_op_s* op) {
  const int p = a.size(), me = a.rank();
  const std::size_t i = s % kShmSlots;
  for (int r = 0; r < p; ++r)
    if (r != me) a.prefetch_slot_of(r, s);
  for (int r = 0; r < p; ++r)
    if (r != me) FTMPI_TRY(a.wait_for(rt, comm, r, a.of(r).in[i].seq, s));
  if (op == nullptr) return {};
  const std::size_t bytes = type->size * count;
  auto x = [&](int r) { return r == me ? mine : a.of(r).in[i].data; };
  std::memcpy(acc, x(p - 1), bytes);
  for (int r = p - 2; r >= 0; --r) dt::apply_packed(op, x(r), acc, count, type);
  return {};
}

// The last arriver's reduction (shm_area.h "Last arriver"): every member's in[s] is there, published by the
// release sequence of the arrivals counter. Rank order, as gather_reduce.
void reduce_all(ShmArea& a, std::uint64_t s, std::byte* acc, std::size_t count, const ftmpi_datatype_s* type,
                const ftmpi_op_s* op) {
  const int p = a.size();
  const std::size_t i = s % kShmSlots;
  const std::size_t bytes = type->size * count;
  std::memcpy(acc, a.of(p - 1).in[i].data, bytes);
  for (int r = p - 2; r >= 0; --r) dt::apply_packed(op, a.of(r).in[i].data, acc, count, type);
}

// An Allreduce whose contributions fit twice in the counted line (shm_area.h "In the line"): counted op c's
// contributions go to half c % 2, member r's at [r b, (r + 1) b) of it; every member arrives, waits until
// all did (as a Barrier) and reduces them itself, in rank order (as reduce_all): the same bits everywhere.
Status allreduce_in_line(Runtime& rt, ftmpi_comm_s* comm, ShmArea& a, std::uint64_t s, const void* sendbuf,
                         void* recvbuf, std::size_t count, const ftmpi_datatype_s* type, const ftmpi_op_s* op) {
  const int p = a.size();
  const std::size_t b = type->size * count;
  const std::uint64_t c = a.begin_counted();
  ShmCountedLine& line = a.header().counted;
  std::byte* half = line.bytes + (c % 2) * kShmLineHalf;
  pack_into(is_in_place(sendbuf) ? recvbuf : sendbuf, count, type, half + a.rank() * b);
  if (!a.arrive(c)) {
    if (Status st = a.wait_for(rt, comm, 0, line.arrivals, c * static_cast<std::uint64_t>(p)); !st.ok())
      return a.give_up(s, st);
  } else {
    std::atomic_thread_fence(std::memory_order_seq_cst);  // as shm_barrier
    a.ring_others();
  }
  alignas(16) std::byte acc[kShmLineHalf];
  std::memcpy(acc, half + (p - 1) * b, b);
  for (int r = p - 2; r >= 0; --r) dt::apply_packed(op, half + r * b, acc, count, type);
  unpack_from(acc, count, type, recvbuf);
  a.finish(s);
  return Status{};
}

}  // namespace

std::optional<Status> shm_bcast(Runtime& rt, ftmpi_comm_s* comm, void* buf, std::size_t count,
                                const ftmpi_datatype_s* type, int root) {
  std::uint64_t s = 0;
  auto got = open_op(rt, comm, dt::packed_size(type, count), s);
  if (!got.ok()) return got.status();
  if (*got == nullptr) return std::nullopt;
  ShmArea& a = **got;
  const std::size_t i = s % kShmSlots;
  Status st;
  if (a.rank() == root) {
    if (!(st = a.window(rt, comm, s)).ok()) return a.give_up(s, st);
    a.prefetch_own_slot(s);
    ShmBuf& b = a.of(root).in[i];
    pack_into(buf, count, type, b.data);
    b.bytes = static_cast<std::uint32_t>(type->size * count);
    a.publish(b.seq, s, -1);
  } else {
    ShmBuf& b = a.of(root).in[i];
    a.prefetch_slot_of(root, s, kShmReadPrefetchSlots);
    if (!(st = a.wait_for(rt, comm, root, b.seq, s)).ok()) return a.give_up(s, st);
    const std::size_t mine = type->size * count;
    if (b.bytes == mine && type->contiguous) std::memcpy(buf, b.data, mine);
    else dt::unpack(b.data, b.bytes < mine ? b.bytes : mine, type, buf);
    // An erroneous program (type signatures that differ): the bytes that fit, and MPI_ERR_TRUNCATE (longer)
    // or MPI_ERR_OTHER (shorter) as the point-to-point algorithm reports it (coll_basic test_mismatch).
    if (b.bytes > mine) st = Status(Errc::truncate, "Bcast: the root sent more data than this rank receives");
    else if (b.bytes < mine)  // as a tree receive reports it (coll/schedule.h, recv_exact)
      st = Status(Errc::other, "Bcast: collective size mismatch: the root sent less data than this rank receives");
  }
  a.finish(s);
  return st;
}

std::optional<Status> shm_reduce(Runtime& rt, ftmpi_comm_s* comm, const void* sendbuf, void* recvbuf,
                                 std::size_t count, const ftmpi_datatype_s* type, const ftmpi_op_s* op, int root) {
  std::uint64_t s = 0;
  auto got = open_op(rt, comm, dt::packed_size(type, count), s);
  if (!got.ok()) return got.status();
  if (*got == nullptr) return std::nullopt;
  ShmArea& a = **got;
  Status st;
  auto in = contribute(rt, comm, a, s, sendbuf, recvbuf, count, type);
  if (!in.ok()) return in.status();
  ShmBuf& mine = **in;
  if (a.rank() != root) {
    a.publish(mine.seq, s, root);
  } else {
    std::byte* acc = a.of(root).out[s % kShmOutSlots].data;
    if (!(st = gather_reduce(rt, comm, a, s, mine.data, acc, count, type, op)).ok()) return a.give_up(s, st);
    unpack_from(acc, count, type, recvbuf);
  }
  a.finish(s);
  return Status{};
}

std::optional<Status> shm_allreduce(Runtime& rt, ftmpi_comm_s* comm, const void* sendbuf, void* recvbuf,
                                    std::size_t count, const ftmpi_datatype_s* type, const ftmpi_op_s* op) {
  std::uint64_t s = 0;
  auto got = open_op(rt, comm, dt::packed_size(type, count), s);
  if (!got.ok()) return got.status();
  if (*got == nullptr) return std::nullopt;
  ShmArea& a = **got;
  Status st;
  if (a.fits_in_line(type->size * count)) return allreduce_in_line(rt, comm, a, s, sendbuf, recvbuf, count, type, op);
  auto in = contribute(rt, comm, a, s, sendbuf, recvbuf, count, type);
  if (!in.ok()) return in.status();
  ShmBuf& out = a.of(0).out[s % kShmOutSlots];
  if (a.arrive(a.begin_counted())) {
    reduce_all(a, s, out.data, count, type, op);
    a.publish(out.seq, s, -1);
  } else if (!(st = a.wait_for(rt, comm, 0, out.seq, s)).ok()) {
    return a.give_up(s, st);
  }
  unpack_from(out.data, count, type, recvbuf);
  a.finish(s);
  return Status{};
}

std::optional<Status> shm_barrier(Runtime& rt, ftmpi_comm_s* comm) {
  std::uint64_t s = 0;
  auto got = open_op(rt, comm, 0, s);
  if (!got.ok()) return got.status();
  if (*got == nullptr) return std::nullopt;
  ShmArea& a = **got;
  // No in-slot is written: no window. The release is the last arrival itself (shm_area.h "In the line").
  const std::uint64_t c = a.begin_counted();
  std::atomic<std::uint64_t>& arrivals = a.header().counted.arrivals;
  if (a.arrive(c)) {
    std::atomic_thread_fence(std::memory_order_seq_cst);  // the Dekker side of "Waiting" (cheap after the add)
    a.ring_others();
  } else if (Status st = a.wait_for(rt, comm, 0, arrivals, c * static_cast<std::uint64_t>(a.size())); !st.ok()) {
    return a.give_up(s, st);
  }
  a.finish(s);
  return Status{};
}

}  // namespace ftmpi::coll
