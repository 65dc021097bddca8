#include "tree_wire.h"

#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <charconv>

namespace ftmpi::mpiexec {
namespace {

bool clean_word(std::string_view w) {
  for (char c : w)
    if (c == ' ' || c == '\n' || c == '\r' || c == '=' || c == '\0') return false;
  return !w.empty();
}

bool clean_value(std::string_view v) {
  for (char c : v)
    if (c == ' ' || c == '\n' || c == '\r' || c == '\0') return false;
  return true;
}

}  // namespace

Frame& Frame::set(std::string key, std::string value) {
  for (auto& [k, v] : fields)
    if (k == key) {
      v = std::move(value);
      return *this;
    }
  fields.emplace_back(std::move(key), std::move(value));
  return *this;
}

std::optional<std::string_view> Frame::get(std::string_view key) const {
  for (const auto& [k, v] : fields)
    if (k == key) return std::string_view(v);
  return std::nullopt;
}

long long Frame::num(std::string_view key, long long fallback) const {
  auto v = get(key);
  if (!v || v->empty()) return fallback;
  long long out = 0;
  auto [p, ec] = std::from_chars(v->data(), v->data() + v->size(), out);
  if (ec != std::errc() || p != v->data() + v->size()) return fallback;
  return out;
}

std::string encode_frame(const Frame& f) {
  std::string s = f.type;
  for (const auto& [k, v] : f.fields) {
    s += ' ';
    s += k;
    s += '=';
    // Contract: clean keys and values. A dirty one is replaced rather than corrupting the stream.
    s += clean_value(v) ? v : std::string("?");
  }
  s += " len=" + std::to_string(f.payload.size()) + "\n";
  s += f.payload;
  return s;
}

std::optional<Frame> FrameDecoder::next() {
  if (bad_) return std::nullopt;
  std::size_t nl = buf_.find('\n', pos_);
  if (nl == std::string::npos) {
    if (buf_.size() - pos_ > kMaxHeader) {
      bad_ = true;
      error_ = "over-long frame header";
    }
    if (pos_ > 0 && pos_ == buf_.size()) {
      buf_.clear();
      pos_ = 0;
    }
    return std::nullopt;
  }
  std::string_view header(buf_.data() + pos_, nl - pos_);
  if (header.size() > kMaxHeader) {
    bad_ = true;
    error_ = "over-long frame header";
    return std::nullopt;
  }
  Frame f;
  long long len = -1;
  std::size_t p = 0;
  bool first = true;
  while (p <= header.size()) {
    std::size_t e = header.find(' ', p);
    if (e == std::string_view::npos) e = header.size();
    std::string_view w = header.substr(p, e - p);
    p = e + 1;
    if (w.empty()) continue;
    if (first) {
      if (!clean_word(w)) break;
      f.type = std::string(w);
      first = false;
      continue;
    }
    std::size_t eq = w.find('=');
    if (eq == std::string_view::npos || eq == 0) {
      bad_ = true;
      error_ = "bad frame field '" + std::string(w.substr(0, 40)) + "'";
      return std::nullopt;
    }
    std::string_view k = w.substr(0, eq), v = w.substr(eq + 1);
    if (k == "len") {
      auto [q, ec] = std::from_chars(v.data(), v.data() + v.size(), len);
      if (ec != std::errc() || q != v.data() + v.size()) len = -1;
    } else {
      f.fields.emplace_back(std::string(k), std::string(v));
    }
  }
  if (f.type.empty() || len < 0 || static_cast<std::size_t>(len) > kMaxPayload) {
    bad_ = true;
    error_ = "bad frame header '" + std::string(header.substr(0, 60)) + "'";
    return std::nullopt;
  }
  std::size_t body = nl + 1;
  if (buf_.size() - body < static_cast<std::size_t>(len)) return std::nullopt;  // payload incomplete
  f.payload.assign(buf_, body, static_cast<std::size_t>(len));
  pos_ = body + static_cast<std::size_t>(len);
  if (pos_ == buf_.size()) {
    buf_.clear();
    pos_ = 0;
  } else if (pos_ > (1u << 16)) {
    buf_.erase(0, pos_);
    pos_ = 0;
  }
  return f;
}

bool TreeLink::flush() {
  while (fd >= 0 && !out.empty()) {
    ssize_t n = ::send(fd, out.data(), out.size(), MSG_NOSIGNAL | MSG_DONTWAIT);
    if (n < 0) {
      if (errno == EINTR) continue;
      if (errno == EAGAIN) return true;
      broken = true;
      out.clear();
      return false;
    }
    out.erase(0, static_cast<std::size_t>(n));
  }
  return fd >= 0 && !broken;
}

bool TreeLink::fill() {
  char buf[65536];
  for (;;) {
    if (fd < 0) return false;
    ssize_t n = ::recv(fd, buf, sizeof buf, MSG_DONTWAIT);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0 && errno == EAGAIN) return !broken;
    if (n <= 0) return false;
    in.append(buf, static_cast<std::size_t>(n));
  }
}

void TreeLink::close() {
  if (fd >= 0) ::close(fd);
  fd = -1;
  out.clear();
  broken = false;
}

std::string join_nul(const std::vector<std::string>& items) {
  std::string s;
  for (const std::string& i : items) {
    s += i;
    s += '\0';
  }
  return s;
}

std::vector<std::string> split_nul(std::string_view payload) {
  std::vector<std::string> out;
  std::size_t p = 0;
  while (p < payload.size()) {
    std::size_t e = payload.find('\0', p);
    if (e == std::string_view::npos) e = payload.size();
    out.emplace_back(payload.substr(p, e - p));
    p = e + 1;
  }
  return out;
}

std::vector<int> hello_nodes(const Frame& hello) {
  std::vector<int> out;
  long long node = hello.num("node");
  if (node >= 0) out.push_back(static_cast<int>(node));
  std::string_view list = hello.get("nodes").value_or("");
  while (!list.empty()) {
    std::size_t comma = list.find(',');
    std::string item(list.substr(0, comma));
    char* end = nullptr;
    long v = strtol(item.c_str(), &end, 10);
    if (!item.empty() && end && *end == '\0' && v >= 0 && v < (1L << 30)) out.push_back(static_cast<int>(v));
    if (comma == std::string_view::npos) break;
    list.remove_prefix(comma + 1);
  }
  return out;
}

}  // namespace ftmpi::mpiexec
