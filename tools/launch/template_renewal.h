// When a lost respawn template is replaced (template_process.h): a plain state machine, unit-tested without
// processes (tests/unit/respawn_template_test.cpp).
//
// Why. A template can die (killed by someone, the OOM killer, a crash); without a replacement every later
// restart of the job pays fork+exec again. The launcher starts a new one off the critical path — after the
// epoch change that needed the restart committed (the spares' moment, respawn.h `committed`) — never during a
// recovery. Bounded: a template that keeps dying at once (a program that crashes while loading, something
// that kills every new one) must not become a restart loop.
//
// Rule. A template that ends before it said "ready", or within kShortLife of its start, died *young*. After
// kMaxYoungDeaths young deaths in a row, or kMaxRenewals replacements in the job, no new template is started
// (restarts use fork+exec, as with none). A template that refused to serve (not single-threaded) is never
// replaced. A template ended by the launcher itself at the job's end is not lost.
#pragma once
#include <chrono>

namespace ftmpi::mpiexec {

class TemplateRenewal {
 public:
  using Clock = std::chrono::steady_clock;
  static constexpr int kMaxYoungDeaths = 3;
  static constexpr int kMaxRenewals = 32;
  static constexpr Clock::duration kShortLife = std::chrono::seconds(2);

  // A template was started (the first, or a replacement).
  void started(Clock::time_point now) {
    started_at_ = now;
    alive_ = true;
    ready_ = false;
  }
  void ready() { ready_ = true; }
  // The running template was lost (ended, killed for not answering, unreachable). Once per template.
  void lost(Clock::time_point now) {
    if (!alive_) return;
    alive_ = false;
    lost_ = true;
    if (!ready_ || now - started_at_ < kShortLife) ++young_in_a_row_;
    else young_in_a_row_ = 0;
  }
  // It refused to serve: no template for this job, ever.
  void refused() {
    alive_ = false;
    refused_ = true;
  }
  // No more replacements: refused, or the budgets are spent.
  bool given_up() const { return refused_ || young_in_a_row_ >= kMaxYoungDeaths || renewals_ >= kMaxRenewals; }
  // A replacement is due: one was lost since the last start, and not given up.
  bool due() const { return lost_ && !alive_ && !given_up(); }
  // A replacement is being started (the caller then calls started(), or lost() if it could not start).
  void renewing() {
    lost_ = false;
    ++renewals_;
  }
  int renewals() const { return renewals_; }
  int young_in_a_row() const { return young_in_a_row_; }

 private:
  Clock::time_point started_at_{};
  bool alive_ = false;
  bool ready_ = false;
  bool lost_ = false;
  bool refused_ = false;
  int young_in_a_row_ = 0;
  int renewals_ = 0;
};

}  // namespace ftmpi::mpiexec
