/* tests/mpi/rma/rma_acc_contention.c — every rank hammers the same few elements of rank 0's window with
 * accumulate-class operations at once (lock_all, flush now and then), then the totals are checked exactly.
 * Portable MPI; with ftmpi it exercises the accumulate paths of src/rma/acc_apply.h side by side:
 *   slot 0, long:   MPI_Fetch_and_op(MPI_SUM, +1)          -> total exact, the fetched values a permutation
 *   slot 1, int:    MPI_Accumulate(MPI_SUM, +1)            -> total exact
 *   slot 2, double: MPI_Accumulate(MPI_SUM, +1.0)          -> total exact (small integers)
 *   slot 3, long:   MPI_Compare_and_swap increment loop    -> total exact
 *   slot 4, long:   MPI_Get_accumulate(MPI_MAX, k*size+rank) -> the final maximum
 *   slot 5, int:    MPI_Fetch_and_op(MPI_BXOR, 1 << rank)  -> parity of the per-rank counts
 *   byte 49, int:   MPI_Accumulate(MPI_SUM, +1) at an odd (misaligned) address -> total exact
 *   byte 56, short: MPI_Accumulate(MPI_SUM, +1)            -> total exact (mod 2^16)
 *   slots 8-11, int x 4, strided target (every other int): MPI_Accumulate(MPI_SUM, +1 each) -> totals exact
 * The window is MPI_Win_allocate (argument "allocate", default: ftmpi uses hardware atomics on aligned 4/8-byte
 * elements, the accumulate lock for the others), MPI_Win_allocate_shared ("shared"), MPI_Win_create ("create")
 * or MPI_Win_create_dynamic ("dynamic"; ftmpi: process_vm_* under the lock). "mixed" (ftmpi only): odd ranks
 * switch direct access off, so their operations are applied by rank 0's progress engine while the even ranks
 * apply theirs directly — the same elements updated by both paths at once. */
#define _POSIX_C_SOURCE 200809L
#include <stdlib.h>

#include "common/check.h"

enum { ITERS = 300, BYTES = 256 };

static int cmp_long(const void *a, const void *b) {
  long x = *(const long *)a, y = *(const long *)b;
  return x < y ? -1 : x > y;
}

