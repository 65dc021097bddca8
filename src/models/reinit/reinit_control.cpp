#include "models/reinit/reinit_control.h"

#include <dlfcn.h>
#include <link.h>
#include <pthread.h>
#include <signal.h>
#include <sys/mman.h>
#include <ucontext.h>

#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <string>

#include "util/kv_line.h"
#include "util/log.h"
#include "models/reinit/rollback_trace.h"

namespace ftmpi::reinit {

Gate g_gate;

double realtime_now() {
  timespec ts{};
  clock_gettime(CLOCK_REALTIME, &ts);
  return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) * 1e-9;
}

namespace {
double g_loaded_at = 0;
__attribute__((constructor)) void mark_loaded() { g_loaded_at = realtime_now(); }

// The control object the signal handler reaches (set while a location is active).
std::atomic<ReinitControl*> g_active{nullptr};

// Executable segments of code the jump must never leave half-way (libc, loader, C++ runtime, libmpi).
struct Range {
  std::uintptr_t lo, hi;
};
constexpr int kMaxRanges = 32;
Range g_ranges[kMaxRanges];
int g_nranges = 0;

bool unsafe_object(const char* name, const char* self) {
  if (!name || !*name) return false;  // the main program
  if (self && std::strcmp(name, self) == 0) return true;
  for (const char* lib : {"libc.so", "ld-linux", "ld64.so", "libstdc++", "libgcc_s", "libm.so", "libpthread",
                          "libdl.so", "librt.so"})
    if (std::strstr(name, lib)) return true;
  return false;
}

int collect_ranges(dl_phdr_info* info, size_t, void* self) {
  if (!unsafe_object(info->dlpi_name, static_cast<const char*>(self))) return 0;
  for (int i = 0; i < info->dlpi_phnum && g_nranges < kMaxRanges; ++i) {
    const ElfW(Phdr)& ph = info->dlpi_phdr[i];
    if (ph.p_type != PT_LOAD || !(ph.p_flags & PF_X)) continue;
    std::uintptr_t lo = info->dlpi_addr + ph.p_vaddr;
    g_ranges[g_nranges++] = {lo, lo + ph.p_memsz};
  }
  return 0;
}

void compute_ranges() {
  if (g_nranges) return;
  Dl_info me{};
  const char* self = nullptr;
  if (dladdr(reinterpret_cast<void*>(&compute_ranges), &me) && me.dli_fname) self = me.dli_fname;
  dl_iterate_phdr(collect_ranges, const_cast<char*>(self));
}

// The interrupted program counter is in code that may hold a lock or be half-way through a system call.
bool pc_unsafe(void* uctx) {
#if defined(__x86_64__)
  auto pc = static_cast<std::uintptr_t>(static_cast<ucontext_t*>(uctx)->uc_mcontext.gregs[REG_RIP]);
#elif defined(__aarch64__)
  auto pc = static_cast<std::uintptr_t>(static_cast<ucontext_t*>(uctx)->uc_mcontext.pc);
#else
  (void)uctx;
  return true;  // unknown architecture: only the library's own safe points jump
#endif
#if defined(__x86_64__) || defined(__aarch64__)
  for (int i = 0; i < g_nranges; ++i)
    if (pc >= g_ranges[i].lo && pc < g_ranges[i].hi) return true;
  return false;
#endif
}

void on_signal(int, siginfo_t*, void* uctx) {
  ReinitControl* c = g_active.load(std::memory_order_acquire);
  if (!c || !g_gate.jump_due || g_gate.depth > 0) return;  // inside MPI: the call's exit jumps
  if (pc_unsafe(uctx)) return;                              // the service thread signals again
  c->jump();
}

}  // namespace

double library_loaded_at() { return g_loaded_at; }

