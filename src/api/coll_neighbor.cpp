// Neighbourhood collectives (MPI-3.1 §7.6-7.7): Neighbor_allgather(v), Neighbor_alltoall(v,w) and their
// non-blocking I* forms on Cartesian, graph and distributed-graph communicators. Here: argument checks and
// the per-neighbour blocks; the exchange is one schedule (coll/neighbor.h), run to the end by the blocking
// form or handed to the progress loop by the non-blocking one (failures reported at completion).
#include <vector>

#include "api/coll_persistent.h"
#include "api/coll_prepare.h"
#include "api/common.h"
#include "coll/neighbor.h"

using ftmpi::Errc;
using ftmpi::Result;
using ftmpi::Status;
using ftmpi::api::prepare_neighbor_allgatherv;
using ftmpi::api::prepare_neighbor_alltoallv;
using ftmpi::api::prepare_neighbor_alltoallw;
using ftmpi::api::ret;
using ftmpi::api::run_collective;
using ftmpi::api::SchedulePtr;
using ftmpi::api::start_collective;
using ftmpi::api::valid_type;
using ftmpi::coll::IndexArray;
using ftmpi::coll::NeighborBlock;
using ftmpi::coll::Neighbors;

namespace {

using Blocks = std::vector<NeighborBlock>;

Status check_type(MPI_Datatype type) {
  if (!valid_type(type)) return Status(Errc::type, "invalid or uncommitted datatype");
  return {};
}

// count >= 0, a usable datatype, and a buffer when `n` blocks of data must move.
Status check_data(const void* buf, int count, MPI_Datatype type, std::size_t n) {
  if (ftmpi::coll::is_in_place(buf)) return Status(Errc::buffer, "MPI_IN_PLACE is not allowed here");
  if (count < 0) return Status(Errc::count, "count must be non-negative");
  FTMPI_TRY(check_type(type));
  if (!buf && n > 0 && count > 0 && type->size > 0 && type->true_lb == 0)
    return Status(Errc::buffer, "NULL buffer with a non-zero count");
  return {};
}

// Per-neighbour counts and displacements (n entries; may be NULL only when n == 0).
Status check_vector(IndexArray counts, IndexArray displs, std::size_t n, const char* what) {
  if (n == 0) return {};
  if (!counts || !displs) return Status(Errc::arg, std::string(what) + " counts or displacements are NULL");
  for (std::size_t i = 0; i < n; ++i)
    if (counts[i] < 0) return Status(Errc::count, std::string(what) + " counts has a negative entry");
  return {};
}

Status check_types(const MPI_Datatype* types, IndexArray counts, std::size_t n, const char* what) {
  if (n == 0) return {};
  if (!types) return Status(Errc::arg, std::string(what) + " types are NULL");
  for (std::size_t i = 0; i < n; ++i)
    if (counts[i] > 0) FTMPI_TRY(check_type(types[i]));
  return {};
}

std::size_t sz(int n) { return static_cast<std::size_t>(n); }

// `n` blocks of `count` elements of `type`, block i at i * count extents (stride 0: all at offset 0).
Blocks regular(std::size_t n, int count, MPI_Datatype type, bool strided) {
  Blocks b(n);
  for (std::size_t i = 0; i < n; ++i)
    b[i] = {strided ? static_cast<std::ptrdiff_t>(i) * count * type->extent : 0, sz(count), type};
  return b;
}

Blocks irregular(std::size_t n, IndexArray counts, IndexArray displs, MPI_Datatype type) {
  Blocks b(n);
  for (std::size_t i = 0; i < n; ++i)
    b[i] = {static_cast<std::ptrdiff_t>(displs[i]) * type->extent, static_cast<std::size_t>(counts[i]), type};
  return b;
}

Blocks typed(std::size_t n, IndexArray counts, IndexArray displs, const MPI_Datatype* types) {
  Blocks b(n);
  for (std::size_t i = 0; i < n; ++i)
    b[i] = {static_cast<std::ptrdiff_t>(displs[i]), static_cast<std::size_t>(counts[i]),
            counts[i] > 0 ? types[i] : MPI_BYTE};
  return b;
}

SchedulePtr exchange(MPI_Comm comm, const Neighbors& nb, const void* sendbuf, const Blocks& sends, void* recvbuf,
                     const Blocks& recvs) {
  auto s = std::make_unique<ftmpi::coll::Schedule>(comm, &ftmpi::api::rt().scratch());
  ftmpi::coll::build_neighbor_exchange(*s, nb, sendbuf, sends, recvbuf, recvs);
  return s;
}

Result<SchedulePtr> prepare_allgather(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                                      int recvcount, MPI_Datatype recvtype, MPI_Comm comm) {
  auto nb = ftmpi::coll::neighbors_of(comm);
  if (!nb.ok()) return nb.status();
  const std::size_t in = nb->sources.size(), out = nb->destinations.size();
  FTMPI_TRY(check_data(sendbuf, sendcount, sendtype, out));
  FTMPI_TRY(check_data(recvbuf, recvcount, recvtype, in));
  return exchange(comm, *nb, sendbuf, regular(out, sendcount, sendtype, false), recvbuf,
                  regular(in, recvcount, recvtype, true));
}

}  // namespace

