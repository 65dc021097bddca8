/* ft_rma — one-sided communication with failures (seed 000 §1.2.3). 4 ranks, --with-ft ulfm.
 *
 * ARGS fence: every rank puts into every other rank's window inside a fence epoch; rank 2 dies (SIGKILL)
 *   after its puts, inside the epoch. PASS when every survivor's closing MPI_Win_fence returns
 *   MPI_ERR_PROC_FAILED (never hangs), MPI_Win_get_failed names rank 2, the window stays usable among the
 *   survivors (lock/put/unlock to each, values checked after a barrier on the shrunk world), and
 *   MPI_Win_free succeeds.
 * ARGS lock: rank 1 holds an exclusive lock on rank 0's window and dies holding it; rank 3 holds a shared
 *   lock on rank 1's window with a put pending. PASS when ranks 2 and 3 then obtain the exclusive lock on
 *   rank 0 (the dead holder's lock was released) and their accumulates land (rank 0 sits in MPI_Recv
 *   meanwhile: target-side progress), rank 3's MPI_Win_unlock(1) returns MPI_ERR_PROC_FAILED, and
 *   MPI_Win_get_failed names rank 1.
 * ARGS revoke: rank 0 waits in MPI_Win_wait for an origin (rank 1) that never completes, rank 3 waits in
 *   MPI_Win_start for a post that never comes; rank 1 calls MPIX_Win_revoke. PASS when both waits return
 *   MPI_ERR_REVOKED, every later RMA call on the window at every rank returns MPI_ERR_REVOKED, and
 *   MPI_Win_free succeeds. (No process dies.)
 * ARGS acclock: rank 1 runs one long MPI_Accumulate after another (2 Mi doubles, MPI_SUM) on rank 0's window of
 *   MPI_Win_allocate while rank 2 SIGKILLs it (ftmpi, same host: rank 1 dies in the middle of its element-wise
 *   atomic updates, src/rma/acc_apply.h; with "create" or "dynamic" it dies inside the target's accumulate
 *   lock, in its process_vm_readv/writev read-modify-write, src/rma/cma.h). PASS when rank 3's Fetch_and_op / Accumulate on rank 0 then complete (the dead
 *   holder's lock is taken over), rank 0's fetched count is right, and MPI_Win_get_failed names rank 1.
 * ARGS target: every rank but rank 2 runs Put/Get/Accumulate/Fetch_and_op/Compare_and_swap at every rank in a
 *   lock_all epoch, flush_all after each round, while rank 2 sits outside MPI and rank 0 SIGKILLs it (ftmpi,
 *   same host: the operations are direct, none needs rank 2's progress). PASS when every survivor's flush_all
 *   returns MPI_ERR_PROC_FAILED within 15 s (never hangs), unlock_all returns (success or PROC_FAILED),
 *   MPI_Win_get_failed names rank 2, and exclusive-lock accumulates among the survivors then land.
 * A second argument chooses the window: MPI_Win_create over calloc'ed memory (default, or "create"; with
 * ftmpi on one host: process_vm_writev/readv, src/rma/cma.h), "alloc" MPI_Win_allocate (direct load/store and
 * atomics), "dynamic" MPI_Win_create_dynamic with the memory attached (process_vm_*). acclock defaults to
 * "alloc". */
#include "ft_check.h"

#include <signal.h>
#include <sys/types.h>
#include <unistd.h>

static int rank, size, use_alloc, use_dynamic, use_create;
static MPI_Aint bases[4], cur_unit = 1;

/* A window over `bytes` zeroed bytes: MPI_Win_create on calloc'ed memory, MPI_Win_allocate ("alloc"), or
   MPI_Win_create_dynamic with the calloc'ed memory attached ("dynamic"; displacements are addresses: D()). */
