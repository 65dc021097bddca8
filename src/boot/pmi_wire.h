// PMI-1 wire format (the line protocol of MPICH's "simple PMI", version 1.1), shared by the rank side
// (PmiClient) and the launcher's server (PmiServer).
//
// A message is one line: space-separated `key=value` words, the first of which is `cmd=<name>`, ended by
// '\n'. Example: "cmd=put kvsname=kvs_1 key=card-0 value=shm:abc\n". A value is everything after the
// first '=' of its word; neither keys nor values may contain spaces or newlines.
#pragma once
#include <cstddef>
#include <initializer_list>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "util/status.h"

namespace ftmpi::boot::pmi {

// Limits we announce (cmd=maxes) and enforce. Hydra announces the same.
inline constexpr std::size_t kKvsnameMax = 256;
inline constexpr std::size_t kKeyMax = 64;
inline constexpr std::size_t kValueMax = 1024;
// Longest line either side accepts (a put with maximal kvsname, key and value fits easily).
inline constexpr std::size_t kLineMax = 4096;

// One decoded line. Fields keep their order; `cmd` is the value of the leading cmd= word.
struct Message {
  std::string cmd;
  std::vector<std::pair<std::string, std::string>> fields;  // without the cmd= word

  // First field named `key`, if any.
  std::optional<std::string_view> get(std::string_view key) const;
  // Field `key` parsed as a decimal int; nullopt if absent or not a number.
  std::optional<int> get_int(std::string_view key) const;
};

// True when `s` may be sent as a key or value: non-empty for keys, no space, tab, '\n', '\r' or NUL.
bool valid_key(std::string_view s);
bool valid_value(std::string_view s);

// Decode one line (with or without its trailing '\n'). Never crashes: any malformed input (empty line,
// missing or misplaced cmd=, a word without '=', an empty key, control characters, over-long line)
// yields Errc::arg with a short description.
Result<Message> parse(std::string_view line);

// Encode "cmd=<cmd> k1=v1 k2=v2\n". The caller guarantees valid_key/valid_value for every part
// (checked with assertions in debug builds only).
std::string encode(std::string_view cmd,
                   std::initializer_list<std::pair<std::string_view, std::string_view>> fields = {});

// Splits a byte stream into lines. Feed whatever read(2) returned; take complete lines out.
// State: bytes of at most one partial line are kept between calls.
class LineSplitter {
 public:
  void append(const char* data, std::size_t n) { buf_.append(data, n); }
  // Next complete line without its '\n'. nullopt if no complete line is buffered yet.
  std::optional<std::string> next();
  // True when the partial line already exceeds kLineMax (the peer is not speaking PMI).
  bool overflowed() const { return buf_.size() > kLineMax && buf_.find('\n') == std::string::npos; }
  bool empty() const { return buf_.empty(); }

 private:
  std::string buf_;
};

// Write all of `bytes` to the launcher's PMI_FD (a socket, or a pipe: send() then write()), retrying on
// EINTR. Returns 0, or the errno of the failed write (each client words its own error).
int write_fully(int fd, std::string_view bytes);

}  // namespace ftmpi::boot::pmi
