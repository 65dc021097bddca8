// C API: the derived datatype constructors beyond contiguous/vector (MPI-3.1 §4.1.2-4.1.7), type names,
// the _x extent queries, and MPI_Pack / MPI_Unpack / MPI_Pack_size (§4.2). The packed format is the
// homogeneous one: the type map's bytes in order, no header (Pack_size = count * type size).
#include <algorithm>
#include <climits>
#include <cstring>
#include <vector>

#include "api/common.h"
#include "api/datatype_common.h"
#include "datatype/datatype.h"
#include "datatype/derived.h"

namespace {
using ftmpi::Errc;
using ftmpi::Status;
namespace dt = ftmpi::dt;

using ftmpi::api::describable;
using ftmpi::api::finish_new_type;
using ftmpi::api::int_args;
constexpr auto fail = ftmpi::api::fail_type_call;

// No single old type to check (MPI_Type_create_struct checks each of its array's entries).
const ftmpi_datatype_s* const kNoOldType = &ftmpi_dt_byte;

// Shared checks of every constructor: count >= 0, arrays present when count > 0, old type, newtype.
int check_ctor(int count, bool arrays_ok, const ftmpi_datatype_s* old, const MPI_Datatype* newtype,
               const char* fn) {
  if (count < 0) return fail(Errc::count, "negative count", fn);
  if (count > 0 && !arrays_ok) return fail(Errc::arg, "an array argument is NULL", fn);
  if (!describable(old)) return fail(Errc::type, "invalid datatype", fn);
  if (newtype == nullptr) return fail(Errc::arg, "newtype is NULL", fn);
  return MPI_SUCCESS;
}

std::vector<std::ptrdiff_t> to_ptrdiff(int count, const MPI_Aint* a) {
  return std::vector<std::ptrdiff_t>(a, a + count);
}

int hvector(int count, int blocklength, MPI_Aint stride, MPI_Datatype oldtype, MPI_Datatype* newtype,
            const char* fn) {
  if (int rc = check_ctor(count, true, oldtype, newtype, fn); rc != MPI_SUCCESS) return rc;
  if (blocklength < 0) return fail(Errc::count, "negative blocklength", fn);
  return finish_new_type(dt::make_hvector(static_cast<std::size_t>(count), static_cast<std::size_t>(blocklength),
                                          stride, oldtype),
                         {dt::Combiner::hvector, {count, blocklength}, {stride}, {oldtype}}, newtype, fn);
}
}  // namespace

extern "C" int PMPI_Type_create_hvector(int count, int blocklength, MPI_Aint stride, MPI_Datatype oldtype,
                                        MPI_Datatype* newtype) {
  FTMPI_ENTER("MPI_Type_create_hvector");
  return hvector(count, blocklength, stride, oldtype, newtype, "MPI_Type_create_hvector");
}
FTMPI_ALIAS(Type_create_hvector)

extern "C" int PMPI_Type_hvector(int count, int blocklength, MPI_Aint stride, MPI_Datatype oldtype,
                                 MPI_Datatype* newtype) {
  FTMPI_ENTER("MPI_Type_hvector");
  return hvector(count, blocklength, stride, oldtype, newtype, "MPI_Type_hvector");
}
FTMPI_ALIAS(Type_hvector)

extern "C" int PMPI_Type_indexed(int count, const int array_of_blocklengths[], const int array_of_displacements[],
                                 MPI_Datatype oldtype, MPI_Datatype* newtype) {
  FTMPI_ENTER("MPI_Type_indexed");
  const char* fn = "MPI_Type_indexed";
  if (int rc = check_ctor(count, array_of_blocklengths && array_of_displacements, oldtype, newtype, fn);
      rc != MPI_SUCCESS)
    return rc;
  return finish_new_type(
      dt::make_indexed(static_cast<std::size_t>(count), array_of_blocklengths, array_of_displacements, oldtype),
      {dt::Combiner::indexed, int_args({count}, count, {array_of_blocklengths, array_of_displacements}), {},
       {oldtype}},
      newtype, fn);
}
FTMPI_ALIAS(Type_indexed)

extern "C" int PMPI_Type_create_hindexed(int count, const int array_of_blocklengths[],
                                         const MPI_Aint array_of_displacements[], MPI_Datatype oldtype,
                                         MPI_Datatype* newtype) {
  FTMPI_ENTER("MPI_Type_create_hindexed");
  const char* fn = "MPI_Type_create_hindexed";
  if (int rc = check_ctor(count, array_of_blocklengths && array_of_displacements, oldtype, newtype, fn);
      rc != MPI_SUCCESS)
    return rc;
  const auto displs = to_ptrdiff(count, array_of_displacements);
  return finish_new_type(
      dt::make_hindexed(static_cast<std::size_t>(count), array_of_blocklengths, displs.data(), oldtype),
      {dt::Combiner::hindexed, int_args({count}, count, {array_of_blocklengths}), displs, {oldtype}}, newtype, fn);
}
FTMPI_ALIAS(Type_create_hindexed)

