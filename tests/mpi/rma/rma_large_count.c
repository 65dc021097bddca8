/* rma_large_count [big] — the MPI-4.0 large-count (_c) one-sided functions. 2+ ranks.
 *
 * PASS when (any MPI-4.0 library; an older one prints SKIP):
 *  - Win_allocate_c / Win_create_c / Win_allocate_shared_c make windows whose MPI_WIN_DISP_UNIT / MPI_WIN_SIZE
 *    are the MPI_Aint arguments; Win_shared_query_c gives every rank's size and unit (MPI_Aint);
 *  - in a fence epoch toward the right neighbour: Put_c, Get_c, Accumulate_c (MPI_SUM), Get_accumulate_c
 *    (MPI_SUM, old values back) give the values of a hand-computed reference; also with a vector target type;
 *  - in a lock_all epoch: Rput_c, Rget_c, Raccumulate_c, Rget_accumulate_c (request completion, then flush)
 *    likewise;
 *  - bad input (ftmpi only; peers differ): negative origin / target / result counts -> MPI_ERR_COUNT, a zero
 *    displacement unit -> MPI_ERR_DISP, a unit beyond INT_MAX -> MPI_ERR_DISP (ftmpi windows keep an int
 *    unit: refused, never truncated), a Put_c of 2^32 + 4 bytes into a 64-byte window -> MPI_ERR_RMA_RANGE
 *    (a count truncated to 32 bits would have put 4 bytes and succeeded).
 * With the argument "big" (RUN_SERIAL, ~4.3 GB): rank 1 exposes a 2^31 + 5 byte window (Win_allocate_c);
 * rank 0 Put_c's 2^31 + 5 MPI_BYTEs into it (lock/unlock), rank 1 checks them; rank 0 then clears its
 * buffer and Get_c's them back (a count beyond INT_MAX both ways, no derived type). */
#include <limits.h>

#include "common/check.h"

#ifdef FTMPI
#define EXPECT(call, cls) CHECK_CLASS(call, cls)
#else
#define EXPECT(call, cls) do { (void)(call); } while (0)
#endif

static int rank, size;

#if MPI_VERSION >= 4 || defined(FTMPI) /* ftmpi declares MPI-3.1 but has the _c functions */

enum { N = 16 };

static void fence_ops(void) {
  int *mem = NULL;
  MPI_Win win;
  const int right = (rank + 1) % size, left = (rank + size - 1) % size;
  CHECK_MPI(MPI_Win_allocate_c((MPI_Aint)(4 * N * sizeof(int)), (MPI_Aint)sizeof(int), MPI_INFO_NULL,
                               MPI_COMM_WORLD, &mem, &win));
  int flag = 0;
  int *unit = NULL; /* the attribute is an int (MPI-4.0 §12.2.6) */
  MPI_Aint *wsize = NULL;
  CHECK_MPI(MPI_Win_get_attr(win, MPI_WIN_DISP_UNIT, &unit, &flag));
  CHECK(flag && *unit == (int)sizeof(int), "disp unit");
  CHECK_MPI(MPI_Win_get_attr(win, MPI_WIN_SIZE, &wsize, &flag));
  CHECK(flag && *wsize == (MPI_Aint)(4 * N * sizeof(int)), "size");
  for (int i = 0; i < 4 * N; i++) mem[i] = rank * 1000 + i;
  int src[N], got[N], old[N];
  for (int i = 0; i < N; i++) src[i] = rank * 100 + i, got[i] = old[i] = -1;
  CHECK_MPI(MPI_Win_fence(0, win));
  /* [0,N): Put_c; [N,2N): Accumulate_c; [2N,3N): Get_accumulate_c; [3N,4N): Get_c */
  CHECK_MPI(MPI_Put_c(src, (MPI_Count)N, MPI_INT, right, 0, (MPI_Count)N, MPI_INT, win));
  CHECK_MPI(MPI_Accumulate_c(src, (MPI_Count)N, MPI_INT, right, N, (MPI_Count)N, MPI_INT, MPI_SUM, win));
  CHECK_MPI(MPI_Get_accumulate_c(src, (MPI_Count)N, MPI_INT, old, (MPI_Count)N, MPI_INT, right, 2 * N,
                                 (MPI_Count)N, MPI_INT, MPI_SUM, win));
  CHECK_MPI(MPI_Get_c(got, (MPI_Count)N, MPI_INT, right, 3 * N, (MPI_Count)N, MPI_INT, win));
  CHECK_MPI(MPI_Win_fence(0, win));
  for (int i = 0; i < N; i++) {
    CHECK(mem[i] == left * 100 + i, "Put_c [%d] = %d", i, mem[i]);
    CHECK(mem[N + i] == rank * 1000 + N + i + left * 100 + i, "Accumulate_c [%d] = %d", i, mem[N + i]);
    CHECK(mem[2 * N + i] == rank * 1000 + 2 * N + i + left * 100 + i, "Get_accumulate_c [%d]", i);
    CHECK(old[i] == right * 1000 + 2 * N + i, "Get_accumulate_c old [%d] = %d", i, old[i]);
    CHECK(got[i] == right * 1000 + 3 * N + i, "Get_c [%d] = %d", i, got[i]);
  }
  /* a vector target type: every other int of [0,N) gets src, counted in MPI_Count */
  MPI_Datatype every_other;
  CHECK_MPI(MPI_Type_vector(N / 2, 1, 2, MPI_INT, &every_other));
  CHECK_MPI(MPI_Type_commit(&every_other));
  for (int i = 0; i < N; i++) mem[i] = -7;
  CHECK_MPI(MPI_Win_fence(0, win));
  CHECK_MPI(MPI_Put_c(src, (MPI_Count)(N / 2), MPI_INT, right, 0, (MPI_Count)1, every_other, win));
  CHECK_MPI(MPI_Win_fence(0, win));
  for (int i = 0; i < N; i++) CHECK(mem[i] == (i % 2 == 0 ? left * 100 + i / 2 : -7), "vector Put_c [%d]", i);
  CHECK_MPI(MPI_Type_free(&every_other));
  CHECK_MPI(MPI_Win_fence(0, win));
  CHECK_MPI(MPI_Win_free(&win));
}

