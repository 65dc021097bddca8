// The launcher's side of PMI-1: the job's key-value space and barrier, as a plain state machine.
//
// It knows nothing of sockets or processes: the launcher feeds it one request line from one rank and
// sends back the replies it returns (a barrier's completion answers every rank at once). That keeps the
// protocol unit-testable without processes (tests/unit/pmi_server_test.cpp).
#pragma once
#include <map>
#include <string>
#include <string_view>
#include <vector>

namespace ftmpi::boot {

class PmiServer {
 public:
  // `size` ranks, numbered 0..size-1, all in one key-value space named `kvsname` (a valid PMI value).
  PmiServer(int size, std::string kvsname);

  enum class Event {
    none,
    initialized,     // the rank sent cmd=init (it is now an MPI process: exiting without finalize is a failure)
    finalized,       // the rank sent cmd=finalize (its later exit is never a failure)
    aborted,         // the rank sent cmd=abort; abort_code holds its exitcode
    protocol_error,  // malformed or unknown request; `error` says what (an error reply was queued)
  };
  struct Reply {
    int rank;          // whom to send `line` to
    std::string line;  // one encoded PMI line, '\n'-terminated
  };
  struct Outcome {
    Event event = Event::none;
    int abort_code = 0;
    std::string error;
    std::vector<Reply> replies;
  };

  // Handle one request line (without '\n') from `rank` (0 <= rank < size). Never throws or crashes on
  // malformed input.
  Outcome handle(int rank, std::string_view line);

  const std::string& kvsname() const { return kvsname_; }
  int size() const { return size_; }
  // Ranks currently waiting in a barrier (for diagnostics and failure-aware barriers).
  int barrier_waiting() const { return barrier_count_; }
  // `rank` has entered the current barrier and waits for the others.
  bool in_barrier(int rank) const {
    return rank >= 0 && rank < size_ && in_barrier_[static_cast<std::size_t>(rank)] != 0;
  }

  // Fault-tolerant mode: `rank` is gone for good (it failed, or exited). From now on barriers complete
  // when every rank not gone has entered; if that is already the case, the returned Outcome holds the
  // barrier_out replies for the waiting ranks (none for a gone rank). Idempotent.
  // `how` ("<cause>:<code>", e.g. "signaled:9") is what a get of the key "ftmpi-gone.<rank>" answers from
  // then on (it answers "0" for a rank not gone): ranks still in MPI_Init learn that a peer died while
  // starting (docs/ft-protocol.md).
  Outcome rank_gone(int rank, std::string how = "exited:0");
  // Reinit: a new process took over `rank` (restarted by the launcher); barriers count it again.
  void rank_back(int rank);
  // A key-value pair present from the start (mpiexec presets the TCP job secret, so that the job can
  // start even if rank 0, which also publishes one, dies first). A rank's put of the same key replaces it.
  void preset(std::string key, std::string value) { kvs_.insert_or_assign(std::move(key), std::move(value)); }

 private:
  void barrier_in(int rank, Outcome& out);
  void complete_barrier_if_ready(Outcome& out);

  int size_;
  std::string kvsname_;
  std::map<std::string, std::string, std::less<>> kvs_;
  std::vector<char> in_barrier_;
  std::vector<char> gone_;  // rank_gone() was called
  std::vector<std::string> gone_how_;
  int barrier_count_ = 0;   // ranks in the barrier, gone ones excluded
  int gone_count_ = 0;
};

}  // namespace ftmpi::boot
