// The language of attribute values for the Fortran bindings (api/attr_language.h).
#include "api/attr_language.h"

#include "api/attr.h"
#include "api/common.h"

using ftmpi::attr::Lang;
using ftmpi::attr::ObjectKind;

namespace {

bool decode(int kind, int lang, ObjectKind* k, Lang* l) {
  if (kind < FTMPI_ATTR_COMM || kind > FTMPI_ATTR_WIN) return false;
  if (lang < FTMPI_ATTR_LANG_C || lang > FTMPI_ATTR_LANG_INT) return false;
  *k = static_cast<ObjectKind>(kind);  // same order as ObjectKind / Lang
  *l = static_cast<Lang>(lang);
  return true;
}

}  // namespace

extern "C" int ftmpi_attr_keyval_language(int kind, int keyval, int lang) {
  FTMPI_ENTER("MPI_Keyval_create");
  ObjectKind k;
  Lang l;
  if (!decode(kind, lang, &k, &l)) return MPI_ERR_ARG;
  return ftmpi::api::attributes().set_keyval_lang(k, keyval, l).ok() ? MPI_SUCCESS : MPI_ERR_KEYVAL;
}

extern "C" int ftmpi_attr_set_fortran(int kind, void* object, int keyval, MPI_Aint value, int lang) {
  FTMPI_ENTER("MPI_Comm_set_attr");
  ObjectKind k;
  Lang l;
  if (!decode(kind, lang, &k, &l)) return MPI_ERR_ARG;
  void* v = reinterpret_cast<void*>(value);
  int rc = MPI_ERR_ARG;
  switch (k) {
    case ObjectKind::comm: rc = PMPI_Comm_set_attr(static_cast<MPI_Comm>(object), keyval, v); break;
    case ObjectKind::type: rc = PMPI_Type_set_attr(static_cast<MPI_Datatype>(object), keyval, v); break;
    case ObjectKind::win: rc = PMPI_Win_set_attr(static_cast<MPI_Win>(object), keyval, v); break;
  }
  if (rc != MPI_SUCCESS || l == Lang::c) return rc;
  return ftmpi::api::attributes().relabel(k, object, keyval, l).ok() ? MPI_SUCCESS : MPI_ERR_KEYVAL;
}

extern "C" int ftmpi_attr_get_fortran(int kind, void* object, int keyval, MPI_Aint* value, int* flag) {
  FTMPI_ENTER("MPI_Comm_get_attr");
  ObjectKind k;
  Lang l;
  if (!decode(kind, FTMPI_ATTR_LANG_AINT, &k, &l) || !value || !flag) return MPI_ERR_ARG;
  void* c_view = nullptr;
  int rc = MPI_ERR_ARG;  // the C call checks the object and the key and reports through the error handler
  switch (k) {
    case ObjectKind::comm: rc = PMPI_Comm_get_attr(static_cast<MPI_Comm>(object), keyval, &c_view, flag); break;
    case ObjectKind::type: rc = PMPI_Type_get_attr(static_cast<MPI_Datatype>(object), keyval, &c_view, flag); break;
    case ObjectKind::win: rc = PMPI_Win_get_attr(static_cast<MPI_Win>(object), keyval, &c_view, flag); break;
  }
  if (rc != MPI_SUCCESS || !*flag) return rc;
  // A key the registry does not hold (MPI_FAILED_LIST ...) is a C pointer: Fortran gets its address.
  void* f_view = c_view;
  bool found = false;
  if (!ftmpi::api::attributes().get(k, object, keyval, &f_view, &found, l).ok() || !found) f_view = c_view;
  *value = reinterpret_cast<MPI_Aint>(f_view);
  return MPI_SUCCESS;
}
