// Attribute caching C functions (MPI-3.1 §6.7): Comm_create_keyval/free_keyval/set_attr/get_attr/
// delete_attr, the deprecated MPI-1 names (Keyval_create/free, Attr_put/delete; Attr_get is in
// local_utils.cpp), Type_ keyvals, and the predefined attributes of MPI_COMM_WORLD (MPI_TAG_UB, MPI_HOST,
// MPI_IO, MPI_WTIME_IS_GLOBAL, MPI_UNIVERSE_SIZE, MPI_LASTUSEDCODE, MPI_APPNUM, MPIX_FT).
#include <cstdlib>
#include "api/attr.h"

#include "api/common.h"
#include "api/error_class.h"
#include "api/errors.h"
#include "api/events_api.h"
#include "comm/error_classes.h"
#include "datatype/datatype.h"
#include "mpi-ext.h"

using ftmpi::Errc;
using ftmpi::Status;
using ftmpi::api::ret;
using ftmpi::attr::ObjectKind;

namespace ftmpi::api {

attr::AttributeRegistry& attributes() {
  static attr::AttributeRegistry registry;
  return registry;
}

int copy_attributes(attr::ObjectKind kind, const void* from, const void* to) {
  attr::AttrResult r = attributes().copy_all(kind, from, to);
  if (r.ok()) return MPI_SUCCESS;
  return r.callback_code ? r.callback_code : error_class_of(r.status.code());
}

int delete_attributes(attr::ObjectKind kind, const void* object) {
  attr::AttrResult r = attributes().delete_all(kind, object);
  if (r.ok()) return MPI_SUCCESS;
  return r.callback_code ? r.callback_code : error_class_of(r.status.code());
}

}  // namespace ftmpi::api

