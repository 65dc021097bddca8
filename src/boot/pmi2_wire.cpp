#include "boot/pmi2_wire.h"

#include <cassert>
#include <cstdio>

namespace ftmpi::boot::pmi2 {
namespace {

bool key_char(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-' || c == '_';
}
bool valid_key(std::string_view k) {
  if (k.empty() || k.size() > 64) return false;
  for (char c : k)
    if (!key_char(c)) return false;
  return true;
}
void append_escaped(std::string& out, std::string_view s) {
  for (char c : s) {
    out += c;
    if (c == ';') out += ';';
  }
}

}  // namespace

std::string encode(std::string_view cmd, std::initializer_list<std::pair<std::string_view, std::string_view>> fields) {
  std::string body = "cmd=";
  append_escaped(body, cmd);
  body += ';';
  for (const auto& [k, v] : fields) {
    assert(valid_key(k));
    body.append(k);
    body += '=';
    append_escaped(body, v);
    body += ';';
  }
  char head[kHeaderLen + 1];
  std::snprintf(head, sizeof head, "%-6zu", body.size());
  return std::string(head, kHeaderLen) + body;
}

Result<pmi::Message> parse(std::string_view body) {
  if (body.size() > kBodyMax) return Status(Errc::arg, "PMI-2 message too long");
  pmi::Message m;
  std::size_t pos = 0;
  bool first = true;
  while (pos < body.size()) {
    // key up to '='
    std::size_t eq = body.find('=', pos);
    if (eq == std::string_view::npos) return Status(Errc::arg, "PMI-2 message has a pair without '='");
    std::string_view key = body.substr(pos, eq - pos);
    if (!valid_key(key)) return Status(Errc::arg, "PMI-2 message has an invalid key '" + std::string(key.substr(0, 64)) + "'");
    // value up to a single ';' (";;" is an escaped ';'), or the end of the body
    std::string value;
    std::size_t i = eq + 1;
    for (;;) {
      if (i >= body.size()) break;  // a last pair without its terminator: tolerated
      if (body[i] == ';') {
        if (i + 1 < body.size() && body[i + 1] == ';') {
          value += ';';
          i += 2;
          continue;
        }
        ++i;
        break;
      }
      value += body[i++];
    }
    pos = i;
    if (first) {
      if (key != "cmd" || value.empty()) return Status(Errc::arg, "PMI-2 message does not start with cmd=");
      m.cmd = std::move(value);
      first = false;
    } else {
      m.fields.emplace_back(std::string(key), std::move(value));
    }
  }
  if (first) return Status(Errc::arg, "empty PMI-2 message");
  return m;
}

Result<std::optional<std::string>> Reader::next() {
  if (buf_.size() < kHeaderLen) return std::optional<std::string>();
  std::size_t len = 0;
  bool digits = false, after_digits = false;
  for (std::size_t i = 0; i < kHeaderLen; ++i) {
    char c = buf_[i];
    if (c >= '0' && c <= '9') {
      if (after_digits) return Status(Errc::arg, "PMI-2 length header is not a number");
      len = len * 10 + static_cast<std::size_t>(c - '0');
      digits = true;
    } else if (c == ' ') {
      after_digits = digits;
    } else {
      return Status(Errc::arg, "PMI-2 length header is not a number ('" + buf_.substr(0, kHeaderLen) + "')");
    }
  }
  if (!digits || len == 0 || len > kBodyMax) return Status(Errc::arg, "PMI-2 length header out of range");
  if (buf_.size() < kHeaderLen + len) return std::optional<std::string>();
  std::string body = buf_.substr(kHeaderLen, len);
  buf_.erase(0, kHeaderLen + len);
  return std::optional<std::string>(std::move(body));
}

}  // namespace ftmpi::boot::pmi2
