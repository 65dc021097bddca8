#include "rank_table.h"

#include <cstring>

namespace ftmpi::mpiexec {

std::string RankRecord::cause() const {
  switch (state) {
    case State::running: return "is still running";
    case State::signaled:
      return "was killed by signal " + std::to_string(term_signal) + " (" + strsignal(term_signal) + ")";
    case State::exited:
      if (exit_unknown)
        return pmi_initialized && !pmi_finalized ? "ended without calling MPI_Finalize (its exit status is unknown)"
                                                 : "ended (its exit status is unknown)";
      if (exit_code != 0) return "exited with code " + std::to_string(exit_code);
      if (pmi_initialized && !pmi_finalized) return "exited with code 0 without calling MPI_Finalize";
      return "exited with code 0";
  }
  return "?";
}

int RankRecord::job_exit_status() const {
  if (state == State::signaled) return 128 + term_signal;
  if (state == State::exited && exit_code != 0) return exit_code;
  return 1;
}

}  // namespace ftmpi::mpiexec
