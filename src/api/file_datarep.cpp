// MPI_Register_datarep (MPI-3.1 §13.5.3): user data representations, registered for the process's lifetime.
//
// What is supported: representations whose file extent of every basic value equals its native size (the
// extent function is asked at MPI_File_set_view, for the predefined type of each basic kind in the etype and
// the filetype; another answer: MPI_ERR_UNSUPPORTED_DATAREP), so views lay out the file exactly as a native
// view does, and the conversion functions transform the bytes: a write hands the user's buffer and datatype
// to write_conversion_fn, which fills the file-side buffer; a read hands the file bytes to read_conversion_fn,
// which fills the user's buffer (position 0, the access's whole count, or the whole elements a short read
// got). MPI_CONVERSION_FN_NULL: the file holds native bytes. A conversion function's error code fails the
// access with that code's class. Types that mix basic kinds are refused at set_view.
#include <map>
#include <memory>

#include "api/file_common.h"
#include "api/grequest.h"
#include "datatype/datatype.h"

using ftmpi::Errc;
using ftmpi::Status;

namespace ftmpi::api {
namespace {

std::map<std::string, std::unique_ptr<io::UserDatarep>>& registry() {
  static std::map<std::string, std::unique_ptr<io::UserDatarep>> r;  // process-wide by definition (§13.5.3)
  return r;
}

// The predefined type of one basic kind, or null.
MPI_Datatype predefined_of(dt::Basic b) {
  for (MPI_Datatype t : {MPI_CHAR, MPI_SIGNED_CHAR, MPI_UNSIGNED_CHAR, MPI_BYTE, MPI_SHORT, MPI_UNSIGNED_SHORT, MPI_INT,
                         MPI_UNSIGNED, MPI_LONG, MPI_UNSIGNED_LONG, MPI_LONG_LONG, MPI_UNSIGNED_LONG_LONG, MPI_FLOAT,
                         MPI_DOUBLE, MPI_LONG_DOUBLE, MPI_WCHAR, MPI_C_BOOL, MPI_INT8_T, MPI_INT16_T, MPI_INT32_T,
                         MPI_INT64_T, MPI_UINT8_T, MPI_UINT16_T, MPI_UINT32_T, MPI_UINT64_T, MPI_AINT, MPI_OFFSET,
                         MPI_COUNT})
    if (t->basic == b) return t;
  return nullptr;
}

}  // namespace

const io::UserDatarep* find_datarep(const char* name) {
  auto it = registry().find(name);
  return it == registry().end() ? nullptr : it->second.get();
}

Status check_user_extents(const io::UserDatarep& rep, MPI_Datatype t) {
  if (t->size == 0) return Status::Ok();
  MPI_Datatype basic = predefined_of(t->basic);
  if (basic == nullptr)
    return Status(Errc::unsupported_datarep, "data representation '" + rep.name +
                                                 "': only types of one predefined basic kind are supported in its views");
  MPI_Aint ext = -1;
  const int rc = rep.extent(basic, &ext, rep.extra);
  if (rc != MPI_SUCCESS) return status_of_callback_code(rc, "the data representation's extent function");
  if (ext != static_cast<MPI_Aint>(basic->size))
    return Status(Errc::unsupported_datarep,
                  "data representation '" + rep.name + "' gives a file extent of " + std::to_string(ext) + " bytes to " +
                      basic->name + " (" + std::to_string(basic->size) +
                      " natively): only representations with native sizes are supported (docs/io.md)");
  return Status::Ok();
}

}  // namespace ftmpi::api

extern "C" int PMPI_Register_datarep(const char* datarep, MPI_Datarep_conversion_function* read_conversion_fn,
                                     MPI_Datarep_conversion_function* write_conversion_fn,
                                     MPI_Datarep_extent_function* dtype_file_extent_fn, void* extra_state) {
  static constexpr const char* fn = "MPI_Register_datarep";
  FTMPI_ENTER(fn);
  auto fail = [&](Errc e, const std::string& why) { return ftmpi::api::file_ret(nullptr, Status(e, why), fn); };
  if (!datarep || !*datarep) return fail(Errc::arg, "datarep is NULL or empty");
  const std::string name(datarep);
  if (name.size() >= MPI_MAX_DATAREP_STRING) return fail(Errc::arg, "datarep is longer than MPI_MAX_DATAREP_STRING - 1");
  if (!dtype_file_extent_fn) return fail(Errc::arg, "dtype_file_extent_fn is NULL");
  if (name == "native" || name == "internal" || name == "external32" || ftmpi::api::find_datarep(datarep))
    return fail(Errc::dup_datarep, "data representation '" + name + "' is already defined");
  auto rep = std::make_unique<ftmpi::io::UserDatarep>();
  rep->name = name;
  rep->read = read_conversion_fn;
  rep->write = write_conversion_fn;
  rep->extent = dtype_file_extent_fn;
  rep->extra = extra_state;
  ftmpi::api::registry().emplace(name, std::move(rep));
  return MPI_SUCCESS;
}
FTMPI_ALIAS(Register_datarep)
