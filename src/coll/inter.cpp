// Intercommunicator collectives as a sequence of schedules (see coll/inter.h).
#include "coll/inter.h"

#include <functional>
#include <utility>
#include <vector>

#include "coll/builders.h"
#include "coll/schedule.h"

namespace ftmpi::coll {

namespace {

// Room for `count` elements of `type` (true extent, lower bound respected): at() is the buffer's origin.
class TempBuf {
 public:
  TempBuf(std::size_t count, const ftmpi_datatype_s* type) {
    const std::ptrdiff_t n = static_cast<std::ptrdiff_t>(count);
    const std::ptrdiff_t bytes = n > 0 ? (n - 1) * type->extent + type->true_extent : 0;
    bytes_.resize(static_cast<std::size_t>(bytes > 0 ? bytes : 1));
    origin_ = bytes_.data() - type->true_lb;
  }
  void* at() { return origin_; }

 private:
  std::vector<std::byte> bytes_;
  std::byte* origin_;
};

// The schedules of one collective, built and run one after the other (a phase is built only when the one
// before it finished: builders may copy local data at build time, which must see the earlier phases'
// results). A failed phase does not stop the later ones: a leader whose exchange with the remote group
// failed still runs the local phases its group waits in (with undefined data, as MPI allows after an
// error), so no member of a live group hangs; every phase is built, so the tag counters stay aligned. The
// outcome is the first error.
class Phases {
 public:
  using Build = std::function<void(Schedule&)>;
  Phases(Runtime& rt, ftmpi_comm_s* comm) : rt_(rt), comm_(comm) {}
  // A phase on the intercommunicator (peers are remote ranks).
  void inter(Build b) { list_.push_back({comm_, std::move(b)}); }
  // A phase on this group's intracommunicator.
  void local(Build b) { list_.push_back({comm_->local_comm, std::move(b)}); }
  Status run() {
    if (comm_->revoked.load(std::memory_order_acquire))
      return Status(Errc::revoked, "the intercommunicator was revoked");
    Status first;
    for (auto& [c, build] : list_) {
      Schedule s(c);
      build(s);
      Status st = coll::run(rt_, s);
      if (first.ok() && !st.ok()) first = std::move(st);
    }
    return first;
  }

