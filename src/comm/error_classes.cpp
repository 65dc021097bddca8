// User-defined error classes and codes (see error_classes.h).
#include "comm/error_classes.h"

#include <climits>

namespace ftmpi::comm {

Result<int> ErrorClassRegistry::add_class() {
  if (next_ == INT_MAX) return Status(Errc::no_mem, "out of error classes");
  const int cls = next_++;
  class_of_[cls] = cls;
  return cls;
}

Result<int> ErrorClassRegistry::add_code(int cls) {
  const bool predefined_class = cls >= 0 && cls <= last_predefined_;
  if (!predefined_class && class_of(cls) != cls) return Status(Errc::arg, "not an error class");
  if (next_ == INT_MAX) return Status(Errc::no_mem, "out of error codes");
  const int code = next_++;
  class_of_[code] = cls;
  return code;
}

Status ErrorClassRegistry::set_string(int code, std::string_view text) {
  if (!is_user(code)) return Status(Errc::arg, "error code is predefined or was not added by MPI_Add_error_*");
  if (text.size() > kMaxString) return Status(Errc::arg, "error string is longer than MPI_MAX_ERROR_STRING");
  strings_[code].assign(text);
  return {};
}

int ErrorClassRegistry::class_of(int code) const {
  auto it = class_of_.find(code);
  return it == class_of_.end() ? -1 : it->second;
}

const std::string* ErrorClassRegistry::string_of(int code) const {
  auto it = strings_.find(code);
  return it == strings_.end() ? nullptr : &it->second;
}

}  // namespace ftmpi::comm