Result<SchedulePtr> ftmpi::api::prepare_neighbor_allgatherv(const void* sendbuf, int sendcount, MPI_Datatype sendtype,
                                                            void* recvbuf, IndexArray recvcounts, IndexArray displs,
                                                            MPI_Datatype recvtype, MPI_Comm comm) {
  auto nb = ftmpi::coll::neighbors_of(comm);
  if (!nb.ok()) return nb.status();
  const std::size_t in = nb->sources.size(), out = nb->destinations.size();
  FTMPI_TRY(check_data(sendbuf, sendcount, sendtype, out));
  FTMPI_TRY(check_data(recvbuf, 0, recvtype, 0));
  FTMPI_TRY(check_vector(recvcounts, displs, in, "receive"));
  return exchange(comm, *nb, sendbuf, regular(out, sendcount, sendtype, false), recvbuf,
                  irregular(in, recvcounts, displs, recvtype));
}

namespace {

Result<SchedulePtr> prepare_alltoall(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                                     int recvcount, MPI_Datatype recvtype, MPI_Comm comm) {
  auto nb = ftmpi::coll::neighbors_of(comm);
  if (!nb.ok()) return nb.status();
  const std::size_t in = nb->sources.size(), out = nb->destinations.size();
  FTMPI_TRY(check_data(sendbuf, sendcount, sendtype, out));
  FTMPI_TRY(check_data(recvbuf, recvcount, recvtype, in));
  return exchange(comm, *nb, sendbuf, regular(out, sendcount, sendtype, true), recvbuf,
                  regular(in, recvcount, recvtype, true));
}

}  // namespace

Result<SchedulePtr> ftmpi::api::prepare_neighbor_alltoallv(const void* sendbuf, IndexArray sendcounts,
                                                           IndexArray sdispls, MPI_Datatype sendtype, void* recvbuf,
                                                           IndexArray recvcounts, IndexArray rdispls,
                                                           MPI_Datatype recvtype, MPI_Comm comm) {
  auto nb = ftmpi::coll::neighbors_of(comm);
  if (!nb.ok()) return nb.status();
  const std::size_t in = nb->sources.size(), out = nb->destinations.size();
  FTMPI_TRY(check_data(sendbuf, 0, sendtype, 0));
  FTMPI_TRY(check_data(recvbuf, 0, recvtype, 0));
  FTMPI_TRY(check_vector(sendcounts, sdispls, out, "send"));
  FTMPI_TRY(check_vector(recvcounts, rdispls, in, "receive"));
  return exchange(comm, *nb, sendbuf, irregular(out, sendcounts, sdispls, sendtype), recvbuf,
                  irregular(in, recvcounts, rdispls, recvtype));
}

