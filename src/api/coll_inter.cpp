// Intercommunicator collectives in the C API (see api/coll_inter.h): argument checks, then the plan of
// coll/inter.h.
#include "api/coll_inter.h"

#include "api/coll_prepare.h"
#include "api/common.h"
#include "coll/inter.h"
#include "coll/schedule.h"

namespace ftmpi::api {

namespace {

std::size_t sz(int n) { return static_cast<std::size_t>(n); }

// A data argument as coll_check_data wants it, and never MPI_IN_PLACE.
Status check_data(const void* buf, long long count, MPI_Datatype type) {
  if (coll::is_in_place(buf)) return Status(Errc::buffer, "MPI_IN_PLACE is not allowed on an intercommunicator");
  return coll_check_data(buf, count, type);
}

// A vector-argument buffer (its counts are checked separately): never MPI_IN_PLACE, and a usable type.
Status check_vector(const void* buf, MPI_Datatype type) { return check_data(buf, 0, type); }

// MPI_ROOT, MPI_PROC_NULL or a rank of the remote group.
Status check_root(int root, MPI_Comm comm) {
  if (root == MPI_ROOT || root == MPI_PROC_NULL) return {};
  if (root < 0 || root >= comm->peer_size())
    return Status(Errc::root, "root must be MPI_ROOT, MPI_PROC_NULL or a rank of the remote group");
  return {};
}

// The core's encoding of a checked root.
int core_root(int root) {
  if (root == MPI_ROOT) return coll::kInterRootHere;
  if (root == MPI_PROC_NULL) return coll::kInterRootIdle;
  return root;
}

InterPlanPtr make(MPI_Comm comm) { return std::make_unique<coll::InterPlan>(comm); }

}  // namespace

Result<InterPlanPtr> prepare_inter_barrier(MPI_Comm comm) {
  InterPlanPtr p = make(comm);
  coll::inter_barrier(*p);
  return p;
}

Result<InterPlanPtr> prepare_inter_bcast(void* buf, int count, MPI_Datatype type, int root, MPI_Comm comm) {
  FTMPI_TRY(check_root(root, comm));
  if (root != MPI_PROC_NULL) FTMPI_TRY(check_data(buf, count, type));
  InterPlanPtr p = make(comm);
  coll::inter_bcast(*p, buf, sz(count), type, core_root(root));
  return p;
}

Result<InterPlanPtr> prepare_inter_reduce(const void* sendbuf, void* recvbuf, int count, MPI_Datatype type,
                                          MPI_Op op, int root, MPI_Comm comm) {
  FTMPI_TRY(check_root(root, comm));
  if (root == MPI_ROOT) FTMPI_TRY(check_data(recvbuf, count, type));
  if (root >= 0) FTMPI_TRY(check_data(sendbuf, count, type));
  if (root != MPI_PROC_NULL) FTMPI_TRY(coll_check_op(op, type));
  InterPlanPtr p = make(comm);
  coll::inter_reduce(*p, sendbuf, recvbuf, sz(count), type, op, core_root(root));
  return p;
}

Result<InterPlanPtr> prepare_inter_allreduce(const void* sendbuf, void* recvbuf, int count, MPI_Datatype type,
                                             MPI_Op op, MPI_Comm comm) {
  FTMPI_TRY(check_data(sendbuf, count, type));
  FTMPI_TRY(check_data(recvbuf, count, type));
  FTMPI_TRY(coll_check_op(op, type));
  InterPlanPtr p = make(comm);
  coll::inter_allreduce(*p, sendbuf, recvbuf, sz(count), type, op);
  return p;
}

Result<InterPlanPtr> prepare_inter_gather(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                                          int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm) {
  FTMPI_TRY(check_root(root, comm));
  if (root == MPI_ROOT) FTMPI_TRY(check_data(recvbuf, recvcount, recvtype));
  if (root >= 0) FTMPI_TRY(check_data(sendbuf, sendcount, sendtype));
  InterPlanPtr p = make(comm);
  coll::inter_gather(*p, sendbuf, sz(sendcount), sendtype, recvbuf, sz(recvcount), recvtype, core_root(root));
  return p;
}

Result<InterPlanPtr> prepare_inter_gatherv(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                                           coll::IndexArray recvcounts, coll::IndexArray displs, MPI_Datatype recvtype, int root,
                                           MPI_Comm comm) {
  FTMPI_TRY(check_root(root, comm));
  if (root == MPI_ROOT) {
    FTMPI_TRY(check_vector(recvbuf, recvtype));
    FTMPI_TRY(coll_check_array(recvcounts, comm->peer_size(), "recvcounts", true));
    FTMPI_TRY(coll_check_array(displs, comm->peer_size(), "displs", false));
  }
  if (root >= 0) FTMPI_TRY(check_data(sendbuf, sendcount, sendtype));
  InterPlanPtr p = make(comm);
  coll::inter_gatherv(*p, sendbuf, sz(sendcount), sendtype, recvbuf, recvcounts, displs, recvtype, core_root(root));
  return p;
}

Result<InterPlanPtr> prepare_inter_scatter(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                                           int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm) {
  FTMPI_TRY(check_root(root, comm));
  if (root == MPI_ROOT) FTMPI_TRY(check_data(sendbuf, sendcount, sendtype));
  if (root >= 0) FTMPI_TRY(check_data(recvbuf, recvcount, recvtype));
  InterPlanPtr p = make(comm);
  coll::inter_scatter(*p, sendbuf, sz(sendcount), sendtype, recvbuf, sz(recvcount), recvtype, core_root(root));
  return p;
}

Result<InterPlanPtr> prepare_inter_scatterv(const void* sendbuf, coll::IndexArray sendcounts, coll::IndexArray displs,
                                            MPI_Datatype sendtype, void* recvbuf, int recvcount,
                                            MPI_Datatype recvtype, int root, MPI_Comm comm) {
  FTMPI_TRY(check_root(root, comm));
  if (root == MPI_ROOT) {
    FTMPI_TRY(check_vector(sendbuf, sendtype));
    FTMPI_TRY(coll_check_array(sendcounts, comm->peer_size(), "sendcounts", true));
    FTMPI_TRY(coll_check_array(displs, comm->peer_size(), "displs", false));
  }
  if (root >= 0) FTMPI_TRY(check_data(recvbuf, recvcount, recvtype));
  InterPlanPtr p = make(comm);
  coll::inter_scatterv(*p, sendbuf, sendcounts, displs, sendtype, recvbuf, sz(recvcount), recvtype, core_root(root));
  return p;
}

Result<InterPlanPtr> prepare_inter_allgather(const void* sendbuf, int sendcount, MPI_Datatype sendtype,
                                             void* recvbuf, int recvcount, MPI_Datatype recvtype, MPI_Comm comm) {
  FTMPI_TRY(check_data(sendbuf, sendcount, sendtype));
  FTMPI_TRY(check_data(recvbuf, recvcount, recvtype));
  InterPlanPtr p = make(comm);
  coll::inter_allgather(*p, sendbuf, sz(sendcount), sendtype, recvbuf, sz(recvcount), recvtype);
  return p;
}

Result<InterPlanPtr> prepare_inter_allgatherv(const void* sendbuf, int sendcount, MPI_Datatype sendtype,
                                              void* recvbuf, coll::IndexArray recvcounts, coll::IndexArray displs,
                                              MPI_Datatype recvtype, MPI_Comm comm) {
  FTMPI_TRY(check_data(sendbuf, sendcount, sendtype));
  FTMPI_TRY(check_vector(recvbuf, recvtype));
  FTMPI_TRY(coll_check_array(recvcounts, comm->peer_size(), "recvcounts", true));
  FTMPI_TRY(coll_check_array(displs, comm->peer_size(), "displs", false));
  InterPlanPtr p = make(comm);
  coll::inter_allgatherv(*p, sendbuf, sz(sendcount), sendtype, recvbuf, recvcounts, displs, recvtype);
  return p;
}

Result<InterPlanPtr> prepare_inter_alltoall(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                                            int recvcount, MPI_Datatype recvtype, MPI_Comm comm) {
  FTMPI_TRY(check_data(sendbuf, sendcount, sendtype));
  FTMPI_TRY(check_data(recvbuf, recvcount, recvtype));
  InterPlanPtr p = make(comm);
  coll::inter_alltoall(*p, sendbuf, sz(sendcount), sendtype, recvbuf, sz(recvcount), recvtype);
  return p;
}

Result<InterPlanPtr> prepare_inter_alltoallv(const void* sendbuf, coll::IndexArray sendcounts, coll::IndexArray sdispls,
                                             MPI_Datatype sendtype, void* recvbuf, coll::IndexArray recvcounts,
                                             coll::IndexArray rdispls, MPI_Datatype recvtype, MPI_Comm comm) {
  const int rs = comm->peer_size();
  FTMPI_TRY(check_vector(sendbuf, sendtype));
  FTMPI_TRY(coll_check_array(sendcounts, rs, "sendcounts", true));
  FTMPI_TRY(coll_check_array(sdispls, rs, "sdispls", false));
  FTMPI_TRY(check_vector(recvbuf, recvtype));
  FTMPI_TRY(coll_check_array(recvcounts, rs, "recvcounts", true));
  FTMPI_TRY(coll_check_array(rdispls, rs, "rdispls", false));
  InterPlanPtr p = make(comm);
  coll::inter_alltoallv(*p, sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts, rdispls, recvtype);
  return p;
}

Result<InterPlanPtr> prepare_inter_alltoallw(const void* sendbuf, coll::IndexArray sendcounts, coll::IndexArray sdispls,
                                             const MPI_Datatype* sendtypes, void* recvbuf, coll::IndexArray recvcounts,
                                             coll::IndexArray rdispls, const MPI_Datatype* recvtypes, MPI_Comm comm) {
  const int rs = comm->peer_size();
  if (coll::is_in_place(sendbuf) || coll::is_in_place(recvbuf))
    return Status(Errc::buffer, "MPI_IN_PLACE is not allowed on an intercommunicator");
  FTMPI_TRY(coll_check_array(sendcounts, rs, "sendcounts", true));
  FTMPI_TRY(coll_check_array(sdispls, rs, "sdispls", false));
  FTMPI_TRY(coll_check_types(sendtypes, sendcounts, rs, "sendtypes"));
  FTMPI_TRY(coll_check_array(recvcounts, rs, "recvcounts", true));
  FTMPI_TRY(coll_check_array(rdispls, rs, "rdispls", false));
  FTMPI_TRY(coll_check_types(recvtypes, recvcounts, rs, "recvtypes"));
  InterPlanPtr p = make(comm);
  coll::inter_alltoallw(*p, sendbuf, sendcounts, sdispls, sendtypes, recvbuf, recvcounts, rdispls, recvtypes);
  return p;
}

Result<InterPlanPtr> prepare_inter_reduce_scatter(const void* sendbuf, void* recvbuf, coll::IndexArray recvcounts,
                                                  MPI_Datatype type, MPI_Op op, MPI_Comm comm) {
  FTMPI_TRY(coll_check_array(recvcounts, comm->size, "recvcounts", true));
  long long total = 0;
  for (int i = 0; i < comm->size; ++i) total += recvcounts[i];
  FTMPI_TRY(check_data(sendbuf, total, type));
  FTMPI_TRY(check_data(recvbuf, recvcounts[comm->rank], type));
  FTMPI_TRY(coll_check_op(op, type));
  InterPlanPtr p = make(comm);
  coll::inter_reduce_scatter(*p, sendbuf, recvbuf, recvcounts, type, op);
  return p;
}

Result<InterPlanPtr> prepare_inter_reduce_scatter_block(const void* sendbuf, void* recvbuf, int recvcount,
                                                        MPI_Datatype type, MPI_Op op, MPI_Comm comm) {
  if (recvcount < 0) return Status(Errc::count, "count must be non-negative");
  const long long total = static_cast<long long>(recvcount) * comm->size;
  FTMPI_TRY(check_data(sendbuf, total, type));
  FTMPI_TRY(check_data(recvbuf, recvcount, type));
  FTMPI_TRY(coll_check_op(op, type));
  InterPlanPtr p = make(comm);
  coll::inter_reduce_scatter_block(*p, sendbuf, recvbuf, sz(recvcount), type, op);
  return p;
}

int run_collective(MPI_Comm comm, Result<InterPlanPtr> r, const char* fn) {
  if (!r.ok()) return ret(comm, r.status(), fn);
  return ret(comm, coll::run(rt(), **r), fn);
}

int start_collective(MPI_Comm comm, Result<InterPlanPtr> r, MPI_Request* request, const char* fn) {
  if (!r.ok()) return ret(comm, r.status(), fn);
  *request = coll::start(rt(), std::move(*r));
  return MPI_SUCCESS;
}

}  // namespace ftmpi::api
