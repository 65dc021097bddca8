// Reinit: a rank's death seen before its teardown (2026-11-27, branch reinit9k).
//
// Why. A SIGKILLed rank becomes visible to mpiexec (pidfd, SIGCHLD, the hang-up of its sockets) only after the
// kernel has torn down its address space: 1.3-2.3 ms for a rank of a 16-rank job whose shared-memory rings are
// populated (docs/performance.md, reinit9i), a third of the whole recovery at 4 ranks. The kernel does one
// thing for a dying thread before that teardown: it walks the thread's robust-futex list (exit_mm ->
// futex_exit_release, before mmput), marks every robust mutex the thread holds "owner died" and wakes one
// waiter of each.
//
// Model. mpiexec's fence board (fence_board.h, one host) holds one LifeSlot per rank: a process-shared robust
// mutex and who holds it. The process that is rank r locks slot r with its MPI_Init thread when it joins the
// job (ReinitControl), writes its pid and that thread's tid into the slot, bumps `gen`, and holds the mutex
// until MPI_Finalize, where it unlocks it. mpiexec watches each slot from a thread of its own (LifeWatch,
// tools/mpiexec/life_watch.h) blocked in pthread_mutex_lock:
//   * EOWNERDEAD: the holder's thread ended without unlocking. Its process is exiting (the thread that calls
//     MPI_Init is the one that calls MPI_Finalize; the watcher checks the kernel's PF_EXITING flag before
//     anyone acts on it). The watcher makes the mutex consistent, unlocks it and reports (rank, pid, tid).
//   * 0: the holder unlocked (finalized): nothing to report.
// Then it waits for the next holder (gen changes) before it locks again, so that it never holds the mutex
// when a new process wants it. A report is only a hint: mpiexec acts on it only if the rank is still that
// pid and the kernel says the thread is exiting; every death is still also seen the old way (SIGCHLD),
// which then finds the rank already handled. A death the watcher misses (the holder died between locking
// and writing its pid, or a restarted process locked before the watcher ran) is seen the old way.
#pragma once
#include <pthread.h>
#include <sys/types.h>

#include <atomic>
#include <cstdint>

namespace ftmpi::reinit {

struct LifeSlot {
  pthread_mutex_t mu;             // process-shared, robust (init_life_slot)
  std::atomic<std::uint32_t> gen;  // bumped by each new holder after it locked (a futex)
  std::atomic<std::int32_t> pid;   // the holder's process
  std::atomic<std::int32_t> tid;   // the holder's thread
};

// mpiexec, on a zero-filled slot, before any rank maps the board. False if the C library refuses.
bool init_life_slot(LifeSlot& s);

// Rank side: lock the slot with the calling thread (a robust mutex left by a dead process is made
// consistent) and publish pid/tid. Unlock from the same thread (false from another: still held).
bool hold_life(LifeSlot& s);
bool release_life(LifeSlot& s);

// Launcher side, one call per holder: wait for the holder after generation `*seen` to end.
// died: the holder (*pid, *tid) ended without unlocking; released: it unlocked; stopped: `stop` was set.
enum class LifeEnd { died, released, stopped };
LifeEnd watch_life(LifeSlot& s, std::uint32_t* seen, pid_t* pid, pid_t* tid, const std::atomic<bool>& stop);

// Whether life locks are used (FTMPI_REINIT_LIFE_LOCK=0 turns them off; read by the ranks and by mpiexec).
bool life_lock_enabled();

// The kernel's view of thread `tid` of `pid` (/proc/<pid>/task/<tid>/stat): true if it is exiting, with the
// exit status the parent's waitpid will see (wait-status encoding).
bool thread_exit_status(pid_t pid, pid_t tid, int* wait_status);

// Give the rest of a dying process's exit the lowest CPU priority (SCHED_IDLE for each of its threads still
// listed in /proc/<pid>/task). Call only for a process thread_exit_status says is exiting: its teardown
// (unmapping its memory, 1-1.5 ms for a rank with populated shared-memory rings) then runs when a core has
// nothing else to do instead of beside the recovery it started, which needs every core it can get
// (docs/performance.md, reinit9n). mpiexec has handled the death already and reaps the process later, but
// something does wait for the teardown: with it demoted, fence 2 (the commit) took up to ~1 s in about 1 run
// of 5 on a loaded machine (a priority inversion), so mpiexec calls this only when FTMPI_REINIT_DEMOTE_EXIT=1.
// Returns how many threads were changed (0: all gone, or not permitted).
int demote_exit(pid_t pid);

}  // namespace ftmpi::reinit
