// Argument checks and schedule building for every collective (see coll_prepare.h).
#include "api/coll_prepare.h"

#include "api/common.h"
#include "coll/builders.h"
#include "coll/start.h"
#include "datatype/op.h"

namespace ftmpi::api {

using coll::is_in_place;

Status coll_check_data(const void* buf, long long count, MPI_Datatype type) {
  if (count < 0) return Status(Errc::count, "count must be non-negative");
  if (!valid_type(type)) return Status(Errc::type, "invalid or uncommitted datatype");
  if (!buf && count > 0 && type->size > 0 && type->true_lb == 0)
    return Status(Errc::buffer, "NULL buffer with a non-zero count");
  return {};
}

Status coll_check_root(int root, MPI_Comm comm) {
  if (root < 0 || root >= comm->size) return Status(Errc::root, "root is not a rank of the communicator");
  return {};
}

Status coll_check_op(MPI_Op op, MPI_Datatype type) {
  if (!op || op->magic != kMagicOp) return Status(Errc::op, "invalid reduction operation");
  return dt::check_op(op, type);
}

Status coll_check_array(coll::IndexArray a, int n, const char* what, bool counts) {
  if (!a) return Status(Errc::arg, std::string(what) + " is NULL");
  if (counts) {
    for (int i = 0; i < n; ++i)
      if (a[i] < 0) return Status(Errc::count, std::string(what) + " has a negative count");
  }
  return {};
}

Status coll_check_types(const MPI_Datatype* types, coll::IndexArray counts, int n, const char* what) {
  if (!types) return Status(Errc::arg, std::string(what) + " is NULL");
  for (int i = 0; i < n; ++i)
    if (counts[i] > 0 && !valid_type(types[i])) return Status(Errc::type, "invalid or uncommitted datatype");
  return {};
}

Status coll_check_alias(const void* sendbuf, bool sends, const void* recvbuf, bool receives,
                        const void* own_block) {
  if (!sends || !receives || is_in_place(sendbuf) || sendbuf == nullptr) return {};
  if (sendbuf == recvbuf || sendbuf == own_block)
    return Status(Errc::buffer, "sendbuf aliases recvbuf (only MPI_IN_PLACE may share them)");
  return {};
}

const void* coll_block(const void* buf, long long index, MPI_Datatype type) {
  if (is_in_place(buf) || buf == nullptr) return nullptr;
  return static_cast<const char*>(buf) + index * static_cast<long long>(type->extent);
}

namespace {

std::size_t sz(int n) { return static_cast<std::size_t>(n); }

// Every collective here is the intracommunicator form: the C functions send intercommunicators to
// api/coll_inter.h, so one arriving here is a bug of the caller.
Status check_intra(MPI_Comm comm) {
  if (comm->is_inter()) return Status(Errc::intern, "intracommunicator collective called on an intercommunicator");
  return {};
}

// Scan and Exscan (and their I-forms) are defined on intracommunicators only (MPI-3.1 §5.11).
Status check_scan_comm(MPI_Comm comm) {
  if (comm->is_inter())
    return Status(Errc::comm, "MPI_Scan and MPI_Exscan (and their non-blocking forms) are not defined on "
                              "intercommunicators");
  return {};
}

Status check_type(MPI_Datatype type) {
  if (!valid_type(type)) return Status(Errc::type, "invalid or uncommitted datatype");
  return {};
}

Status check_array(coll::IndexArray a, MPI_Comm comm, const char* what, bool counts) {
  return coll_check_array(a, comm->size, what, counts);
}

Status not_in_place(const void* buf, const char* what) {
  if (is_in_place(buf)) return Status(Errc::buffer, std::string(what) + " may not be MPI_IN_PLACE here");
  return {};
}

// Checks common to the reductions whose input may be MPI_IN_PLACE (in recvbuf). `in_count` (>= 0) is the
// number of input elements, which for Reduce_scatter is a sum of int counts and may exceed INT_MAX.
Status check_reduction(const void* sendbuf, void* recvbuf, long long count, long long in_count, MPI_Datatype type,
                       MPI_Op op) {
  FTMPI_TRY(not_in_place(recvbuf, "recvbuf"));
  if (!is_in_place(sendbuf)) FTMPI_TRY(coll_check_data(sendbuf, in_count, type));
  FTMPI_TRY(coll_check_data(recvbuf, count, type));
  FTMPI_TRY(coll_check_op(op, type));
  return coll_check_alias(sendbuf, in_count > 0, recvbuf, in_count > 0);
}

// True if any of the `n` counts is positive.
bool any_positive(coll::IndexArray counts, int n) {
  for (int i = 0; i < n; ++i)
    if (counts[i] > 0) return true;
  return false;
}

SchedulePtr make(MPI_Comm comm, Runtime* immediate = nullptr) {
  auto s = std::make_unique<coll::Schedule>(comm, &rt().scratch());
  if (immediate != nullptr) s->run_immediately(*immediate);
  return s;
}

}  // namespace

Result<SchedulePtr> prepare_barrier(MPI_Comm comm) {
  FTMPI_TRY(check_intra(comm));
  SchedulePtr s = make(comm);
  coll::build_barrier(*s);
  return s;
}

Result<SchedulePtr> prepare_bcast(void* buf, int count, MPI_Datatype type, int root, MPI_Comm comm) {
  FTMPI_TRY(check_intra(comm));
  FTMPI_TRY(coll_check_data(buf, count, type));
  FTMPI_TRY(coll_check_root(root, comm));
  SchedulePtr s = make(comm);
  coll::build_bcast(*s, buf, sz(count), type, root);
  return s;
}

Result<SchedulePtr> prepare_reduce(const void* sendbuf, void* recvbuf, int count, MPI_Datatype type, MPI_Op op,
                                   int root, MPI_Comm comm) {
  FTMPI_TRY(check_intra(comm));
  FTMPI_TRY(coll_check_root(root, comm));
  const bool am_root = comm->rank == root;
  if (is_in_place(sendbuf) && !am_root) return Status(Errc::buffer, "MPI_IN_PLACE is only valid at the root");
  if (!is_in_place(sendbuf)) FTMPI_TRY(coll_check_data(sendbuf, count, type));
  if (am_root) {
    FTMPI_TRY(not_in_place(recvbuf, "recvbuf"));
    FTMPI_TRY(coll_check_data(recvbuf, count, type));
  }
  FTMPI_TRY(coll_check_data(nullptr, 0, type));
  FTMPI_TRY(coll_check_op(op, type));
  if (am_root) FTMPI_TRY(coll_check_alias(sendbuf, count > 0, recvbuf, count > 0));
  SchedulePtr s = make(comm);
  coll::build_reduce(*s, sendbuf, recvbuf, sz(count), type, op, root);
  return s;
}

Result<SchedulePtr> prepare_allreduce(const void* sendbuf, void* recvbuf, int count, MPI_Datatype type, MPI_Op op,
                                      MPI_Comm comm) {
  FTMPI_TRY(check_intra(comm));
  FTMPI_TRY(check_reduction(sendbuf, recvbuf, count, count, type, op));
  SchedulePtr s = make(comm);
  coll::build_allreduce(*s, sendbuf, recvbuf, sz(count), type, op);
  return s;
}

Result<SchedulePtr> prepare_gather(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                                   int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm) {
  FTMPI_TRY(check_intra(comm));
  FTMPI_TRY(coll_check_root(root, comm));
  const bool am_root = comm->rank == root;
  if (is_in_place(sendbuf) && !am_root) return Status(Errc::buffer, "MPI_IN_PLACE is only valid at the root");
  if (!is_in_place(sendbuf)) FTMPI_TRY(coll_check_data(sendbuf, sendcount, sendtype));
  if (am_root) {
    FTMPI_TRY(not_in_place(recvbuf, "recvbuf"));
    FTMPI_TRY(coll_check_data(recvbuf, recvcount, recvtype));
    FTMPI_TRY(coll_check_alias(sendbuf, sendcount > 0, recvbuf, recvcount > 0,
                               coll_block(recvbuf, static_cast<long long>(comm->rank) * recvcount, recvtype)));
  }
  SchedulePtr s = make(comm);
  coll::build_gather(*s, sendbuf, sz(sendcount), sendtype, recvbuf, sz(recvcount), recvtype, root);
  return s;
}

Result<SchedulePtr> prepare_gatherv(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                                    coll::IndexArray recvcounts, coll::IndexArray displs, MPI_Datatype recvtype, int root,
                                    MPI_Comm comm) {
  FTMPI_TRY(check_intra(comm));
  FTMPI_TRY(coll_check_root(root, comm));
  const bool am_root = comm->rank == root;
  if (is_in_place(sendbuf) && !am_root) return Status(Errc::buffer, "MPI_IN_PLACE is only valid at the root");
  if (!is_in_place(sendbuf)) FTMPI_TRY(coll_check_data(sendbuf, sendcount, sendtype));
  if (am_root) {
    FTMPI_TRY(not_in_place(recvbuf, "recvbuf"));
    FTMPI_TRY(check_array(recvcounts, comm, "recvcounts", true));
    FTMPI_TRY(check_array(displs, comm, "displs", false));
    FTMPI_TRY(check_type(recvtype));
    FTMPI_TRY(coll_check_alias(sendbuf, sendcount > 0, recvbuf, any_positive(recvcounts, comm->size),
                               coll_block(recvbuf, displs[comm->rank], recvtype)));
  }
  SchedulePtr s = make(comm);
  coll::build_gatherv(*s, sendbuf, sz(sendcount), sendtype, recvbuf, recvcounts, displs, recvtype, root);
  return s;
}

Result<SchedulePtr> prepare_scatter(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                                    int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm) {
  FTMPI_TRY(check_intra(comm));
  FTMPI_TRY(coll_check_root(root, comm));
  const bool am_root = comm->rank == root;
  if (is_in_place(recvbuf) && !am_root) return Status(Errc::buffer, "MPI_IN_PLACE is only valid at the root");
  if (am_root) {
    FTMPI_TRY(not_in_place(sendbuf, "sendbuf"));
    FTMPI_TRY(coll_check_data(sendbuf, sendcount, sendtype));
  }
  if (!is_in_place(recvbuf)) FTMPI_TRY(coll_check_data(recvbuf, recvcount, recvtype));
  if (am_root)
    FTMPI_TRY(coll_check_alias(recvbuf, recvcount > 0, sendbuf, sendcount > 0,
                               coll_block(sendbuf, static_cast<long long>(comm->rank) * sendcount, sendtype)));
  SchedulePtr s = make(comm);
  coll::build_scatter(*s, sendbuf, sz(sendcount), sendtype, recvbuf, sz(recvcount), recvtype, root);
  return s;
}

Result<SchedulePtr> prepare_scatterv(const void* sendbuf, coll::IndexArray sendcounts, coll::IndexArray displs,
                                     MPI_Datatype sendtype, void* recvbuf, int recvcount, MPI_Datatype recvtype,
                                     int root, MPI_Comm comm) {
  FTMPI_TRY(check_intra(comm));
  FTMPI_TRY(coll_check_root(root, comm));
  const bool am_root = comm->rank == root;
  if (is_in_place(recvbuf) && !am_root) return Status(Errc::buffer, "MPI_IN_PLACE is only valid at the root");
  if (am_root) {
    FTMPI_TRY(not_in_place(sendbuf, "sendbuf"));
    FTMPI_TRY(check_array(sendcounts, comm, "sendcounts", true));
    FTMPI_TRY(check_array(displs, comm, "displs", false));
    FTMPI_TRY(check_type(sendtype));
  }
  if (!is_in_place(recvbuf)) FTMPI_TRY(coll_check_data(recvbuf, recvcount, recvtype));
  if (am_root)
    FTMPI_TRY(coll_check_alias(recvbuf, recvcount > 0, sendbuf, any_positive(sendcounts, comm->size),
                               coll_block(sendbuf, displs[comm->rank], sendtype)));
  SchedulePtr s = make(comm);
  coll::build_scatterv(*s, sendbuf, sendcounts, displs, sendtype, recvbuf, sz(recvcount), recvtype, root);
  return s;
}

Result<SchedulePtr> prepare_allgather(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                                      int recvcount, MPI_Datatype recvtype, MPI_Comm comm) {
  FTMPI_TRY(check_intra(comm));
  FTMPI_TRY(not_in_place(recvbuf, "recvbuf"));
  if (!is_in_place(sendbuf)) FTMPI_TRY(coll_check_data(sendbuf, sendcount, sendtype));
  FTMPI_TRY(coll_check_data(recvbuf, recvcount, recvtype));
  FTMPI_TRY(coll_check_alias(sendbuf, sendcount > 0, recvbuf, recvcount > 0,
                             coll_block(recvbuf, static_cast<long long>(comm->rank) * recvcount, recvtype)));
  SchedulePtr s = make(comm);
  coll::build_allgather(*s, sendbuf, sz(sendcount), sendtype, recvbuf, sz(recvcount), recvtype);
  return s;
}

Result<SchedulePtr> prepare_allgatherv(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                                       coll::IndexArray recvcounts, coll::IndexArray displs, MPI_Datatype recvtype,
                                       MPI_Comm comm) {
  FTMPI_TRY(check_intra(comm));
  FTMPI_TRY(not_in_place(recvbuf, "recvbuf"));
  if (!is_in_place(sendbuf)) FTMPI_TRY(coll_check_data(sendbuf, sendcount, sendtype));
  FTMPI_TRY(check_array(recvcounts, comm, "recvcounts", true));
  FTMPI_TRY(check_array(displs, comm, "displs", false));
  FTMPI_TRY(check_type(recvtype));
  FTMPI_TRY(coll_check_alias(sendbuf, sendcount > 0, recvbuf, any_positive(recvcounts, comm->size),
                             coll_block(recvbuf, displs[comm->rank], recvtype)));
  SchedulePtr s = make(comm);
  coll::build_allgatherv(*s, sendbuf, sz(sendcount), sendtype, recvbuf, recvcounts, displs, recvtype);
  return s;
}

Result<SchedulePtr> prepare_alltoall(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                                     int recvcount, MPI_Datatype recvtype, MPI_Comm comm, Runtime* immediate) {
  FTMPI_TRY(check_intra(comm));
  FTMPI_TRY(not_in_place(recvbuf, "recvbuf"));
  if (!is_in_place(sendbuf)) FTMPI_TRY(coll_check_data(sendbuf, sendcount, sendtype));
  FTMPI_TRY(coll_check_data(recvbuf, recvcount, recvtype));
  FTMPI_TRY(coll_check_alias(sendbuf, sendcount > 0, recvbuf, recvcount > 0));
  SchedulePtr s = make(comm, immediate);
  coll::build_alltoall(*s, sendbuf, sz(sendcount), sendtype, recvbuf, sz(recvcount), recvtype);
  return s;
}

Result<SchedulePtr> prepare_alltoallv(const void* sendbuf, coll::IndexArray sendcounts, coll::IndexArray sdispls,
                                      MPI_Datatype sendtype, void* recvbuf, coll::IndexArray recvcounts,
                                      coll::IndexArray rdispls, MPI_Datatype recvtype, MPI_Comm comm, Runtime* immediate) {
  FTMPI_TRY(check_intra(comm));
  FTMPI_TRY(not_in_place(recvbuf, "recvbuf"));
  if (!is_in_place(sendbuf)) {
    FTMPI_TRY(check_array(sendcounts, comm, "sendcounts", true));
    FTMPI_TRY(check_array(sdispls, comm, "sdispls", false));
    FTMPI_TRY(check_type(sendtype));
  }
  FTMPI_TRY(check_array(recvcounts, comm, "recvcounts", true));
  FTMPI_TRY(check_array(rdispls, comm, "rdispls", false));
  FTMPI_TRY(check_type(recvtype));
  if (!is_in_place(sendbuf))
    FTMPI_TRY(coll_check_alias(sendbuf, any_positive(sendcounts, comm->size), recvbuf,
                               any_positive(recvcounts, comm->size)));
  SchedulePtr s = make(comm, immediate);
  coll::build_alltoallv(*s, sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts, rdispls, recvtype);
  return s;
}

Result<SchedulePtr> prepare_alltoallw(const void* sendbuf, coll::IndexArray sendcounts, coll::IndexArray sdispls,
                                      const MPI_Datatype* sendtypes, void* recvbuf, coll::IndexArray recvcounts,
                                      coll::IndexArray rdispls, const MPI_Datatype* recvtypes, MPI_Comm comm, Runtime* immediate) {
  FTMPI_TRY(check_intra(comm));
  FTMPI_TRY(not_in_place(recvbuf, "recvbuf"));
  auto check_types = [&](const MPI_Datatype* types, coll::IndexArray counts, const char* what) {
    return coll_check_types(types, counts, comm->size, what);
  };
  if (!is_in_place(sendbuf)) {
    FTMPI_TRY(check_array(sendcounts, comm, "sendcounts", true));
    FTMPI_TRY(check_array(sdispls, comm, "sdispls", false));
    FTMPI_TRY(check_types(sendtypes, sendcounts, "sendtypes"));
  }
  FTMPI_TRY(check_array(recvcounts, comm, "recvcounts", true));
  FTMPI_TRY(check_array(rdispls, comm, "rdispls", false));
  FTMPI_TRY(check_types(recvtypes, recvcounts, "recvtypes"));
  if (!is_in_place(sendbuf))
    FTMPI_TRY(coll_check_alias(sendbuf, any_positive(sendcounts, comm->size), recvbuf,
                               any_positive(recvcounts, comm->size)));
  SchedulePtr s = make(comm, immediate);
  coll::build_alltoallw(*s, sendbuf, sendcounts, sdispls, sendtypes, recvbuf, recvcounts, rdispls, recvtypes);
  return s;
}

Result<SchedulePtr> prepare_reduce_scatter(const void* sendbuf, void* recvbuf, coll::IndexArray recvcounts,
                                           MPI_Datatype type, MPI_Op op, MPI_Comm comm) {
  FTMPI_TRY(check_intra(comm));
  FTMPI_TRY(check_array(recvcounts, comm, "recvcounts", true));
  long long total = 0;  // may exceed INT_MAX: the builders count in size_t
  for (int i = 0; i < comm->size; ++i) total += recvcounts[i];
  FTMPI_TRY(check_reduction(sendbuf, recvbuf, recvcounts[comm->rank], total, type, op));
  SchedulePtr s = make(comm);
  coll::build_reduce_scatter(*s, sendbuf, recvbuf, recvcounts, type, op);
  return s;
}

Result<SchedulePtr> prepare_reduce_scatter_block(const void* sendbuf, void* recvbuf, int recvcount,
                                                 MPI_Datatype type, MPI_Op op, MPI_Comm comm) {
  FTMPI_TRY(check_intra(comm));
  if (recvcount < 0) return Status(Errc::count, "count must be non-negative");
  FTMPI_TRY(check_reduction(sendbuf, recvbuf, recvcount, static_cast<long long>(recvcount) * comm->size, type, op));
  SchedulePtr s = make(comm);
  coll::build_reduce_scatter_block(*s, sendbuf, recvbuf, sz(recvcount), type, op);
  return s;
}

Result<SchedulePtr> prepare_scan(const void* sendbuf, void* recvbuf, int count, MPI_Datatype type, MPI_Op op,
                                 MPI_Comm comm) {
  FTMPI_TRY(check_scan_comm(comm));
  FTMPI_TRY(check_reduction(sendbuf, recvbuf, count, count, type, op));
  SchedulePtr s = make(comm);
  coll::build_scan(*s, sendbuf, recvbuf, sz(count), type, op);
  return s;
}

Result<SchedulePtr> prepare_exscan(const void* sendbuf, void* recvbuf, int count, MPI_Datatype type, MPI_Op op,
                                   MPI_Comm comm) {
  FTMPI_TRY(check_scan_comm(comm));
  FTMPI_TRY(check_reduction(sendbuf, recvbuf, count, count, type, op));
  SchedulePtr s = make(comm);
  coll::build_exscan(*s, sendbuf, recvbuf, sz(count), type, op);
  return s;
}

}  // namespace ftmpi::api

namespace ftmpi::api {

int run_collective(MPI_Comm comm, Result<SchedulePtr> r, const char* fn) {
  if (!r.ok()) return ret(comm, r.status(), fn);
  return ret(comm, coll::run(rt(), **r), fn);
}

int start_collective(MPI_Comm comm, Result<SchedulePtr> r, MPI_Request* request, const char* fn) {
  if (!r.ok()) return ret(comm, r.status(), fn);
  *request = coll::start(rt(), std::move(*r));
  return MPI_SUCCESS;
}

}  // namespace ftmpi::api
