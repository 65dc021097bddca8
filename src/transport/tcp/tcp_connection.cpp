#include "transport/tcp/tcp_connection.h"

#include <sys/socket.h>
#include <sys/uio.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "transport/tcp/tcp_wire.h"
#include "util/log.h"

namespace ftmpi::transport::tcp {
namespace {

constexpr size_t kInitialRecvBuffer = 64 * 1024;
constexpr size_t kMinRead = 4096;      // compact the buffer rather than read less than this
constexpr int kMaxReadsPerReceive = 16;  // bound the time one peer can hold the progress loop
constexpr int kMaxIov = 64;

// sendmsg() rather than writev(): MSG_NOSIGNAL, so a peer's death is an error code, not a SIGPIPE.
ssize_t send_iov(int fd, iovec* iov, int n) {
  msghdr msg{};
  msg.msg_iov = iov;
  msg.msg_iovlen = static_cast<size_t>(n);
  return ::sendmsg(fd, &msg, MSG_NOSIGNAL | MSG_DONTWAIT);
}

}  // namespace

Connection::Connection(int fd, int peer, size_t max_payload)
    : fd_(fd), peer_(peer), max_payload_(max_payload),
      rbuf_(new std::byte[kInitialRecvBuffer]), cap_(kInitialRecvBuffer) {}

Connection::~Connection() { close(); }

void Connection::close() {
  if (fd_ >= 0) ::close(fd_);
  fd_ = -1;
  state_ = State::closed;
  out_.clear();
  out_head_ = 0;
  queued_bytes_ = 0;
}

void Connection::say_goodbye() {
  if (state_ == State::open && queued_bytes_ == 0) {
    std::byte bye[kFrameHeaderSize];
    encode_bye(bye);
    iovec iov{bye, sizeof bye};
    (void)send_iov(fd_, &iov, 1);
    ::shutdown(fd_, SHUT_WR);
    char sink[4096];
    for (int i = 0; i < 64 && ::recv(fd_, sink, sizeof sink, MSG_DONTWAIT) > 0; ++i) {
    }
  }
  close();
}

void Connection::fail_write(int err) {
  if (state_ != State::open || write_failed_) return;
  log::debug("tcp: connection to rank %d: send: %s; reading what it sent before", peer_, std::strerror(err));
  write_failed_ = true;
  out_.clear();
  out_head_ = 0;
  queued_bytes_ = 0;
}

void Connection::fail(const char* why, int err) {
  if (state_ != State::open) return;
  if (err != 0)
    log::debug("tcp: connection to rank %d lost: %s: %s", peer_, why, std::strerror(err));
  else
    log::debug("tcp: connection to rank %d lost: %s", peer_, why);
  state_ = State::broken;
}

Connection::Send Connection::send(std::span<const std::byte> hdr, std::span<const std::byte> payload,
                                  size_t queue_limit) {
  if (state_ != State::open || write_failed_) return Send::accepted;
  if (queued_bytes_ > 0) {
    flush();
    if (state_ != State::open) return Send::accepted;
    if (queued_bytes_ > queue_limit) return Send::full;
  }
  std::byte fh[kFrameHeaderSize];
  encode_frame_header({static_cast<std::uint16_t>(hdr.size()), payload.size()}, fh);
  std::span<const std::byte> parts[3] = {{fh, sizeof fh}, hdr, payload};
  size_t written = 0;
  if (queued_bytes_ == 0) {
    iovec iov[3];
    int n = 0;
    for (auto& p : parts)
      if (!p.empty()) iov[n++] = {const_cast<std::byte*>(p.data()), p.size()};
    ssize_t w = send_iov(fd_, iov, n);
    if (w < 0) {
      if (errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR) {
        fail_write(errno);
        return Send::accepted;
      }
      w = 0;
    }
    written = static_cast<size_t>(w);
  }
  // Queue what the kernel did not take, as one chunk.
  size_t total = sizeof fh + hdr.size() + payload.size();
  if (written == total) return Send::accepted;
  std::vector<std::byte> rest;
  rest.reserve(total - written);
  size_t skip = written;
  for (auto& p : parts) {
    size_t s = std::min(skip, p.size());
    skip -= s;
    rest.insert(rest.end(), p.begin() + static_cast<std::ptrdiff_t>(s), p.end());
  }
  queued_bytes_ += rest.size();
  out_.push_back(std::move(rest));
  return Send::accepted;
}

void Connection::flush() {
  while (state_ == State::open && queued_bytes_ > 0) {
    iovec iov[kMaxIov];
    int n = 0;
    size_t asked = 0;
    for (auto it = out_.begin(); it != out_.end() && n < kMaxIov; ++it, ++n) {
      size_t off = (n == 0) ? out_head_ : 0;
      iov[n] = {it->data() + off, it->size() - off};
      asked += it->size() - off;
    }
    ssize_t w = send_iov(fd_, iov, n);
    if (w < 0) {
      if (errno == EINTR) continue;
      if (errno != EAGAIN && errno != EWOULDBLOCK) fail_write(errno);
      return;
    }
    size_t left = static_cast<size_t>(w);
    queued_bytes_ -= left;
    while (left > 0) {
      size_t in_front = out_.front().size() - out_head_;
      if (left < in_front) {
        out_head_ += left;
        break;
      }
      left -= in_front;
      out_.pop_front();
      out_head_ = 0;
    }
    if (static_cast<size_t>(w) < asked) return;  // the kernel is full
  }
}

// Makes sure the frame starting at begin_ fits in the buffer from begin_ on, and that there is room to
// read into. Moves the partial frame to the front, or grows the buffer to the largest legal frame.
bool Connection::make_room() {
  size_t avail = end_ - begin_;
  size_t need = kFrameHeaderSize;
  if (avail >= kFrameHeaderSize) {
    auto fh = decode_frame_header(rbuf_.get() + begin_, kMaxHeader, max_payload_);
    if (fh.ok()) need = fh->total();  // (a bad header was already reported by deliver_complete)
  }
  if (begin_ + need <= cap_ && (cap_ - end_ >= kMinRead || begin_ == 0)) return end_ < cap_;
  if (need > cap_) {
    size_t new_cap = kFrameHeaderSize + kMaxHeader + max_payload_;
    std::unique_ptr<std::byte[]> bigger(new std::byte[new_cap]);
    if (avail > 0) std::memcpy(bigger.get(), rbuf_.get() + begin_, avail);
    rbuf_ = std::move(bigger);
    cap_ = new_cap;
  } else if (avail > 0) {
    std::memmove(rbuf_.get(), rbuf_.get() + begin_, avail);
  }
  begin_ = 0;
  end_ = avail;
  return end_ < cap_;
}

int Connection::deliver_complete(FrameSink& sink) {
  int n = 0;
  while (state_ == State::open && end_ - begin_ >= kFrameHeaderSize) {
    const std::byte* at = rbuf_.get() + begin_;
    auto fh = decode_frame_header(at, kMaxHeader, max_payload_);
    if (!fh.ok()) {
      log::warn("tcp: malformed frame from rank %d (%s); closing the connection", peer_,
                fh.status().message().c_str());
      state_ = State::broken;
      break;
    }
    if (fh->bye) {
      log::debug("tcp: rank %d closed its connection (goodbye)", peer_);
      state_ = State::finished;
      break;
    }
    if (end_ - begin_ < fh->total()) break;
    std::span<const std::byte> hdr(at + kFrameHeaderSize, fh->hdr_len);
    std::span<const std::byte> payload(at + kFrameHeaderSize + fh->hdr_len, fh->payload_len);
    begin_ += fh->total();  // before the call: the sink may call try_send(), never receive()
    ++n;
    sink.on_frame(peer_, hdr, payload);
  }
  if (begin_ == end_) begin_ = end_ = 0;
  return n;
}

int Connection::receive(FrameSink& sink) {
  int delivered = 0;
  for (int i = 0; i < kMaxReadsPerReceive && state_ == State::open; ++i) {
    if (!make_room()) break;
    size_t want = cap_ - end_;
    ssize_t r = ::recv(fd_, rbuf_.get() + end_, want, MSG_DONTWAIT);
    if (r > 0) {
      end_ += static_cast<size_t>(r);
      delivered += deliver_complete(sink);
      if (static_cast<size_t>(r) < want) break;  // drained what the kernel had
      continue;
    }
    if (r == 0) {
      fail("closed by the peer", 0);
      break;
    }
    if (errno == EINTR) continue;
    if (errno != EAGAIN && errno != EWOULDBLOCK) fail("recv", errno);
    break;
  }
  return delivered;
}

}  // namespace ftmpi::transport::tcp