static void *make_win(MPI_Aint bytes, int unit, MPI_Win *win) {
  void *mem = NULL;
  cur_unit = unit;
  if (use_alloc) {
    CHECK_MPI(MPI_Win_allocate(bytes, unit, MPI_INFO_NULL, MPI_COMM_WORLD, &mem, win));
    memset(mem, 0, (size_t)bytes);
    CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
  } else if (use_dynamic) {
    mem = calloc(1, (size_t)bytes);
    CHECK_MPI(MPI_Win_create_dynamic(MPI_INFO_NULL, MPI_COMM_WORLD, win));
    CHECK_MPI(MPI_Win_attach(*win, mem, bytes));
    MPI_Aint a;
    CHECK_MPI(MPI_Get_address(mem, &a));
    CHECK_MPI(MPI_Allgather(&a, 1, MPI_AINT, bases, 1, MPI_AINT, MPI_COMM_WORLD));
  } else {
    mem = calloc(1, (size_t)bytes);
    CHECK_MPI(MPI_Win_create(mem, bytes, unit, MPI_INFO_NULL, MPI_COMM_WORLD, win));
  }
  return mem;
}
static void free_win(void *mem, MPI_Win *win) {
  CHECK_MPI(MPI_Win_free(win)); /* dynamic: freeing the window detaches everything */
  if (!use_alloc) free(mem);
}
/* target displacement of element i at rank t */
static MPI_Aint D(int t, MPI_Aint i) { return use_dynamic ? bases[t] + i * cur_unit : i; }

static int win_failed_has(MPI_Win win, int r) {
  MPI_Group failed, all;
  int n = 0, found = 0;
  CHECK_MPI(MPI_Win_get_failed(win, &failed));
  CHECK_MPI(MPI_Group_size(failed, &n));
  CHECK_MPI(MPI_Win_get_group(win, &all));
  for (int i = 0; i < n; i++) {
    int cr = MPI_UNDEFINED;
    CHECK_MPI(MPI_Group_translate_ranks(failed, 1, &i, all, &cr));
    if (cr == r) found = 1;
  }
  MPI_Group_free(&all);
  if (failed != MPI_GROUP_EMPTY) MPI_Group_free(&failed);
  return found;
}

static void mode_fence(void) {
  const int victim = 2;
  MPI_Win win;
  int *mem = make_win((MPI_Aint)(size * sizeof(int)), sizeof(int), &win);
  CHECK_MPI(MPI_Win_set_errhandler(win, MPI_ERRORS_RETURN));
  CHECK_MPI(MPI_Win_fence(0, win));
  int me = 100 + rank;
  for (int t = 0; t < size; t++) CHECK_MPI(MPI_Put(&me, 1, MPI_INT, t, D(t, rank), 1, MPI_INT, win));
  if (rank == victim) ft_die();
  CHECK_CLASS(MPI_Win_fence(0, win), MPI_ERR_PROC_FAILED);
  /* over TCP the fence may fail on the lost connection before the launcher's notice arrives: wait for it */
  ft_wait_failed(MPI_COMM_WORLD, 1, 10.0);
  CHECK(win_failed_has(win, victim), "MPI_Win_get_failed does not name rank %d", victim);
  /* A failed fence leaves the epoch's survivor-to-survivor puts undefined (the barrier is not uniform: a
     survivor may leave it before another flushed). The window stays usable among survivors: passive-target
     puts to every survivor, then a barrier on the shrunk world, then every slot is checked. */
  me = 200 + rank;
  for (int t = 0; t < size; t++) {
    if (t == victim) continue;
    CHECK_MPI(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, t, 0, win));
    CHECK_MPI(MPI_Put(&me, 1, MPI_INT, t, D(t, rank), 1, MPI_INT, win));
    CHECK_MPI(MPI_Win_unlock(t, win));
  }
  CHECK_CLASS(MPI_Put(&me, 1, MPI_INT, victim, D(victim, rank), 1, MPI_INT, win), MPI_ERR_RMA_SYNC); /* no epoch now */
  MPI_Comm alive;
  CHECK_MPI(MPIX_Comm_shrink(MPI_COMM_WORLD, &alive));
  CHECK_MPI(MPI_Barrier(alive));
  MPI_Comm_free(&alive);
  for (int r = 0; r < size; r++)
    if (r != victim) CHECK(mem[r] == 200 + r, "slot %d = %d", r, mem[r]);
  free_win(mem, &win);
  ft_pass(MPI_COMM_WORLD, "ft_rma fence");
}

