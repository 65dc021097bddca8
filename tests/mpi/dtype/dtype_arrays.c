/* dtype_arrays: subarray and darray datatypes in communication, and MPI_Get_elements on partial receives.
 *
 * Covers (1 to 4 ranks; every expected value comes from plain loops over the global array, never from MPI):
 *  - MPI_Type_create_subarray, C order (2-D) and Fortran order (3-D): each rank sends a box of its array to
 *    the next rank, which receives it with the same type into a full array (box = sender's values, the rest
 *    untouched) and with a contiguous buffer (values in storage order).
 *  - MPI_Bcast of a subarray from rank 0.
 *  - MPI_Type_create_darray on a 2-D grid from MPI_Dims_create, four distributions (cyclic with darg, block
 *    default, cyclic default, block with darg, none) in both orders: rank 0 scatters each rank's part with
 *    point-to-point sends of the darray type, and gathers the parts back with MPI_Alltoallw whose receive
 *    types are the darray types; the parts must partition the array and rebuild it exactly.
 *  - MPI_Get_elements / MPI_Get_elements_x / MPI_Get_count after receives shorter than the type: a vector of
 *    ints and a struct mixing int, double and char (partial elements count the basic values they hold).
 * PASS: every check holds and rank 0 prints PASS. */
#include <stddef.h>

#include "common/check.h"

static int rank, size;

/* Global value of a linear index: distinct, exactly representable. */
static double value_at(long i) { return 1000.0 + (double)i; }

/* ---- subarrays ---------------------------------------------------------------------------------------- */

/* The box rank `who` sends in subarray_c_2d (subs and starts of a 6 x 7 array). */
static void box_of(int who, int subs[2], int starts[2]) {
  subs[0] = 2 + who % 3, subs[1] = 3 + who % 2;
  starts[0] = who % (6 - subs[0] + 1), starts[1] = (2 * who) % (7 - subs[1] + 1);
}

static void subarray_c_2d(void) {
  enum { R = 6, C = 7 };
  const int sizes[2] = {R, C};
  const int from = (rank - 1 + size) % size, to = (rank + 1) % size;
  int subs[2][2], starts[2][2]; /* [0]: the box I send, [1]: the box I receive (the sender's) */
  MPI_Datatype t[2];
  box_of(rank, subs[0], starts[0]);
  box_of(from, subs[1], starts[1]);
  for (int k = 0; k < 2; k++) {
    CHECK_MPI(MPI_Type_create_subarray(2, sizes, subs[k], starts[k], MPI_ORDER_C, MPI_DOUBLE, &t[k]));
    CHECK_MPI(MPI_Type_commit(&t[k]));
    MPI_Aint lb, extent;
    CHECK_MPI(MPI_Type_get_extent(t[k], &lb, &extent));
    CHECK(lb == 0 && extent == (MPI_Aint)(R * C * sizeof(double)), "subarray bounds %ld %ld", (long)lb, (long)extent);
    int tsize;
    CHECK_MPI(MPI_Type_size(t[k], &tsize));
    CHECK(tsize == (int)(subs[k][0] * subs[k][1] * sizeof(double)), "subarray size %d", tsize);
  }
  double mine[R][C], got[R][C], flat[R * C];
  for (int i = 0; i < R; i++)
    for (int j = 0; j < C; j++) mine[i][j] = value_at(i * C + j) + 100000.0 * rank, got[i][j] = -1.0;
  /* receives first: the box into a full array with the same type, and into a contiguous buffer */
  MPI_Request reqs[4];
  MPI_Status st[4];
  CHECK_MPI(MPI_Irecv(&got[0][0], 1, t[1], from, 1, MPI_COMM_WORLD, &reqs[0]));
  CHECK_MPI(MPI_Irecv(flat, R * C, MPI_DOUBLE, from, 2, MPI_COMM_WORLD, &reqs[1]));
  CHECK_MPI(MPI_Isend(&mine[0][0], 1, t[0], to, 1, MPI_COMM_WORLD, &reqs[2]));
  CHECK_MPI(MPI_Isend(&mine[0][0], 1, t[0], to, 2, MPI_COMM_WORLD, &reqs[3]));
  CHECK_MPI(MPI_Waitall(4, reqs, st));
  const int *sb = subs[1], *sa = starts[1];
  int n = 0;
  for (int i = 0; i < R; i++)
    for (int j = 0; j < C; j++) {
      const int in = i >= sa[0] && i < sa[0] + sb[0] && j >= sa[1] && j < sa[1] + sb[1];
      const double want = in ? value_at(i * C + j) + 100000.0 * from : -1.0;
      CHECK(got[i][j] == want, "subarray C: [%d][%d] = %g, want %g", i, j, got[i][j], want);
      n += in;
    }
  int count;
  CHECK_MPI(MPI_Get_count(&st[1], MPI_DOUBLE, &count));
  CHECK(count == n, "subarray C into contiguous: %d doubles, want %d", count, n);
  int k = 0;
  for (int i = sa[0]; i < sa[0] + sb[0]; i++)
    for (int j = sa[1]; j < sa[1] + sb[1]; j++, k++)
      CHECK(flat[k] == value_at(i * C + j) + 100000.0 * from, "subarray C flat[%d] = %g", k, flat[k]);
  CHECK_MPI(MPI_Type_free(&t[0]));
  CHECK_MPI(MPI_Type_free(&t[1]));
}