 private:
  Runtime& rt_;
  ftmpi_comm_s* comm_;
  std::vector<std::pair<ftmpi_comm_s*, Build>> list_;
};

bool leader(const ftmpi_comm_s* comm) { return comm->rank == 0; }
int remote_size(const ftmpi_comm_s* comm) { return comm->peer_size(); }

}  // namespace

Status inter_barrier(Runtime& rt, ftmpi_comm_s* comm) {
  Phases p(rt, comm);
  p.local([](Schedule& s) { build_barrier(s); });
  p.inter([comm](Schedule& x) {
    if (!leader(comm)) return;
    x.recv_bytes(0, x.scratch(0), 0);
    x.send_bytes(0, x.scratch(0), 0);
  });
  p.local([](Schedule& s) { build_barrier(s); });
  return p.run();
}

Status inter_bcast(Runtime& rt, ftmpi_comm_s* comm, void* buf, std::size_t count, const ftmpi_datatype_s* type,
                   int root) {
  Phases p(rt, comm);
  p.inter([=](Schedule& x) {
    if (root == kInterRootHere) x.send(0, buf, count, type);
    if (root >= 0 && leader(comm)) x.recv(root, buf, count, type);
  });
  if (root >= 0) p.local([=](Schedule& s) { build_bcast(s, buf, count, type, 0); });
  return p.run();
}

Status inter_reduce(Runtime& rt, ftmpi_comm_s* comm, const void* sendbuf, void* recvbuf, std::size_t count,
                    const ftmpi_datatype_s* type, const ftmpi_op_s* op, int root) {
  Phases p(rt, comm);
  TempBuf tmp(leader(comm) ? count : 0, type);
  void* t = tmp.at();
  if (root >= 0) p.local([=](Schedule& s) { build_reduce(s, sendbuf, t, count, type, op, 0); });
  p.inter([=](Schedule& x) {
    if (root == kInterRootHere) x.recv(0, recvbuf, count, type);
    if (root >= 0 && leader(comm)) x.send(root, t, count, type);
  });
  return p.run();
}

Status inter_allreduce(Runtime& rt, ftmpi_comm_s* comm, const void* sendbuf, void* recvbuf, std::size_t count,
                       const ftmpi_datatype_s* type, const ftmpi_op_s* op) {
  Phases p(rt, comm);
  TempBuf tmp(leader(comm) ? count : 0, type);
  void* t = tmp.at();
  p.local([=](Schedule& s) { build_reduce(s, sendbuf, t, count, type, op, 0); });
  p.inter([=](Schedule& x) {
    if (!leader(comm)) return;
    x.recv(0, recvbuf, count, type);
    x.send(0, t, count, type);
  });
  p.local([=](Schedule& s) { build_bcast(s, recvbuf, count, type, 0); });
  return p.run();
}

Status inter_gather(Runtime& rt, ftmpi_comm_s* comm, const void* sendbuf, std::size_t sendcount,
                    const ftmpi_datatype_s* sendtype, void* recvbuf, std::size_t recvcount,
                    const ftmpi_datatype_s* recvtype, int root) {
  Phases p(rt, comm);
  const std::size_t all = sendcount * static_cast<std::size_t>(comm->size);
  const std::size_t incoming = recvcount * static_cast<std::size_t>(remote_size(comm));
  TempBuf tmp(leader(comm) ? all : 0, sendtype);
  void* t = tmp.at();
  if (root >= 0)
    p.local([=](Schedule& s) { build_gather(s, sendbuf, sendcount, sendtype, t, sendcount, sendtype, 0); });
  p.inter([=](Schedule& x) {
    if (root == kInterRootHere) x.recv(0, recvbuf, incoming, recvtype);
    if (root >= 0 && leader(comm)) x.send(root, t, all, sendtype);
  });
  return p.run();
}

Status inter_scatter(Runtime& rt, ftmpi_comm_s* comm, const void* sendbuf, std::size_t sendcount,
                     const ftmpi_datatype_s* sendtype, void* recvbuf, std::size_t recvcount,
                     const ftmpi_datatype_s* recvtype, int root) {
  Phases p(rt, comm);
  const std::size_t all = recvcount * static_cast<std::size_t>(comm->size);
  const std::size_t outgoing = sendcount * static_cast<std::size_t>(remote_size(comm));
  TempBuf tmp(leader(comm) ? all : 0, recvtype);
  void* t = tmp.at();
  p.inter([=](Schedule& x) {
    if (root == kInterRootHere) x.send(0, sendbuf, outgoing, sendtype);
    if (root >= 0 && leader(comm)) x.recv(root, t, all, recvtype);
  });
  if (root >= 0)
    p.local([=](Schedule& s) { build_scatter(s, t, recvcount, recvtype, recvbuf, recvcount, recvtype, 0); });
  return p.run();
}

Status inter_allgather(Runtime& rt, ftmpi_comm_s* comm, const void* sendbuf, std::size_t sendcount,
                       const ftmpi_datatype_s* sendtype, void* recvbuf, std::size_t recvcount,
                       const ftmpi_datatype_s* recvtype) {
  Phases p(rt, comm);
  const std::size_t all = sendcount * static_cast<std::size_t>(comm->size);
  const std::size_t incoming = recvcount * static_cast<std::size_t>(remote_size(comm));
  TempBuf tmp(leader(comm) ? all : 0, sendtype);
  void* t = tmp.at();
  p.local([=](Schedule& s) { build_gather(s, sendbuf, sendcount, sendtype, t, sendcount, sendtype, 0); });
  p.inter([=](Schedule& x) {
    if (!leader(comm)) return;
    x.recv(0, recvbuf, incoming, recvtype);
    x.send(0, t, all, sendtype);
  });
  p.local([=](Schedule& s) { build_bcast(s, recvbuf, incoming, recvtype, 0); });
  return p.run();
}

}  // namespace ftmpi::coll