static void request_ops(void) {
  long long mem[4 * N];
  MPI_Win win;
  const int right = (rank + 1) % size, left = (rank + size - 1) % size;
  for (int i = 0; i < 4 * N; i++) mem[i] = rank * 1000 + i;
  CHECK_MPI(MPI_Win_create_c(mem, (MPI_Aint)sizeof mem, (MPI_Aint)sizeof(long long), MPI_INFO_NULL,
                             MPI_COMM_WORLD, &win));
  int flag = 0;
  int *unit = NULL;
  CHECK_MPI(MPI_Win_get_attr(win, MPI_WIN_DISP_UNIT, &unit, &flag));
  CHECK(flag && *unit == (int)sizeof(long long), "disp unit");
  long long src[N], got[N], old[N];
  for (int i = 0; i < N; i++) src[i] = rank * 100 + i, got[i] = old[i] = -1;
  CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
  CHECK_MPI(MPI_Win_lock_all(0, win));
  MPI_Request r[4];
  CHECK_MPI(MPI_Rput_c(src, (MPI_Count)N, MPI_LONG_LONG, right, 0, (MPI_Count)N, MPI_LONG_LONG, win, &r[0]));
  CHECK_MPI(MPI_Raccumulate_c(src, (MPI_Count)N, MPI_LONG_LONG, right, N, (MPI_Count)N, MPI_LONG_LONG, MPI_SUM,
                              win, &r[1]));
  CHECK_MPI(MPI_Rget_accumulate_c(src, (MPI_Count)N, MPI_LONG_LONG, old, (MPI_Count)N, MPI_LONG_LONG, right,
                                  2 * N, (MPI_Count)N, MPI_LONG_LONG, MPI_SUM, win, &r[2]));
  CHECK_MPI(MPI_Rget_c(got, (MPI_Count)N, MPI_LONG_LONG, right, 3 * N, (MPI_Count)N, MPI_LONG_LONG, win, &r[3]));
  CHECK_MPI(MPI_Waitall(4, r, MPI_STATUSES_IGNORE));
  for (int i = 0; i < N; i++) {
    CHECK(old[i] == right * 1000 + 2 * N + i, "Rget_accumulate_c old [%d] = %lld", i, old[i]);
    CHECK(got[i] == right * 1000 + 3 * N + i, "Rget_c [%d] = %lld", i, got[i]);
  }
  CHECK_MPI(MPI_Win_flush_all(win));
  CHECK_MPI(MPI_Win_unlock_all(win));
  CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
  CHECK_MPI(MPI_Win_lock(MPI_LOCK_SHARED, rank, 0, win)); /* a local access epoch before reading the memory */
  for (int i = 0; i < N; i++) {
    CHECK(mem[i] == left * 100 + i, "Rput_c [%d] = %lld", i, mem[i]);
    CHECK(mem[N + i] == rank * 1000 + N + i + left * 100 + i, "Raccumulate_c [%d]", i);
    CHECK(mem[2 * N + i] == rank * 1000 + 2 * N + i + left * 100 + i, "Rget_accumulate_c [%d]", i);
  }
  CHECK_MPI(MPI_Win_unlock(rank, win));
  CHECK_MPI(MPI_Win_free(&win));
}

