// MPI_Add_error_class, MPI_Add_error_code, MPI_Add_error_string (MPI-3.1 §8.5). User values start above
// MPI_ERR_LASTCODE; MPI_LASTUSEDCODE follows them (api/attr.cpp); MPI_Error_class / MPI_Error_string and
// fatal-handler messages know them through user_error_class / user_error_string.
#include "api/error_class.h"

#include "api/common.h"
#include "api/errors.h"
#include "comm/error_classes.h"

using ftmpi::Errc;
using ftmpi::Status;
using ftmpi::api::ret;

namespace ftmpi::api {

comm::ErrorClassRegistry& error_classes() {
  static comm::ErrorClassRegistry registry(MPI_ERR_LASTCODE + 1, MPI_ERR_LASTCODE);
  return registry;
}

int user_error_class(int code) { return error_classes().class_of(code); }

const char* user_error_string(int code) {
  if (!error_classes().is_user(code)) return nullptr;
  const std::string* s = error_classes().string_of(code);
  return s ? s->c_str() : "";
}

}  // namespace ftmpi::api

extern "C" int PMPI_Add_error_class(int* errorclass) {
  FTMPI_ENTER("MPI_Add_error_class");
  if (!errorclass) return ret(nullptr, Status(Errc::arg, "errorclass is NULL"), "MPI_Add_error_class");
  auto c = ftmpi::api::error_classes().add_class();
  if (!c.ok()) return ret(nullptr, c.status(), "MPI_Add_error_class");
  *errorclass = *c;
  return MPI_SUCCESS;
}
FTMPI_ALIAS(Add_error_class)

extern "C" int PMPI_Add_error_code(int errorclass, int* errorcode) {
  FTMPI_ENTER("MPI_Add_error_code");
  if (!errorcode) return ret(nullptr, Status(Errc::arg, "errorcode is NULL"), "MPI_Add_error_code");
  const bool predefined = errorclass >= 0 && errorclass <= MPI_ERR_LASTCODE &&
                          ftmpi::api::error_class_sentence(errorclass) != nullptr;
  if (!predefined && ftmpi::api::user_error_class(errorclass) != errorclass)
    return ret(nullptr, Status(Errc::arg, "not an error class"), "MPI_Add_error_code");
  auto c = ftmpi::api::error_classes().add_code(errorclass);
  if (!c.ok()) return ret(nullptr, c.status(), "MPI_Add_error_code");
  *errorcode = *c;
  return MPI_SUCCESS;
}
FTMPI_ALIAS(Add_error_code)

extern "C" int PMPI_Add_error_string(int errorcode, const char* string) {
  FTMPI_ENTER("MPI_Add_error_string");
  if (!string) return ret(nullptr, Status(Errc::arg, "string is NULL"), "MPI_Add_error_string");
  return ret(nullptr, ftmpi::api::error_classes().set_string(errorcode, string), "MPI_Add_error_string");
}
FTMPI_ALIAS(Add_error_string)
