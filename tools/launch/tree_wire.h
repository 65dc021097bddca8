// The wire of the launcher tree (mpiexec, the origin, and one ftmpid per host; docs/architecture.md):
// frames over TCP. A frame is one header line of space-separated words, the first the frame's type and
// the others key=value, ending with len=N, then N bytes of payload:
//     "pmi to=3 rank=5 len=24\n" + "cmd=barrier_out rc=0\n..."
// Values hold no space and no newline (they are numbers, host names, addresses); anything else travels in
// the payload. The codec never crashes on bad input: a malformed header poisons the decoder (the link is
// then closed by its owner as a protocol error).
#pragma once
#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace ftmpi::mpiexec {

struct Frame {
  std::string type;
  std::vector<std::pair<std::string, std::string>> fields;  // without len
  std::string payload;

  Frame() = default;
  explicit Frame(std::string t) : type(std::move(t)) {}
  Frame& set(std::string key, std::string value);
  Frame& set(std::string key, long long value) { return set(std::move(key), std::to_string(value)); }
  // The value of `key`, or nullopt.
  std::optional<std::string_view> get(std::string_view key) const;
  // The value of `key` as an integer, or `fallback` when absent or not a number.
  long long num(std::string_view key, long long fallback = -1) const;
};

// The bytes of `f` on the wire.
std::string encode_frame(const Frame& f);

// Incremental decoder: append() what the socket gave, then next() until nullopt.
class FrameDecoder {
 public:
  static constexpr std::size_t kMaxHeader = 4096;
  static constexpr std::size_t kMaxPayload = 64u << 20;

  void append(const char* data, std::size_t n) { buf_.append(data, n); }
  std::optional<Frame> next();
  // A header was malformed or over-long: nothing more will be decoded.
  bool bad() const { return bad_; }
  const std::string& error() const { return error_; }

 private:
  std::string buf_;
  std::size_t pos_ = 0;
  bool bad_ = false;
  std::string error_;
};

// One end of a tree link: a non-blocking socket, what was received, what waits to be sent.
//
// A link ends in one place only: its owner's read path (fill() false -> the owner closes it and tells its
// liveness judge "closed"). A write that fails (the peer reset the connection: a killed daemon's socket
// had unread input, so the kernel answered with RST) does not close the link, it marks it `broken`; the
// owner must then run its read path (fill() reads what the peer sent before it died, then returns false).
// Closing on the write error instead made a killed host look silent: its fd was gone before the EOF was
// read, and the host was declared "cut off" at the detector timeout instead of "lost" at once.
struct TreeLink {
  int fd = -1;
  FrameDecoder in;
  std::string out;
  bool broken = false;  // a write failed: the peer is gone (out is dropped, send() drops)

  void send(const Frame& f) {
    if (!broken) out += encode_frame(f);
  }
  // Write as much of `out` as the socket takes. False when the peer is gone (then `broken`).
  bool flush();
  // Read what the socket holds into `in`. False on EOF or error, or when `broken` (the link is dead).
  bool fill();
  void close();
};

// The nodes a hello brings along: its node= and its nodes= list ("3,5,7", or "-" for none): the daemon
// and, after a re-attachment, the subtree that moved with it. Unparsable items are skipped.
std::vector<int> hello_nodes(const Frame& hello);

// Escaped lists inside a payload: items separated by '\0' (environment entries and arguments cannot hold
// a NUL byte).
std::string join_nul(const std::vector<std::string>& items);
std::vector<std::string> split_nul(std::string_view payload);

}  // namespace ftmpi::mpiexec
