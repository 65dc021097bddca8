#include "output_forwarder.h"

#include <poll.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "output_files.h"

namespace ftmpi::mpiexec {
namespace {

constexpr std::size_t kMaxPartial = 64 * 1024;  // a longer line without '\n' is cut into pieces

void write_all(int fd, const char* p, std::size_t n) {
  while (n > 0) {
    ssize_t w = ::write(fd, p, n);
    if (w < 0) {
      if (errno == EINTR) continue;
      if (errno == EAGAIN) {  // our stdout is non-blocking: wait until it drains
        pollfd pf{fd, POLLOUT, 0};
        ::poll(&pf, 1, 100);
        continue;
      }
      return;  // EPIPE etc.: nobody reads our output any more; drop it
    }
    p += w;
    n -= static_cast<std::size_t>(w);
  }
}

}  // namespace

std::string tag_prefix(TagStyle style, int rank, int fd) {
  switch (style) {
    case TagStyle::none: return {};
    case TagStyle::open_mpi: return "[1," + std::to_string(rank) + "]" + (fd == 2 ? "<stderr>: " : "<stdout>: ");
    case TagStyle::hydra: return "[" + std::to_string(rank) + "] ";
  }
  return {};
}

RankStream::RankStream(int rank, int target_fd, int pipe_fd, TagStyle tag, OutputFiles* files)
    : rank_(rank), target_(target_fd), fd_(pipe_fd), tag_(tag != TagStyle::none), prefix_(tag_prefix(tag, rank, target_fd)),
      files_(files) {}

RankStream::RankStream(int rank, int pipe_fd, Sink sink)
    : rank_(rank), target_(-1), fd_(pipe_fd), tag_(false), sink_(std::move(sink)) {}

RankStream::RankStream(RankStream&& o) noexcept
    : rank_(o.rank_), target_(o.target_), fd_(o.fd_), tag_(o.tag_), prefix_(std::move(o.prefix_)),
      partial_(std::move(o.partial_)), sink_(std::move(o.sink_)), files_(o.files_) {
  o.fd_ = -1;
}

RankStream::~RankStream() {
  if (fd_ >= 0) ::close(fd_);
}

void RankStream::emit(const char* data, std::size_t n) {
  if (n == 0) return;
  if (sink_) {
    sink_(data, n);
    return;
  }
  if (files_) files_->write(rank_, target_, data, n);
  if (files_ && !files_->copy()) return;
  static const std::string kUntagged;
  write_lines(target_, tag_ ? prefix_ : kUntagged, data, n);
}

void RankStream::pump() {
  if (fd_ < 0) return;
  char buf[65536];
  for (;;) {
    ssize_t n = ::read(fd_, buf, sizeof buf);
    if (n < 0) {
      if (errno == EINTR) continue;
      if (errno == EAGAIN) return;
      close_now();  // EIO: a pseudo-terminal whose writers are all gone (its EOF)
      return;
    }
    if (n == 0) {
      close_now();
      return;
    }
    // Complete lines: the partial line so far plus everything up to the last '\n' of this read.
    const char* last_nl = static_cast<const char*>(memrchr(buf, '\n', static_cast<std::size_t>(n)));
    if (!last_nl) {
      partial_.append(buf, static_cast<std::size_t>(n));
      if (partial_.size() >= kMaxPartial) {
        partial_ += '\n';
        emit(partial_.data(), partial_.size());
        partial_.clear();
      }
      continue;
    }
    std::size_t upto = static_cast<std::size_t>(last_nl - buf) + 1;
    if (partial_.empty()) {
      emit(buf, upto);
    } else {
      partial_.append(buf, upto);
      emit(partial_.data(), partial_.size());
      partial_.clear();
    }
    partial_.append(buf + upto, static_cast<std::size_t>(n) - upto);
  }
}

void RankStream::close_now() {
  if (!partial_.empty()) {
    partial_ += '\n';
    emit(partial_.data(), partial_.size());
    partial_.clear();
  }
  if (fd_ >= 0) ::close(fd_);
  fd_ = -1;
}

void write_lines(int fd, const std::string& prefix, const char* data, std::size_t n) {
  if (prefix.empty()) {
    write_all(fd, data, n);
    return;
  }
  std::string out;
  out.reserve(n + 32);
  std::size_t start = 0;
  while (start < n) {
    const char* nl = static_cast<const char*>(memchr(data + start, '\n', n - start));
    std::size_t end = nl ? static_cast<std::size_t>(nl - data) + 1 : n;
    out += prefix;
    out.append(data + start, end - start);
    start = end;
  }
  write_all(fd, out.data(), out.size());
}

}  // namespace ftmpi::mpiexec
