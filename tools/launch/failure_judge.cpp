#include "failure_judge.h"

#include <cstdio>

#include "say.h"

namespace ftmpi::mpiexec {

bool is_ft_failure(const RankRecord& rec) {
  if (rec.verdict != RankRecord::Verdict::none) return true;
  if (rec.pmi_finalized) return false;  // after MPI_Finalize nothing is a failure of the computation
  if (rec.state == RankRecord::State::signaled) return true;
  return rec.state == RankRecord::State::exited && (rec.exit_code != 0 || rec.pmi_initialized);
}

std::vector<int> never_initialized(const RankTable& ranks, int first, int count, const std::function<bool(int)>& in_barrier,
                                   Clock::time_point now, Clock::duration limit) {
  bool waited = false;
  for (int q = first; q < first + count && !waited; ++q) {
    const RankRecord& rec = ranks[static_cast<std::size_t>(q)];
    waited = rec.alive() && in_barrier(q) && now >= rec.last_pmi + limit;
  }
  std::vector<int> out;
  if (!waited) return out;
  for (int r = first; r < first + count; ++r) {
    const RankRecord& rec = ranks[static_cast<std::size_t>(r)];
    if (rec.alive() && !rec.pmi_initialized && rec.verdict == RankRecord::Verdict::none &&
        rec.started != Clock::time_point{} && now >= rec.started + limit)
      out.push_back(r);
  }
  return out;
}

void failure_cause(const RankRecord& rec, FailureCause& cause, int& code) {
  cause = FailureCause::exited;
  code = rec.exit_code;
  if (rec.verdict == RankRecord::Verdict::hung) cause = FailureCause::hung;
  else if (rec.verdict == RankRecord::Verdict::disappeared) cause = FailureCause::disappeared;
  else if (rec.verdict == RankRecord::Verdict::host_lost) cause = FailureCause::node_lost;
  else if (rec.state == RankRecord::State::signaled) cause = FailureCause::signaled;
  if (rec.state == RankRecord::State::signaled) code = rec.term_signal;
}

int ft_exit_status(const RankTable& ranks, const std::vector<int>& failed_order, int first_survivor_error) {
  if (first_survivor_error >= 0) {
    const RankRecord& rec = ranks[static_cast<std::size_t>(first_survivor_error)];
    return rec.state == RankRecord::State::signaled ? 128 + rec.term_signal : rec.exit_code;
  }
  if (!failed_order.empty() && failed_order.size() == ranks.size()) {  // nobody survived
    const RankRecord& rec = ranks[static_cast<std::size_t>(failed_order.front())];
    return rec.verdict == RankRecord::Verdict::host_lost ? 1 : rec.job_exit_status();
  }
  return 0;
}

std::string ft_summary(const SummaryInput& in) {
  const RankTable& ranks = *in.ranks;
  const std::vector<int>& failed = *in.failed_order;
  if (failed.empty()) return {};
  bool hosts = in.host_names && !in.host_names->empty();
  constexpr std::size_t kMaxListed = 16;
  std::string text = std::to_string(failed.size()) + (failed.size() == 1 ? " rank failed" : " ranks failed") +
                     " during the job: ";
  for (std::size_t i = 0; i < failed.size() && i < kMaxListed; ++i) {
    const RankRecord& rec = ranks[static_cast<std::size_t>(failed[i])];
    std::string how;
    if (rec.verdict == RankRecord::Verdict::hung && (rec.said_bye || rec.pmi_finalized))
      how = "stopped in or after MPI_Finalize, killed";  // stop_judge.h
    else if (rec.verdict == RankRecord::Verdict::hung) how = "hung, killed";
    else if (rec.verdict == RankRecord::Verdict::disappeared) how = "disappeared, killed";
    else if (rec.verdict == RankRecord::Verdict::host_lost) how = rec.cut_off ? "host cut off" : "host lost";
    else if (rec.state == RankRecord::State::signaled) how = "killed by signal " + std::to_string(rec.term_signal);
    else if (rec.exit_code != 0) how = "exited with code " + std::to_string(rec.exit_code);
    else how = "exited with code 0 without MPI_Finalize";
    char at[48];
    snprintf(at, sizeof at, " at %.3f s", rec.failed_realtime - in.start_realtime);
    if (i) text += ", ";
    text += "rank " + std::to_string(rec.rank);
    if (hosts && rec.host >= 0 && rec.host < static_cast<int>(in.host_names->size()))
      text += " on " + (*in.host_names)[static_cast<std::size_t>(rec.host)];
    text += " (" + how + ")" + at;
  }
  if (failed.size() > kMaxListed) text += " and " + std::to_string(failed.size() - kMaxListed) + " more";
  if (hosts && in.lost_hosts && !in.lost_hosts->empty()) {
    text += in.lost_hosts->size() == 1 ? "; host " : "; hosts ";
    for (std::size_t i = 0; i < in.lost_hosts->size(); ++i)
      text += (i ? ", " : "") + (*in.host_names)[static_cast<std::size_t>((*in.lost_hosts)[i])];
    text += " lost";
  }
  if (in.terminated) {
    text += "; the job was terminated";
  } else if (in.first_survivor_error >= 0) {
    const RankRecord& rec = ranks[static_cast<std::size_t>(in.first_survivor_error)];
    text += "; surviving rank " + std::to_string(rec.rank) + " " + rec.cause();
  } else if (failed.size() == ranks.size()) {
    text += "; no rank survived";
  } else {
    text += "; survivors completed";
  }
  return text;
}

void say_ft_summary(const SummaryInput& in) {
  std::string text = ft_summary(in);
  if (!text.empty()) say("%s", text.c_str());
}

}  // namespace ftmpi::mpiexec