static void mode_lock(void) {
  const int victim = 1;
  MPI_Win win;
  long *mem = make_win(8 * sizeof(long), sizeof(long), &win);
  CHECK_MPI(MPI_Win_set_errhandler(win, MPI_ERRORS_RETURN));
  if (rank == victim) CHECK_MPI(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 0, 0, win));
  long v = 5;
  if (rank == 3) {
    CHECK_MPI(MPI_Win_lock(MPI_LOCK_SHARED, victim, 0, win));
    CHECK_MPI(MPI_Put(&v, 1, MPI_LONG, victim, D(victim, 0), 1, MPI_LONG, win));
  }
  ft_barrier_before_death(MPI_COMM_WORLD);
  if (rank == victim) ft_die();
  if (rank == 0) {
    /* sit in MPI_Recv while 2 and 3 lock/accumulate/unlock on our window */
    for (int k = 2; k <= 3; k++) { /* named sources: ANY_SOURCE fails while a failure is unacknowledged */
      int x;
      CHECK_MPI(MPI_Recv(&x, 1, MPI_INT, k, 7, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
    }
    CHECK(mem[2] == 2 && mem[3] == 3, "accumulates after the dead holder: %ld %ld", mem[2], mem[3]);
  } else {
    long mine = rank;
    CHECK_MPI(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 0, 0, win));
    CHECK_MPI(MPI_Accumulate(&mine, 1, MPI_LONG, 0, D(0, rank), 1, MPI_LONG, MPI_SUM, win));
    CHECK_MPI(MPI_Win_unlock(0, win));
    int x = 1;
    CHECK_MPI(MPI_Send(&x, 1, MPI_INT, 0, 7, MPI_COMM_WORLD));
    if (rank == 3) CHECK_CLASS(MPI_Win_unlock(victim, win), MPI_ERR_PROC_FAILED);
  }
  ft_wait_failed(MPI_COMM_WORLD, 1, 10.0);
  CHECK(win_failed_has(win, victim), "MPI_Win_get_failed does not name rank %d", victim);
  free_win(mem, &win);
  ft_pass(MPI_COMM_WORLD, "ft_rma lock");
}

static void mode_acclock(void) {
  const int victim = 1;
  const int n = 2 << 20;
  MPI_Win win;
  use_alloc = !use_dynamic && !use_create;
  double *mem = make_win((MPI_Aint)n * (MPI_Aint)sizeof(double), sizeof(double), &win);
  CHECK_MPI(MPI_Win_set_errhandler(win, MPI_ERRORS_RETURN));
  int pid = (int)getpid(), *pids = malloc(sizeof(int) * (size_t)size);
  CHECK_MPI(MPI_Allgather(&pid, 1, MPI_INT, pids, 1, MPI_INT, MPI_COMM_WORLD));
  double *ones = malloc(sizeof(double) * (size_t)n);
  for (int i = 0; i < n; i++) ones[i] = 1.0;
  ft_barrier_before_death(MPI_COMM_WORLD);
  if (rank == victim) {
    CHECK_MPI(MPI_Win_lock(MPI_LOCK_SHARED, 0, 0, win));
    for (;;) MPI_Accumulate(ones, n, MPI_DOUBLE, 0, D(0, 0), n, MPI_DOUBLE, MPI_SUM, win); /* until killed */
  } else if (rank == 2) {
    ft_sleep_ms(300);
    kill((pid_t)pids[victim], SIGKILL);
  } else if (rank == 3) {
    ft_sleep_ms(400);
    double one = 1.0, old = -1;
    CHECK_MPI(MPI_Win_lock(MPI_LOCK_SHARED, 0, 0, win));
    for (int k = 0; k < 10; k++) {
      CHECK_MPI(MPI_Fetch_and_op(&one, &old, MPI_DOUBLE, 0, D(0, n - 1), MPI_SUM, win));
      CHECK_MPI(MPI_Accumulate(&one, 1, MPI_DOUBLE, 0, D(0, n - 2), 1, MPI_DOUBLE, MPI_SUM, win));
    }
    CHECK_MPI(MPI_Win_unlock(0, win));
  }
  ft_wait_failed(MPI_COMM_WORLD, 1, 10.0);
  CHECK(win_failed_has(win, victim), "MPI_Win_get_failed does not name rank %d", victim);
  MPI_Comm alive;
  CHECK_MPI(MPIX_Comm_shrink(MPI_COMM_WORLD, &alive));
  CHECK_MPI(MPI_Barrier(alive));
  if (rank == 0) {
    /* every slot holds the victim's completed calls V, + 1 where the call it died in got to (it runs from
       slot 0 up), + rank 3's ten increments in the last two slots */
    double a = mem[n - 1], b = mem[n - 2], c = mem[0];
    CHECK(a >= 10 && c >= a - 10 && c <= a - 9, "fetch_and_op slot %g, first slot %g", a, c);
    CHECK(b >= a - 1 && b <= a + 1, "accumulate slot %g vs fetch_and_op slot %g", b, a);
  }
  MPI_Comm_free(&alive);
  free(ones);
  free(pids);
  free_win(mem, &win);
  ft_pass(MPI_COMM_WORLD, "ft_rma acclock");
}

