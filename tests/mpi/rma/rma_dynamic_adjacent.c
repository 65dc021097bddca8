/* rma_dynamic_adjacent: an access to a dynamic window may span attached regions that follow one another in
 * memory (MPICH's rma/win_dynamic_rma_flush_get -count=9216 attaches the two halves of an array of 16384 ints
 * and puts 9216 of them; MPICH 4.0 passes this program, Open MPI 4.1 (osc/rdma) fails its first MPI_Put with
 * MPI_ERR_RMA_RANGE). A range with a gap is still MPI_ERR_RMA_RANGE.
 *
 * >= 1 rank. Every rank attaches its array `mem` (2 * N ints) as two regions, the upper half first (the order
 * of the regions is not the order in memory), and publishes the address. Each rank then, toward its right
 * neighbour and toward itself, in a passive-target epoch: MPI_Put of N + N/8 ints over the join, MPI_Get of
 * them back, MPI_Accumulate (MPI_SUM) and MPI_Get_accumulate over a range starting in the middle of the
 * lower region, then checks the values. Then (ftmpi only; the peers do not promise a range check) a second
 * array attached as [0, K) and [K + 1, 2K) ints: a put over ints K-1..K+1 fails with MPI_ERR_RMA_RANGE (at the
 * call or at the flush), the memory of the target unchanged, while puts inside either part still work.
 * Argument "cma" (ftmpi): same-host targets by process_vm_writev/readv (FTMPI_RMA_CMA=1, src/rma/cma.h), which
 * checks the target's region table at the origin; without it, the target's Service checks (messages). */
#define _POSIX_C_SOURCE 200809L
#include "../common/check.h"

#define N 8192
#define K 1024

static int rank, size;

static void spanning(void) {
  MPI_Win win;
  CHECK_MPI(MPI_Win_create_dynamic(MPI_INFO_NULL, MPI_COMM_WORLD, &win));
  int *mem = calloc(2 * N, sizeof(int));
  CHECK_MPI(MPI_Win_attach(win, mem + N, N * sizeof(int)));
  CHECK_MPI(MPI_Win_attach(win, mem, N * sizeof(int)));
  MPI_Aint addr, *addrs = malloc(sizeof(MPI_Aint) * (size_t)size);
  CHECK_MPI(MPI_Get_address(mem, &addr));
  CHECK_MPI(MPI_Allgather(&addr, 1, MPI_AINT, addrs, 1, MPI_AINT, MPI_COMM_WORLD));
  const int M = N + N / 8;  /* 9216, as MPICH's -count=9216 */
  int *src = malloc(sizeof(int) * 2 * N), *back = malloc(sizeof(int) * 2 * N);
  const int targets[2] = {(rank + 1) % size, rank};
  for (int k = 0; k < 2; k++) {
    const int t = targets[k];
    for (int i = 0; i < M; i++) src[i] = 1000 * rank + i;
    CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
    CHECK_MPI(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, t, 0, win));
    CHECK_MPI(MPI_Put(src, M, MPI_INT, t, addrs[t], M, MPI_INT, win));
    CHECK_MPI(MPI_Win_flush(t, win));
    for (int i = 0; i < M; i++) back[i] = -1;
    CHECK_MPI(MPI_Get(back, M, MPI_INT, t, addrs[t], M, MPI_INT, win));
    CHECK_MPI(MPI_Win_flush(t, win));
    for (int i = 0; i < M; i++) CHECK(back[i] == 1000 * rank + i, "get back[%d] = %d (target %d)", i, back[i], t);
    /* from the middle of the lower region into the upper one */
    const MPI_Aint mid = addrs[t] + (MPI_Aint)(N / 2) * (MPI_Aint)sizeof(int);
    for (int i = 0; i < N; i++) src[i] = 1;
    CHECK_MPI(MPI_Accumulate(src, N, MPI_INT, t, mid, N, MPI_INT, MPI_SUM, win));
    CHECK_MPI(MPI_Win_flush(t, win));
    CHECK_MPI(MPI_Get_accumulate(src, N, MPI_INT, back, N, MPI_INT, t, mid, N, MPI_INT, MPI_SUM, win));
    CHECK_MPI(MPI_Win_unlock(t, win));
    for (int i = 0; i < N; i++) {
      const int j = N / 2 + i; /* index at the target */
      const int want = (j < M ? 1000 * rank + j : 0) + 1;
      CHECK(back[i] == want, "get_accumulate back[%d] = %d, want %d (target %d)", i, back[i], want, t);
    }
    CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
    /* the target's own view: rank r's data put by its left neighbour (k = 0) or itself (k = 1) */
    const int from = k == 0 ? (rank - 1 + size) % size : rank;
    for (int j = 0; j < 2 * N; j++) {
      const int want = (j < M ? 1000 * from + j : 0) + (j >= N / 2 && j < N / 2 + N ? 2 : 0);
      CHECK(mem[j] == want, "mem[%d] = %d, want %d (k %d)", j, mem[j], want, k);
    }
    for (int j = 0; j < 2 * N; j++) mem[j] = 0;
    CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
  }
  CHECK_MPI(MPI_Win_detach(win, mem));
  CHECK_MPI(MPI_Win_detach(win, mem + N));
  CHECK_MPI(MPI_Win_free(&win));
  free(mem);
  free(addrs);
  free(src);
  free(back);
}