Result<SchedulePtr> ftmpi::api::prepare_neighbor_alltoallw(const void* sendbuf, IndexArray sendcounts,
                                                           IndexArray sdispls, const MPI_Datatype* sendtypes,
                                                           void* recvbuf, IndexArray recvcounts, IndexArray rdispls,
                                                           const MPI_Datatype* recvtypes, MPI_Comm comm) {
  auto nb = ftmpi::coll::neighbors_of(comm);
  if (!nb.ok()) return nb.status();
  const std::size_t in = nb->sources.size(), out = nb->destinations.size();
  if (ftmpi::coll::is_in_place(sendbuf) || ftmpi::coll::is_in_place(recvbuf))
    return Status(Errc::buffer, "MPI_IN_PLACE is not allowed here");
  FTMPI_TRY(check_vector(sendcounts, sdispls, out, "send"));
  FTMPI_TRY(check_vector(recvcounts, rdispls, in, "receive"));
  FTMPI_TRY(check_types(sendtypes, sendcounts, out, "send"));
  FTMPI_TRY(check_types(recvtypes, recvcounts, in, "receive"));
  return exchange(comm, *nb, sendbuf, typed(out, sendcounts, sdispls, sendtypes), recvbuf,
                  typed(in, recvcounts, rdispls, recvtypes));
}

namespace {

Status no_request() { return Status(Errc::arg, "request is NULL"); }

}  // namespace

extern "C" int PMPI_Neighbor_allgather(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                                       int recvcount, MPI_Datatype recvtype, MPI_Comm comm) {
  static constexpr const char* fn = "MPI_Neighbor_allgather";
  FTMPI_ENTER(fn);
  FTMPI_CHECK_COMM(comm, fn);
  return run_collective(comm, prepare_allgather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm),
                        fn);
}
FTMPI_ALIAS(Neighbor_allgather)

extern "C" int PMPI_Neighbor_allgatherv(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                                        const int recvcounts[], const int displs[], MPI_Datatype recvtype,
                                        MPI_Comm comm) {
  static constexpr const char* fn = "MPI_Neighbor_allgatherv";
  FTMPI_ENTER(fn);
  FTMPI_CHECK_COMM(comm, fn);
  return run_collective(
      comm, prepare_neighbor_allgatherv(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, comm), fn);
}
FTMPI_ALIAS(Neighbor_allgatherv)

extern "C" int PMPI_Neighbor_alltoall(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                                      int recvcount, MPI_Datatype recvtype, MPI_Comm comm) {
  static constexpr const char* fn = "MPI_Neighbor_alltoall";
  FTMPI_ENTER(fn);
  FTMPI_CHECK_COMM(comm, fn);
  return run_collective(comm, prepare_alltoall(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm),
                        fn);
}
FTMPI_ALIAS(Neighbor_alltoall)

extern "C" int PMPI_Neighbor_alltoallv(const void* sendbuf, const int sendcounts[], const int sdispls[],
                                       MPI_Datatype sendtype, void* recvbuf, const int recvcounts[],
                                       const int rdispls[], MPI_Datatype recvtype, MPI_Comm comm) {
  static constexpr const char* fn = "MPI_Neighbor_alltoallv";
  FTMPI_ENTER(fn);
  FTMPI_CHECK_COMM(comm, fn);
  return run_collective(comm,
                        prepare_neighbor_alltoallv(sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts, rdispls,
                                          recvtype, comm),
                        fn);
}
FTMPI_ALIAS(Neighbor_alltoallv)

extern "C" int PMPI_Neighbor_alltoallw(const void* sendbuf, const int sendcounts[], const MPI_Aint sdispls[],
                                       const MPI_Datatype sendtypes[], void* recvbuf, const int recvcounts[],
                                       const MPI_Aint rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm) {
  static constexpr const char* fn = "MPI_Neighbor_alltoallw";
  FTMPI_ENTER(fn);
  FTMPI_CHECK_COMM(comm, fn);
  return run_collective(comm,
                        prepare_neighbor_alltoallw(sendbuf, sendcounts, sdispls, sendtypes, recvbuf, recvcounts, rdispls,
                                          recvtypes, comm),
                        fn);
}
FTMPI_ALIAS(Neighbor_alltoallw)

