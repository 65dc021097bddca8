// Info objects (MPI-3.1 §9): an ordered list of (key, value) string pairs. Keys keep the order in which
// they were first set (MPI_Info_get_nthkey numbers them that way); setting an existing key replaces its
// value in place. Limits: keys 1..kMaxKey characters, values 1..kMaxValue characters (MPI_MAX_INFO_KEY /
// MPI_MAX_INFO_VAL, without the terminating NUL). Plain value type: copying it is MPI_Info_dup.
#pragma once
#include <cstddef>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "util/status.h"

namespace ftmpi {

class Info {
 public:
  static constexpr std::size_t kMaxKey = 255;    // MPI_MAX_INFO_KEY
  static constexpr std::size_t kMaxValue = 1024;  // MPI_MAX_INFO_VAL

  // Errc::info_key for an empty or too long key, Errc::info_value for an empty or too long value.
  Status set(std::string_view key, std::string_view value);
  // Errc::info_key for a bad key, Errc::info_nokey when the key is not set.
  Status remove(std::string_view key);
  // The value of `key`, or nullptr when absent (a bad key is simply absent).
  const std::string* get(std::string_view key) const;
  std::size_t size() const { return entries_.size(); }
  // The n-th key (0-based, order of first set); Errc::arg when n is out of range.
  Result<std::string> nth_key(std::size_t n) const;
  const std::vector<std::pair<std::string, std::string>>& entries() const { return entries_; }
  void clear() { entries_.clear(); }

  static Status check_key(std::string_view key);

 private:
  std::vector<std::pair<std::string, std::string>> entries_;
};

// Copy `value` into a C buffer of `capacity` bytes (including the NUL), truncating; returns the number
// of characters written without the NUL. capacity 0 writes nothing.
std::size_t copy_c_string(std::string_view value, char* out, std::size_t capacity);

}  // namespace ftmpi