ReinitControl::ReinitControl(int world_rank, int start_epoch, int restarts_before)
    : rank_(world_rank),
      member_(start_epoch > 0 ? start_epoch - 1 : 0),
      origin_(start_epoch > 0 ? Origin::restarted : Origin::fresh),
      restarts_(restarts_before) {
  if (start_epoch > 0) member_.on_reinit(start_epoch);
  // A restarted process learns from mpiexec who failed (the restart point's list).
  if (const char* f = std::getenv("FTMPI_REINIT_FAILED")) {
    std::string_view list(f);
    while (!list.empty()) {
      std::size_t comma = list.find(',');
      failed_.push_back(std::atoi(std::string(list.substr(0, comma)).c_str()));
      if (comma == std::string_view::npos) break;
      list.remove_prefix(comma + 1);
    }
  }
  if (const char* b = std::getenv("FTMPI_REINIT_BOARD"); b && *b && std::strcmp(b, "0") != 0) {
    auto board = FenceBoard::attach(b);
    if (board.ok()) board_.emplace(std::move(board.value()));
    else board_status_ = board.status();
  }
  // Held from here until MPI_Finalize by this (the MPI_Init) thread: mpiexec sees this process's death as
  // soon as the kernel ends the thread, before its address space is torn down (life_lock.h).
  // FTMPI_REINIT_LIFE_LOCK=0 turns it off (deaths are then seen through SIGCHLD only).
  if (board_ && life_lock_enabled())
    if (LifeSlot* s = board_->life(world_rank); s && hold_life(*s)) life_ = s;
  const char* quiet = std::getenv("FTMPI_REINIT_QUIET_RESUME");  // opt-in: no gain shown (reinit_control.h)
  quiet_resume_ = quiet && std::strcmp(quiet, "1") == 0;
  signo_ = SIGRTMIN + 4;
  if (const char* s = std::getenv("FTMPI_REINIT_SIGNAL")) signo_ = std::atoi(s);
  compute_ranges();
}

void ReinitControl::leave_job() {
  // From the thread that locked it (MPI_Finalize's is MPI_Init's). From another thread the lock stays held
  // and on that thread's robust list, which the C library and the kernel may walk later: the board then
  // stays mapped for good (a few KiB).
  if (life_ && !release_life(*life_)) board_keep_mapped_ = true;
  life_ = nullptr;
}

ReinitControl::~ReinitControl() {
  leave_job();
  if (board_keep_mapped_ && board_) board_->keep_mapped();
  ReinitControl* me = this;
  g_active.compare_exchange_strong(me, nullptr);
  std::lock_guard g(mu_);
  unlink_up_to_locked(INT32_MAX);
}

void ReinitControl::unlink_when_attached(int epoch, std::string name) {
  std::lock_guard g(mu_);
  unlink_.emplace_back(epoch, std::move(name));
}

void ReinitControl::unlink_up_to_locked(int epoch) {
  std::erase_if(unlink_, [epoch](const std::pair<int, std::string>& u) {
    if (u.first > epoch) return false;
    ::shm_unlink(u.second.c_str());  // ENOENT when the owner's transport already removed it: harmless
    return true;
  });
}

namespace {
// " card.<key>=<value>" for each card (EpochBootstrap only records line-safe cards).
void append_cards(std::string& line, const std::vector<Card>& cards) {
  for (const Card& c : cards) {
    line += " card.";
    line += c.first;
    line += '=';
    line += c.second;
  }
}
}  // namespace

void ReinitControl::enter_fence(int epoch, int seq, const std::vector<Card>& mine) {
  std::string line = "cmd=fence epoch=" + std::to_string(epoch) + " seq=" + std::to_string(seq);
  {
    std::lock_guard g(mu_);
    if (timeline_epoch_ == epoch) line += timeline_;  // fence 1 was on the board: its timeline goes here
    timeline_epoch_ = -1;
  }
  append_cards(line, mine);
  line += '\n';
  if (send_) send_(line.c_str());
}

void ReinitControl::on_control_line(std::string_view line) {
  std::string_view cmd = kv_field(line, "cmd");
  if (cmd == "reinit") {
    int e = kv_int(line, "epoch", -1);
    std::vector<int> failed;
    std::string_view list = kv_field(line, "failed");
    while (!list.empty()) {
      std::size_t comma = list.find(',');
      failed.push_back(std::atoi(std::string(list.substr(0, comma)).c_str()));
      if (comma == std::string_view::npos) break;
      list.remove_prefix(comma + 1);
    }
    bool moved = false;
    {
      std::lock_guard g(mu_);
      if (e > member_.target()) {
        // First end the old epoch (every peer counts as failed there), then publish the new target: the
        // application thread resets the failure state only after it sees the target, so these marks can
        // never leak into the new epoch.
        if (kill_old_) kill_old_(failed);
        moved = member_.on_reinit(e);
        failed_ = failed;
        for (double& t : stage_t_) t = 0;
        stage_t_[static_cast<int>(Stage::notice)] = realtime_now();
        trace::notice.store(stage_t_[static_cast<int>(Stage::notice)]);
        arm_jump_locked();
      }
    }
    cv_.notify_all();
    if (moved) {
      log::debug("reinit: epoch %d announced (failed: %zu)", e, failed.size());
      if (g_gate.jump_due) send_signal();
    }
  } else if (cmd == "reinit_active_ok") {
    {
      std::lock_guard g(mu_);
      active_acked_ = true;
    }
    cv_.notify_all();
  } else if (cmd == "fence_out") {
    {
      std::lock_guard g(mu_);
      const int e = kv_int(line, "epoch", -1), seq = kv_int(line, "seq", 0);
      if (seq == 1 && e == member_.building()) {  // the epoch's cards this rank needs
        cards_ = parse_cards(line);
        cards_epoch_ = e;
      }
      member_.on_fence_out(e, seq);
      if (seq == 2 && e == member_.building()) resuming_.store(false, std::memory_order_relaxed);
      if (seq == 2) unlink_up_to_locked(e);  // every member mapped the segments of epochs <= e
    }
    cv_.notify_all();
  }
}

