#include "dpm/spawn_spec.h"

#include <cstdlib>
#include <map>

namespace ftmpi::dpm {

std::string pct_encode(std::string_view s) {
  static const char* hex = "0123456789ABCDEF";
  std::string out;
  for (unsigned char ch : s) {
    bool plain = (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || (ch >= '0' && ch <= '9') || ch == '.' ||
                 ch == '_' || ch == '/' || ch == ':' || ch == '@' || ch == '+' || ch == '-';
    if (plain) {
      out.push_back(static_cast<char>(ch));
    } else {
      out.push_back('%');
      out.push_back(hex[ch >> 4]);
      out.push_back(hex[ch & 15]);
    }
  }
  return out;
}

Result<std::string> pct_decode(std::string_view s) {
  std::string out;
  for (std::size_t i = 0; i < s.size(); ++i) {
    if (s[i] != '%') {
      out.push_back(s[i]);
      continue;
    }
    auto val = [](char c) -> int {
      if (c >= '0' && c <= '9') return c - '0';
      if (c >= 'A' && c <= 'F') return c - 'A' + 10;
      if (c >= 'a' && c <= 'f') return c - 'a' + 10;
      return -1;
    };
    if (i + 2 >= s.size()) return Status(Errc::arg, "bad percent escape");
    int hi = val(s[i + 1]), lo = val(s[i + 2]);
    if (hi < 0 || lo < 0) return Status(Errc::arg, "bad percent escape");
    out.push_back(static_cast<char>(hi * 16 + lo));
    i += 2;
  }
  return out;
}

std::vector<std::pair<std::string, std::string>> encode_spawn(const std::vector<SpawnCommand>& cmds) {
  std::vector<std::pair<std::string, std::string>> f;
  f.emplace_back("ncmd", std::to_string(cmds.size()));
  for (std::size_t i = 0; i < cmds.size(); ++i) {
    const SpawnCommand& c = cmds[i];
    const std::string n = std::to_string(i);
    f.emplace_back("c" + n, pct_encode(c.command));
    std::string a;
    for (std::size_t k = 0; k < c.args.size(); ++k) a += (k ? "," : "") + pct_encode(c.args[k]);
    // An empty value cannot travel: "-" is no args, "%" alone never appears in an encoding.
    f.emplace_back("a" + n, c.args.empty() ? "-" : (a.empty() ? "%00" : a));
    f.emplace_back("n" + n, std::to_string(c.maxprocs));
    if (!c.host.empty()) f.emplace_back("h" + n, pct_encode(c.host));
    if (!c.wdir.empty()) f.emplace_back("w" + n, pct_encode(c.wdir));
    if (!c.path.empty()) f.emplace_back("p" + n, pct_encode(c.path));
  }
  return f;
}

Result<std::vector<SpawnCommand>> decode_spawn(const std::vector<std::pair<std::string, std::string>>& fields) {
  std::map<std::string, std::string> m(fields.begin(), fields.end());
  auto it = m.find("ncmd");
  if (it == m.end()) return Status(Errc::arg, "spawn request without ncmd");
  int k = std::atoi(it->second.c_str());
  if (k < 1 || k > 4096) return Status(Errc::arg, "spawn request with a bad ncmd");
  std::vector<SpawnCommand> out(static_cast<std::size_t>(k));
  for (int i = 0; i < k; ++i) {
    const std::string n = std::to_string(i);
    SpawnCommand& c = out[static_cast<std::size_t>(i)];
    auto get = [&](const std::string& key, std::string* dst) -> Status {
      auto f = m.find(key + n);
      if (f == m.end()) return {};
      auto d = pct_decode(f->second);
      if (!d.ok()) return d.status();
      *dst = d.value();
      return {};
    };
    if (!m.count("c" + n) || !m.count("n" + n)) return Status(Errc::arg, "spawn request: command " + n + " incomplete");
    FTMPI_TRY(get("c", &c.command));
    FTMPI_TRY(get("h", &c.host));
    FTMPI_TRY(get("w", &c.wdir));
    FTMPI_TRY(get("p", &c.path));
    c.maxprocs = std::atoi(m["n" + n].c_str());
    const std::string& a = m["a" + n];
    if (a != "-") {
      std::size_t start = 0;
      for (;;) {
        std::size_t comma = a.find(',', start);
        auto d = pct_decode(a.substr(start, comma == std::string::npos ? std::string::npos : comma - start));
        if (!d.ok()) return d.status();
        c.args.push_back(d.value() == std::string(1, '\0') ? std::string() : d.value());
        if (comma == std::string::npos) break;
        start = comma + 1;
      }
    }
  }
  return out;
}

}  // namespace ftmpi::dpm