static void shared(void) {
  MPI_Comm node;
  CHECK_MPI(MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node));
  int nrank, nsize;
  MPI_Comm_rank(node, &nrank);
  MPI_Comm_size(node, &nsize);
  double *mine = NULL;
  MPI_Win win;
  const MPI_Aint bytes = (MPI_Aint)((nrank + 1) * 4 * sizeof(double));
  CHECK_MPI(MPI_Win_allocate_shared_c(bytes, (MPI_Aint)sizeof(double), MPI_INFO_NULL, node, &mine, &win));
  CHECK_MPI(MPI_Win_lock_all(0, win));
  for (int i = 0; i < (nrank + 1) * 4; i++) mine[i] = nrank + i * 0.25;
  CHECK_MPI(MPI_Win_sync(win));
  CHECK_MPI(MPI_Barrier(node));
  CHECK_MPI(MPI_Win_sync(win));
  for (int r = 0; r < nsize; r++) {
    MPI_Aint sz = -1, unit = -1;
    double *p = NULL;
    CHECK_MPI(MPI_Win_shared_query_c(win, r, &sz, &unit, &p));
    CHECK(sz == (MPI_Aint)((r + 1) * 4 * sizeof(double)), "Win_shared_query_c size %ld", (long)sz);
    CHECK(unit == (MPI_Aint)sizeof(double), "Win_shared_query_c unit %ld", (long)unit);
    for (int i = 0; i < (r + 1) * 4; i++) CHECK(p[i] == r + i * 0.25, "shared [%d][%d]", r, i);
  }
  CHECK_MPI(MPI_Win_unlock_all(win));
  CHECK_MPI(MPI_Win_free(&win));
  CHECK_MPI(MPI_Comm_free(&node));
}

static void bad(void) {
  int mem[16] = {0}, v[4] = {0};
  MPI_Win win;
  const int right = (rank + 1) % size;
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  EXPECT(MPI_Win_create_c(mem, (MPI_Aint)sizeof mem, 0, MPI_INFO_NULL, MPI_COMM_WORLD, &win), MPI_ERR_DISP);
  EXPECT(MPI_Win_create_c(mem, (MPI_Aint)sizeof mem, -4, MPI_INFO_NULL, MPI_COMM_WORLD, &win), MPI_ERR_DISP);
#ifdef FTMPI /* MPI allows a unit beyond INT_MAX; ftmpi windows keep an int unit and refuse it */
  int *p = NULL;
  EXPECT(MPI_Win_allocate_c(64, (MPI_Aint)INT_MAX + 1, MPI_INFO_NULL, MPI_COMM_WORLD, &p, &win), MPI_ERR_DISP);
  EXPECT(MPI_Win_allocate_shared_c(64, (MPI_Aint)1 << 40, MPI_INFO_NULL, MPI_COMM_WORLD, &p, &win), MPI_ERR_DISP);
#endif
  CHECK_MPI(MPI_Win_create_c(mem, (MPI_Aint)sizeof mem, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &win));
  CHECK_MPI(MPI_Win_set_errhandler(win, MPI_ERRORS_RETURN));
  CHECK_MPI(MPI_Win_fence(0, win));
  MPI_Request r;
  EXPECT(MPI_Put_c(v, -1, MPI_INT, right, 0, 1, MPI_INT, win), MPI_ERR_COUNT);
  EXPECT(MPI_Put_c(v, 1, MPI_INT, right, 0, -1, MPI_INT, win), MPI_ERR_COUNT);
  EXPECT(MPI_Get_c(v, (MPI_Count)-5, MPI_INT, right, 0, 1, MPI_INT, win), MPI_ERR_COUNT);
  EXPECT(MPI_Accumulate_c(v, 1, MPI_INT, right, 0, (MPI_Count)-1, MPI_INT, MPI_SUM, win), MPI_ERR_COUNT);
  EXPECT(MPI_Get_accumulate_c(v, 1, MPI_INT, v, -1, MPI_INT, right, 0, 1, MPI_INT, MPI_SUM, win), MPI_ERR_COUNT);
#ifdef FTMPI /* peers may read the 4 GiB origin buffer before looking at the target range */
  EXPECT(MPI_Put_c(v, ((MPI_Count)1 << 32) + 4, MPI_BYTE, right, 0, ((MPI_Count)1 << 32) + 4, MPI_BYTE, win),
         MPI_ERR_RMA_RANGE);
  EXPECT(MPI_Get_c(v, ((MPI_Count)1 << 32) + 4, MPI_BYTE, right, 0, ((MPI_Count)1 << 32) + 4, MPI_BYTE, win),
         MPI_ERR_RMA_RANGE);
#endif
  CHECK_MPI(MPI_Win_fence(0, win));
  CHECK_MPI(MPI_Win_lock_all(0, win));
  EXPECT(MPI_Rput_c(v, -1, MPI_INT, right, 0, 1, MPI_INT, win, &r), MPI_ERR_COUNT);
  EXPECT(MPI_Rget_c(v, 1, MPI_INT, right, 0, -1, MPI_INT, win, &r), MPI_ERR_COUNT);
  EXPECT(MPI_Raccumulate_c(v, -1, MPI_INT, right, 0, 1, MPI_INT, MPI_SUM, win, &r), MPI_ERR_COUNT);
  EXPECT(MPI_Rget_accumulate_c(v, 1, MPI_INT, v, 1, MPI_INT, right, 0, -2, MPI_INT, MPI_SUM, win, &r),
         MPI_ERR_COUNT);
  CHECK_MPI(MPI_Win_unlock_all(win));
  CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
  for (int i = 0; i < 16; i++) CHECK(mem[i] == 0, "an erroneous call changed the window [%d] = %d", i, mem[i]);
  CHECK_MPI(MPI_Win_free(&win));
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
}

