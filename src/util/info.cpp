// Info objects (see info.h).
#include "util/info.h"

#include <algorithm>
#include <cstring>

namespace ftmpi {

Status Info::check_key(std::string_view key) {
  if (key.empty()) return Status(Errc::info_key, "info key is empty");
  if (key.size() > kMaxKey) return Status(Errc::info_key, "info key is longer than MPI_MAX_INFO_KEY");
  return {};
}

Status Info::set(std::string_view key, std::string_view value) {
  FTMPI_TRY(check_key(key));
  if (value.empty()) return Status(Errc::info_value, "info value is empty");
  if (value.size() > kMaxValue) return Status(Errc::info_value, "info value is longer than MPI_MAX_INFO_VAL");
  for (auto& [k, v] : entries_)
    if (k == key) {
      v.assign(value);
      return {};
    }
  entries_.emplace_back(std::string(key), std::string(value));
  return {};
}

Status Info::remove(std::string_view key) {
  FTMPI_TRY(check_key(key));
  auto it = std::find_if(entries_.begin(), entries_.end(), [&](const auto& e) { return e.first == key; });
  if (it == entries_.end()) return Status(Errc::info_nokey, "info key is not set");
  entries_.erase(it);
  return {};
}

const std::string* Info::get(std::string_view key) const {
  for (const auto& [k, v] : entries_)
    if (k == key) return &v;
  return nullptr;
}

Result<std::string> Info::nth_key(std::size_t n) const {
  if (n >= entries_.size()) return Status(Errc::arg, "info key index out of range");
  return entries_[n].first;
}

std::size_t copy_c_string(std::string_view value, char* out, std::size_t capacity) {
  if (capacity == 0) return 0;
  const std::size_t n = std::min(value.size(), capacity - 1);
  std::memcpy(out, value.data(), n);
  out[n] = '\0';
  return n;
}

}  // namespace ftmpi
