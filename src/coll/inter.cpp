// Intercommunicator Barrier, Bcast, Reduce, Allreduce, Gather, Scatter and Allgather (see coll/inter.h):
// local phases with the intracommunicator builders, one exchange between the leaders (or with the root).
#include "coll/inter.h"

#include "coll/builders.h"
#include "coll/schedule.h"

namespace ftmpi::coll {

namespace {
bool leader(const ftmpi_comm_s* comm) { return comm->rank == 0; }
std::size_t local_size(const ftmpi_comm_s* comm) { return static_cast<std::size_t>(comm->size); }
std::size_t remote_size(const ftmpi_comm_s* comm) { return static_cast<std::size_t>(comm->peer_size()); }
}  // namespace

void inter_barrier(InterPlan& p) {
  ftmpi_comm_s* comm = p.comm();
  p.local([](Schedule& s) { build_barrier(s); });
  p.inter([comm](Schedule& x) {
    if (!leader(comm)) return;
    x.recv_bytes(0, x.scratch(0), 0);
    x.send_bytes(0, x.scratch(0), 0);
  });
  p.local([](Schedule& s) { build_barrier(s); });
}

void inter_bcast(InterPlan& p, void* buf, std::size_t count, const Dt* type, int root) {
  ftmpi_comm_s* comm = p.comm();
  p.inter([=](Schedule& x) {
    if (root == kInterRootHere) x.send(0, buf, count, type);
    if (root >= 0 && leader(comm)) x.recv(root, buf, count, type);
  });
  if (root >= 0) p.local([=](Schedule& s) { build_bcast(s, buf, count, type, 0); });
}

void inter_reduce(InterPlan& p, const void* sendbuf, void* recvbuf, std::size_t count, const Dt* type,
                  const ftmpi_op_s* op, int root) {
  ftmpi_comm_s* comm = p.comm();
  void* t = p.scratch(leader(comm) && root >= 0 ? count : 0, type);
  if (root >= 0) p.local([=](Schedule& s) { build_reduce(s, sendbuf, t, count, type, op, 0); });
  p.inter([=](Schedule& x) {
    if (root == kInterRootHere) x.recv(0, recvbuf, count, type);
    if (root >= 0 && leader(comm)) x.send(root, t, count, type);
  });
}

void inter_allreduce(InterPlan& p, const void* sendbuf, void* recvbuf, std::size_t count, const Dt* type,
                     const ftmpi_op_s* op) {
  ftmpi_comm_s* comm = p.comm();
  void* t = p.scratch(leader(comm) ? count : 0, type);
  p.local([=](Schedule& s) { build_reduce(s, sendbuf, t, count, type, op, 0); });
  p.inter([=](Schedule& x) {
    if (!leader(comm)) return;
    x.recv(0, recvbuf, count, type);
    x.send(0, t, count, type);
  });
  p.local([=](Schedule& s) { build_bcast(s, recvbuf, count, type, 0); });
}

void inter_gather(InterPlan& p, const void* sendbuf, std::size_t sendcount, const Dt* sendtype, void* recvbuf,
                  std::size_t recvcount, const Dt* recvtype, int root) {
  ftmpi_comm_s* comm = p.comm();
  const std::size_t all = sendcount * local_size(comm);
  const std::size_t incoming = recvcount * remote_size(comm);
  void* t = p.scratch(leader(comm) && root >= 0 ? all : 0, sendtype);
  if (root >= 0)
    p.local([=](Schedule& s) { build_gather(s, sendbuf, sendcount, sendtype, t, sendcount, sendtype, 0); });
  p.inter([=](Schedule& x) {
    if (root == kInterRootHere) x.recv(0, recvbuf, incoming, recvtype);
    if (root >= 0 && leader(comm)) x.send(root, t, all, sendtype);
  });
}

void inter_scatter(InterPlan& p, const void* sendbuf, std::size_t sendcount, const Dt* sendtype, void* recvbuf,
                   std::size_t recvcount, const Dt* recvtype, int root) {
  ftmpi_comm_s* comm = p.comm();
  const std::size_t all = recvcount * local_size(comm);
  const std::size_t outgoing = sendcount * remote_size(comm);
  void* t = p.scratch(leader(comm) && root >= 0 ? all : 0, recvtype);
  p.inter([=](Schedule& x) {
    if (root == kInterRootHere) x.send(0, sendbuf, outgoing, sendtype);
    if (root >= 0 && leader(comm)) x.recv(root, t, all, recvtype);
  });
  if (root >= 0)
    p.local([=](Schedule& s) { build_scatter(s, t, recvcount, recvtype, recvbuf, recvcount, recvtype, 0); });
}

void inter_allgather(InterPlan& p, const void* sendbuf, std::size_t sendcount, const Dt* sendtype, void* recvbuf,
                     std::size_t recvcount, const Dt* recvtype) {
  ftmpi_comm_s* comm = p.comm();
  const std::size_t all = sendcount * local_size(comm);
  const std::size_t incoming = recvcount * remote_size(comm);
  void* t = p.scratch(leader(comm) ? all : 0, sendtype);
  p.local([=](Schedule& s) { build_gather(s, sendbuf, sendcount, sendtype, t, sendcount, sendtype, 0); });
  p.inter([=](Schedule& x) {
    if (!leader(comm)) return;
    x.recv(0, recvbuf, incoming, recvtype);
    x.send(0, t, all, sendtype);
  });
  p.local([=](Schedule& s) { build_bcast(s, recvbuf, incoming, recvtype, 0); });
}

}  // namespace ftmpi::coll
