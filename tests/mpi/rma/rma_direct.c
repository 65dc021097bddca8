/* tests/mpi/rma/rma_direct.c — one-sided operations on windows of MPI_Win_allocate and
 * MPI_Win_allocate_shared (with ftmpi: same-host targets reached by direct load/store, src/rma/direct.h),
 * checked against hand-computed values in every synchronisation mode.
 *
 *  1. fence: contiguous and strided (vector) puts and gets, ring pattern, every rank a known value.
 *  2. exclusive lock: read-modify-write (Get, flush, Put) of one counter by everybody — no update lost.
 *  3. lock_all: K Accumulate(+1) and K Fetch_and_op(+1) by everybody on every target — totals exact,
 *     every fetched value distinct (atomicity), per origin increasing (ordering).
 *  4. Compare_and_swap spin lock (lock_all + flush) guarding a non-atomic Get/Put counter.
 *  5. Get_accumulate with MPI_REPLACE (swap chain: the values seen are a permutation) and MPI_NO_OP.
 *  6. PSCW ring with Accumulate on a strided target type (MPI_SUM) and MPI_MAX.
 *  7. Rput / Rget / Raccumulate with flush_local, shared lock.
 *  8. MPI_Win_allocate_shared: Put/Accumulate through MPI calls, checked by load after a barrier.
 *  9. flush_local_all / flush_all / flush_local under lock_all and an exclusive lock; (ftmpi) a direct put
 *     that lands while the target polls its memory outside MPI.
 * Arguments: "create" / "dynamic" run 1-7 and 9 on MPI_Win_create / MPI_Win_create_dynamic windows instead
 * (with ftmpi: same-host targets reached by process_vm_writev/readv, src/rma/cma.h).
 * Argument "mixed" (ftmpi only): odd ranks switch direct access off (FTMPI_RMA_DIRECT=0), so every target is
 * reached both directly and by messages at once; the atomicity checks then cover both paths together. */
#define _POSIX_C_SOURCE 200809L
#include <stdlib.h>

#include "common/check.h"

static int rank, size;
enum { SLOTS = 64, K = 200 };

/* Window flavour of sections 1-7 (argument): MPI_Win_allocate (default), MPI_Win_create over malloc'ed memory
   ("create"), MPI_Win_create_dynamic with one attached region ("dynamic": displacements are addresses). With
   ftmpi the last two reach same-host targets by process_vm_writev/readv (src/rma/cma.h). */
enum { ALLOCATE, CREATE, DYNAMIC };
static int flavor = ALLOCATE;
static MPI_Aint *bases; /* dynamic: every rank's attached region */
static MPI_Aint cur_unit = 1;

static void *win_new(MPI_Aint bytes, int unit, MPI_Win *win) {
  void *mem = NULL;
  cur_unit = unit;
  if (flavor == ALLOCATE) {
    CHECK_MPI(MPI_Win_allocate(bytes, unit, MPI_INFO_NULL, MPI_COMM_WORLD, &mem, win));
  } else if (flavor == CREATE) {
    mem = malloc((size_t)bytes);
    CHECK_MPI(MPI_Win_create(mem, bytes, unit, MPI_INFO_NULL, MPI_COMM_WORLD, win));
  } else {
    mem = malloc((size_t)bytes);
    CHECK_MPI(MPI_Win_create_dynamic(MPI_INFO_NULL, MPI_COMM_WORLD, win));
    CHECK_MPI(MPI_Win_attach(*win, mem, bytes));
    MPI_Aint a;
    CHECK_MPI(MPI_Get_address(mem, &a));
    CHECK_MPI(MPI_Allgather(&a, 1, MPI_AINT, bases, 1, MPI_AINT, MPI_COMM_WORLD));
  }
  return mem;
}