static void subarray_fortran_3d(void) {
  /* Fortran order: index (i, j, k) of sizes (4, 3, 5) sits at i + 4 * (j + 3 * k) */
  enum { A = 4, B = 3, K = 5, N = A * B * K };
  const int sizes[3] = {A, B, K}, subs[3] = {2, 2, 3}, starts[3] = {1, 0, 2};
  MPI_Datatype t;
  CHECK_MPI(MPI_Type_create_subarray(3, sizes, subs, starts, MPI_ORDER_FORTRAN, MPI_INT, &t));
  CHECK_MPI(MPI_Type_commit(&t));
  int mine[N], got[N], flat[N];
  for (int x = 0; x < N; x++) mine[x] = x * 3 + rank, got[x] = -7;
  const int from = (rank - 1 + size) % size, to = (rank + 1) % size;
  CHECK_MPI(MPI_Sendrecv(mine, 1, t, to, 3, got, 1, t, from, 3, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
  CHECK_MPI(MPI_Sendrecv(mine, 1, t, to, 4, flat, N, MPI_INT, from, 4, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
  int f = 0;
  for (int k = 0; k < K; k++)
    for (int j = 0; j < B; j++)
      for (int i = 0; i < A; i++) {
        const int x = i + A * (j + B * k);
        const int in = i >= starts[0] && i < starts[0] + subs[0] && j >= starts[1] && j < starts[1] + subs[1] &&
                       k >= starts[2] && k < starts[2] + subs[2];
        CHECK(got[x] == (in ? x * 3 + from : -7), "subarray Fortran: element %d = %d", x, got[x]);
        if (in) {
          CHECK(flat[f] == x * 3 + from, "subarray Fortran flat[%d] = %d, want %d", f, flat[f], x * 3 + from);
          f++;
        }
      }
  CHECK(f == 12, "Fortran box has %d elements", f);

  /* a collective: rank 0's box to everyone */
  for (int x = 0; x < N; x++) got[x] = rank == 0 ? mine[x] : -7;
  CHECK_MPI(MPI_Bcast(got, 1, t, 0, MPI_COMM_WORLD));
  for (int k = 0; k < K; k++)
    for (int j = 0; j < B; j++)
      for (int i = 0; i < A; i++) {
        const int x = i + A * (j + B * k);
        const int in = i >= 1 && i < 3 && j < 2 && k >= 2;
        CHECK(got[x] == (in || rank == 0 ? x * 3 : -7), "bcast subarray: element %d = %d", x, got[x]);
      }
  CHECK_MPI(MPI_Type_free(&t));
}

/* ---- darrays -------------------------------------------------------------------------------------------- */

enum { G0 = 9, G1 = 10, GN = G0 * G1 };

/* Grid coordinate owning index i of a dimension (the distribution, written out independently). */
static int owner(int distrib, int darg, int gsize, int psize, int i) {
  if (distrib == MPI_DISTRIBUTE_NONE) return 0;
  if (distrib == MPI_DISTRIBUTE_BLOCK) {
    const int b = darg == MPI_DISTRIBUTE_DFLT_DARG ? (gsize + psize - 1) / psize : darg;
    return i / b;
  }
  return (i / (darg == MPI_DISTRIBUTE_DFLT_DARG ? 1 : darg)) % psize;
}

/* Linear storage index of (i0, i1) in the G0 x G1 array. */
static int lin(int i0, int i1, int order) { return order == MPI_ORDER_C ? i0 * G1 + i1 : i0 + G0 * i1; }

/* The storage indices rank r owns, in storage order; returns how many. */
static int owned(int r, const int psizes[2], const int distribs[2], const int dargs[2], int order, int *out) {
  const int c0 = r / psizes[1], c1 = r % psizes[1]; /* row-major process grid */
  const int gs[2] = {G0, G1};
  int n = 0;
  for (int x = 0; x < GN; x++) {
    const int i0 = order == MPI_ORDER_C ? x / G1 : x % G0;
    const int i1 = order == MPI_ORDER_C ? x % G1 : x / G0;
    if (owner(distribs[0], dargs[0], gs[0], psizes[0], i0) == c0 &&
        owner(distribs[1], dargs[1], gs[1], psizes[1], i1) == c1)
      out[n++] = lin(i0, i1, order);
  }
  return n;
}

static void darray_case(const int distribs[2], const int dargs[2], const int psizes[2], int order) {
  const int gsizes[2] = {G0, G1};
  MPI_Datatype *types = malloc(sizeof(MPI_Datatype) * (size_t)size);
  for (int r = 0; r < size; r++) {
    CHECK_MPI(MPI_Type_create_darray(size, r, 2, gsizes, distribs, dargs, psizes, order, MPI_DOUBLE, &types[r]));
    CHECK_MPI(MPI_Type_commit(&types[r]));
  }
  int want[GN];
  const int n = owned(rank, psizes, distribs, dargs, order, want);
  int tsize;
  CHECK_MPI(MPI_Type_size(types[rank], &tsize));
  CHECK(tsize == n * (int)sizeof(double), "darray size %d, want %d doubles", tsize, n);
  MPI_Aint lb, extent;
  CHECK_MPI(MPI_Type_get_extent(types[rank], &lb, &extent));
  CHECK(lb == 0 && extent == (MPI_Aint)(GN * sizeof(double)), "darray bounds");

  /* scatter with point-to-point: rank 0 sends each rank its part of the global array */
  double global[GN], part[GN], rebuilt[GN];
  for (int x = 0; x < GN; x++) global[x] = value_at(x);
  MPI_Request req = MPI_REQUEST_NULL;
  CHECK_MPI(MPI_Irecv(part, GN, MPI_DOUBLE, 0, 5, MPI_COMM_WORLD, &req));
  if (rank == 0)
    for (int r = 0; r < size; r++) CHECK_MPI(MPI_Send(global, 1, types[r], r, 5, MPI_COMM_WORLD));
  MPI_Status st;
  CHECK_MPI(MPI_Wait(&req, &st));
  int count;
  CHECK_MPI(MPI_Get_count(&st, MPI_DOUBLE, &count));
  CHECK(count == n, "darray part: %d doubles, want %d", count, n);
  for (int k = 0; k < n; k++) CHECK(part[k] == value_at(want[k]), "darray part[%d] = %g", k, part[k]);

  /* gather through a collective: Alltoallw whose receive types at rank 0 are the darray types */
  int *scounts = calloc((size_t)size, sizeof(int)), *rcounts = calloc((size_t)size, sizeof(int));
  int *zeros = calloc((size_t)size, sizeof(int));
  MPI_Datatype *stypes = malloc(sizeof(MPI_Datatype) * (size_t)size);
  for (int r = 0; r < size; r++) stypes[r] = MPI_DOUBLE;
  scounts[0] = n;
  if (rank == 0)
    for (int r = 0; r < size; r++) rcounts[r] = 1;
  for (int x = 0; x < GN; x++) rebuilt[x] = -1.0;
  CHECK_MPI(MPI_Alltoallw(part, scounts, zeros, stypes, rebuilt, rcounts, zeros, types, MPI_COMM_WORLD));
  if (rank == 0)
    for (int x = 0; x < GN; x++) CHECK(rebuilt[x] == value_at(x), "darray gather: element %d = %g", x, rebuilt[x]);

  /* the parts partition the array: sizes add up to the whole */
  int total = 0;
  CHECK_MPI(MPI_Allreduce(&n, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
  CHECK(total == GN, "darray parts hold %d elements, want %d", total, GN);
  for (int r = 0; r < size; r++) CHECK_MPI(MPI_Type_free(&types[r]));
  free(types), free(scounts), free(rcounts), free(zeros), free(stypes);
}

static void darrays(void) {
  int psizes[2] = {0, 0};
  CHECK_MPI(MPI_Dims_create(size, 2, psizes));
  const int D = MPI_DISTRIBUTE_DFLT_DARG;
  const int cases[5][4] = {
      /* distrib0, darg0, distrib1, darg1 */
      {MPI_DISTRIBUTE_CYCLIC, 2, MPI_DISTRIBUTE_BLOCK, D},
      {MPI_DISTRIBUTE_BLOCK, D, MPI_DISTRIBUTE_CYCLIC, D},
      {MPI_DISTRIBUTE_BLOCK, 5, MPI_DISTRIBUTE_CYCLIC, 3},
      {MPI_DISTRIBUTE_CYCLIC, D, MPI_DISTRIBUTE_CYCLIC, 4},
      {MPI_DISTRIBUTE_NONE, D, MPI_DISTRIBUTE_BLOCK, D},
  };
  for (int c = 0; c < 5; c++) {
    int p[2] = {psizes[0], psizes[1]};
    if (cases[c][0] == MPI_DISTRIBUTE_NONE) p[0] = 1, p[1] = size;
    if (cases[c][0] == MPI_DISTRIBUTE_BLOCK && cases[c][1] * p[0] < G0) continue; /* darg too small here */
    const int distribs[2] = {cases[c][0], cases[c][2]}, dargs[2] = {cases[c][1], cases[c][3]};
    darray_case(distribs, dargs, p, MPI_ORDER_C);
    darray_case(distribs, dargs, p, MPI_ORDER_FORTRAN);
  }
}

/* ---- Get_elements on partial receives ------------------------------------------------------------------ */

struct mixed {
  int i;
  double d;
  char c[3];
};

static void partial_elements(void) {
  const int from = (rank - 1 + size) % size, to = (rank + 1) % size;
  MPI_Status st;
  int n, count;
  MPI_Count nx;

  /* 5 ints into a vector of 3 blocks of 2 ints (6 per element) */
  MPI_Datatype vec;
  CHECK_MPI(MPI_Type_vector(3, 2, 4, MPI_INT, &vec));
  CHECK_MPI(MPI_Type_commit(&vec));
  int five[5] = {1, 2, 3, 4, 5}, wide[24];
  for (int k = 0; k < 24; k++) wide[k] = -1;
  CHECK_MPI(MPI_Sendrecv(five, 5, MPI_INT, to, 6, wide, 2, vec, from, 6, MPI_COMM_WORLD, &st));
  CHECK_MPI(MPI_Get_elements(&st, vec, &n));
  CHECK(n == 5, "Get_elements of 5 ints in a vector type = %d", n);
  CHECK_MPI(MPI_Get_elements_x(&st, vec, &nx));
  CHECK(nx == 5, "Get_elements_x = %lld", (long long)nx);
  CHECK_MPI(MPI_Get_count(&st, vec, &count));
  CHECK(count == MPI_UNDEFINED, "Get_count of a partial vector = %d", count);
  CHECK(wide[0] == 1 && wide[1] == 2 && wide[4] == 3 && wide[5] == 4 && wide[8] == 5 && wide[9] == -1 &&
            wide[2] == -1,
        "partial vector placement");
  CHECK_MPI(MPI_Type_free(&vec));

  /* struct {int; double; char[3]}: 5 basic values per element */
  MPI_Datatype mixed, prefix, more;
  const int lens[3] = {1, 1, 3};
  const MPI_Aint displs[3] = {offsetof(struct mixed, i), offsetof(struct mixed, d), offsetof(struct mixed, c)};
  const MPI_Datatype types[3] = {MPI_INT, MPI_DOUBLE, MPI_CHAR};
  CHECK_MPI(MPI_Type_create_struct(3, lens, displs, types, &mixed));
  CHECK_MPI(MPI_Type_commit(&mixed));
  CHECK_MPI(MPI_Type_create_struct(2, lens, displs, types, &prefix)); /* int, double */
  CHECK_MPI(MPI_Type_commit(&prefix));
  const int lens2[2] = {1, 1};
  const MPI_Aint displs2[2] = {0, sizeof(struct mixed)};
  const MPI_Datatype types2[2] = {mixed, MPI_INT};
  CHECK_MPI(MPI_Type_create_struct(2, lens2, displs2, types2, &more)); /* a whole struct, then an int */
  CHECK_MPI(MPI_Type_commit(&more));

  struct mixed out[2] = {{7, 2.5, {'a', 'b', 'c'}}, {8, 3.5, {'d', 'e', 'f'}}}, in[2];
  memset(in, 0, sizeof in);
  CHECK_MPI(MPI_Sendrecv(out, 1, prefix, to, 7, in, 2, mixed, from, 7, MPI_COMM_WORLD, &st));
  CHECK_MPI(MPI_Get_elements(&st, mixed, &n));
  CHECK(n == 2, "Get_elements of int+double in a struct type = %d", n);
  CHECK_MPI(MPI_Get_elements_x(&st, mixed, &nx));
  CHECK(nx == 2, "Get_elements_x = %lld", (long long)nx);
  CHECK_MPI(MPI_Get_count(&st, mixed, &count));
  CHECK(count == MPI_UNDEFINED, "Get_count of a partial struct = %d", count);
  CHECK(in[0].i == 7 && in[0].d == 2.5 && in[0].c[0] == 0, "partial struct contents");

  memset(in, 0, sizeof in);
  CHECK_MPI(MPI_Sendrecv(out, 1, more, to, 8, in, 2, mixed, from, 8, MPI_COMM_WORLD, &st));
  CHECK_MPI(MPI_Get_elements(&st, mixed, &n));
  CHECK(n == 6, "Get_elements of a struct and an int = %d", n);
  CHECK(in[0].c[2] == 'c' && in[1].i == 8 && in[1].d == 0.0, "struct + int contents");

  CHECK_MPI(MPI_Type_free(&mixed));
  CHECK_MPI(MPI_Type_free(&prefix));
  CHECK_MPI(MPI_Type_free(&more));
}

int main(int argc, char **argv) {
  CHECK_MPI(MPI_Init(&argc, &argv));
  CHECK_MPI(MPI_Comm_rank(MPI_COMM_WORLD, &rank));
  CHECK_MPI(MPI_Comm_size(MPI_COMM_WORLD, &size));
  subarray_c_2d();
  subarray_fortran_3d();
  darrays();
  partial_elements();
  check_pass("dtype_arrays");
  MPI_Finalize();
  return 0;
}
