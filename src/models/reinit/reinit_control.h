// The rank's side of the Reinit model (seed 003): the rollback location, the asynchronous jump, and the
// epoch-change fences with the launcher. The protocol itself is the pure EpochMember (epoch_change.h);
// this file drives it from the service thread (notices) and the application thread (fences, jumps).
//
// Asynchronous rollback (MPI_ERRORS_REINIT_ASYNC), designed so the jump never leaves the library or libc in
// a broken state:
//  1. The service thread reads `cmd=reinit epoch=E` from mpiexec. It records the target, makes the old
//     epoch fail fast (every other rank marked failed, progress woken), and — when the location is active —
//     sets Gate::jump_due and sends the application thread a signal (SIGRTMIN+4 by default).
//  2. The signal handler jumps (siglongjmp to MPI_Reinit) only from a safe point: outside MPI
//     (Gate::depth == 0) and with the interrupted instruction outside libc, the dynamic loader, the C++
//     runtime and libmpi (a program counter check against their executable segments). Otherwise it returns
//     and the jump is taken at the next safe point: the exit of the outermost MPI call (api/common.h), a
//     pass of the progress loop (progress.h), or the service thread's next signal (every 2 ms while the
//     jump is due: user code that was inside malloc or write(2) is back in its own code by then).
//  3. At the landing point (MPI_Reinit) the old epoch's communicators and requests are invalidated, the
//     communication layer is rebuilt for the target epoch (Runtime::enter_epoch), and the resilient
//     function is called again with state REINITED.
// Synchronous rollback (MPI_ERRORS_REINIT_SYNC): steps 1 without the signal; operations of the old epoch
// return errors (as MPI_ERRORS_RETURN) until MPI_Test_failure jumps.
//
// Threads: MPI_Reinit is refused under MPI_THREAD_MULTIPLE; the jump always happens on the thread that
// called MPI_Reinit.
#pragma once
#include <setjmp.h>

#include <atomic>
#include <condition_variable>
#include <functional>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "models/reinit/epoch_change.h"
#include "models/reinit/fence_board.h"
#include "util/status.h"

namespace ftmpi::reinit {

// Process-wide flags read by the signal handler, by the exit of every MPI call and by the progress loop.
// They are the model's only globals: a signal handler cannot reach an object any other way.
struct Gate {
  volatile int depth = 0;     // MPI calls in progress on the application thread (ApiLock nesting)
  volatile int jump_due = 0;  // an asynchronous rollback is due: jump at the next safe point
};
extern Gate g_gate;
inline void gate_enter() { g_gate.depth = g_gate.depth + 1; }
inline int gate_leave() {
  int d = g_gate.depth - 1;
  g_gate.depth = d;
  return d;
}

// The error handler on MPI_COMM_WORLD (seed 003 §1.4).
enum class Handler { none, async, sync };
// MPIX_Reinit_state / OMPI_Reinit_state values.
enum class Origin { fresh = 1, reinited = 2, restarted = 3 };

class ReinitControl {
 public:
  // `start_epoch` > 0: this process was restarted by mpiexec to join that epoch.
  ReinitControl(int world_rank, int start_epoch, int restarts_before);
  ~ReinitControl();
  // MPI_Finalize, on the MPI_Init thread: this process leaves the job; its life lock is released (life_lock.h).
  void leave_job();

  // Set by the runtime before the service thread starts.
  void set_send(std::function<void(const char*)> send) { send_ = std::move(send); }
  // Called (service thread) when a newer epoch is announced: fail everything of the old epoch fast.
  void set_old_epoch_killer(std::function<void(const std::vector<int>&)> kill) { kill_old_ = std::move(kill); }

  // --- service thread ---
  void on_control_line(std::string_view line);
  int on_tick();

