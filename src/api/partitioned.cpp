// Partitioned point-to-point communication (MPI-4.0 chapter 4): MPI_Psend_init, MPI_Precv_init,
// MPI_Pready, MPI_Pready_range, MPI_Pready_list, MPI_Parrived. The operations are p2p/partitioned.h's;
// this file checks arguments and maps errors. The requests are persistent: MPI_Start/Startall,
// MPI_Wait*/Test*, MPI_Request_free (api/request.cpp) work on them as on any persistent request.
#include <limits>

#include "api/common.h"
#include "api/info_object.h"
#include "api/p2p_args.h"
#include "p2p/partitioned.h"

using namespace ftmpi::api;
using ftmpi::Errc;
using ftmpi::Status;

namespace {

namespace part = ftmpi::p2p::part;

// Checks of both init calls (MPI-4.0 §4.2.1): no wildcard source or tag, partitions >= 0, a request pointer,
// MPI_INFO_NULL or a live info object (no hint is interpreted). Then the engine's operation.
int init(bool send, void* buf, int partitions, MPI_Count count, MPI_Datatype type, int peer, int tag, MPI_Comm comm,
         MPI_Info info, MPI_Request* request, const char* fn) {
  if (!request) return ret(comm, Status(Errc::arg, "request is NULL"), fn);
  if (partitions < 0) return ret(comm, Status(Errc::arg, "the number of partitions must be non-negative"), fn);
  if (count < 0) return ret(comm, Status(Errc::count, "count must be non-negative"), fn);
  if (count > 0 && static_cast<unsigned long long>(count) >
                       static_cast<unsigned long long>(std::numeric_limits<MPI_Count>::max()) /
                           static_cast<unsigned long long>(partitions > 0 ? partitions : 1))
    return ret(comm, Status(Errc::count, "partitions * count overflows MPI_Count"), fn);
  if (Status st = check_buffer(buf, count * partitions, type); !st.ok()) return ret(comm, st, fn);
  if (peer != MPI_PROC_NULL && (peer < 0 || peer >= comm->peer_size()))
    return ret(comm,
               Status(Errc::rank, peer == MPI_ANY_SOURCE ? "MPI_ANY_SOURCE is not allowed in partitioned communication"
                                                         : (send ? "invalid destination rank" : "invalid source rank")),
               fn);
  if (tag < 0)
    return ret(comm,
               Status(Errc::tag, tag == MPI_ANY_TAG ? "MPI_ANY_TAG is not allowed in partitioned communication"
                                                    : "invalid tag (must be >= 0)"),
               fn);
  if (info != MPI_INFO_NULL && !valid_info(info)) return ret(comm, Status(Errc::info, "invalid info object"), fn);
  const part::PartArgs a{buf, static_cast<std::uint64_t>(partitions), static_cast<std::uint64_t>(count), type, peer, tag,
                         comm};
  ftmpi::p2p::Request* r = nullptr;
  Status st = send ? part::psend_init(rt().engine(), &rt().failures(), a, &r) : part::precv_init(rt().engine(), a, &r);
  if (!st.ok()) return ret(comm, st, fn);
  *request = r;
  return MPI_SUCCESS;
}

bool valid_request(MPI_Request r) { return r && r->magic == ftmpi::kMagicRequest; }

// The handler of a Pready/Parrived error: the request's communicator's.
int fail(MPI_Request r, const Status& st, const char* fn) { return ret(valid_request(r) ? r->comm : nullptr, st, fn); }

}  // namespace

extern "C" int PMPI_Psend_init(const void* buf, int partitions, MPI_Count count, MPI_Datatype datatype, int dest,
                               int tag, MPI_Comm comm, MPI_Info info, MPI_Request* request) {
  static constexpr const char* fn = "MPI_Psend_init";
  FTMPI_ENTER(fn);
  FTMPI_CHECK_COMM(comm, fn);
  return init(true, const_cast<void*>(buf), partitions, count, datatype, dest, tag, comm, info, request, fn);
}
FTMPI_ALIAS(Psend_init)

extern "C" int PMPI_Precv_init(void* buf, int partitions, MPI_Count count, MPI_Datatype datatype, int source, int tag,
                               MPI_Comm comm, MPI_Info info, MPI_Request* request) {
  static constexpr const char* fn = "MPI_Precv_init";
  FTMPI_ENTER(fn);
  FTMPI_CHECK_COMM(comm, fn);
  return init(false, buf, partitions, count, datatype, source, tag, comm, info, request, fn);
}
FTMPI_ALIAS(Precv_init)

extern "C" int PMPI_Pready(int partition, MPI_Request request) {
  static constexpr const char* fn = "MPI_Pready";
  FTMPI_ENTER(fn);
  if (!valid_request(request)) return fail(request, Status(Errc::request, "invalid or freed request"), fn);
  return fail(request, part::pready(request, &partition, 1), fn);
}
FTMPI_ALIAS(Pready)

extern "C" int PMPI_Pready_range(int partition_low, int partition_high, MPI_Request request) {
  static constexpr const char* fn = "MPI_Pready_range";
  FTMPI_ENTER(fn);
  if (!valid_request(request)) return fail(request, Status(Errc::request, "invalid or freed request"), fn);
  return fail(request, part::pready_range(request, partition_low, partition_high), fn);
}
FTMPI_ALIAS(Pready_range)

extern "C" int PMPI_Pready_list(int length, const int array_of_partitions[], MPI_Request request) {
  static constexpr const char* fn = "MPI_Pready_list";
  FTMPI_ENTER(fn);
  if (!valid_request(request)) return fail(request, Status(Errc::request, "invalid or freed request"), fn);
  if (length < 0) return fail(request, Status(Errc::arg, "negative length"), fn);
  if (length > 0 && !array_of_partitions) return fail(request, Status(Errc::arg, "array_of_partitions is NULL"), fn);
  return fail(request, part::pready(request, array_of_partitions, static_cast<std::size_t>(length)), fn);
}
FTMPI_ALIAS(Pready_list)

extern "C" int PMPI_Parrived(MPI_Request request, int partition, int* flag) {
  static constexpr const char* fn = "MPI_Parrived";
  FTMPI_ENTER(fn);
  if (!flag) return fail(request, Status(Errc::arg, "flag is NULL"), fn);
  if (request == MPI_REQUEST_NULL) {  // MPI-4.0 §4.2.2: a null request answers flag = true
    *flag = 1;
    return MPI_SUCCESS;
  }
  if (!valid_request(request)) return fail(request, Status(Errc::request, "invalid or freed request"), fn);
  if (!request->complete) rt().progress().poll();
  bool arrived = false;
  Status st = part::parrived(request, partition, &arrived);
  *flag = arrived ? 1 : 0;
  return fail(request, st, fn);
}
FTMPI_ALIAS(Parrived)