void ReinitControl::arm_jump_locked() {
  if (handler_ == Handler::async && active_.load() && member_.rollback_due()) {
    resend_.store(0);
    g_gate.jump_due = 1;
  }
}

void ReinitControl::send_signal() {
  if (app_thread_) pthread_kill(static_cast<pthread_t>(app_thread_), signo_);
}

int ReinitControl::on_tick() {
  if (!g_gate.jump_due || !active_.load()) return -1;
  // The jump is still due: the application thread was in code it must not leave (libc) — try again.
  if (resend_.fetch_add(1) > 0) send_signal();
  return 2;
}

void ReinitControl::note(Stage s) { note_at(s, realtime_now()); }
void ReinitControl::note_at(Stage s, double t) {
  std::lock_guard g(mu_);
  stage_t_[static_cast<int>(s)] = t;
}

Status ReinitControl::fence(int epoch, int seq, const std::vector<Card>& mine, std::vector<Card>* got) {
  char head[256];
  if (seq == 1) {
    double t[5];
    {
      std::lock_guard g(mu_);
      for (int i = 0; i < 5; ++i) t[i] = stage_t_[i];
    }
    // notice, landed, dropped (survivor); loaded, init (restarted process)
    char times[200];
    std::snprintf(times, sizeof times, " tn=%.6f tl=%.6f td=%.6f tx=%.6f ti=%.6f", t[0], t[1], t[2], t[3], t[4]);
    if (board_) {
      // Fence 1 among the ranks (fence_board.h); mpiexec hears of it with fence 2's line (entering fence 2
      // counts as having entered fence 1 at the coordinator), which carries the timeline: no line and no
      // launcher wake-up on the critical path.
      Status st = board_fence1(epoch, mine, got);
      if (st.ok()) {
        std::snprintf(head, sizeof head, "%s tf=%.6f", times, realtime_now());
        std::lock_guard g(mu_);
        timeline_epoch_ = epoch;
        timeline_ = head;
      }
      return st;
    }
    std::snprintf(head, sizeof head, "cmd=fence epoch=%d seq=%d%s", epoch, seq, times);
  } else {
    std::snprintf(head, sizeof head, "cmd=fence epoch=%d seq=%d", epoch, seq);
  }
  std::string line = head;
  append_cards(line, mine);
  line += '\n';
  if (send_) send_(line.c_str());
  std::unique_lock lk(mu_);
  cv_.wait(lk, [&] { return member_.superseded() || (member_.building() == epoch && member_.fence_released(seq)); });
  // A released fence wins over a newer notice: a released fence 2 means the coordinator committed the
  // epoch, and a rank must then commit it too (and change again at once), so that the survivors of a
  // commit are exactly its members — which the next failed list, and so the links kept across the next
  // rollback, rely on (kept_links.h).
  if (member_.building() == epoch && member_.fence_released(seq)) {
    if (got && seq == 1 && cards_epoch_ == epoch) got->insert(got->end(), cards_.begin(), cards_.end());
    return Status::Ok();
  }
  if (member_.superseded())
    return Status(Errc::other, "reinit: epoch " + std::to_string(epoch) + " superseded by a newer failure");
  return Status::Ok();
}

