// C API: small purely local functions that need no communication: profiling control, memory allocation,
// address arithmetic, the deprecated MPI_Attr_get, Fortran status conversion, and the predefined attribute
// callbacks (MPI_COMM_NULL_COPY_FN, MPI_COMM_DUP_FN, ...).
#include <cstdarg>
#include <cstdlib>
#include <cstring>

#include "api/common.h"

extern "C" int PMPI_Pcontrol(const int level, ...) {
  (void)level;  // MPI-3.1 §14.2.4: without a profiling library attached, Pcontrol has no effect
  return MPI_SUCCESS;
}
FTMPI_ALIAS(Pcontrol)

// MPI_Alloc_mem: plain aligned heap memory (no special registration is needed by our transports).
extern "C" int PMPI_Alloc_mem(MPI_Aint size, MPI_Info info, void* baseptr) {
  (void)info;
  FTMPI_ENTER("MPI_Alloc_mem");
  if (size < 0 || baseptr == nullptr)
    return ftmpi::api::ret(nullptr, ftmpi::Status(ftmpi::Errc::arg, "negative size or NULL baseptr"),
                           "MPI_Alloc_mem");
  void* p = nullptr;
  if (posix_memalign(&p, 64, size == 0 ? 1 : static_cast<std::size_t>(size)) != 0)
    return ftmpi::api::ret(nullptr, ftmpi::Status(ftmpi::Errc::no_mem, "out of memory"), "MPI_Alloc_mem");
  std::memcpy(baseptr, &p, sizeof p);  // baseptr is really a void**
  return MPI_SUCCESS;
}
FTMPI_ALIAS(Alloc_mem)

extern "C" int PMPI_Free_mem(void* base) {
  FTMPI_ENTER("MPI_Free_mem");
  std::free(base);
  return MPI_SUCCESS;
}
FTMPI_ALIAS(Free_mem)

extern "C" MPI_Aint PMPI_Aint_add(MPI_Aint base, MPI_Aint disp) {
  return static_cast<MPI_Aint>(static_cast<std::uintptr_t>(base) + static_cast<std::uintptr_t>(disp));
}
FTMPI_ALIAS(Aint_add)

extern "C" MPI_Aint PMPI_Aint_diff(MPI_Aint addr1, MPI_Aint addr2) {
  return static_cast<MPI_Aint>(static_cast<std::uintptr_t>(addr1) - static_cast<std::uintptr_t>(addr2));
}
FTMPI_ALIAS(Aint_diff)

// MPI_Attr_get is MPI_Comm_get_attr under its MPI-1 name.
extern "C" int PMPI_Attr_get(MPI_Comm comm, int keyval, void* attribute_val, int* flag) {
  return PMPI_Comm_get_attr(comm, keyval, attribute_val, flag);
}
FTMPI_ALIAS(Attr_get)

// A Fortran status is the C status seen as MPI_F_STATUS_SIZE MPI_Fint words.
extern "C" int PMPI_Status_c2f(const MPI_Status* c_status, MPI_Fint* f_status) {
  if (c_status == MPI_STATUS_IGNORE || f_status == nullptr)
    return ftmpi::api::ret(nullptr, ftmpi::Status(ftmpi::Errc::arg, "status is NULL or MPI_STATUS_IGNORE"),
                           "MPI_Status_c2f");
  std::memcpy(f_status, c_status, sizeof(MPI_Status));
  return MPI_SUCCESS;
}
FTMPI_ALIAS(Status_c2f)

extern "C" int PMPI_Status_f2c(const MPI_Fint* f_status, MPI_Status* c_status) {
  if (c_status == MPI_STATUS_IGNORE || f_status == nullptr)
    return ftmpi::api::ret(nullptr, ftmpi::Status(ftmpi::Errc::arg, "status is NULL or MPI_F_STATUS_IGNORE"),
                           "MPI_Status_f2c");
  std::memcpy(c_status, f_status, sizeof(MPI_Status));
  return MPI_SUCCESS;
}
FTMPI_ALIAS(Status_f2c)

// Predefined attribute callbacks (MPI-3.1 §6.7.2): NULL_COPY does not copy, DUP copies the value,
// NULL_DELETE does nothing.
namespace {
int null_copy(int* flag) {
  if (flag) *flag = 0;
  return MPI_SUCCESS;
}
int dup_copy(void* in, void* out, int* flag) {
  std::memcpy(out, &in, sizeof in);  // attribute_val_out is really a void**
  if (flag) *flag = 1;
  return MPI_SUCCESS;
}
}  // namespace

extern "C" {
FTMPI_API int ftmpi_comm_null_copy_fn(MPI_Comm, int, void*, void*, void*, int* flag) { return null_copy(flag); }
FTMPI_API int ftmpi_comm_dup_fn(MPI_Comm, int, void*, void* in, void* out, int* flag) {
  return dup_copy(in, out, flag);
}
FTMPI_API int ftmpi_comm_null_delete_fn(MPI_Comm, int, void*, void*) { return MPI_SUCCESS; }
FTMPI_API int ftmpi_type_null_copy_fn(MPI_Datatype, int, void*, void*, void*, int* flag) { return null_copy(flag); }
FTMPI_API int ftmpi_type_dup_fn(MPI_Datatype, int, void*, void* in, void* out, int* flag) {
  return dup_copy(in, out, flag);
}
FTMPI_API int ftmpi_type_null_delete_fn(MPI_Datatype, int, void*, void*) { return MPI_SUCCESS; }
FTMPI_API int ftmpi_win_null_copy_fn(MPI_Win, int, void*, void*, void*, int* flag) { return null_copy(flag); }
FTMPI_API int ftmpi_win_dup_fn(MPI_Win, int, void*, void* in, void* out, int* flag) {
  return dup_copy(in, out, flag);
}
FTMPI_API int ftmpi_win_null_delete_fn(MPI_Win, int, void*, void*) { return MPI_SUCCESS; }
}
