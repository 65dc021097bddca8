// C API: datatype queries and constructors, status element counts (MPI-3.1 §3.2.5, §4.1).
#include <climits>

#include "api/attr.h"
#include "api/common.h"
#include "api/datatype_common.h"
#include "api/errors.h"
#include "datatype/datatype.h"
#include "datatype/derived.h"

namespace {
using ftmpi::Errc;
using ftmpi::Status;
namespace dt = ftmpi::dt;

using ftmpi::api::describable;
using ftmpi::api::finish_new_type;
constexpr auto fail = ftmpi::api::fail_type_call;

int to_int_or_undefined(std::size_t v) { return v > static_cast<std::size_t>(INT_MAX) ? MPI_UNDEFINED : static_cast<int>(v); }

// Receives from MPI_PROC_NULL etc. may leave a negative count in a user-made status: treat it as 0.
std::size_t status_bytes(const MPI_Status* s) { return s->ftmpi_count > 0 ? static_cast<std::size_t>(s->ftmpi_count) : 0; }

// Shared by Get_elements and Get_elements_x: MPI_UNDEFINED when the bytes are not whole basic elements.
MPI_Count elements_of(const MPI_Status* status, const ftmpi_datatype_s* t) {
  const std::size_t bytes = status_bytes(status);
  if (t->size == 0) return 0;
  const std::size_t n = dt::elements_in(t, bytes);
  if (dt::bytes_for_elements(t, n) != bytes) return MPI_UNDEFINED;
  return static_cast<MPI_Count>(n);
}
}  // namespace

extern "C" int PMPI_Type_size(MPI_Datatype datatype, int* size) {
  FTMPI_ENTER("MPI_Type_size");
  if (!dt::live(datatype)) return fail(Errc::type, "invalid datatype", "MPI_Type_size");
  if (size == nullptr) return fail(Errc::arg, "size is NULL", "MPI_Type_size");
  *size = to_int_or_undefined(datatype->size);
  return MPI_SUCCESS;
}
FTMPI_ALIAS(Type_size)

extern "C" int PMPI_Type_size_x(MPI_Datatype datatype, MPI_Count* size) {
  FTMPI_ENTER("MPI_Type_size_x");
  if (!dt::live(datatype)) return fail(Errc::type, "invalid datatype", "MPI_Type_size_x");
  if (size == nullptr) return fail(Errc::arg, "size is NULL", "MPI_Type_size_x");
  *size = static_cast<MPI_Count>(datatype->size);
  return MPI_SUCCESS;
}
FTMPI_ALIAS(Type_size_x)

extern "C" int PMPI_Type_get_extent(MPI_Datatype datatype, MPI_Aint* lb, MPI_Aint* extent) {
  FTMPI_ENTER("MPI_Type_get_extent");
  if (!dt::live(datatype)) return fail(Errc::type, "invalid datatype", "MPI_Type_get_extent");
  if (lb == nullptr || extent == nullptr) return fail(Errc::arg, "lb or extent is NULL", "MPI_Type_get_extent");
  *lb = datatype->lb;
  *extent = datatype->extent;
  return MPI_SUCCESS;
}
FTMPI_ALIAS(Type_get_extent)

extern "C" int PMPI_Type_get_true_extent(MPI_Datatype datatype, MPI_Aint* true_lb, MPI_Aint* true_extent) {
  FTMPI_ENTER("MPI_Type_get_true_extent");
  if (!dt::live(datatype)) return fail(Errc::type, "invalid datatype", "MPI_Type_get_true_extent");
  if (true_lb == nullptr || true_extent == nullptr)
    return fail(Errc::arg, "true_lb or true_extent is NULL", "MPI_Type_get_true_extent");
  *true_lb = datatype->true_lb;
  *true_extent = datatype->true_extent;
  return MPI_SUCCESS;
}
FTMPI_ALIAS(Type_get_true_extent)