static void win_del(void *mem, MPI_Win *win) {
  if (flavor == DYNAMIC) CHECK_MPI(MPI_Win_detach(*win, mem));
  CHECK_MPI(MPI_Win_free(win));
  if (flavor != ALLOCATE) free(mem);
}

/* target displacement of element `slot` at `target` */
static MPI_Aint D(int target, MPI_Aint slot) { return flavor == DYNAMIC ? bases[target] + slot * cur_unit : slot; }

static void fence_mode(void) {
  long *mem;
  MPI_Win win;
  mem = win_new(SLOTS * sizeof(long), sizeof(long), &win);
  for (int i = 0; i < SLOTS; i++) mem[i] = -1;
  CHECK_MPI(MPI_Win_fence(0, win));
  int right = (rank + 1) % size, left = (rank + size - 1) % size;
  long mine[8];
  for (int i = 0; i < 8; i++) mine[i] = rank * 100 + i;
  /* contiguous: slots 0..7 of the right neighbour; strided: slots 16,18,..,30 */
  MPI_Datatype strided;
  CHECK_MPI(MPI_Type_vector(8, 1, 2, MPI_LONG, &strided));
  CHECK_MPI(MPI_Type_commit(&strided));
  CHECK_MPI(MPI_Put(mine, 8, MPI_LONG, right, D(right,0), 8, MPI_LONG, win));
  CHECK_MPI(MPI_Put(mine, 8, MPI_LONG, right, D(right,16), 1, strided, win));
  CHECK_MPI(MPI_Win_fence(0, win));
  for (int i = 0; i < 8; i++) {
    CHECK(mem[i] == left * 100 + i, "fence put slot %d: %ld", i, mem[i]);
    CHECK(mem[16 + 2 * i] == left * 100 + i, "fence strided put slot %d: %ld", 16 + 2 * i, mem[16 + 2 * i]);
    CHECK(mem[17 + 2 * i] == -1, "fence strided put touched hole %d", 17 + 2 * i);
  }
  /* get the right neighbour's strided slots into a contiguous buffer, and its slots 0..7 strided */
  long got[8], got2[16];
  for (int i = 0; i < 16; i++) got2[i] = -7;
  CHECK_MPI(MPI_Get(got, 8, MPI_LONG, right, D(right,16), 1, strided, win));
  CHECK_MPI(MPI_Get(got2, 1, strided, right, D(right,0), 8, MPI_LONG, win));
  CHECK_MPI(MPI_Win_fence(0, win));
  for (int i = 0; i < 8; i++) {
    CHECK(got[i] == rank * 100 + i, "fence strided get %d: %ld", i, got[i]);
    CHECK(got2[2 * i] == rank * 100 + i && got2[2 * i + 1] == -7, "fence get into strided %d", i);
  }
  CHECK_MPI(MPI_Win_fence(MPI_MODE_NOSUCCEED, win));
  MPI_Type_free(&strided);
  win_del(mem, &win);
}

static void exclusive_counter(void) {
  long *mem;
  MPI_Win win;
  mem = win_new(SLOTS * sizeof(long), sizeof(long), &win);
  mem[0] = 0;
  CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
  int target = size - 1;
  for (int k = 0; k < K / 4; k++) {
    long v;
    CHECK_MPI(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, target, 0, win));
    CHECK_MPI(MPI_Get(&v, 1, MPI_LONG, target, D(target,0), 1, MPI_LONG, win));
    CHECK_MPI(MPI_Win_flush(target, win));
    v++;
    CHECK_MPI(MPI_Put(&v, 1, MPI_LONG, target, D(target,0), 1, MPI_LONG, win));
    CHECK_MPI(MPI_Win_unlock(target, win));
  }
  CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
  if (rank == target) CHECK(mem[0] == (long)(K / 4) * size, "exclusive counter %ld", mem[0]);
  win_del(mem, &win);
}

static int cmp_long(const void *a, const void *b) {
  long x = *(const long *)a, y = *(const long *)b;
  return x < y ? -1 : x > y;
}