extern "C" int PMPI_Ineighbor_allgather(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                                        int recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Request* request) {
  static constexpr const char* fn = "MPI_Ineighbor_allgather";
  FTMPI_ENTER(fn);
  FTMPI_CHECK_COMM(comm, fn);
  if (!request) return ret(comm, no_request(), fn);
  return start_collective(
      comm, prepare_allgather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm), request, fn);
}
FTMPI_ALIAS(Ineighbor_allgather)

extern "C" int PMPI_Ineighbor_allgatherv(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                                         const int recvcounts[], const int displs[], MPI_Datatype recvtype,
                                         MPI_Comm comm, MPI_Request* request) {
  static constexpr const char* fn = "MPI_Ineighbor_allgatherv";
  FTMPI_ENTER(fn);
  FTMPI_CHECK_COMM(comm, fn);
  if (!request) return ret(comm, no_request(), fn);
  return start_collective(
      comm, prepare_neighbor_allgatherv(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, comm), request,
      fn);
}
FTMPI_ALIAS(Ineighbor_allgatherv)

extern "C" int PMPI_Ineighbor_alltoall(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                                       int recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Request* request) {
  static constexpr const char* fn = "MPI_Ineighbor_alltoall";
  FTMPI_ENTER(fn);
  FTMPI_CHECK_COMM(comm, fn);
  if (!request) return ret(comm, no_request(), fn);
  return start_collective(
      comm, prepare_alltoall(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm), request, fn);
}
FTMPI_ALIAS(Ineighbor_alltoall)

extern "C" int PMPI_Ineighbor_alltoallv(const void* sendbuf, const int sendcounts[], const int sdispls[],
                                        MPI_Datatype sendtype, void* recvbuf, const int recvcounts[],
                                        const int rdispls[], MPI_Datatype recvtype, MPI_Comm comm,
                                        MPI_Request* request) {
  static constexpr const char* fn = "MPI_Ineighbor_alltoallv";
  FTMPI_ENTER(fn);
  FTMPI_CHECK_COMM(comm, fn);
  if (!request) return ret(comm, no_request(), fn);
  return start_collective(comm,
                          prepare_neighbor_alltoallv(sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts, rdispls,
                                            recvtype, comm),
                          request, fn);
}
FTMPI_ALIAS(Ineighbor_alltoallv)

extern "C" int PMPI_Ineighbor_alltoallw(const void* sendbuf, const int sendcounts[], const MPI_Aint sdispls[],
                                        const MPI_Datatype sendtypes[], void* recvbuf, const int recvcounts[],
                                        const MPI_Aint rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm,
                                        MPI_Request* request) {
  static constexpr const char* fn = "MPI_Ineighbor_alltoallw";
  FTMPI_ENTER(fn);
  FTMPI_CHECK_COMM(comm, fn);
  if (!request) return ret(comm, no_request(), fn);
  return start_collective(comm,
                          prepare_neighbor_alltoallw(sendbuf, sendcounts, sdispls, sendtypes, recvbuf, recvcounts, rdispls,
                                            recvtypes, comm),
                          request, fn);
}
FTMPI_ALIAS(Ineighbor_alltoallw)

// ---- persistent forms (MPI-4.0 §7.8): arguments kept, a fresh exchange schedule per MPI_Start -------------

namespace {
using ftmpi::api::init_collective;
using ftmpi::api::KeptArray;

// In- and out-degree of `comm`'s topology (0, 0 without one: the exchange's own check reports that).
std::pair<std::size_t, std::size_t> degrees(MPI_Comm comm) {
  auto nb = ftmpi::coll::neighbors_of(comm);
  if (!nb.ok()) return {0, 0};
  return {nb->sources.size(), nb->destinations.size()};
}
}  // namespace

