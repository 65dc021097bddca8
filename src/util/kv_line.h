// Lines of space-separated key=value fields: the control channel between mpiexec and a rank
// (docs/ft-protocol.md), read by the rank's service thread, the Reinit control and mpiexec's respawn driver.
#pragma once
#include <cstdlib>
#include <string>
#include <string_view>

namespace ftmpi {

// Value of the first `key=` field of `line`; a null view (data() == nullptr) when there is none, an empty
// one for `key=`.
inline std::string_view kv_field(std::string_view line, std::string_view key) {
  std::size_t pos = 0;
  while (pos < line.size()) {
    std::size_t end = line.find(' ', pos);
    if (end == std::string_view::npos) end = line.size();
    std::string_view f = line.substr(pos, end - pos);
    if (f.size() > key.size() && f.substr(0, key.size()) == key && f[key.size()] == '=') return f.substr(key.size() + 1);
    pos = end + 1;
  }
  return {};
}

// The `key=` field as an int (atoi: 0 when not a number), or `dflt` when the line has no such field.
inline int kv_int(std::string_view line, std::string_view key, int dflt) {
  std::string_view v = kv_field(line, key);
  return v.data() == nullptr ? dflt : std::atoi(std::string(v).c_str());
}

}  // namespace ftmpi