extern "C" int PMPI_Type_commit(MPI_Datatype* datatype) {
  FTMPI_ENTER("MPI_Type_commit");
  if (datatype == nullptr) return fail(Errc::arg, "datatype is NULL", "MPI_Type_commit");
  if (!dt::live(*datatype)) return fail(Errc::type, "invalid datatype", "MPI_Type_commit");
  if (!(*datatype)->predefined) dt::commit(*datatype);
  return MPI_SUCCESS;
}
FTMPI_ALIAS(Type_commit)

extern "C" int PMPI_Type_free(MPI_Datatype* datatype) {
  FTMPI_ENTER("MPI_Type_free");
  if (datatype == nullptr) return fail(Errc::arg, "datatype is NULL", "MPI_Type_free");
  if (dt::live(*datatype) && dt::is_f90(*datatype))
    return fail(Errc::type, "a type returned by MPI_Type_create_f90_* cannot be freed", "MPI_Type_free");
  // Attributes first (api/attr.h): a failing delete callback makes the free fail with its code.
  if (dt::live(*datatype) && !(*datatype)->predefined)
    if (int rc = ftmpi::api::delete_attributes(ftmpi::attr::ObjectKind::type, *datatype); rc != MPI_SUCCESS)
      return ftmpi::api::invoke_errhandler(nullptr, rc, "an attribute delete callback failed", "MPI_Type_free");
  ftmpi::Status st = dt::retire(*datatype);
  if (!st.ok()) return ftmpi::api::ret(nullptr, st, "MPI_Type_free");
  *datatype = MPI_DATATYPE_NULL;
  return MPI_SUCCESS;
}
FTMPI_ALIAS(Type_free)

extern "C" int PMPI_Type_contiguous(int count, MPI_Datatype oldtype, MPI_Datatype* newtype) {
  FTMPI_ENTER("MPI_Type_contiguous");
  if (count < 0) return fail(Errc::count, "negative count", "MPI_Type_contiguous");
  if (!describable(oldtype)) return fail(Errc::type, "invalid datatype", "MPI_Type_contiguous");
  if (newtype == nullptr) return fail(Errc::arg, "newtype is NULL", "MPI_Type_contiguous");
  return finish_new_type(dt::make_contiguous(static_cast<std::size_t>(count), oldtype),
                         {dt::Combiner::contiguous, {count}, {}, {oldtype}}, newtype, "MPI_Type_contiguous");
}
FTMPI_ALIAS(Type_contiguous)

extern "C" int PMPI_Type_vector(int count, int blocklength, int stride, MPI_Datatype oldtype,
                                MPI_Datatype* newtype) {
  FTMPI_ENTER("MPI_Type_vector");
  if (count < 0 || blocklength < 0) return fail(Errc::count, "negative count or blocklength", "MPI_Type_vector");
  if (!describable(oldtype)) return fail(Errc::type, "invalid datatype", "MPI_Type_vector");
  if (newtype == nullptr) return fail(Errc::arg, "newtype is NULL", "MPI_Type_vector");
  return finish_new_type(dt::make_vector(static_cast<std::size_t>(count), static_cast<std::size_t>(blocklength),
                                         stride, oldtype),
                         {dt::Combiner::vector, {count, blocklength, stride}, {}, {oldtype}}, newtype,
                         "MPI_Type_vector");
}
FTMPI_ALIAS(Type_vector)

extern "C" int PMPI_Type_dup(MPI_Datatype oldtype, MPI_Datatype* newtype) {
  FTMPI_ENTER("MPI_Type_dup");
  if (!dt::live(oldtype)) return fail(Errc::type, "invalid datatype", "MPI_Type_dup");
  if (newtype == nullptr) return fail(Errc::arg, "newtype is NULL", "MPI_Type_dup");
  int rc = finish_new_type(dt::make_dup(oldtype), {dt::Combiner::dup, {}, {}, {oldtype}}, newtype, "MPI_Type_dup");
  if (rc != MPI_SUCCESS) return rc;
  // Attributes follow their keyvals' copy callbacks (MPI-3.1 §6.7.4); a failing callback undoes the dup.
  if (int crc = ftmpi::api::copy_attributes(ftmpi::attr::ObjectKind::type, oldtype, *newtype); crc != MPI_SUCCESS) {
    ftmpi::Status undo = dt::retire(*newtype);
    (void)undo;
    *newtype = MPI_DATATYPE_NULL;
    return ftmpi::api::invoke_errhandler(nullptr, crc, "an attribute copy callback failed", "MPI_Type_dup");
  }
  return MPI_SUCCESS;
}
FTMPI_ALIAS(Type_dup)