static void atomics(void) {
  long *mem;
  MPI_Win win;
  mem = win_new(SLOTS * sizeof(long), sizeof(long), &win);
  for (int i = 0; i < SLOTS; i++) mem[i] = 0;
  CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
  long one = 1;
  long *fetched = malloc(sizeof(long) * K * (size_t)size);
  CHECK_MPI(MPI_Win_lock_all(0, win));
  for (int k = 0; k < K; k++)
    for (int t = 0; t < size; t++) {
      int tt = (t + rank) % size;
      CHECK_MPI(MPI_Accumulate(&one, 1, MPI_LONG, tt, D(tt,0), 1, MPI_LONG, MPI_SUM, win));
      CHECK_MPI(MPI_Fetch_and_op(&one, &fetched[tt * K + k], MPI_LONG, tt, D(tt,1), MPI_SUM, win));
      if (k % 50 == 0) CHECK_MPI(MPI_Win_flush(tt, win));
    }
  CHECK_MPI(MPI_Win_flush_all(win));
  CHECK_MPI(MPI_Win_unlock_all(win));
  for (int t = 0; t < size; t++)
    for (int k = 1; k < K; k++)
      CHECK(fetched[t * K + k] > fetched[t * K + k - 1], "fetch_and_op order at %d: %ld then %ld", t,
            fetched[t * K + k - 1], fetched[t * K + k]);
  CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
  CHECK(mem[0] == (long)K * size, "accumulate total %ld want %ld", mem[0], (long)K * size);
  CHECK(mem[1] == (long)K * size, "fetch_and_op total %ld want %ld", mem[1], (long)K * size);
  /* every value fetched from rank 0's slot 1 is distinct: 0 .. K*size-1 */
  long *all = rank == 0 ? malloc(sizeof(long) * K * (size_t)size) : NULL;
  CHECK_MPI(MPI_Gather(fetched, K, MPI_LONG, all, K, MPI_LONG, 0, MPI_COMM_WORLD));
  if (rank == 0) {
    qsort(all, (size_t)K * size, sizeof(long), cmp_long);
    for (long i = 0; i < (long)K * size; i++) CHECK(all[i] == i, "fetched values not a permutation at %ld: %ld", i, all[i]);
    free(all);
  }
  free(fetched);

  /* Compare_and_swap spin lock on rank 0's slot 2 guarding slot 3 (non-atomic get/put) */
  CHECK_MPI(MPI_Win_lock_all(0, win));
  for (int k = 0; k < K / 8; k++) {
    long want = 0, me = rank + 1, old = -1;
    do {
      CHECK_MPI(MPI_Compare_and_swap(&me, &want, &old, MPI_LONG, 0, D(0,2), win));
      CHECK_MPI(MPI_Win_flush(0, win));
    } while (old != 0);
    long v;
    CHECK_MPI(MPI_Get(&v, 1, MPI_LONG, 0, D(0,3), 1, MPI_LONG, win));
    CHECK_MPI(MPI_Win_flush(0, win));
    v++;
    CHECK_MPI(MPI_Put(&v, 1, MPI_LONG, 0, D(0,3), 1, MPI_LONG, win));
    CHECK_MPI(MPI_Win_flush(0, win));
    long zero = 0, prev = -1;
    CHECK_MPI(MPI_Fetch_and_op(&zero, &prev, MPI_LONG, 0, D(0,2), MPI_REPLACE, win));
    CHECK_MPI(MPI_Win_flush(0, win));
    CHECK(prev == me, "CAS lock held by %ld, not me (%ld)", prev, me);
  }
  CHECK_MPI(MPI_Win_unlock_all(win));
  CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
  if (rank == 0) CHECK(mem[3] == (long)(K / 8) * size, "CAS-guarded counter %ld", mem[3]);

  /* swap chain on rank 0's slot 4 (starts at -1): each rank swaps its id in; the values seen plus the last
     one left form {-1, 0, .., size-1} */
  if (rank == 0) mem[4] = -1;
  CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
  long id = rank, seen = -2, cur = -2;
  CHECK_MPI(MPI_Win_lock(MPI_LOCK_SHARED, 0, 0, win));
  CHECK_MPI(MPI_Get_accumulate(&id, 1, MPI_LONG, &seen, 1, MPI_LONG, 0, D(0,4), 1, MPI_LONG, MPI_REPLACE, win));
  CHECK_MPI(MPI_Win_unlock(0, win));
  CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
  CHECK_MPI(MPI_Win_lock(MPI_LOCK_SHARED, 0, 0, win));
  CHECK_MPI(MPI_Get_accumulate(NULL, 0, MPI_LONG, &cur, 1, MPI_LONG, 0, D(0,4), 1, MPI_LONG, MPI_NO_OP, win));
  CHECK_MPI(MPI_Win_unlock(0, win));
  long *seen_all = malloc(sizeof(long) * ((size_t)size + 1));
  CHECK_MPI(MPI_Allgather(&seen, 1, MPI_LONG, seen_all, 1, MPI_LONG, MPI_COMM_WORLD));
  seen_all[size] = cur;
  qsort(seen_all, (size_t)size + 1, sizeof(long), cmp_long);
  for (int i = 0; i <= size; i++) CHECK(seen_all[i] == i - 1, "swap chain value %d: %ld", i, seen_all[i]);
  free(seen_all);
  win_del(mem, &win);
}