Status ReinitControl::board_fence1(int epoch, const std::vector<Card>& mine, std::vector<Card>* got) {
  std::vector<int> failed;
  {
    std::lock_guard g(mu_);
    failed = building_failed_;
  }
  auto is_new = [&](int k) { return std::find(failed.begin(), failed.end(), k) != failed.end(); };
  auto give_up = [this] {
    std::lock_guard g(mu_);
    return member_.superseded();
  };
  std::vector<Card> cards;
  if (board_->fence1(rank_, epoch, mine, is_new, give_up, &cards)) {
    std::lock_guard g(mu_);
    member_.on_fence_out(epoch, 1);
    if (got) got->insert(got->end(), cards.begin(), cards.end());
    return Status::Ok();
  }
  // Superseded: the notice of the newer epoch (it names the failed ranks) is on its way from mpiexec,
  // which wrote the board before sending it.
  std::unique_lock lk(mu_);
  if (!cv_.wait_for(lk, std::chrono::seconds(60), [this] { return member_.superseded(); }))
    return Status(Errc::other, "reinit: the board shows a newer epoch than " + std::to_string(epoch) +
                                   " but mpiexec announced none within 60 s");
  return Status(Errc::other, "reinit: epoch " + std::to_string(epoch) + " superseded by a newer failure");
}

int ReinitControl::begin_change(std::vector<int>* failed) {
  std::lock_guard g(mu_);
  building_failed_ = failed_;
  if (failed) *failed = failed_;
  return member_.begin();
}

void ReinitControl::commit() {
  std::lock_guard g(mu_);
  member_.commit();
  resuming_.store(!member_.fence_released(2), std::memory_order_relaxed);
  if (!member_.rollback_due()) g_gate.jump_due = 0;
}

bool ReinitControl::superseded() const {
  std::lock_guard g(mu_);
  return member_.superseded();
}
bool ReinitControl::rollback_due() const {
  std::lock_guard g(mu_);
  return member_.rollback_due();
}
bool ReinitControl::wait_rollback_due(int timeout_ms) const {
  std::unique_lock lk(mu_);
  return cv_.wait_for(lk, std::chrono::milliseconds(timeout_ms), [this] { return member_.rollback_due(); });
}
int ReinitControl::committed() const {
  std::lock_guard g(mu_);
  return member_.committed();
}
int ReinitControl::target() const {
  std::lock_guard g(mu_);
  return member_.target();
}
std::vector<int> ReinitControl::failed() const {
  std::lock_guard g(mu_);
  return failed_;
}

void ReinitControl::activate(sigjmp_buf* env) {
  used_ = true;
  app_thread_ = static_cast<unsigned long>(pthread_self());
  if (handler_ == Handler::async) {
    struct sigaction sa {};
    sa.sa_sigaction = on_signal;
    sa.sa_flags = SA_SIGINFO | SA_RESTART;
    sigemptyset(&sa.sa_mask);
    sigaction(signo_, &sa, nullptr);
  }
  env_ = env;
  g_active.store(this, std::memory_order_release);
  active_.store(true, std::memory_order_release);
  // The location counts only once the launcher knows it (seed 003 §1.4.2: a failure while some rank has
  // no active location is fatal, decided by the launcher): wait for its answer, so that a failure any
  // time after the resilient function starts is rolled back, never mistaken for one outside MPI_Reinit.
  std::unique_lock lk(mu_);
  if (send_ && origin_ == Origin::restarted) {
    // A restarted process (or an adopted spare) counts as active at the coordinator from its restart on
    // (EpochCoordinator::on_deaths) until it leaves MPI_Reinit: the line is only for the record, and
    // waiting for its answer would put one launcher round trip on the recovery's critical path.
    send_("cmd=reinit_active\n");
  } else if (send_) {
    active_acked_ = false;
    send_("cmd=reinit_active\n");
    if (!cv_.wait_for(lk, std::chrono::seconds(30), [this] { return active_acked_; }))
      log::warn("reinit: the launcher did not confirm MPI_Reinit's rollback location within 30 s");
  }
  arm_jump_locked();
}

void ReinitControl::deactivate() {
  active_.store(false, std::memory_order_release);
  g_gate.jump_due = 0;
  g_active.store(nullptr, std::memory_order_release);
  if (send_) send_("cmd=reinit_done\n");
}

void ReinitControl::jump() {
  g_gate.jump_due = 0;
  g_gate.depth = 0;
  siglongjmp(*env_, 1);
}

void ReinitControl::jump_if_due() {
  ReinitControl* c = g_active.load(std::memory_order_acquire);
  if (c && g_gate.jump_due && c->active()) c->jump();
}

}  // namespace ftmpi::reinit