extern "C" int PMPI_Neighbor_allgather_init(const void* sendbuf, int sendcount, MPI_Datatype sendtype,
                                            void* recvbuf, int recvcount, MPI_Datatype recvtype, MPI_Comm comm,
                                            MPI_Info info, MPI_Request* request) {
  static constexpr const char* fn = "MPI_Neighbor_allgather_init";
  FTMPI_ENTER(fn);
  FTMPI_CHECK_COMM(comm, fn);
  return init_collective(
      comm, info, [=] { return prepare_allgather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm); },
      request, fn);
}
FTMPI_ALIAS(Neighbor_allgather_init)

extern "C" int PMPI_Neighbor_allgatherv_init(const void* sendbuf, int sendcount, MPI_Datatype sendtype,
                                             void* recvbuf, const int recvcounts[], const int displs[],
                                             MPI_Datatype recvtype, MPI_Comm comm, MPI_Info info,
                                             MPI_Request* request) {
  static constexpr const char* fn = "MPI_Neighbor_allgatherv_init";
  FTMPI_ENTER(fn);
  FTMPI_CHECK_COMM(comm, fn);
  const std::size_t in = degrees(comm).first;
  KeptArray<int> rc(recvcounts, in), dp(displs, in);
  return init_collective(
      comm, info,
      [=] { return prepare_neighbor_allgatherv(sendbuf, sendcount, sendtype, recvbuf, rc.get(), dp.get(), recvtype, comm); },
      request, fn);
}
FTMPI_ALIAS(Neighbor_allgatherv_init)

extern "C" int PMPI_Neighbor_alltoall_init(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                                           int recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Info info,
                                           MPI_Request* request) {
  static constexpr const char* fn = "MPI_Neighbor_alltoall_init";
  FTMPI_ENTER(fn);
  FTMPI_CHECK_COMM(comm, fn);
  return init_collective(
      comm, info, [=] { return prepare_alltoall(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm); },
      request, fn);
}
FTMPI_ALIAS(Neighbor_alltoall_init)

extern "C" int PMPI_Neighbor_alltoallv_init(const void* sendbuf, const int sendcounts[], const int sdispls[],
                                            MPI_Datatype sendtype, void* recvbuf, const int recvcounts[],
                                            const int rdispls[], MPI_Datatype recvtype, MPI_Comm comm, MPI_Info info,
                                            MPI_Request* request) {
  static constexpr const char* fn = "MPI_Neighbor_alltoallv_init";
  FTMPI_ENTER(fn);
  FTMPI_CHECK_COMM(comm, fn);
  const auto [in, out] = degrees(comm);
  KeptArray<int> sc(sendcounts, out), sd(sdispls, out), rc(recvcounts, in), rd(rdispls, in);
  return init_collective(
      comm, info,
      [=] {
        return prepare_neighbor_alltoallv(sendbuf, sc.get(), sd.get(), sendtype, recvbuf, rc.get(), rd.get(), recvtype, comm);
      },
      request, fn);
}
FTMPI_ALIAS(Neighbor_alltoallv_init)

extern "C" int PMPI_Neighbor_alltoallw_init(const void* sendbuf, const int sendcounts[], const MPI_Aint sdispls[],
                                            const MPI_Datatype sendtypes[], void* recvbuf, const int recvcounts[],
                                            const MPI_Aint rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm,
                                            MPI_Info info, MPI_Request* request) {
  static constexpr const char* fn = "MPI_Neighbor_alltoallw_init";
  FTMPI_ENTER(fn);
  FTMPI_CHECK_COMM(comm, fn);
  const auto [in, out] = degrees(comm);
  KeptArray<int> sc(sendcounts, out), rc(recvcounts, in);
  KeptArray<MPI_Aint> sd(sdispls, out), rd(rdispls, in);
  KeptArray<MPI_Datatype> st(sendtypes, out), rt_(recvtypes, in);
  return init_collective(
      comm, info,
      [=] {
        return prepare_neighbor_alltoallw(sendbuf, sc.get(), sd.get(), st.get(), recvbuf, rc.get(), rd.get(), rt_.get(),
                                 comm);
      },
      request, fn);
}
FTMPI_ALIAS(Neighbor_alltoallw_init)