namespace {

// Storage for the values of the predefined attributes (MPI hands out pointers to them). Constants, or
// values fixed for the life of the job once MPI_Init ran.
//  MPI_TAG_UB = 2^31-1 (the envelope carries a 32-bit signed tag); MPI_HOST = MPI_PROC_NULL and
//  MPI_IO = MPI_ANY_SOURCE (every process can do I/O), as MPICH does; MPI_WTIME_IS_GLOBAL = 0;
//  MPI_UNIVERSE_SIZE = the slots ftmpi's mpiexec gives the job (FTMPI_UNIVERSE_SIZE: cores, --host slots,
//  --universe-size), else the size of MPI_COMM_WORLD; MPI_APPNUM = the position of the process's program
//  (FTMPI_APPNUM): its command of MPI_Comm_spawn_multiple or its application context of `mpiexec a : b`,
//  else 0; MPI_LASTUSEDCODE = the largest user error code/class (MPI_ERR_LASTCODE when none).
struct PredefinedAttrs {
  int tag_ub = 2147483647;
  int host = MPI_PROC_NULL;
  int io = MPI_ANY_SOURCE;
  int wtime_is_global = 0;
  int universe_size = 1;
  int lastusedcode = MPI_ERR_LASTCODE;
  int appnum = 0;
  int ft = 0;  // MPIX_FT: 1 in fault-tolerant mode (mpiexec --with-ft ulfm)
};
PredefinedAttrs g_attrs;  // the C API needs addresses that outlive the call

bool is_predefined_key(int keyval) {
  switch (keyval) {
    case MPI_TAG_UB: case MPI_HOST: case MPI_IO: case MPI_WTIME_IS_GLOBAL: case MPI_UNIVERSE_SIZE:
    case MPI_LASTUSEDCODE: case MPI_APPNUM: case MPIX_FT: case MPI_FAILED_LIST: case MPI_FAILED_SIZE: return true;
    default: return false;
  }
}

int* predefined_attr(int keyval) {
  using ftmpi::api::rt;
  switch (keyval) {
    case MPI_TAG_UB: return &g_attrs.tag_ub;
    case MPI_HOST: return &g_attrs.host;
    case MPI_IO: return &g_attrs.io;
    case MPI_WTIME_IS_GLOBAL: return &g_attrs.wtime_is_global;
    case MPI_UNIVERSE_SIZE:
      g_attrs.universe_size = rt().world_size();
      if (const char* u = std::getenv("FTMPI_UNIVERSE_SIZE"); u && std::atoi(u) > 0) g_attrs.universe_size = std::atoi(u);
      return &g_attrs.universe_size;
    case MPI_LASTUSEDCODE:
      g_attrs.lastusedcode = ftmpi::api::error_classes().last_used();
      return &g_attrs.lastusedcode;
    case MPI_APPNUM:
      if (const char* a = std::getenv("FTMPI_APPNUM")) g_attrs.appnum = std::atoi(a);
      return &g_attrs.appnum;
    case MPIX_FT:
      g_attrs.ft = rt().ft_mode() ? 1 : 0;
      return &g_attrs.ft;
    default: return nullptr;
  }
}

// An attribute operation's failure: the user callback's own code when one failed, else the Status.
int fail(ftmpi_comm_s* comm, const ftmpi::attr::AttrResult& r, const char* fn) {
  if (r.ok()) return MPI_SUCCESS;
  if (r.callback_code) return ftmpi::api::invoke_errhandler(comm, r.callback_code, r.status.message(), fn);
  return ret(comm, r.status, fn);
}

// ---- communicator keyvals ----

int comm_create_keyval(MPI_Comm_copy_attr_function* copy_fn, MPI_Comm_delete_attr_function* delete_fn, int* keyval,
                       void* extra, const char* fn) {
  if (!keyval) return ret(nullptr, Status(Errc::arg, "keyval is NULL"), fn);
  ftmpi::attr::CopyFn copy;
  if (copy_fn && copy_fn != MPI_COMM_NULL_COPY_FN)
    copy = [copy_fn, extra](const void* old, int kv, void* in, void** out, int* flag) {
      return copy_fn(static_cast<MPI_Comm>(const_cast<void*>(old)), kv, extra, in, out, flag);
    };
  ftmpi::attr::DeleteFn del;
  if (delete_fn && delete_fn != MPI_COMM_NULL_DELETE_FN)
    del = [delete_fn, extra](const void* obj, int kv, void* value) {
      return delete_fn(static_cast<MPI_Comm>(const_cast<void*>(obj)), kv, value, extra);
    };
  auto id = ftmpi::api::attributes().create_keyval(ObjectKind::comm, std::move(copy), std::move(del));
  if (!id.ok()) return ret(nullptr, id.status(), fn);
  *keyval = *id;
  return MPI_SUCCESS;
}

int comm_free_keyval(int* keyval, const char* fn) {
  if (!keyval) return ret(nullptr, Status(Errc::arg, "keyval is NULL"), fn);
  if (is_predefined_key(*keyval)) return ret(nullptr, Status(Errc::keyval, "cannot free a predefined attribute key"), fn);
  Status st = ftmpi::api::attributes().free_keyval(ObjectKind::comm, *keyval);
  if (!st.ok()) return ret(nullptr, st, fn);
  *keyval = MPI_KEYVAL_INVALID;
  return MPI_SUCCESS;
}

int comm_set_attr(MPI_Comm comm, int keyval, void* value, const char* fn) {
  if (is_predefined_key(keyval)) return ret(comm, Status(Errc::keyval, "predefined attributes are read-only"), fn);
  return fail(comm, ftmpi::api::attributes().set(ObjectKind::comm, comm, keyval, value), fn);
}

int comm_delete_attr(MPI_Comm comm, int keyval, const char* fn) {
  if (is_predefined_key(keyval)) return ret(comm, Status(Errc::keyval, "predefined attributes are read-only"), fn);
  return fail(comm, ftmpi::api::attributes().remove(ObjectKind::comm, comm, keyval), fn);
}

}  // namespace

extern "C" int PMPI_Comm_create_keyval(MPI_Comm_copy_attr_function* copy_fn, MPI_Comm_delete_attr_function* delete_fn,
                                       int* keyval, void* extra_state) {
  FTMPI_ENTER("MPI_Comm_create_keyval");
  return comm_create_keyval(copy_fn, delete_fn, keyval, extra_state, "MPI_Comm_create_keyval");
}
FTMPI_ALIAS(Comm_create_keyval)