  // --- application thread ---
  // Board attach failure (FTMPI_REINIT_BOARD set but not usable): MPI_Init fails with it.
  const Status& board_status() const { return board_status_; }
  // The job has a fence board: every rank runs on this one host (mpiexec creates one only then).
  bool has_board() const { return board_.has_value(); }
  // Fence `seq` of `epoch` with every member (through mpiexec, or fence 1 on the board). Errc::other "superseded" when a newer
  // epoch was announced meanwhile (start over with begin_change()).
  // `mine`: the set-up cards this rank publishes with it; `got` (fence 1): the cards handed back with the
  // release are appended to it (epoch_change.h).
  Status fence(int epoch, int seq, const std::vector<Card>& mine = {}, std::vector<Card>* got = nullptr);
  // Enter fence `seq` of `epoch` without waiting for its release (fence 2: the rank resumes as soon as its
  // links are built; epoch_change.h).
  void enter_fence(int epoch, int seq, const std::vector<Card>& mine = {});
  // The shared-memory segment `name` created for `epoch` loses its name once fence 2 of that epoch (or of
  // a later one) is released — every member has mapped it by then. Done by the service thread; whatever
  // is left at exit is removed by the destructor (and by mpiexec's clean-up of the job).
  void unlink_when_attached(int epoch, std::string name);
  // `failed` (if given): the ranks failed since the last commit, as announced with the epoch returned
  // (the ranks whose processes are new in it).
  int begin_change(std::vector<int>* failed = nullptr);
  void commit();
  bool superseded() const;
  bool rollback_due() const;
  // Block until a rollback is due (the launcher's notice arrived) or `timeout_ms` passed; true if due.
  bool wait_rollback_due(int timeout_ms) const;
  // True from this rank's commit of an epoch until fence 2 of it is released (every member resumed): the
  // job's ranks are still coming back from a rollback. The progress loop's idle passes sleep at once
  // meanwhile instead of yielding (Progress::set_no_yield): on an oversubscribed host a rank that is back
  // and waits in its first collective would otherwise hand its core, pass after pass, to other waiting
  // ranks while the ranks not back yet queue behind them. Opt-in, FTMPI_REINIT_QUIET_RESUME=1 (no gain shown).
  const std::atomic<bool>* resuming_flag() const { return quiet_resume_ ? &resuming_ : nullptr; }
  int committed() const;
  int target() const;
  // World ranks that failed since the previous committed epoch (the restart point's failed list).
  std::vector<int> failed() const;

  // Timeline of the change in progress (CLOCK_REALTIME seconds, 0 = not reached), sent to the launcher
  // with fence 1 so that mpiexec can print where a rollback spent its time.
  enum class Stage { notice, landed, dropped, loaded, init };
  void note(Stage s);
  void note_at(Stage s, double t);

  Handler handler() const { return handler_; }
  void set_handler(Handler h) { handler_ = h; }
  bool used() const { return used_; }  // MPI_Reinit was called (at most once, seed 003 §1.3)
  Origin origin() const { return origin_; }
  void set_origin(Origin o) { origin_ = o; }
  int restarts() const { return restarts_; }
  void count_rollback() { ++restarts_; }

  // The rollback location (MPI_Reinit's frame) is active while `env` is set. activate() returns once the
  // launcher confirmed it (cmd=reinit_active_ok), so a failure during the resilient function always rolls
  // back (seed 003 §1.4.2).
  void activate(sigjmp_buf* env);
  void deactivate();
  bool active() const { return active_.load(std::memory_order_acquire); }
  // Jump to the location now (application thread, at a safe point). Does not return.
  [[noreturn]] void jump();
  // Asynchronous mode only: take the jump if one is due (api exit point, progress loop).
  static void jump_if_due();

 private:
  void arm_jump_locked();
  void send_signal();

  int rank_;
  std::function<void(const char*)> send_;
  std::function<void(const std::vector<int>&)> kill_old_;
  mutable std::mutex mu_;
  mutable std::condition_variable cv_;
  EpochMember member_;
  std::vector<int> failed_;
  std::vector<int> building_failed_;  // the failed list of the epoch being built (begin_change; mu_)
  // Fence 1 on mpiexec's shared-memory board (fence_board.h) when the job has one (FTMPI_REINIT_BOARD).
  std::optional<FenceBoard> board_;
  LifeSlot* life_ = nullptr;  // this process's life lock in board_, held since construction
  bool board_keep_mapped_ = false;  // leave_job could not release life_ (not its thread)
  Status board_status_ = Status::Ok();
  int timeline_epoch_ = -1;  // fence 1 of this epoch was on the board; `timeline_` goes with fence 2 (mu_)
  std::string timeline_;
  Status board_fence1(int epoch, const std::vector<Card>& mine, std::vector<Card>* got);
  Handler handler_ = Handler::none;
  bool used_ = false;
  Origin origin_;
  int restarts_;
  std::atomic<bool> active_{false};
  std::atomic<bool> resuming_{false};  // see resuming_flag(); written under mu_
  bool quiet_resume_ = true;
  sigjmp_buf* env_ = nullptr;
  unsigned long app_thread_ = 0;  // pthread_t of the thread that called MPI_Reinit
  int signo_ = 0;
  std::atomic<int> resend_{0};    // signals sent while the jump stays due
  double stage_t_[5] = {0, 0, 0, 0, 0};  // indexed by Stage (guarded by mu_)
  bool active_acked_ = false;  // the launcher confirmed cmd=reinit_active (guarded by mu_)
  std::vector<std::pair<int, std::string>> unlink_;  // (epoch, segment name), guarded by mu_
  int cards_epoch_ = -1;                             // the epoch `cards_` came with (mu_)
  std::vector<Card> cards_;                          // fence_out seq=1's cards (mu_)
  void unlink_up_to_locked(int epoch);
};

// CLOCK_REALTIME in seconds (the timeline's clock; mpiexec uses the same one).
double realtime_now();
// When libmpi was loaded into this process (a static constructor): exec and dynamic loading are done.
double library_loaded_at();

}  // namespace ftmpi::reinit