static void pscw(void) {
  int *mem;
  MPI_Win win;
  mem = win_new(32 * sizeof(int), sizeof(int), &win);
  for (int i = 0; i < 32; i++) mem[i] = 1;
  CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
  MPI_Group world, left, right;
  int l = (rank + size - 1) % size, r = (rank + 1) % size;
  MPI_Comm_group(MPI_COMM_WORLD, &world);
  MPI_Group_incl(world, 1, &l, &left);
  MPI_Group_incl(world, 1, &r, &right);
  MPI_Datatype every3;
  CHECK_MPI(MPI_Type_vector(4, 1, 3, MPI_INT, &every3));
  CHECK_MPI(MPI_Type_commit(&every3));
  int add[4] = {rank, rank + 1, rank + 2, rank + 3}, mx = 1000 + rank;
  CHECK_MPI(MPI_Win_post(left, 0, win));
  CHECK_MPI(MPI_Win_start(right, 0, win));
  CHECK_MPI(MPI_Accumulate(add, 4, MPI_INT, r, D(r,0), 1, every3, MPI_SUM, win));
  CHECK_MPI(MPI_Accumulate(&mx, 1, MPI_INT, r, D(r,20), 1, MPI_INT, MPI_MAX, win));
  CHECK_MPI(MPI_Win_complete(win));
  CHECK_MPI(MPI_Win_wait(win));
  for (int i = 0; i < 12; i++) {
    int want = i % 3 == 0 ? 1 + l + i / 3 : 1;
    CHECK(mem[i] == want, "pscw strided accumulate slot %d: %d want %d", i, mem[i], want);
  }
  CHECK(mem[20] == 1000 + l, "pscw max %d", mem[20]);
  MPI_Type_free(&every3);
  MPI_Group_free(&world);
  MPI_Group_free(&left);
  MPI_Group_free(&right);
  win_del(mem, &win);
}

