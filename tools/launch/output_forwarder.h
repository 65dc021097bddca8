// Forwards the ranks' stdout/stderr pipes to mpiexec's own stdout/stderr, whole lines only, so that
// lines of different ranks never mix; optionally tagged "[1,<rank>]<stdout>: " like Open MPI (--tag-output) or
// "[<rank>] " like MPICH's Hydra (-l, -prepend-rank).
#pragma once
#include <cstddef>
#include <functional>
#include <string>

namespace ftmpi::mpiexec {

class OutputFiles;  // output_files.h

enum class TagStyle { none, open_mpi, hydra };
// The prefix of each line of `rank`'s stream `fd` (1 stdout, 2 stderr) in `style` ("" for none).
std::string tag_prefix(TagStyle style, int rank, int fd);

// One rank's stdout or stderr pipe (read end, non-blocking).
class RankStream {
 public:
  // `files` (not owned; outlives the stream; may be null): --output-filename, which also decides whether the
  // lines still go to `target_fd`.
  RankStream(int rank, int target_fd, int pipe_fd, TagStyle tag, OutputFiles* files = nullptr);
  // Whole lines go to `sink` instead of an fd (the host daemon sends them up its tree link; the origin
  // tags and writes them with write_lines()).
  using Sink = std::function<void(const char* data, std::size_t n)>;
  RankStream(int rank, int pipe_fd, Sink sink);
  ~RankStream();
  RankStream(RankStream&&) noexcept;
  RankStream(const RankStream&) = delete;
  RankStream& operator=(const RankStream&) = delete;
  RankStream& operator=(RankStream&&) = delete;

  int fd() const { return fd_; }
  bool open() const { return fd_ >= 0; }
  // Read what the pipe holds (until it would block), write every complete line to the target.
  // At EOF: write the partial line (ended with '\n') and close the pipe.
  void pump();
  // Close the pipe now, writing out any partial line (used when giving up waiting for EOF).
  void close_now();

 private:
  void emit(const char* data, std::size_t n);  // n bytes of whole lines, each ending '\n'
  int rank_;
  int target_;
  int fd_;
  bool tag_;
  std::string prefix_;
  std::string partial_;
  Sink sink_;
  OutputFiles* files_ = nullptr;
};

// Write `n` bytes of whole lines to `fd`, each line prefixed with `prefix` (none if empty), blocking
// until written (EPIPE drops them).
void write_lines(int fd, const std::string& prefix, const char* data, std::size_t n);

}  // namespace ftmpi::mpiexec
