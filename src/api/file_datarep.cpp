// MPI_Register_datarep (MPI-3.1 §13.5.3): user data representations, registered for the process's lifetime.
//
// A view with a user representation lays out the file with the sizes the extent function gives (asked once
// per basic kind, with the kind's predefined datatype), like external32's (api/file_repr.h: the filetype's
// file image); an access's stream is its data items back to back at those sizes, made and read by the
// conversion functions chunk by chunk (position and count in data items, §13.5.3). MPI_CONVERSION_FN_NULL (for
// either function): the file holds native bytes, so the extent function must give the native sizes (otherwise
// MPI_ERR_UNSUPPORTED_DATAREP at set_view). A conversion function's error code fails the access with that
// code's class. A name registered twice, or a predefined one: MPI_ERR_DUP_DATAREP.
#include <map>
#include <memory>

#include "api/file_common.h"
#include "api/file_repr.h"
#include "api/grequest.h"
#include "datatype/datatype.h"
#include "datatype/kinds.h"

using ftmpi::Errc;
using ftmpi::Status;

namespace ftmpi::api {
namespace {

std::map<std::string, std::unique_ptr<io::UserDatarep>>& registry() {
  static std::map<std::string, std::unique_ptr<io::UserDatarep>> r;  // process-wide by definition (§13.5.3)
  return r;
}

}  // namespace

const io::UserDatarep* find_datarep(const char* name) {
  auto it = registry().find(name);
  return it == registry().end() ? nullptr : it->second.get();
}

MPI_Datatype predefined_of(dt::Basic b) {
  for (MPI_Datatype t :
       {MPI_CHAR, MPI_SIGNED_CHAR, MPI_UNSIGNED_CHAR, MPI_BYTE, MPI_SHORT, MPI_UNSIGNED_SHORT, MPI_INT, MPI_UNSIGNED,
        MPI_LONG, MPI_UNSIGNED_LONG, MPI_LONG_LONG, MPI_UNSIGNED_LONG_LONG, MPI_FLOAT, MPI_DOUBLE, MPI_LONG_DOUBLE,
        MPI_WCHAR, MPI_C_BOOL, MPI_INT8_T, MPI_INT16_T, MPI_INT32_T, MPI_INT64_T, MPI_UINT8_T, MPI_UINT16_T,
        MPI_UINT32_T, MPI_UINT64_T, MPI_AINT, MPI_OFFSET, MPI_COUNT, MPI_C_FLOAT_COMPLEX, MPI_C_DOUBLE_COMPLEX,
        MPI_C_LONG_DOUBLE_COMPLEX, MPI_PACKED, MPI_FLOAT_INT, MPI_DOUBLE_INT, MPI_LONG_INT, MPI_2INT, MPI_SHORT_INT,
        MPI_LONG_DOUBLE_INT, MPI_LOGICAL, MPI_2REAL, MPI_2DOUBLE_PRECISION})
    if (t->basic == b) return t;
  return nullptr;
}

Status check_user_extents(const io::UserDatarep& rep, MPI_Datatype t) {
  const RepSizes sizes(&rep);
  Status st;
  dt::for_each_run(t, 1, [&](dt::Basic kind, std::size_t) {
    std::size_t s = 0;
    if (!st.ok() || !(st = sizes.unit(kind, &s)).ok()) return;
    if (s != dt::unit_size(kind))
      st = Status(Errc::unsupported_datarep,
                  "data representation '" + rep.name + "' has a null conversion function but gives a file extent of " +
                      std::to_string(s) + " bytes to " + predefined_of(kind)->name + " (" +
                      std::to_string(dt::unit_size(kind)) + " natively)");
  });
  return st;
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