static void requests(void) {
  double *mem;
  MPI_Win win;
  mem = win_new(16 * sizeof(double), sizeof(double), &win);
  for (int i = 0; i < 16; i++) mem[i] = 0;
  CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
  int t = (rank + 1) % size;
  double v[4] = {rank + 0.5, rank + 1.5, rank + 2.5, rank + 3.5}, back[4] = {0}, one = 1.0;
  MPI_Request rq[1], rq2[2];
  CHECK_MPI(MPI_Win_lock(MPI_LOCK_SHARED, t, 0, win));
  CHECK_MPI(MPI_Rput(v, 4, MPI_DOUBLE, t, D(t,4), 4, MPI_DOUBLE, win, &rq[0]));
  CHECK_MPI(MPI_Wait(&rq[0], MPI_STATUS_IGNORE));
  CHECK_MPI(MPI_Win_flush(t, win));
  CHECK_MPI(MPI_Rget(back, 4, MPI_DOUBLE, t, D(t,4), 4, MPI_DOUBLE, win, &rq2[0]));
  CHECK_MPI(MPI_Raccumulate(&one, 1, MPI_DOUBLE, t, D(t,0), 1, MPI_DOUBLE, MPI_SUM, win, &rq2[1]));
  CHECK_MPI(MPI_Waitall(2, rq2, MPI_STATUSES_IGNORE));
  CHECK_MPI(MPI_Win_flush_local(t, win));
  CHECK_MPI(MPI_Win_unlock(t, win));
  for (int i = 0; i < 4; i++) CHECK(back[i] == v[i], "rget %d: %g", i, back[i]);
  CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
  CHECK(mem[0] == 1.0, "raccumulate %g", mem[0]);
  win_del(mem, &win);
}

/* 9. Every flush variant under lock_all, an exclusive lock with flush_local, and (ftmpi, direct access on)
   a put that lands while the target computes outside MPI. */
static void flushes(void) {
  long *mem;
  MPI_Win win;
  mem = win_new(SLOTS * sizeof(long), sizeof(long), &win);
  for (int i = 0; i < SLOTS; i++) mem[i] = -1;
  CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
  long v = 1000 + rank, back = -5;
  CHECK_MPI(MPI_Win_lock_all(0, win));
  for (int t = 0; t < size; t++) CHECK_MPI(MPI_Put(&v, 1, MPI_LONG, t, D(t, 8 + rank % 32), 1, MPI_LONG, win));
  CHECK_MPI(MPI_Win_flush_local_all(win));
  v = -7; /* the origin buffer is reusable after flush_local_all: the puts carried 1000 + rank */
  CHECK_MPI(MPI_Win_flush_all(win));
  for (int t = 0; t < size; t++) {
    back = -5;
    CHECK_MPI(MPI_Get(&back, 1, MPI_LONG, t, D(t, 8 + rank % 32), 1, MPI_LONG, win));
    CHECK_MPI(MPI_Win_flush_local(t, win));
    CHECK(back == 1000 + rank, "lock_all put/get at %d: %ld", t, back);
  }
  CHECK_MPI(MPI_Win_unlock_all(win));
  CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
  for (int r = 0; r < size && r < 32; r++) CHECK(mem[8 + r] == 1000 + r, "lock_all slot %d: %ld", 8 + r, mem[8 + r]);
  /* exclusive lock, put then flush_local, get then flush, on the left neighbour */
  int l = (rank + size - 1) % size;
  long two[2] = {rank, -rank}, got[2] = {0, 0};
  CHECK_MPI(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, l, 0, win));
  CHECK_MPI(MPI_Put(two, 2, MPI_LONG, l, D(l, 48), 2, MPI_LONG, win));
  CHECK_MPI(MPI_Win_flush_local(l, win));
  CHECK_MPI(MPI_Win_flush(l, win));
  CHECK_MPI(MPI_Get(got, 2, MPI_LONG, l, D(l, 48), 2, MPI_LONG, win));
  CHECK_MPI(MPI_Win_unlock(l, win));
  CHECK(got[0] == rank && got[1] == -rank, "exclusive put/get %ld %ld", got[0], got[1]);