extern "C" int PMPI_Keyval_create(MPI_Copy_function* copy_fn, MPI_Delete_function* delete_fn, int* keyval,
                                  void* extra_state) {
  FTMPI_ENTER("MPI_Keyval_create");
  return comm_create_keyval(copy_fn, delete_fn, keyval, extra_state, "MPI_Keyval_create");
}
FTMPI_ALIAS(Keyval_create)

extern "C" int PMPI_Comm_free_keyval(int* keyval) {
  FTMPI_ENTER("MPI_Comm_free_keyval");
  return comm_free_keyval(keyval, "MPI_Comm_free_keyval");
}
FTMPI_ALIAS(Comm_free_keyval)

extern "C" int PMPI_Keyval_free(int* keyval) {
  FTMPI_ENTER("MPI_Keyval_free");
  return comm_free_keyval(keyval, "MPI_Keyval_free");
}
FTMPI_ALIAS(Keyval_free)

extern "C" int PMPI_Comm_set_attr(MPI_Comm comm, int keyval, void* attribute_val) {
  FTMPI_ENTER("MPI_Comm_set_attr");
  FTMPI_CHECK_COMM(comm, "MPI_Comm_set_attr");
  return comm_set_attr(comm, keyval, attribute_val, "MPI_Comm_set_attr");
}
FTMPI_ALIAS(Comm_set_attr)

extern "C" int PMPI_Attr_put(MPI_Comm comm, int keyval, void* attribute_val) {
  FTMPI_ENTER("MPI_Attr_put");
  FTMPI_CHECK_COMM(comm, "MPI_Attr_put");
  return comm_set_attr(comm, keyval, attribute_val, "MPI_Attr_put");
}
FTMPI_ALIAS(Attr_put)

extern "C" int PMPI_Comm_get_attr(MPI_Comm comm, int keyval, void* attribute_val, int* flag) {
  FTMPI_ENTER("MPI_Comm_get_attr");
  FTMPI_CHECK_COMM(comm, "MPI_Comm_get_attr");
  if (!attribute_val || !flag) return ret(comm, Status(Errc::arg, "NULL argument"), "MPI_Comm_get_attr");
  if (keyval == MPI_FAILED_LIST || keyval == MPI_FAILED_SIZE) {  // LAM (seed 002 Figure 11; docs/lam.md)
    *flag = ftmpi::api::rt().ft_mode() ? 1 : 0;
    if (*flag) *static_cast<int**>(attribute_val) = ftmpi::api::failed_attr(comm, keyval);
    return MPI_SUCCESS;
  }
  if (is_predefined_key(keyval)) {
    // A communicator of the Sessions model carries MPI_TAG_UB only (MPI-4.0 §11.2.3, §9.1.1): MPI_HOST,
    // MPI_IO, MPI_WTIME_IS_GLOBAL and the process-model attributes belong to the World model; ftmpi's own
    // MPIX_FT is kept (it describes the library, not the world).
    if (comm->session != nullptr && keyval != MPI_TAG_UB && keyval != MPIX_FT) {
      *flag = 0;
      return MPI_SUCCESS;
    }
    *static_cast<int**>(attribute_val) = predefined_attr(keyval);
    *flag = 1;
    return MPI_SUCCESS;
  }
  void* value = nullptr;
  bool found = false;
  Status st = ftmpi::api::attributes().get(ObjectKind::comm, comm, keyval, &value, &found);
  if (!st.ok()) return ret(comm, st, "MPI_Comm_get_attr");
  *flag = found ? 1 : 0;
  if (found) *static_cast<void**>(attribute_val) = value;
  return MPI_SUCCESS;
}
FTMPI_ALIAS(Comm_get_attr)

extern "C" int PMPI_Comm_delete_attr(MPI_Comm comm, int keyval) {
  FTMPI_ENTER("MPI_Comm_delete_attr");
  FTMPI_CHECK_COMM(comm, "MPI_Comm_delete_attr");
  return comm_delete_attr(comm, keyval, "MPI_Comm_delete_attr");
}
FTMPI_ALIAS(Comm_delete_attr)

extern "C" int PMPI_Attr_delete(MPI_Comm comm, int keyval) {
  FTMPI_ENTER("MPI_Attr_delete");
  FTMPI_CHECK_COMM(comm, "MPI_Attr_delete");
  return comm_delete_attr(comm, keyval, "MPI_Attr_delete");
}
FTMPI_ALIAS(Attr_delete)

