// User-defined error classes, codes and strings (MPI-3.1 §8.5: MPI_Add_error_class, MPI_Add_error_code,
// MPI_Add_error_string).
//
// Numbering: user classes and codes share one counter that starts just above the last predefined code
// (`first`, MPI_ERR_LASTCODE + 1 in the C API), so every value is distinct from every predefined one and
// MPI_LASTUSEDCODE is simply the largest value handed out. A class is also a code (its own class).
// Strings: any predefined or user code may get a string here; the C API prefers it over its built-in
// sentence for user codes only (the standard forbids changing predefined strings: Errc::arg).
//
// Not thread-safe: callers hold the API lock.
#pragma once
#include <string>
#include <string_view>
#include <unordered_map>

#include "util/status.h"

namespace ftmpi::comm {

class ErrorClassRegistry {
 public:
  static constexpr std::size_t kMaxString = 511;  // MPI_MAX_ERROR_STRING - 1

  // `first`: the first value to hand out; `last_predefined`: the largest predefined code.
  ErrorClassRegistry(int first, int last_predefined) : next_(first), last_predefined_(last_predefined) {}

  // A new class. Errc::no_mem when values run out.
  Result<int> add_class();
  // A new code of class `cls` (a predefined class or a user class). Errc::arg for anything else.
  Result<int> add_code(int cls);
  // Attach `text` to a user class or code. Errc::arg for a predefined or unknown code, or a string longer
  // than kMaxString.
  Status set_string(int code, std::string_view text);

  bool is_user(int code) const { return class_of_.contains(code); }
  // Class of a user code, or -1 when `code` is not a user code.
  int class_of(int code) const;
  // String attached to a user code, or nullptr (also for a user code without a string: "").
  const std::string* string_of(int code) const;
  // The largest value handed out so far (MPI_LASTUSEDCODE), or last_predefined when none.
  int last_used() const { return next_ - 1 > last_predefined_ ? next_ - 1 : last_predefined_; }

 private:
  int next_;
  int last_predefined_;
  std::unordered_map<int, int> class_of_;  // user code -> class (a class maps to itself)
  std::unordered_map<int, std::string> strings_;
};

}  // namespace ftmpi::comm