#ifdef FTMPI
  /* Direct access needs no target progress: rank 0 puts into rank 1's window (lock_all NOCHECK: no lock
     message) while rank 1 polls its own memory without calling MPI. By messages it would never land. */
  int direct_here = getenv("FTMPI_RMA_DIRECT") == NULL, direct_all = 0;
  CHECK_MPI(MPI_Allreduce(&direct_here, &direct_all, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD));
  if (size > 1 && direct_all) {
    volatile long *vm = mem;
    if (rank == 1) vm[60] = 0;
    CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
    if (rank == 0) {
      long x = 4242;
      CHECK_MPI(MPI_Win_lock_all(MPI_MODE_NOCHECK, win));
      CHECK_MPI(MPI_Put(&x, 1, MPI_LONG, 1, D(1, 60), 1, MPI_LONG, win));
      CHECK_MPI(MPI_Win_flush(1, win));
      CHECK_MPI(MPI_Win_unlock_all(win));
    } else if (rank == 1) {
      double t0 = MPI_Wtime();
      while (vm[60] != 4242 && MPI_Wtime() - t0 < 20.0) {
      }
      CHECK(vm[60] == 4242, "direct put did not land while the target stayed outside MPI");
    }
  }
#endif
  CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
  win_del(mem, &win);
}

static void shared(void) {
  MPI_Comm node;
  CHECK_MPI(MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node));
  int nr, ns;
  MPI_Comm_rank(node, &nr);
  MPI_Comm_size(node, &ns);
  long *seg;
  MPI_Win win;
  CHECK_MPI(MPI_Win_allocate_shared(8 * sizeof(long), sizeof(long), MPI_INFO_NULL, node, &seg, &win));
  for (int i = 0; i < 8; i++) seg[i] = 0;
  CHECK_MPI(MPI_Barrier(node));
  CHECK_MPI(MPI_Win_lock_all(0, win));
  long me = nr + 10, one = 1;
  for (int t = 0; t < ns; t++) {
    CHECK_MPI(MPI_Put(&me, 1, MPI_LONG, t, 1 + nr % 7, 1, MPI_LONG, win));
    for (int k = 0; k < K / 4; k++) CHECK_MPI(MPI_Accumulate(&one, 1, MPI_LONG, t, 0, 1, MPI_LONG, MPI_SUM, win));
  }
  CHECK_MPI(MPI_Win_unlock_all(win));
  CHECK_MPI(MPI_Barrier(node));
  CHECK_MPI(MPI_Win_lock_all(MPI_MODE_NOCHECK, win));
  CHECK_MPI(MPI_Win_sync(win));
  CHECK_MPI(MPI_Win_unlock_all(win));
  CHECK(seg[0] == (long)(K / 4) * ns, "shared accumulate %ld", seg[0]);
  if (ns <= 7) CHECK(seg[1 + nr % 7] == nr + 10, "shared put %ld", seg[1 + nr % 7]);
  CHECK_MPI(MPI_Win_free(&win));
  MPI_Comm_free(&node);
}

int main(int argc, char **argv) {
  setenv("FTMPI_RMA_CMA", "1", 0); /* ftmpi: single copy to create/dynamic windows is opt-in */
  CHECK_MPI(MPI_Init(&argc, &argv));
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  bases = malloc(sizeof(MPI_Aint) * (size_t)size);
  for (int a = 1; a < argc; a++) {
    if (strcmp(argv[a], "create") == 0) flavor = CREATE;
    if (strcmp(argv[a], "dynamic") == 0) flavor = DYNAMIC;
#ifdef FTMPI
    if (strcmp(argv[a], "mixed") == 0 && rank % 2 == 1) setenv("FTMPI_RMA_DIRECT", "0", 1);
#endif
  }
  for (int round = 0; round < 2; round++) {
    fence_mode();
    exclusive_counter();
    atomics();
    pscw();
    requests();
    flushes();
    shared();
  }
  free(bases);
  CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
  if (rank == 0) printf("PASS rma_direct\n");
  MPI_Finalize();
  return 0;
}
