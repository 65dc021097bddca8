// mpiexec's part in failures across jobs of one name service (src/dpm/failure_board.h): it posts the
// failures of its own processes on the board, and turns the failures of other jobs' processes — read on the
// board, or reported by one of its ranks whose connection to such a process ended (cmd=suspect with an id
// outside this universe) — into ordinary failure notices for every process of its universe, once each.
// FT mode with a name service only; otherwise every call is a no-op.
#pragma once
#include <memory>
#include <optional>
#include <string>
#include <unordered_set>
#include <vector>

#include "dpm/failure_board.h"
#include "options.h"

namespace ftmpi::mpiexec {

class RemoteFailures {
 public:
  explicit RemoteFailures(const Options& opt);
  // For the poll loop; -1 when there is no board.
  int fd() const { return board_ ? board_->fd() : -1; }
  // mpiexec announced the failure of its process `local_id`: other jobs learn it.
  void post_local(int local_id);
  // True when `id` (a local id as a rank reports it: process id minus this universe's base) names a
  // process of another universe.
  bool is_remote(int id) const;
  // The notice lines ("cmd=failed rank=<id - base> ...") to send to every process of this universe.
  std::vector<std::string> on_board_readable();
  // A rank lost its connection to remote process `id` (local numbering): the notice, if it is news.
  std::optional<std::string> on_reported(int id);

 private:
  std::optional<std::string> notice(int global_id);
  int slot_ = 0;
  int base_ = 0;
  std::unique_ptr<dpm::FailureBoard> board_;
  std::unordered_set<int> announced_;  // global ids
};

}  // namespace ftmpi::mpiexec