int main(int argc, char **argv) {
  setenv("FTMPI_RMA_CMA", "1", 0); /* ftmpi: single copy to create/dynamic windows is opt-in */
  int rank, size;
  CHECK_MPI(MPI_Init(&argc, &argv));
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const char *flavor = "allocate";
  for (int a = 1; a < argc; a++) {
    if (strcmp(argv[a], "mixed") == 0) {
#ifdef FTMPI
      if (rank % 2 == 1) setenv("FTMPI_RMA_DIRECT", "0", 1);
#endif
    } else {
      flavor = argv[a];
    }
  }
  MPI_Win win;
  char *mem = NULL;
  MPI_Aint base0 = 0; /* rank 0's displacement origin: 0, or its region's address (dynamic) */
  if (strcmp(flavor, "create") == 0) {
    mem = malloc(BYTES);
    CHECK_MPI(MPI_Win_create(mem, BYTES, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &win));
  } else if (strcmp(flavor, "dynamic") == 0) {
    mem = malloc(BYTES);
    CHECK_MPI(MPI_Win_create_dynamic(MPI_INFO_NULL, MPI_COMM_WORLD, &win));
    CHECK_MPI(MPI_Win_attach(win, mem, BYTES));
    CHECK_MPI(MPI_Get_address(mem, &base0));
    CHECK_MPI(MPI_Bcast(&base0, 1, MPI_AINT, 0, MPI_COMM_WORLD));
  } else if (strcmp(flavor, "shared") == 0) {
    CHECK_MPI(MPI_Win_allocate_shared(BYTES, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &mem, &win));
  } else {
    CHECK_MPI(MPI_Win_allocate(BYTES, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &mem, &win));
  }
  memset(mem, 0, BYTES);
  CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
  MPI_Datatype every2;
  CHECK_MPI(MPI_Type_vector(4, 1, 2, MPI_INT, &every2));
  CHECK_MPI(MPI_Type_commit(&every2));

  long fetched[ITERS], one_l = 1;
  int one_i = 1, ones4[4] = {1, 1, 1, 1}, xbit = 1 << rank, xold;
  short one_s = 1;
  double one_d = 1.0;
  CHECK_MPI(MPI_Win_lock_all(0, win));
  for (int k = 0; k < ITERS; k++) {
    CHECK_MPI(MPI_Fetch_and_op(&one_l, &fetched[k], MPI_LONG, 0, base0 + 0, MPI_SUM, win));
    CHECK_MPI(MPI_Accumulate(&one_i, 1, MPI_INT, 0, base0 + 8, 1, MPI_INT, MPI_SUM, win));
    CHECK_MPI(MPI_Accumulate(&one_d, 1, MPI_DOUBLE, 0, base0 + 16, 1, MPI_DOUBLE, MPI_SUM, win));
    long mx = (long)k * size + rank, mold;
    CHECK_MPI(MPI_Get_accumulate(&mx, 1, MPI_LONG, &mold, 1, MPI_LONG, 0, base0 + 32, 1, MPI_LONG, MPI_MAX, win));
    CHECK_MPI(MPI_Fetch_and_op(&xbit, &xold, MPI_INT, 0, base0 + 40, MPI_BXOR, win));
    CHECK_MPI(MPI_Accumulate(&one_i, 1, MPI_INT, 0, base0 + 49, 1, MPI_INT, MPI_SUM, win));
    CHECK_MPI(MPI_Accumulate(&one_s, 1, MPI_SHORT, 0, base0 + 56, 1, MPI_SHORT, MPI_SUM, win));
    CHECK_MPI(MPI_Accumulate(ones4, 4, MPI_INT, 0, base0 + 64, 1, every2, MPI_SUM, win));
    if (k % 4 == 0) { /* CAS increment: retry until our guess was the value */
      long guess = 0, got = -1;
      CHECK_MPI(MPI_Fetch_and_op(NULL, &guess, MPI_LONG, 0, base0 + 24, MPI_NO_OP, win));
      CHECK_MPI(MPI_Win_flush(0, win));
      for (;;) {
        long next = guess + 1;
        CHECK_MPI(MPI_Compare_and_swap(&next, &guess, &got, MPI_LONG, 0, base0 + 24, win));
        CHECK_MPI(MPI_Win_flush(0, win));
        if (got == guess) break;
        guess = got;
      }
    }
    if (k % 64 == 63) CHECK_MPI(MPI_Win_flush(0, win));
  }
  CHECK_MPI(MPI_Win_unlock_all(win));
  for (int k = 1; k < ITERS; k++)
    CHECK(fetched[k] > fetched[k - 1], "fetch_and_op order: %ld then %ld", fetched[k - 1], fetched[k]);
  long *all = rank == 0 ? malloc(sizeof(long) * ITERS * (size_t)size) : NULL;
  CHECK_MPI(MPI_Gather(fetched, ITERS, MPI_LONG, all, ITERS, MPI_LONG, 0, MPI_COMM_WORLD));
  CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
  if (rank == 0) {
    /* own window: read it inside an epoch (the unified model makes the barrier enough for the values) */
    CHECK_MPI(MPI_Win_lock(MPI_LOCK_SHARED, 0, 0, win));
    const long n = (long)ITERS * size;
    long l0, l3, l4;
    int i1, i5, i49, strided[8];
    short s56;
    double d2;
    memcpy(&l0, mem + 0, 8);
    memcpy(&i1, mem + 8, 4);
    memcpy(&d2, mem + 16, 8);
    memcpy(&l3, mem + 24, 8);
    memcpy(&l4, mem + 32, 8);
    memcpy(&i5, mem + 40, 4);
    memcpy(&i49, mem + 49, 4);
    memcpy(&s56, mem + 56, 2);
    memcpy(strided, mem + 64, sizeof strided);
    CHECK_MPI(MPI_Win_unlock(0, win));
    CHECK(l0 == n, "fetch_and_op total %ld want %ld", l0, n);
    CHECK(i1 == n, "int accumulate total %d want %ld", i1, n);
    CHECK(d2 == (double)n, "double accumulate total %g want %ld", d2, n);
    CHECK(l3 == (long)((ITERS + 3) / 4) * size, "CAS increments %ld want %ld", l3, (long)((ITERS + 3) / 4) * size);
    CHECK(l4 == n - 1, "max %ld want %ld", l4, n - 1);
    int want5 = 0;
    if (ITERS % 2) for (int r = 0; r < size; r++) want5 ^= 1 << r;
    CHECK(i5 == want5, "bxor %d want %d", i5, want5);
    CHECK(i49 == n, "misaligned int accumulate %d want %ld", i49, n);
    CHECK(s56 == (short)n, "short accumulate %d want %d", s56, (short)n);
    for (int i = 0; i < 8; i++)
      CHECK(strided[i] == (i % 2 == 0 ? n : 0), "strided accumulate int %d: %d", i, strided[i]);
    qsort(all, (size_t)n, sizeof(long), cmp_long);
    for (long i = 0; i < n; i++) CHECK(all[i] == i, "fetched values not a permutation at %ld: %ld", i, all[i]);
    free(all);
  }
  CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
  MPI_Type_free(&every2);
  if (strcmp(flavor, "dynamic") == 0) CHECK_MPI(MPI_Win_detach(win, mem));
  CHECK_MPI(MPI_Win_free(&win));
  if (strcmp(flavor, "create") == 0 || strcmp(flavor, "dynamic") == 0) free(mem);
  if (rank == 0) printf("PASS rma_acc_contention %s\n", flavor);
  MPI_Finalize();
  return 0;
}