extern "C" int PMPI_Type_create_indexed_block(int count, int blocklength, const int array_of_displacements[],
                                              MPI_Datatype oldtype, MPI_Datatype* newtype) {
  FTMPI_ENTER("MPI_Type_create_indexed_block");
  const char* fn = "MPI_Type_create_indexed_block";
  if (int rc = check_ctor(count, array_of_displacements != nullptr, oldtype, newtype, fn); rc != MPI_SUCCESS)
    return rc;
  if (blocklength < 0) return fail(Errc::count, "negative blocklength", fn);
  return finish_new_type(dt::make_indexed_block(static_cast<std::size_t>(count),
                                                static_cast<std::size_t>(blocklength), array_of_displacements,
                                                oldtype),
                         {dt::Combiner::indexed_block, int_args({count, blocklength}, count, {array_of_displacements}),
                          {}, {oldtype}},
                         newtype, fn);
}
FTMPI_ALIAS(Type_create_indexed_block)

extern "C" int PMPI_Type_create_hindexed_block(int count, int blocklength, const MPI_Aint array_of_displacements[],
                                               MPI_Datatype oldtype, MPI_Datatype* newtype) {
  FTMPI_ENTER("MPI_Type_create_hindexed_block");
  const char* fn = "MPI_Type_create_hindexed_block";
  if (int rc = check_ctor(count, array_of_displacements != nullptr, oldtype, newtype, fn); rc != MPI_SUCCESS)
    return rc;
  if (blocklength < 0) return fail(Errc::count, "negative blocklength", fn);
  const auto displs = to_ptrdiff(count, array_of_displacements);
  return finish_new_type(dt::make_hindexed_block(static_cast<std::size_t>(count),
                                                 static_cast<std::size_t>(blocklength), displs.data(), oldtype),
                         {dt::Combiner::hindexed_block, {count, blocklength}, displs, {oldtype}}, newtype, fn);
}
FTMPI_ALIAS(Type_create_hindexed_block)

extern "C" int PMPI_Type_create_struct(int count, const int array_of_blocklengths[],
                                       const MPI_Aint array_of_displacements[], const MPI_Datatype array_of_types[],
                                       MPI_Datatype* newtype) {
  FTMPI_ENTER("MPI_Type_create_struct");
  const char* fn = "MPI_Type_create_struct";
  if (int rc = check_ctor(count, array_of_blocklengths && array_of_displacements && array_of_types, kNoOldType,
                          newtype, fn);
      rc != MPI_SUCCESS)
    return rc;
  const auto displs = to_ptrdiff(count, array_of_displacements);
  std::vector<const dt::Datatype*> types(array_of_types, array_of_types + count);
  return finish_new_type(
      dt::make_struct(static_cast<std::size_t>(count), array_of_blocklengths, displs.data(), types.data()),
      {dt::Combiner::struct_, int_args({count}, count, {array_of_blocklengths}), displs, types}, newtype, fn);
}
FTMPI_ALIAS(Type_create_struct)

extern "C" int PMPI_Type_create_resized(MPI_Datatype oldtype, MPI_Aint lb, MPI_Aint extent, MPI_Datatype* newtype) {
  FTMPI_ENTER("MPI_Type_create_resized");
  const char* fn = "MPI_Type_create_resized";
  if (int rc = check_ctor(0, true, oldtype, newtype, fn); rc != MPI_SUCCESS) return rc;
  return finish_new_type(dt::make_resized(oldtype, lb, extent), {dt::Combiner::resized, {}, {lb, extent}, {oldtype}},
                         newtype, fn);
}
FTMPI_ALIAS(Type_create_resized)

extern "C" int PMPI_Type_set_name(MPI_Datatype datatype, const char* type_name) {
  FTMPI_ENTER("MPI_Type_set_name");
  if (!dt::live(datatype)) return fail(Errc::type, "invalid datatype", "MPI_Type_set_name");
  if (type_name == nullptr) return fail(Errc::arg, "type_name is NULL", "MPI_Type_set_name");
  datatype->name.assign(type_name, strnlen(type_name, MPI_MAX_OBJECT_NAME - 1));
  return MPI_SUCCESS;
}
FTMPI_ALIAS(Type_set_name)

extern "C" int PMPI_Type_get_name(MPI_Datatype datatype, char* type_name, int* resultlen) {
  FTMPI_ENTER("MPI_Type_get_name");
  if (!dt::live(datatype)) return fail(Errc::type, "invalid datatype", "MPI_Type_get_name");
  if (type_name == nullptr || resultlen == nullptr)
    return fail(Errc::arg, "type_name or resultlen is NULL", "MPI_Type_get_name");
  const std::size_t n = std::min<std::size_t>(datatype->name.size(), MPI_MAX_OBJECT_NAME - 1);
  std::memcpy(type_name, datatype->name.data(), n);
  type_name[n] = '\0';
  *resultlen = static_cast<int>(n);
  return MPI_SUCCESS;
}
FTMPI_ALIAS(Type_get_name)

