#include "respawn.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>

#include "control_channel.h"
#include "say.h"
#include "util/kv_line.h"
#include "util/log.h"

namespace ftmpi::mpiexec {

namespace {
std::string join(const std::vector<int>& v) {
  std::string s;
  for (int x : v) s += (s.empty() ? "" : ",") + std::to_string(x);
  return s;
}
}  // namespace

ReinitDriver::ReinitDriver(int np, int max_restarts, Hooks hooks, double start_realtime)
    : coord_(np, max_restarts), hooks_(std::move(hooks)), start_realtime_(start_realtime) {}

double ReinitDriver::since_start() const { return realtime_seconds() - start_realtime_; }

void ReinitDriver::on_death(int rank, const std::string& how) { on_deaths({rank}, how); }

void ReinitDriver::on_deaths(const std::vector<int>& ranks, const std::string& how) {
  if (!coord_.changing()) {
    t_death_ = realtime_seconds();
    t_restarted_ = t_fence1_ = 0;
    t_notice_ = t_landed_ = t_dropped_ = t_loaded_ = t_init_ = t_board_ = 0;
  }
  for (int rank : ranks) {
    say("reinit: t=%.3fs rank %d failed (%s) [%.6f]", since_start(), rank, how.c_str(), realtime_seconds());
    if (failures_.size() < 16) {
      char at[32];
      std::snprintf(at, sizeof at, " at %.3f s", since_start());
      failures_.push_back("rank " + std::to_string(rank) + " (" + how + ")" + at);
    }
    ++failure_count_;
  }
  run(coord_.on_deaths(ranks));
}

void ReinitDriver::on_finalized(int rank) { run(coord_.on_finalized(rank)); }

bool ReinitDriver::on_control_line(int rank, std::string_view line) {
  std::string_view cmd = line.substr(0, line.find(' '));
  if (cmd == "cmd=fence") {
    // The timeline comes with fence 1's line, or with fence 2's when fence 1 was on the board.
    if (kv_int(line, "epoch", -1) == coord_.epoch() && kv_field(line, "tn").data() != nullptr) note_fence1(line);
    run(coord_.on_fence(rank, kv_int(line, "epoch", -1), kv_int(line, "seq", 0), reinit::parse_cards(line)));
  } else if (cmd == "cmd=reinit_active") {
    coord_.on_active(rank, true);
    hooks_.tell(rank, "cmd=reinit_active_ok\n");  // the rank's MPI_Reinit waits for it
  } else if (cmd == "cmd=reinit_done") {
    coord_.on_active(rank, false);
    // A rank resumes as soon as fence 1 is released and enters fence 2 before it can leave (its lines
    // arrive in order): leaving after resuming in the current epoch is legitimate.
    if (coord_.changing() && coord_.member(rank) && !coord_.resumed(rank))
      hooks_.fatal("rank " + std::to_string(rank) +
                   " left MPI_Reinit while the others roll back after a failure: the failure is fatal (seed 003 "
                   "section 1.4.2)");
  } else {
    return false;
  }
  return true;
}

void ReinitDriver::note_fence1(std::string_view line) {
  auto field = [&](std::string_view key) {
    std::string_view v = kv_field(line, key);
    return v.data() == nullptr ? 0.0 : std::strtod(std::string(v).c_str(), nullptr);
  };
  auto latest = [](double& into, double t) { if (t > into) into = t; };
  latest(t_notice_, field("tn"));
  latest(t_board_, field("tf"));  // fence 1 released on the board (seen by the slowest rank)
  if (field("tx") > 0) {  // a restarted process: its landing and teardown are part of its MPI_Init
    latest(t_loaded_, field("tx"));
    latest(t_init_, field("ti"));
  } else {
    latest(t_landed_, field("tl"));
    latest(t_dropped_, field("td"));
  }
}

void ReinitDriver::run(const std::vector<reinit::CoordAction>& actions) {
  using K = reinit::CoordAction::Kind;
  // A new epoch: the board first (ranks read it once told), then the notices — before the restarts, whose
  // fork+exec would otherwise delay every survivor's notice (the new process joins through its
  // environment and does not depend on them) — unless a restart is only a warm spare's adoption.
  bool new_epoch = false;
  for (const reinit::CoordAction& a : actions) new_epoch |= a.kind == K::reinit || a.kind == K::restart;
  if (new_epoch && hooks_.board_begin) hooks_.board_begin(coord_.epoch(), coord_.members());
  // A warm spare's adoption is one line: it goes first (Hooks::cheap_restarts; measured 2026-11-27 at 16
  // ranks: adopted after the notices, the spare ran 2.5 ms after its line, behind the woken survivors).
  int cheap = hooks_.cheap_restarts ? hooks_.cheap_restarts() : 0;
  std::vector<const reinit::CoordAction*> order;
  for (const reinit::CoordAction& a : actions)
    if (a.kind == K::restart && cheap > 0) {
      order.push_back(&a);
      --cheap;
    }
  const std::size_t first = order.size();
  for (const reinit::CoordAction& a : actions)
    if (a.kind == K::reinit) order.push_back(&a);
  for (const reinit::CoordAction& a : actions)
    if (a.kind != K::reinit && std::find(order.begin(), order.begin() + static_cast<std::ptrdiff_t>(first), &a) ==
                                   order.begin() + static_cast<std::ptrdiff_t>(first))
      order.push_back(&a);
  for (const reinit::CoordAction* ap : order) {
    const reinit::CoordAction& a = *ap;
    switch (a.kind) {
      case K::restart: {
        auto pid = hooks_.restarter->restart(a.rank, a.epoch, a.failed);
        if (!pid.ok()) {
          hooks_.fatal("cannot restart rank " + std::to_string(a.rank) + ": " + pid.status().message());
          return;
        }
        t_restarted_ = realtime_seconds();
        const std::string how = hooks_.restarter->last_restart_how();
        if (pid.value() > 0)
          say("reinit: t=%.3fs rank %d restarted as pid %d for epoch %d (restart %d%s%s)", since_start(), a.rank,
              static_cast<int>(pid.value()), a.epoch, coord_.restarts(), how.empty() ? "" : ", by ", how.c_str());
        else  // a host daemon forks it
          say("reinit: t=%.3fs rank %d restarted for epoch %d (restart %d)", since_start(), a.rank, a.epoch,
              coord_.restarts());
        break;
      }
      case K::reinit: {
        char line[64];
        std::snprintf(line, sizeof line, "cmd=reinit epoch=%d failed=", a.epoch);
        hooks_.tell(a.rank, std::string(line) + join(a.failed) + "\n");
        break;
      }
      case K::fence_out: {
        if (a.seq == 1) t_fence1_ = realtime_seconds();
        if (a.seq == 1 && hooks_.board_begin) break;  // the ranks released it among themselves
        std::string line = "cmd=fence_out epoch=" + std::to_string(a.epoch) + " seq=" + std::to_string(a.seq);
        for (const reinit::Card& c : a.cards) line += " card." + c.first + "=" + c.second;  // epoch_change.h
        line += '\n';
        hooks_.tell(a.rank, line);
        break;
      }
      case K::committed: {
        double now = realtime_seconds();
        double total = (now - t_death_) * 1e3;
        recoveries_ms_.push_back(total);
        if (t_board_ > 0) t_fence1_ = t_board_;
        say("reinit: t=%.3fs epoch %d committed: every rank rolled back (%.1f ms after the failure was seen: "
            "restart %.1f ms, endpoints published %.1f ms, connected %.1f ms) [%.6f]",
            since_start(), a.epoch, total, (t_restarted_ - t_death_) * 1e3,
            (t_fence1_ - t_restarted_) * 1e3, (now - t_fence1_) * 1e3, now);
        // Where the rollback went, each the latest rank's time after the failure was seen (ms).
        auto at = [&](double t) { return t > 0 ? (t - t_death_) * 1e3 : -1.0; };
        // No survivor stage reported: every rank failed (a lost single host) and none rolled back.
        char survivors[128] = "no survivors (every rank restarted)";
        if (t_notice_ > 0 || t_landed_ > 0 || t_dropped_ > 0)
          std::snprintf(survivors, sizeof survivors,
                        "survivors notified +%.1f, landed in MPI_Reinit +%.1f, old epoch dropped +%.1f",
                        at(t_notice_), at(t_landed_), at(t_dropped_));
        say("reinit: epoch %d rollback timeline (ms after the failure was seen, slowest rank): %s; restarted "
            "process loaded +%.1f, in MPI_Init +%.1f; fence 1 (endpoints; ranks resume once connected) +%.1f; "
            "fence 2 (every rank connected: committed) +%.1f",
            a.epoch, survivors, at(t_loaded_), at(t_init_), at(t_fence1_), at(now));
        if (hooks_.committed) hooks_.committed(a.epoch);
        break;
      }
      case K::fatal: hooks_.fatal(a.why); return;
    }
  }
}

std::string ReinitDriver::summary() const {
  if (failure_count_ == 0) return {};
  std::string s = std::to_string(failure_count_) + (failure_count_ == 1 ? " rank failed" : " ranks failed") +
                  " during the job: ";
  for (std::size_t i = 0; i < failures_.size(); ++i) s += (i ? ", " : "") + failures_[i];
  if (failure_count_ > static_cast<int>(failures_.size())) s += " and more";
  char buf[160];
  std::snprintf(buf, sizeof buf, "; %d restart(s), %zu rollback(s) committed (epoch %d)", coord_.restarts(),
                recoveries_ms_.size(), coord_.committed_epoch());
  return s + buf;
}

}  // namespace ftmpi::mpiexec