/* A target SIGKILLed (by rank 0) while the others run direct operations at it inside a lock_all epoch; the
   target sits outside MPI (direct access needs no target progress). */
static void mode_target(void) {
  const int victim = 2, n = 64;
  MPI_Win win;
  long *mem = make_win(n * (MPI_Aint)sizeof(long), sizeof(long), &win);
  CHECK_MPI(MPI_Win_set_errhandler(win, MPI_ERRORS_RETURN));
  int pid = (int)getpid(), pids[4];
  CHECK_MPI(MPI_Allgather(&pid, 1, MPI_INT, pids, 1, MPI_INT, MPI_COMM_WORLD));
  CHECK_MPI(MPI_Win_lock_all(0, win));
  ft_barrier_before_death(MPI_COMM_WORLD);
  if (rank == victim) {
    for (;;) ft_sleep_ms(1000); /* killed by rank 0 */
  }
  double t0 = ft_now();
  int killed = 0, rc = MPI_SUCCESS;
  long one = 1, got, cmp = 0, big[8] = {1, 2, 3, 4, 5, 6, 7, 8}, back[8];
  while (rc == MPI_SUCCESS) {
    CHECK(ft_now() - t0 < 15.0, "no error at synchronisation after the target died");
    if (rank == 0 && !killed && ft_now() - t0 > 0.2) {
      kill((pid_t)pids[victim], SIGKILL);
      killed = 1;
    }
    for (int t = 0; t < size; t++) {
      /* operations at the victim may fail at the call once its death is known; the error that counts is
         the synchronisation's */
      (void)MPI_Put(big, 8, MPI_LONG, t, D(t, 8 * rank), 8, MPI_LONG, win);
      (void)MPI_Get(back, 8, MPI_LONG, t, D(t, 8 * rank), 8, MPI_LONG, win);
      (void)MPI_Accumulate(&one, 1, MPI_LONG, t, D(t, 40 + rank), 1, MPI_LONG, MPI_SUM, win);
      (void)MPI_Fetch_and_op(&one, &got, MPI_LONG, t, D(t, 48 + rank), MPI_SUM, win);
      (void)MPI_Compare_and_swap(&one, &cmp, &got, MPI_LONG, t, D(t, 56 + rank), win);
    }
    rc = MPI_Win_flush_all(win);
  }
  CHECK(check_class_of(rc) == MPI_ERR_PROC_FAILED, "flush_all after the target died: %s", ft_class_name(rc));
  rc = MPI_Win_unlock_all(win);
  CHECK(rc == MPI_SUCCESS || check_class_of(rc) == MPI_ERR_PROC_FAILED, "unlock_all: %s", ft_class_name(rc));
  ft_wait_failed(MPI_COMM_WORLD, 1, 10.0);
  CHECK(win_failed_has(win, victim), "MPI_Win_get_failed does not name rank %d", victim);
  /* the window stays usable among the survivors: an exclusive lock and an accumulate at each */
  for (int t = 0; t < size; t++) {
    if (t == victim) continue;
    long add = 1000;
    CHECK_MPI(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, t, 0, win));
    CHECK_MPI(MPI_Accumulate(&add, 1, MPI_LONG, t, D(t, 40 + rank), 1, MPI_LONG, MPI_SUM, win));
    CHECK_MPI(MPI_Win_unlock(t, win));
  }
  MPI_Comm alive;
  CHECK_MPI(MPIX_Comm_shrink(MPI_COMM_WORLD, &alive));
  CHECK_MPI(MPI_Barrier(alive));
  for (int r = 0; r < size; r++)
    if (r != victim) CHECK(mem[40 + r] > 1000, "slot %d = %ld after the survivors' accumulates", 40 + r, mem[40 + r]);
  MPI_Comm_free(&alive);
  free_win(mem, &win);
  ft_pass(MPI_COMM_WORLD, "ft_rma target");
}