static void big(void) {
  const MPI_Count n = (MPI_Count)INT32_MAX + 6; /* 2^31 + 5 bytes */
  unsigned char *buf = NULL, *mem = NULL;
  int ok = 1, all = 0;
  if (rank == 0) ok = (buf = malloc((size_t)n)) != NULL;
  MPI_Allreduce(&ok, &all, 1, MPI_INT, MPI_LAND, MPI_COMM_WORLD);
  if (!all) {
    if (rank == 0) printf("SKIP big: no memory for %lld bytes\n", (long long)n);
    free(buf);
    return;
  }
  MPI_Win win;
  CHECK_MPI(MPI_Win_allocate_c(rank == 1 ? (MPI_Aint)n : 0, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &mem, &win));
  if (rank == 1) {
    memset(mem, 0, (size_t)n);
  } else if (rank == 0) {
    for (MPI_Count i = 0; i < n; i += 4096) buf[i] = (unsigned char)(i / 4096 + 1);
    buf[n - 1] = 0xAB;
  }
  CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
  if (rank == 0) {
    CHECK_MPI(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 1, 0, win));
    CHECK_MPI(MPI_Put_c(buf, n, MPI_BYTE, 1, 0, n, MPI_BYTE, win));
    CHECK_MPI(MPI_Win_unlock(1, win));
  }
  CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
  if (rank == 1) {
    CHECK_MPI(MPI_Win_lock(MPI_LOCK_SHARED, 1, 0, win));
    for (MPI_Count i = 0; i < n; i += 4096)
      CHECK(mem[i] == (unsigned char)(i / 4096 + 1), "Put_c byte %lld = %d", (long long)i, mem[i]);
    CHECK(mem[n - 1] == 0xAB, "Put_c last byte");
    mem[n / 2] = 0x22;
    CHECK_MPI(MPI_Win_unlock(1, win));
  }
  CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
  if (rank == 0) {
    memset(buf, 0, (size_t)n);
    CHECK_MPI(MPI_Win_lock(MPI_LOCK_SHARED, 1, 0, win));
    CHECK_MPI(MPI_Get_c(buf, n, MPI_BYTE, 1, 0, n, MPI_BYTE, win));
    CHECK_MPI(MPI_Win_unlock(1, win));
    for (MPI_Count i = 0; i < n; i += 4096) /* n / 2 is not a multiple of 4096 */
      CHECK(buf[i] == (unsigned char)(i / 4096 + 1), "Get_c byte %lld = %d", (long long)i, buf[i]);
    CHECK(buf[n / 2] == 0x22 && buf[n - 1] == 0xAB, "Get_c beyond INT_MAX");
  }
  CHECK_MPI(MPI_Win_free(&win));
  free(buf);
}

#endif /* MPI_VERSION >= 4 || FTMPI */

int main(int argc, char **argv) {
  CHECK_MPI(MPI_Init(&argc, &argv));
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  CHECK(size >= 2, "needs 2 ranks");
#if MPI_VERSION >= 4 || defined(FTMPI) /* ftmpi declares MPI-3.1 but has the _c functions */
  if (argc > 1 && strcmp(argv[1], "big") == 0) {
    big();
  } else {
    fence_ops();
    request_ops();
    shared();
    bad();
  }
#else
  (void)argv;
  if (rank == 0) printf("SKIP rma_large_count: MPI-%d.%d has no large-count (_c) functions\n", MPI_VERSION,
                        MPI_SUBVERSION);
#endif
  MPI_Barrier(MPI_COMM_WORLD);
  if (rank == 0) printf("PASS rma_large_count\n");
  MPI_Finalize();
  return 0;
}
