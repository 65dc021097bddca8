// C API: MPI_Pack_external, MPI_Unpack_external, MPI_Pack_external_size (MPI-3.1 §4.3) in the one data
// representation the standard requires, "external32" (conversion in datatype/external32.*). A contiguous
// type converts straight between the user's buffer and the external one; any other type goes through a
// packed native copy.
#include <cstring>
#include <vector>

#include "api/common.h"
#include "api/datatype_common.h"
#include "datatype/external32.h"

namespace {
using ftmpi::Errc;
using ftmpi::Status;
namespace dt = ftmpi::dt;
using ftmpi::api::describable;
constexpr auto fail = ftmpi::api::fail_type_call;

// Shared checks: the representation is "external32", the count is not negative, the type may be used.
int check_call(const char* datarep, int count, MPI_Datatype t, bool need_committed, const char* fn) {
  if (datarep == nullptr || std::strcmp(datarep, "external32") != 0)
    return fail(Errc::arg, "unknown data representation (only \"external32\" is defined)", fn);
  if (count < 0) return fail(Errc::count, "negative count", fn);
  if (need_committed ? !ftmpi::api::valid_type(t) : !describable(t))
    return fail(Errc::type, need_committed ? "invalid or uncommitted datatype" : "invalid datatype", fn);
  return MPI_SUCCESS;
}
}  // namespace

extern "C" int PMPI_Pack_external(const char datarep[], const void* inbuf, int incount, MPI_Datatype datatype,
                                  void* outbuf, MPI_Aint outsize, MPI_Aint* position) {
  FTMPI_ENTER("MPI_Pack_external");
  const char* fn = "MPI_Pack_external";
  if (int rc = check_call(datarep, incount, datatype, true, fn); rc != MPI_SUCCESS) return rc;
  if (position == nullptr) return fail(Errc::arg, "position is NULL", fn);
  const auto n = static_cast<std::size_t>(incount);
  const std::size_t bytes = dt::external32_size(datatype, n);
  if (!ftmpi::api::buffer_fits(*position, bytes, outsize))
    return fail(Errc::truncate, "outbuf too small for the packed data", fn);
  if (bytes == 0) return MPI_SUCCESS;
  const void* native = inbuf;
  std::vector<std::byte> packed;
  if (!datatype->contiguous) {
    packed.resize(dt::packed_size(datatype, n));
    dt::pack(inbuf, n, datatype, packed.data());
    native = packed.data();
  }
  const Status st = dt::to_external32(native, n, datatype, static_cast<char*>(outbuf) + *position);
  if (!st.ok()) return ftmpi::api::ret(nullptr, st, fn);
  *position += static_cast<MPI_Aint>(bytes);
  return MPI_SUCCESS;
}
FTMPI_ALIAS(Pack_external)

extern "C" int PMPI_Unpack_external(const char datarep[], const void* inbuf, MPI_Aint insize, MPI_Aint* position,
                                    void* outbuf, int outcount, MPI_Datatype datatype) {
  FTMPI_ENTER("MPI_Unpack_external");
  const char* fn = "MPI_Unpack_external";
  if (int rc = check_call(datarep, outcount, datatype, true, fn); rc != MPI_SUCCESS) return rc;
  if (position == nullptr) return fail(Errc::arg, "position is NULL", fn);
  const auto n = static_cast<std::size_t>(outcount);
  const std::size_t bytes = dt::external32_size(datatype, n);
  if (!ftmpi::api::buffer_fits(*position, bytes, insize))
    return fail(Errc::truncate, "inbuf holds less than outcount elements", fn);
  if (bytes == 0) return MPI_SUCCESS;
  const char* ext = static_cast<const char*>(inbuf) + *position;
  Status st;
  if (datatype->contiguous) {
    st = dt::from_external32(ext, n, datatype, outbuf);
  } else {
    std::vector<std::byte> packed(dt::packed_size(datatype, n));
    st = dt::from_external32(ext, n, datatype, packed.data());
    if (st.ok()) dt::unpack(packed.data(), packed.size(), datatype, outbuf);
  }
  if (!st.ok()) return ftmpi::api::ret(nullptr, st, fn);
  *position += static_cast<MPI_Aint>(bytes);
  return MPI_SUCCESS;
}
FTMPI_ALIAS(Unpack_external)

extern "C" int PMPI_Pack_external_size(const char datarep[], int incount, MPI_Datatype datatype, MPI_Aint* size) {
  FTMPI_ENTER("MPI_Pack_external_size");
  const char* fn = "MPI_Pack_external_size";
  if (int rc = check_call(datarep, incount, datatype, false, fn); rc != MPI_SUCCESS) return rc;
  if (size == nullptr) return fail(Errc::arg, "size is NULL", fn);
  *size = static_cast<MPI_Aint>(dt::external32_size(datatype, static_cast<std::size_t>(incount)));
  return MPI_SUCCESS;
}
FTMPI_ALIAS(Pack_external_size)
