#include "boot/pmi_wire.h"

#include <cassert>
#include <charconv>
#include <cerrno>

#include <sys/socket.h>
#include <unistd.h>

namespace ftmpi::boot::pmi {
namespace {

bool forbidden_char(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\0'; }

}  // namespace

std::optional<std::string_view> Message::get(std::string_view key) const {
  for (const auto& [k, v] : fields)
    if (k == key) return std::string_view(v);
  return std::nullopt;
}

std::optional<int> Message::get_int(std::string_view key) const {
  auto v = get(key);
  if (!v || v->empty()) return std::nullopt;
  int out = 0;
  const char* b = v->data();
  const char* e = b + v->size();
  auto [p, ec] = std::from_chars(b, e, out);
  if (ec != std::errc() || p != e) return std::nullopt;
  return out;
}

bool valid_key(std::string_view s) {
  if (s.empty() || s.size() > kLineMax) return false;
  for (char c : s)
    if (forbidden_char(c) || c == '=') return false;
  return true;
}

bool valid_value(std::string_view s) {
  if (s.size() > kLineMax) return false;
  for (char c : s)
    if (forbidden_char(c)) return false;
  return true;
}

Result<Message> parse(std::string_view line) {
  if (!line.empty() && line.back() == '\n') line.remove_suffix(1);
  if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
  if (line.size() > kLineMax) return Status(Errc::arg, "PMI line too long");
  for (char c : line)
    if (c == '\n' || c == '\0' || c == '\r')
      return Status(Errc::arg, "PMI line contains a control character");

  Message msg;
  bool have_cmd = false;
  std::size_t pos = 0;
  while (pos < line.size()) {
    while (pos < line.size() && (line[pos] == ' ' || line[pos] == '\t')) ++pos;
    if (pos >= line.size()) break;
    std::size_t end = pos;
    while (end < line.size() && line[end] != ' ' && line[end] != '\t') ++end;
    std::string_view word = line.substr(pos, end - pos);
    pos = end;

    std::size_t eq = word.find('=');
    if (eq == std::string_view::npos) return Status(Errc::arg, "PMI word without '='");
    if (eq == 0) return Status(Errc::arg, "PMI word with an empty key");
    std::string_view key = word.substr(0, eq);
    std::string_view value = word.substr(eq + 1);
    if (!have_cmd) {
      if (key != "cmd") return Status(Errc::arg, "PMI line does not start with cmd=");
      if (value.empty()) return Status(Errc::arg, "PMI line with an empty cmd");
      msg.cmd = std::string(value);
      have_cmd = true;
      continue;
    }
    if (key == "cmd") return Status(Errc::arg, "PMI line with two cmd= words");
    msg.fields.emplace_back(std::string(key), std::string(value));
  }
  if (!have_cmd) return Status(Errc::arg, "empty PMI line");
  return msg;
}

std::string encode(std::string_view cmd,
                   std::initializer_list<std::pair<std::string_view, std::string_view>> fields) {
  assert(valid_value(cmd) && !cmd.empty());
  std::string out;
  out.reserve(16 + cmd.size());
  out += "cmd=";
  out += cmd;
  for (const auto& [k, v] : fields) {
    assert(valid_key(k) && valid_value(v));
    out += ' ';
    out += k;
    out += '=';
    out += v;
  }
  out += '\n';
  return out;
}

std::optional<std::string> LineSplitter::next() {
  std::size_t nl = buf_.find('\n');
  if (nl == std::string::npos) return std::nullopt;
  std::string line = buf_.substr(0, nl);
  buf_.erase(0, nl + 1);
  return line;
}

int write_fully(int fd, std::string_view bytes) {
  std::size_t off = 0;
  while (off < bytes.size()) {
    ssize_t n = ::send(fd, bytes.data() + off, bytes.size() - off, MSG_NOSIGNAL);
    if (n < 0 && errno == ENOTSOCK) n = ::write(fd, bytes.data() + off, bytes.size() - off);
    if (n < 0) {
      if (errno == EINTR) continue;
      return errno;
    }
    off += static_cast<std::size_t>(n);
  }
  return 0;
}

}  // namespace ftmpi::boot::pmi