extern "C" int PMPI_Type_get_extent_x(MPI_Datatype datatype, MPI_Count* lb, MPI_Count* extent) {
  FTMPI_ENTER("MPI_Type_get_extent_x");
  if (!dt::live(datatype)) return fail(Errc::type, "invalid datatype", "MPI_Type_get_extent_x");
  if (lb == nullptr || extent == nullptr) return fail(Errc::arg, "lb or extent is NULL", "MPI_Type_get_extent_x");
  *lb = datatype->lb;
  *extent = datatype->extent;
  return MPI_SUCCESS;
}
FTMPI_ALIAS(Type_get_extent_x)

extern "C" int PMPI_Type_get_true_extent_x(MPI_Datatype datatype, MPI_Count* true_lb, MPI_Count* true_extent) {
  FTMPI_ENTER("MPI_Type_get_true_extent_x");
  if (!dt::live(datatype)) return fail(Errc::type, "invalid datatype", "MPI_Type_get_true_extent_x");
  if (true_lb == nullptr || true_extent == nullptr)
    return fail(Errc::arg, "true_lb or true_extent is NULL", "MPI_Type_get_true_extent_x");
  *true_lb = datatype->true_lb;
  *true_extent = datatype->true_extent;
  return MPI_SUCCESS;
}
FTMPI_ALIAS(Type_get_true_extent_x)

extern "C" int PMPI_Status_set_elements_x(MPI_Status* status, MPI_Datatype datatype, MPI_Count count) {
  FTMPI_ENTER("MPI_Status_set_elements_x");
  if (status == MPI_STATUS_IGNORE) return fail(Errc::arg, "status is NULL", "MPI_Status_set_elements_x");
  if (count < 0) return fail(Errc::count, "negative count", "MPI_Status_set_elements_x");
  if (!describable(datatype)) return fail(Errc::type, "invalid datatype", "MPI_Status_set_elements_x");
  status->ftmpi_count = static_cast<MPI_Count>(dt::bytes_for_elements(datatype, static_cast<std::size_t>(count)));
  return MPI_SUCCESS;
}
FTMPI_ALIAS(Status_set_elements_x)

extern "C" int PMPI_Pack(const void* inbuf, int incount, MPI_Datatype datatype, void* outbuf, int outsize,
                         int* position, MPI_Comm comm) {
  FTMPI_ENTER("MPI_Pack");
  const char* fn = "MPI_Pack";
  FTMPI_CHECK_COMM(comm, fn);
  if (incount < 0) return fail(Errc::count, "negative incount", fn);
  if (!ftmpi::api::valid_type(datatype)) return fail(Errc::type, "invalid or uncommitted datatype", fn);
  if (position == nullptr) return fail(Errc::arg, "position is NULL", fn);
  const std::size_t bytes = dt::packed_size(datatype, static_cast<std::size_t>(incount));
  if (!ftmpi::api::buffer_fits(*position, bytes, outsize))
    return ftmpi::api::ret(comm, Status(Errc::truncate, "outbuf too small for the packed data"), fn);
  if (bytes > 0) dt::pack(inbuf, static_cast<std::size_t>(incount), datatype, static_cast<char*>(outbuf) + *position);
  *position += static_cast<int>(bytes);
  return MPI_SUCCESS;
}
FTMPI_ALIAS(Pack)

extern "C" int PMPI_Unpack(const void* inbuf, int insize, int* position, void* outbuf, int outcount,
                           MPI_Datatype datatype, MPI_Comm comm) {
  FTMPI_ENTER("MPI_Unpack");
  const char* fn = "MPI_Unpack";
  FTMPI_CHECK_COMM(comm, fn);
  if (outcount < 0) return fail(Errc::count, "negative outcount", fn);
  if (!ftmpi::api::valid_type(datatype)) return fail(Errc::type, "invalid or uncommitted datatype", fn);
  if (position == nullptr) return fail(Errc::arg, "position is NULL", fn);
  const std::size_t bytes = dt::packed_size(datatype, static_cast<std::size_t>(outcount));
  if (!ftmpi::api::buffer_fits(*position, bytes, insize))
    return ftmpi::api::ret(comm, Status(Errc::truncate, "inbuf holds less than outcount elements"), fn);
  if (bytes > 0) dt::unpack(static_cast<const char*>(inbuf) + *position, bytes, datatype, outbuf);
  *position += static_cast<int>(bytes);
  return MPI_SUCCESS;
}
FTMPI_ALIAS(Unpack)

extern "C" int PMPI_Pack_size(int incount, MPI_Datatype datatype, MPI_Comm comm, int* size) {
  FTMPI_ENTER("MPI_Pack_size");
  const char* fn = "MPI_Pack_size";
  FTMPI_CHECK_COMM(comm, fn);
  if (incount < 0) return fail(Errc::count, "negative incount", fn);
  if (!describable(datatype)) return fail(Errc::type, "invalid datatype", fn);
  if (size == nullptr) return fail(Errc::arg, "size is NULL", fn);
  const std::size_t bytes = dt::packed_size(datatype, static_cast<std::size_t>(incount));
  if (bytes > static_cast<std::size_t>(INT_MAX))
    return fail(Errc::count, "packed size does not fit in an int (use a smaller count)", fn);
  *size = static_cast<int>(bytes);
  return MPI_SUCCESS;
}
FTMPI_ALIAS(Pack_size)