static void mode_revoke(void) {
  int mem[4] = {0};
  MPI_Win win;
  CHECK_MPI(MPI_Win_create(mem, sizeof mem, sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &win));
  CHECK_MPI(MPI_Win_set_errhandler(win, MPI_ERRORS_RETURN));
  MPI_Group world, g1, g2;
  MPI_Comm_group(MPI_COMM_WORLD, &world);
  int one = 1, two = 2;
  MPI_Group_incl(world, 1, &one, &g1);
  MPI_Group_incl(world, 1, &two, &g2);
  CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
  int v = 1;
  if (rank == 0) {
    CHECK_MPI(MPI_Win_post(g1, 0, win));
    CHECK_CLASS(MPI_Win_wait(win), MPI_ERR_REVOKED);
  } else if (rank == 3) {
    CHECK_CLASS(MPI_Win_start(g2, 0, win), MPI_ERR_REVOKED);
  } else if (rank == 1) {
    ft_sleep_ms(200);
    CHECK_MPI(MPIX_Win_revoke(win));
  } else {
    /* rank 2: loop on passive-target operations until the revoke reaches it */
    double t0 = ft_now();
    int rc = MPI_SUCCESS;
    while (rc == MPI_SUCCESS) {
      CHECK(ft_now() - t0 < 20.0, "revoke never reached rank 2");
      rc = MPI_Win_lock(MPI_LOCK_SHARED, 2, 0, win);
      if (rc == MPI_SUCCESS) {
        rc = MPI_Put(&v, 1, MPI_INT, 2, 0, 1, MPI_INT, win);
        int rc2 = MPI_Win_unlock(2, win);
        if (rc == MPI_SUCCESS) rc = rc2;
      }
    }
    CHECK(check_class_of(rc) == MPI_ERR_REVOKED, "rank 2 got %s", ft_class_name(rc));
  }
  CHECK_CLASS(MPI_Win_fence(0, win), MPI_ERR_REVOKED);
  CHECK_CLASS(MPI_Win_lock_all(0, win), MPI_ERR_REVOKED);
  MPI_Group_free(&world);
  MPI_Group_free(&g1);
  MPI_Group_free(&g2);
  CHECK_MPI(MPI_Win_free(&win));
  CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
  if (rank == 0) printf("PASS ft_rma revoke\n");
}

int main(int argc, char **argv) {
  /* ftmpi: single copy to create/dynamic windows is opt-in; the cases naming "create" or "dynamic" test it. */
  if (argc > 2 && (strcmp(argv[2], "create") == 0 || strcmp(argv[2], "dynamic") == 0)) setenv("FTMPI_RMA_CMA", "1", 0);
  ft_init(&argc, &argv, &rank, &size);
  CHECK(size == 4, "needs 4 ranks");
  const char *mode = argc > 1 ? argv[1] : "fence";
  use_alloc = argc > 2 && strcmp(argv[2], "alloc") == 0;
  use_dynamic = argc > 2 && strcmp(argv[2], "dynamic") == 0;
  use_create = argc > 2 && strcmp(argv[2], "create") == 0;
  if (strcmp(mode, "fence") == 0) mode_fence();
  else if (strcmp(mode, "lock") == 0) mode_lock();
  else if (strcmp(mode, "revoke") == 0) mode_revoke();
  else if (strcmp(mode, "acclock") == 0) mode_acclock();
  else if (strcmp(mode, "target") == 0) mode_target();
  else CHECK(0, "unknown mode %s", mode);
  MPI_Finalize();
  return 0;
}
