// One established, greeted TCP connection to a peer: its output queue and its receive buffer.
//
// States: open → broken (an error was seen; the loss is not yet reported) → closed (fd closed, loss
// reported by the transport); or open → finished (the peer said goodbye: no loss) → closed. Frames are
// never delivered from a broken, finished or closed connection, except those complete before the error
// or the goodbye.
#pragma once
#include <sys/types.h>

#include <cstddef>
#include <deque>
#include <memory>
#include <span>
#include <vector>

#include "transport/transport.h"

namespace ftmpi::transport::tcp {

class Connection {
 public:
  enum class State { open, broken, finished, closed };
  enum class Send { accepted, full };

  // Takes ownership of `fd` (non-blocking, greeted).
  Connection(int fd, int peer, size_t max_payload);
  ~Connection();
  Connection(const Connection&) = delete;
  Connection& operator=(const Connection&) = delete;

  int fd() const { return fd_; }
  int peer() const { return peer_; }
  State state() const { return state_; }
  bool has_output() const { return queued_bytes_ > 0; }
  size_t queued_bytes() const { return queued_bytes_; }

  // Sends one frame. Expects hdr.size() <= kMaxHeader and payload.size() <= max_payload. Writes directly
  // when nothing is queued; copies what the kernel does not take into the output queue. Returns `full`
  // (and takes nothing) when more than `queue_limit` bytes are already queued. On a broken or closed
  // connection, or after a write error, the frame is dropped and `accepted` returned.
  Send send(std::span<const std::byte> hdr, std::span<const std::byte> payload, size_t queue_limit);

  // Pushes queued output to the kernel until it would block. A write error drops the output (queued and
  // future) but leaves the state open for reading: the peer's frames already in the kernel's receive queue
  // (typically its last messages and its goodbye, when it closed before our output reached it) are still
  // delivered by receive(), whose EOF, error or goodbye then ends the connection. Marking it broken at once
  // lost those frames (a parent's MPI_Recv of a spawned child's last message hung, ft_dpm_parent_dies).
  void flush();

  // Reads what is available (never blocks) and delivers complete frames to `sink` in order. EOF, a socket
  // error or a malformed frame move the state to broken (after delivering the frames complete before it).
  // Returns the number of frames delivered.
  int receive(FrameSink& sink);

  // Closes the socket; state becomes closed. The transport reports the loss (unless finished).
  void close();

  // Ends an open connection on purpose: sends a goodbye (best effort, never blocks), stops writing,
  // discards pending input (so closing does not send a reset over data the peer has not read), closes.
  void say_goodbye();

 private:
  void fail(const char* why, int err);
  void fail_write(int err);
  int deliver_complete(FrameSink& sink);
  bool make_room();

  int fd_;
  int peer_;
  size_t max_payload_;
  State state_ = State::open;

  // Output: chunks not yet taken by the kernel; the first starts at out_head_.
  std::deque<std::vector<std::byte>> out_;
  size_t out_head_ = 0;
  size_t queued_bytes_ = 0;
  bool write_failed_ = false;  // a send failed: output is dropped, input is read until EOF or error

  // Input: bytes [begin_, end_) of rbuf_ are received and not yet delivered. The buffer grows (once) to
  // hold a whole maximal frame, so a big payload is read by the kernel straight to its final place.
  std::unique_ptr<std::byte[]> rbuf_;
  size_t cap_ = 0;
  size_t begin_ = 0;
  size_t end_ = 0;
};

}  // namespace ftmpi::transport::tcp
