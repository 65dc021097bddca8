/* Bad arguments that MPICH's errors/ directory found accepted (ftmpi then computed on them):
 * - MPI_Reduce_local with inbuf == inoutbuf (aliased arguments, MPI-4.0 §2.3): MPI_ERR_BUFFER, the buffer
 *   unchanged (MPICH errors/coll/reduce_local);
 * - MPI_Compare_and_swap with a floating-point or derived type (MPI-4.0 §12.3.4 allows C/Fortran integer,
 *   logical, byte and multi-language types): MPI_ERR_TYPE, the target unchanged; the integer types still
 *   work (MPICH errors/rma/cas_type_check).
 * PASS: every call returns the expected class. */
#include <mpi.h>
#include <stdio.h>

static int fails = 0;
#define CHECK(c, ...) do { if (!(c)) { printf("FAIL: " __VA_ARGS__); printf("\n"); fails++; } } while (0)

static int err_class(int rc) {
  int cls = MPI_SUCCESS;
  MPI_Error_class(rc, &cls);
  return cls;
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);

  int a[4] = {1, 2, 3, 4}, b[4] = {10, 20, 30, 40};
  CHECK(MPI_Reduce_local(a, b, 4, MPI_INT, MPI_SUM) == MPI_SUCCESS && b[3] == 44, "valid MPI_Reduce_local");
  CHECK(err_class(MPI_Reduce_local(b, b, 4, MPI_INT, MPI_SUM)) == MPI_ERR_BUFFER, "aliased MPI_Reduce_local");
  CHECK(b[0] == 11 && b[3] == 44, "aliased MPI_Reduce_local changed the buffer");
  CHECK(MPI_Reduce_local(b, b, 0, MPI_INT, MPI_SUM) == MPI_SUCCESS, "aliased MPI_Reduce_local of 0 elements");
  CHECK(err_class(MPI_Reduce_local(MPI_IN_PLACE, b, 4, MPI_INT, MPI_SUM)) == MPI_ERR_BUFFER,
        "MPI_Reduce_local with MPI_IN_PLACE");

  long long mem[2] = {0, 0};
  MPI_Win win;
  MPI_Win_create(mem, sizeof mem, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &win);
  MPI_Win_set_errhandler(win, MPI_ERRORS_RETURN);
  MPI_Datatype four;
  MPI_Type_contiguous(4, MPI_BYTE, &four);
  MPI_Type_commit(&four);
  const int target = (rank + 1) % size;
  MPI_Win_fence(0, win);
  double d = 1.5, dc = 0.0, dr = -1.0;
  float f = 1.5f, fc = 0.0f, fr = -1.0f;
  int i = 7, ic = 0, ir = -1;
  CHECK(err_class(MPI_Compare_and_swap(&d, &dc, &dr, MPI_DOUBLE, target, 0, win)) == MPI_ERR_TYPE,
        "MPI_Compare_and_swap on MPI_DOUBLE");
  CHECK(err_class(MPI_Compare_and_swap(&f, &fc, &fr, MPI_FLOAT, target, 0, win)) == MPI_ERR_TYPE,
        "MPI_Compare_and_swap on MPI_FLOAT");
  CHECK(err_class(MPI_Compare_and_swap(&i, &ic, &ir, four, target, 0, win)) == MPI_ERR_TYPE,
        "MPI_Compare_and_swap on a derived type");
  CHECK(dr == -1.0 && fr == -1.0f && ir == -1, "a refused MPI_Compare_and_swap wrote its result buffer");
  CHECK(MPI_Compare_and_swap(&i, &ic, &ir, MPI_INT, target, 8, win) == MPI_SUCCESS, "MPI_Compare_and_swap on MPI_INT");
  long long l = 9, lc = 0, lr = -1;
  CHECK(MPI_Compare_and_swap(&l, &lc, &lr, MPI_LONG_LONG, target, 0, win) == MPI_SUCCESS,
        "MPI_Compare_and_swap on MPI_LONG_LONG");
  MPI_Win_fence(0, win);
  CHECK(mem[0] == 9, "MPI_Compare_and_swap on MPI_LONG_LONG did not swap (%lld)", mem[0]);
  CHECK(ir == 0 && lr == 0, "MPI_Compare_and_swap results %d %lld", ir, lr);
  MPI_Type_free(&four);
  MPI_Win_free(&win);

  int all = 0;
  MPI_Reduce(&fails, &all, 1, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD);
  if (rank == 0) printf(all ? "FAIL: %d problems\n" : "PASS\n", all);
  MPI_Finalize();
  return all != 0;
}