// ---- datatype keyvals ----

namespace {
int type_fail(const Status& st, const char* fn) { return ret(nullptr, st, fn); }
}  // namespace

extern "C" int PMPI_Type_create_keyval(MPI_Type_copy_attr_function* copy_fn, MPI_Type_delete_attr_function* delete_fn,
                                       int* keyval, void* extra) {
  FTMPI_ENTER("MPI_Type_create_keyval");
  if (!keyval) return type_fail(Status(Errc::arg, "keyval is NULL"), "MPI_Type_create_keyval");
  ftmpi::attr::CopyFn copy;
  if (copy_fn && copy_fn != MPI_TYPE_NULL_COPY_FN)
    copy = [copy_fn, extra](const void* old, int kv, void* in, void** out, int* flag) {
      return copy_fn(static_cast<MPI_Datatype>(const_cast<void*>(old)), kv, extra, in, out, flag);
    };
  ftmpi::attr::DeleteFn del;
  if (delete_fn && delete_fn != MPI_TYPE_NULL_DELETE_FN)
    del = [delete_fn, extra](const void* obj, int kv, void* value) {
      return delete_fn(static_cast<MPI_Datatype>(const_cast<void*>(obj)), kv, value, extra);
    };
  auto id = ftmpi::api::attributes().create_keyval(ObjectKind::type, std::move(copy), std::move(del));
  if (!id.ok()) return type_fail(id.status(), "MPI_Type_create_keyval");
  *keyval = *id;
  return MPI_SUCCESS;
}
FTMPI_ALIAS(Type_create_keyval)

extern "C" int PMPI_Type_free_keyval(int* keyval) {
  FTMPI_ENTER("MPI_Type_free_keyval");
  if (!keyval) return type_fail(Status(Errc::arg, "keyval is NULL"), "MPI_Type_free_keyval");
  Status st = ftmpi::api::attributes().free_keyval(ObjectKind::type, *keyval);
  if (!st.ok()) return type_fail(st, "MPI_Type_free_keyval");
  *keyval = MPI_KEYVAL_INVALID;
  return MPI_SUCCESS;
}
FTMPI_ALIAS(Type_free_keyval)

extern "C" int PMPI_Type_set_attr(MPI_Datatype type, int keyval, void* attribute_val) {
  FTMPI_ENTER("MPI_Type_set_attr");
  if (!ftmpi::dt::live(type)) return type_fail(Status(Errc::type, "invalid datatype"), "MPI_Type_set_attr");
  return fail(nullptr, ftmpi::api::attributes().set(ObjectKind::type, type, keyval, attribute_val),
              "MPI_Type_set_attr");
}
FTMPI_ALIAS(Type_set_attr)

extern "C" int PMPI_Type_get_attr(MPI_Datatype type, int keyval, void* attribute_val, int* flag) {
  FTMPI_ENTER("MPI_Type_get_attr");
  if (!ftmpi::dt::live(type)) return type_fail(Status(Errc::type, "invalid datatype"), "MPI_Type_get_attr");
  if (!attribute_val || !flag) return type_fail(Status(Errc::arg, "NULL argument"), "MPI_Type_get_attr");
  void* value = nullptr;
  bool found = false;
  Status st = ftmpi::api::attributes().get(ObjectKind::type, type, keyval, &value, &found);
  if (!st.ok()) return type_fail(st, "MPI_Type_get_attr");
  *flag = found ? 1 : 0;
  if (found) *static_cast<void**>(attribute_val) = value;
  return MPI_SUCCESS;
}
FTMPI_ALIAS(Type_get_attr)

extern "C" int PMPI_Type_delete_attr(MPI_Datatype type, int keyval) {
  FTMPI_ENTER("MPI_Type_delete_attr");
  if (!ftmpi::dt::live(type)) return type_fail(Status(Errc::type, "invalid datatype"), "MPI_Type_delete_attr");
  return fail(nullptr, ftmpi::api::attributes().remove(ObjectKind::type, type, keyval), "MPI_Type_delete_attr");
}
FTMPI_ALIAS(Type_delete_attr)
