// mpirun --output-filename DIR[:nojobid][:nocopy] (Open MPI 4.x's form): each rank's stdout and stderr are
// also written, untagged, to DIR/1/rank.N/stdout and DIR/1/rank.N/stderr (N left-filled with zeros to the
// width of the largest rank, so that listings sort); `nojobid` drops the "1/" level, `nocopy` keeps the
// output off mpiexec's own stdout/stderr. A relative DIR is taken from mpiexec's working directory (the
// origin writes the files of every host's ranks: their lines come to it). Files are created on the first
// line and appended to afterwards (a restarted rank continues its files).
#pragma once
#include <map>
#include <optional>
#include <string>
#include <utility>

namespace ftmpi::mpiexec {

struct OutputFileSpec {
  std::string dir;  // absolute
  bool jobid = true;
  bool copy = true;
};
// Parse DIR[:nojobid][:nocopy] (modifiers comma- or colon-separated). nullopt and `error` on a bad value.
std::optional<OutputFileSpec> parse_output_files(const std::string& value, std::string& error);

class OutputFiles {
 public:
  OutputFiles() = default;
  // `ranks`: the job's size (for the width of N).
  OutputFiles(OutputFileSpec spec, int ranks) : spec_(std::move(spec)), width_(digits(ranks > 0 ? ranks - 1 : 0)) {}
  ~OutputFiles();
  OutputFiles(const OutputFiles&) = delete;
  OutputFiles& operator=(const OutputFiles&) = delete;

  bool enabled() const { return !spec_.dir.empty(); }
  // Whether the output still goes to mpiexec's stdout/stderr too.
  bool copy() const { return !enabled() || spec_.copy; }
  // Append n bytes of whole lines of `rank`'s stream `fd` (1, 2) to its file. A file that cannot be made is
  // said once and its lines dropped (the terminal copy, if any, still has them).
  void write(int rank, int fd, const char* data, std::size_t n);

 private:
  static int digits(int v) { return v < 10 ? 1 : 1 + digits(v / 10); }
  int open_file(int rank, int fd);
  OutputFileSpec spec_;
  int width_ = 1;
  std::map<std::pair<int, int>, int> fds_;  // (rank, 1|2) -> fd, -1 when it could not be made
};

}  // namespace ftmpi::mpiexec