extern "C" int PMPI_Get_address(const void* location, MPI_Aint* address) {
  FTMPI_ENTER("MPI_Get_address");
  if (address == nullptr) return fail(Errc::arg, "address is NULL", "MPI_Get_address");
  *address = reinterpret_cast<MPI_Aint>(location);
  return MPI_SUCCESS;
}
FTMPI_ALIAS(Get_address)

extern "C" int PMPI_Get_count(const MPI_Status* status, MPI_Datatype datatype, int* count) {
  FTMPI_ENTER("MPI_Get_count");
  if (status == MPI_STATUS_IGNORE || count == nullptr)
    return fail(Errc::arg, "status or count is NULL", "MPI_Get_count");
  if (!describable(datatype)) return fail(Errc::type, "invalid datatype", "MPI_Get_count");
  const std::size_t bytes = status_bytes(status);
  if (datatype->size == 0) {
    *count = bytes == 0 ? 0 : MPI_UNDEFINED;
  } else if (bytes % datatype->size != 0) {
    *count = MPI_UNDEFINED;
  } else {
    *count = to_int_or_undefined(bytes / datatype->size);
  }
  return MPI_SUCCESS;
}
FTMPI_ALIAS(Get_count)

extern "C" int PMPI_Get_elements_x(const MPI_Status* status, MPI_Datatype datatype, MPI_Count* count) {
  FTMPI_ENTER("MPI_Get_elements_x");
  if (status == MPI_STATUS_IGNORE || count == nullptr)
    return fail(Errc::arg, "status or count is NULL", "MPI_Get_elements_x");
  if (!describable(datatype)) return fail(Errc::type, "invalid datatype", "MPI_Get_elements_x");
  *count = elements_of(status, datatype);
  return MPI_SUCCESS;
}
FTMPI_ALIAS(Get_elements_x)

extern "C" int PMPI_Get_elements(const MPI_Status* status, MPI_Datatype datatype, int* count) {
  FTMPI_ENTER("MPI_Get_elements");
  if (status == MPI_STATUS_IGNORE || count == nullptr)
    return fail(Errc::arg, "status or count is NULL", "MPI_Get_elements");
  if (!describable(datatype)) return fail(Errc::type, "invalid datatype", "MPI_Get_elements");
  const MPI_Count n = elements_of(status, datatype);
  *count = (n == MPI_UNDEFINED || n > INT_MAX) ? MPI_UNDEFINED : static_cast<int>(n);
  return MPI_SUCCESS;
}
FTMPI_ALIAS(Get_elements)

extern "C" int PMPI_Status_set_elements(MPI_Status* status, MPI_Datatype datatype, int count) {
  FTMPI_ENTER("MPI_Status_set_elements");
  if (status == MPI_STATUS_IGNORE) return fail(Errc::arg, "status is NULL", "MPI_Status_set_elements");
  if (count < 0) return fail(Errc::count, "negative count", "MPI_Status_set_elements");
  if (!describable(datatype)) return fail(Errc::type, "invalid datatype", "MPI_Status_set_elements");
  status->ftmpi_count = static_cast<MPI_Count>(dt::bytes_for_elements(datatype, static_cast<std::size_t>(count)));
  return MPI_SUCCESS;
}
FTMPI_ALIAS(Status_set_elements)

extern "C" int PMPI_Status_set_cancelled(MPI_Status* status, int flag) {
  FTMPI_ENTER("MPI_Status_set_cancelled");
  if (status == MPI_STATUS_IGNORE) return fail(Errc::arg, "status is NULL", "MPI_Status_set_cancelled");
  status->ftmpi_cancelled = flag ? 1 : 0;
  return MPI_SUCCESS;
}
FTMPI_ALIAS(Status_set_cancelled)
