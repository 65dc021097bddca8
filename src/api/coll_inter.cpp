// Intercommunicator forms of Barrier, Bcast, Reduce, Allreduce, Gather, Scatter and Allgather
// (MPI-3.1 §5.2.2): argument checks, then the phased algorithm of coll/inter.h. Reached from the blocking
// functions of api/coll.cpp when their communicator is an intercommunicator. Roots: MPI_ROOT at the root,
// MPI_PROC_NULL at the other members of the root's group, the root's rank (in the remote group) elsewhere.
// MPI_IN_PLACE is not allowed on intercommunicators.
#include "api/coll_prepare.h"
#include "api/common.h"
#include "coll/inter.h"
#include "coll/schedule.h"
#include "datatype/op.h"

using ftmpi::Errc;
using ftmpi::Status;

namespace ftmpi::api {

namespace {

std::size_t sz(int n) { return static_cast<std::size_t>(n); }

Status check_data(const void* buf, int count, MPI_Datatype type) {
  if (coll::is_in_place(buf)) return Status(Errc::buffer, "MPI_IN_PLACE is not allowed on an intercommunicator");
  if (count < 0) return Status(Errc::count, "count must be non-negative");
  if (!valid_type(type)) return Status(Errc::type, "invalid or uncommitted datatype");
  if (!buf && count > 0 && type->size > 0 && type->true_lb == 0)
    return Status(Errc::buffer, "NULL buffer with a non-zero count");
  return {};
}

// MPI_ROOT, MPI_PROC_NULL or a rank of the remote group; the core's encoding of it.
Status check_root(int root, MPI_Comm comm) {
  if (root == MPI_ROOT || root == MPI_PROC_NULL) return {};
  if (root < 0 || root >= comm->peer_size())
    return Status(Errc::root, "root must be MPI_ROOT, MPI_PROC_NULL or a rank of the remote group");
  return {};
}

int core_root(int root) {
  if (root == MPI_ROOT) return coll::kInterRootHere;
  if (root == MPI_PROC_NULL) return coll::kInterRootIdle;
  return root;
}

Status check_op(MPI_Op op, MPI_Datatype type) {
  if (!op || op->magic != kMagicOp) return Status(Errc::op, "invalid reduction operation");
  return dt::check_op(op, type);
}

#define FTMPI_INTER_TRY(expr)                 \
  do {                                        \
    Status st_ = (expr);                      \
    if (!st_.ok()) return ret(comm, st_, fn); \
  } while (0)

}  // namespace

int inter_barrier(MPI_Comm comm, const char* fn) { return ret(comm, coll::inter_barrier(rt(), comm), fn); }

int inter_bcast(void* buf, int count, MPI_Datatype type, int root, MPI_Comm comm, const char* fn) {
  FTMPI_INTER_TRY(check_root(root, comm));
  if (root != MPI_PROC_NULL) FTMPI_INTER_TRY(check_data(buf, count, type));
  return ret(comm, coll::inter_bcast(rt(), comm, buf, sz(count), type, core_root(root)), fn);
}

int inter_reduce(const void* sendbuf, void* recvbuf, int count, MPI_Datatype type, MPI_Op op, int root,
                 MPI_Comm comm, const char* fn) {
  FTMPI_INTER_TRY(check_root(root, comm));
  if (root == MPI_ROOT) FTMPI_INTER_TRY(check_data(recvbuf, count, type));
  if (root >= 0) FTMPI_INTER_TRY(check_data(sendbuf, count, type));
  if (root != MPI_PROC_NULL) FTMPI_INTER_TRY(check_op(op, type));
  return ret(comm, coll::inter_reduce(rt(), comm, sendbuf, recvbuf, sz(count), type, op, core_root(root)), fn);
}

int inter_allreduce(const void* sendbuf, void* recvbuf, int count, MPI_Datatype type, MPI_Op op, MPI_Comm comm,
                    const char* fn) {
  FTMPI_INTER_TRY(check_data(sendbuf, count, type));
  FTMPI_INTER_TRY(check_data(recvbuf, count, type));
  FTMPI_INTER_TRY(check_op(op, type));
  return ret(comm, coll::inter_allreduce(rt(), comm, sendbuf, recvbuf, sz(count), type, op), fn);
}

int inter_gather(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf, int recvcount,
                 MPI_Datatype recvtype, int root, MPI_Comm comm, const char* fn) {
  FTMPI_INTER_TRY(check_root(root, comm));
  if (root == MPI_ROOT) FTMPI_INTER_TRY(check_data(recvbuf, recvcount, recvtype));
  if (root >= 0) FTMPI_INTER_TRY(check_data(sendbuf, sendcount, sendtype));
  return ret(comm,
             coll::inter_gather(rt(), comm, sendbuf, sz(sendcount), sendtype, recvbuf, sz(recvcount), recvtype,
                                core_root(root)),
             fn);
}

int inter_scatter(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf, int recvcount,
                  MPI_Datatype recvtype, int root, MPI_Comm comm, const char* fn) {
  FTMPI_INTER_TRY(check_root(root, comm));
  if (root == MPI_ROOT) FTMPI_INTER_TRY(check_data(sendbuf, sendcount, sendtype));
  if (root >= 0) FTMPI_INTER_TRY(check_data(recvbuf, recvcount, recvtype));
  return ret(comm,
             coll::inter_scatter(rt(), comm, sendbuf, sz(sendcount), sendtype, recvbuf, sz(recvcount), recvtype,
                                 core_root(root)),
             fn);
}

int inter_allgather(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf, int recvcount,
                    MPI_Datatype recvtype, MPI_Comm comm, const char* fn) {
  FTMPI_INTER_TRY(check_data(sendbuf, sendcount, sendtype));
  FTMPI_INTER_TRY(check_data(recvbuf, recvcount, recvtype));
  return ret(comm,
             coll::inter_allgather(rt(), comm, sendbuf, sz(sendcount), sendtype, recvbuf, sz(recvcount), recvtype),
             fn);
}

}  // namespace ftmpi::api