#ifdef FTMPI
static void gap(void) {
  MPI_Win win;
  CHECK_MPI(MPI_Win_create_dynamic(MPI_INFO_NULL, MPI_COMM_WORLD, &win));
  CHECK_MPI(MPI_Win_set_errhandler(win, MPI_ERRORS_RETURN));
  int *mem = malloc(sizeof(int) * 2 * K);
  for (int i = 0; i < 2 * K; i++) mem[i] = -7;
  CHECK_MPI(MPI_Win_attach(win, mem, K * sizeof(int)));
  CHECK_MPI(MPI_Win_attach(win, mem + K + 1, (K - 1) * sizeof(int))); /* int K is not attached */
  MPI_Aint addr, *addrs = malloc(sizeof(MPI_Aint) * (size_t)size);
  CHECK_MPI(MPI_Get_address(mem, &addr));
  CHECK_MPI(MPI_Allgather(&addr, 1, MPI_AINT, addrs, 1, MPI_AINT, MPI_COMM_WORLD));
  const int t = (rank + 1) % size, v[3] = {1, 2, 3};
  CHECK_MPI(MPI_Win_lock(MPI_LOCK_SHARED, t, 0, win));
  int rc = MPI_Put(v, 3, MPI_INT, t, addrs[t] + (MPI_Aint)(K - 1) * (MPI_Aint)sizeof(int), 3, MPI_INT, win);
  if (rc == MPI_SUCCESS) rc = MPI_Win_flush(t, win);
  CHECK(check_class_of(rc) == MPI_ERR_RMA_RANGE, "put over the gap: %d (%s)", rc, check_errstr(rc));
  /* either part alone is fine */
  CHECK_MPI(MPI_Put(v, 1, MPI_INT, t, addrs[t] + (MPI_Aint)(K - 1) * (MPI_Aint)sizeof(int), 1, MPI_INT, win));
  CHECK_MPI(MPI_Put(v + 2, 1, MPI_INT, t, addrs[t] + (MPI_Aint)(K + 1) * (MPI_Aint)sizeof(int), 1, MPI_INT, win));
  CHECK_MPI(MPI_Win_unlock(t, win));
  CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
  CHECK(mem[K - 1] == 1 && mem[K] == -7 && mem[K + 1] == 3, "after the gap put: %d %d %d", mem[K - 1], mem[K],
        mem[K + 1]);
  CHECK_MPI(MPI_Win_detach(win, mem));
  CHECK_MPI(MPI_Win_detach(win, mem + K + 1));
  CHECK_MPI(MPI_Win_free(&win));
  free(mem);
  free(addrs);
}
#endif

int main(int argc, char **argv) {
#ifdef FTMPI
  for (int a = 1; a < argc; a++)
    if (strcmp(argv[a], "cma") == 0) setenv("FTMPI_RMA_CMA", "1", 1);
#endif
  CHECK_MPI(MPI_Init(&argc, &argv));
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  for (int round = 0; round < 2; round++) spanning();
#ifdef FTMPI
  gap();
#endif
  CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
  if (rank == 0) printf("PASS rma_dynamic_adjacent\n");
  MPI_Finalize();
  return 0;
}
