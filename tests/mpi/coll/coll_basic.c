/* coll_basic: the foundation collectives against a sequential reference.
 *
 * Usage: coll_basic [quick]     (quick: barrier, bcast, allreduce only — for the 16-rank oversubscribed run)
 * Covers MPI_Barrier, MPI_Bcast (every root, 0 B .. 1 MiB), MPI_Reduce (rotating roots) and MPI_Allreduce
 * for every predefined op on the C types it applies to (MAX, MIN, SUM, PROD on integers and floating point;
 * LAND, LOR, LXOR on integers; BAND, BOR, BXOR on integers and MPI_BYTE; MAXLOC, MINLOC on the pair types),
 * MPI_Gather, MPI_Scatter and MPI_Allgather (small and large blocks, every root), on MPI_COMM_WORLD and on a
 * split communicator.  Inputs are integer-valued so floating-point results are exact.
 * PASS: every result equals the reference computed locally from all ranks' inputs, with any rank count
 * (the suite runs 1, 3, 4, 5 and 16). */
#include "common/check.h"

#define N 257 /* elements per reduction: odd, so algorithms that split vectors see a remainder */

enum { OP_MAX, OP_MIN, OP_SUM, OP_PROD, OP_LAND, OP_LOR, OP_LXOR, OP_BAND, OP_BOR, OP_BXOR, NOPS };
static MPI_Op mpi_op(int op) {
  switch (op) {
    case OP_MAX: return MPI_MAX;
    case OP_MIN: return MPI_MIN;
    case OP_SUM: return MPI_SUM;
    case OP_PROD: return MPI_PROD;
    case OP_LAND: return MPI_LAND;
    case OP_LOR: return MPI_LOR;
    case OP_LXOR: return MPI_LXOR;
    case OP_BAND: return MPI_BAND;
    case OP_BOR: return MPI_BOR;
    default: return MPI_BXOR;
  }
}
static const char *op_name[NOPS] = {"MAX", "MIN", "SUM", "PROD", "LAND", "LOR", "LXOR", "BAND", "BOR", "BXOR"};

/* Input element j of rank r for op: small values so nothing overflows (PROD uses 1s and 2s). */
static long long input(int op, int r, int j) {
  switch (op) {
    case OP_PROD: return ((r + j) % 7 == 0) ? 2 : 1;
    case OP_LAND: case OP_LOR: case OP_LXOR: return ((r * 3 + j) % 4 == 0) ? 0 : ((j % 5 == 0) ? 1 : (r + 1) % 3);
    case OP_BAND: case OP_BOR: case OP_BXOR: return (r * 37 + j * 11) & 0x7f;
    case OP_MAX: case OP_MIN: return ((r * 7919 + j * 104729) % 201) - 100;
    default: return (r * 13 + j) % 50 - 20;
  }
}

/* One C type through every op that applies.  `integer` enables the logical/bitwise ops; `is_unsigned` keeps
 * inputs non-negative. */
#define DEFINE_TYPE_TEST(fname, ctype, integer, is_unsigned)                                                   \
  static void fname(MPI_Comm comm, MPI_Datatype dt, const char *tname) {                                      \
    int rank, size;                                                                                         \
    MPI_Comm_rank(comm, &rank);                                                                             \
    MPI_Comm_size(comm, &size);                                                                             \
    ctype in[N], out[N], ref[N];                                                                            \
    for (int op = 0; op < NOPS; op++) {                                                                     \
      if (!(integer) && op >= OP_LAND) continue;                                                            \
      for (int j = 0; j < N; j++) {                                                                         \
        long long acc = 0;                                                                                  \
        for (int r = 0; r < size; r++) {                                                                    \
          long long v = input(op, r, j);                                                                    \
          if (is_unsigned && v < 0) v = -v;                                                                 \
          if (r == rank) in[j] = (ctype)v;                                                                  \
          if (r == 0) { acc = v; if (op >= OP_LAND && op <= OP_LXOR) acc = (v != 0); continue; }            \
          switch (op) {                                                                                     \
            case OP_MAX: acc = v > acc ? v : acc; break;                                                    \
            case OP_MIN: acc = v < acc ? v : acc; break;                                                    \
            case OP_SUM: acc += v; break;                                                                   \
            case OP_PROD: acc *= v; break;                                                                  \
            case OP_LAND: acc = acc && v; break;                                                            \
            case OP_LOR: acc = acc || v; break;                                                             \
            case OP_LXOR: acc = (!acc) != (!v); break;                                                      \
            case OP_BAND: acc &= v; break;                                                                  \
            case OP_BOR: acc |= v; break;                                                                   \
            case OP_BXOR: acc ^= v; break;                                                                  \
          }                                                                                                 \
        }                                                                                                   \
        ref[j] = (ctype)acc;                                                                                \
      }                                                                                                     \
      int root = (op * 3) % size;                                                                           \
      for (int j = 0; j < N; j++) out[j] = (ctype)0;                                                        \
      CHECK_MPI(MPI_Reduce(in, out, N, dt, mpi_op(op), root, comm));                                        \
      if (rank == root)                                                                                     \
        for (int j = 0; j < N; j++)                                                                         \
          CHECK(out[j] == ref[j], "Reduce %s %s root %d: element %d is %.17g, expected %.17g", tname,        \
                op_name[op], root, j, (double)out[j], (double)ref[j]);                                      \
      for (int j = 0; j < N; j++) out[j] = (ctype)0;                                                        \
      CHECK_MPI(MPI_Allreduce(in, out, N, dt, mpi_op(op), comm));                                           \
      for (int j = 0; j < N; j++)                                                                           \
        CHECK(out[j] == ref[j], "Allreduce %s %s: element %d is %.17g, expected %.17g", tname, op_name[op], \
              j, (double)out[j], (double)ref[j]);                                                           \
    }                                                                                                       \
  }

DEFINE_TYPE_TEST(t_int, int, 1, 0)
DEFINE_TYPE_TEST(t_unsigned, unsigned, 1, 1)
DEFINE_TYPE_TEST(t_short, short, 1, 0)
DEFINE_TYPE_TEST(t_ushort, unsigned short, 1, 1)
DEFINE_TYPE_TEST(t_long, long, 1, 0)
DEFINE_TYPE_TEST(t_ulong, unsigned long, 1, 1)
DEFINE_TYPE_TEST(t_llong, long long, 1, 0)
DEFINE_TYPE_TEST(t_ullong, unsigned long long, 1, 1)
DEFINE_TYPE_TEST(t_schar, signed char, 1, 0)
DEFINE_TYPE_TEST(t_uchar, unsigned char, 1, 1)
DEFINE_TYPE_TEST(t_i8, int8_t, 1, 0)
DEFINE_TYPE_TEST(t_i16, int16_t, 1, 0)
DEFINE_TYPE_TEST(t_i32, int32_t, 1, 0)
DEFINE_TYPE_TEST(t_i64, int64_t, 1, 0)
DEFINE_TYPE_TEST(t_u8, uint8_t, 1, 1)
DEFINE_TYPE_TEST(t_u16, uint16_t, 1, 1)
DEFINE_TYPE_TEST(t_u32, uint32_t, 1, 1)
DEFINE_TYPE_TEST(t_u64, uint64_t, 1, 1)
DEFINE_TYPE_TEST(t_float, float, 0, 0)
DEFINE_TYPE_TEST(t_double, double, 0, 0)
DEFINE_TYPE_TEST(t_ldouble, long double, 0, 0)

/* MPI_BYTE: bitwise ops only. */
static void t_byte(MPI_Comm comm) {
  int rank, size;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &size);
  unsigned char in[N], out[N], ref[N];
  for (int op = OP_BAND; op <= OP_BXOR; op++) {
    for (int j = 0; j < N; j++) {
      unsigned acc = 0;
      for (int r = 0; r < size; r++) {
        unsigned v = (unsigned)input(op, r, j) | (unsigned)((r + j) & 0x80);
        if (r == rank) in[j] = (unsigned char)v;
        if (r == 0) acc = v;
        else if (op == OP_BAND) acc &= v;
        else if (op == OP_BOR) acc |= v;
        else acc ^= v;
      }
      ref[j] = (unsigned char)acc;
    }
    CHECK_MPI(MPI_Allreduce(in, out, N, MPI_BYTE, mpi_op(op), comm));
    CHECK(memcmp(out, ref, N) == 0, "Allreduce BYTE %s", op_name[op]);
  }
}

/* MAXLOC / MINLOC on the pair types: values with ties, the lower index wins a tie. */
#define DEFINE_LOC_TEST(fname, vtype)                                                                       \
  static void fname(MPI_Comm comm, MPI_Datatype dt, const char *tname) {                                    \
    int rank, size;                                                                                         \
    MPI_Comm_rank(comm, &rank);                                                                             \
    MPI_Comm_size(comm, &size);                                                                             \
    struct { vtype v; int i; } in[N], out[N], ref[N];                                                       \
    for (int k = 0; k < 2; k++) {                                                                           \
      MPI_Op op = k == 0 ? MPI_MAXLOC : MPI_MINLOC;                                                         \
      for (int j = 0; j < N; j++) {                                                                         \
        for (int r = 0; r < size; r++) {                                                                    \
          vtype v = (vtype)(((r * 5 + j * 3) % 4) - 1); /* many ties */                                     \
          int idx = (r * 7 + j) % 1000;                                                                     \
          if (r == rank) { in[j].v = v; in[j].i = idx; }                                                    \
          if (r == 0 || (k == 0 ? v > ref[j].v : v < ref[j].v) || (v == ref[j].v && idx < ref[j].i)) {      \
            ref[j].v = v;                                                                                   \
            ref[j].i = idx;                                                                                 \
          }                                                                                                 \
        }                                                                                                   \
      }                                                                                                     \
      CHECK_MPI(MPI_Allreduce(in, out, N, dt, op, comm));                                                   \
      for (int j = 0; j < N; j++)                                                                           \
        CHECK(out[j].v == ref[j].v && out[j].i == ref[j].i, "Allreduce %s %s: element %d is (%g,%d), expected (%g,%d)", \
              tname, k == 0 ? "MAXLOC" : "MINLOC", j, (double)out[j].v, out[j].i, (double)ref[j].v, ref[j].i); \
      int root = (k + 1) % size;                                                                            \
      CHECK_MPI(MPI_Reduce(in, out, N, dt, op, root, comm));                                                \
      if (rank == root)                                                                                     \
        for (int j = 0; j < N; j++)                                                                         \
          CHECK(out[j].v == ref[j].v && out[j].i == ref[j].i, "Reduce %s %s element %d", tname,             \
                k == 0 ? "MAXLOC" : "MINLOC", j);                                                           \
    }                                                                                                       \
  }
DEFINE_LOC_TEST(t_2int, int)
DEFINE_LOC_TEST(t_float_int, float)
DEFINE_LOC_TEST(t_double_int, double)
DEFINE_LOC_TEST(t_long_int, long)
DEFINE_LOC_TEST(t_short_int, short)

static int quick; /* fewer roots when oversubscribed */

static void test_bcast(MPI_Comm comm) {
  int rank, size;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &size);
  static const int sizes[] = {0, 1, 100, 8 << 10, 64 << 10, 1 << 20};
  unsigned char *buf = malloc(1 << 20);
  for (int root = 0; root < size; root += quick ? (size + 1) / 2 : 1)
    for (int i = 0; i < 6; i++) {
      int n = sizes[i];
      if (rank == root) check_fill(buf, n, root * 10 + i);
      else memset(buf, 0, n);
      CHECK_MPI(MPI_Bcast(buf, n, MPI_BYTE, root, comm));
      CHECK_PATTERN(buf, n, root * 10 + i);
    }
  double d[3] = {0};
  if (rank == 0) d[0] = 1.5, d[1] = -2.25, d[2] = 1e300;
  CHECK_MPI(MPI_Bcast(d, 3, MPI_DOUBLE, 0, comm));
  CHECK(d[0] == 1.5 && d[1] == -2.25 && d[2] == 1e300, "bcast doubles");
  free(buf);
}

static void test_gather_scatter(MPI_Comm comm) {
  int rank, size;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &size);
  static const int blocks[] = {1, 3, 16384}; /* ints per rank: 4 B, 12 B, 64 KiB */
  for (int b = 0; b < 3; b++) {
    int n = blocks[b];
    int *mine = malloc(sizeof(int) * n), *all = malloc(sizeof(int) * n * size);
    for (int root = 0; root < size; root += (size > 4 ? 3 : 1)) {
      for (int j = 0; j < n; j++) mine[j] = rank * 100000 + j + root;
      for (int j = 0; j < n * size; j++) all[j] = -1;
      CHECK_MPI(MPI_Gather(mine, n, MPI_INT, all, n, MPI_INT, root, comm));
      if (rank == root)
        for (int r = 0; r < size; r++)
          for (int j = 0; j < n; j++)
            CHECK(all[r * n + j] == r * 100000 + j + root, "Gather block %d root %d: from %d element %d is %d", n,
                  root, r, j, all[r * n + j]);
      /* Scatter: root hands rank r the block r*1000+j */
      if (rank == root)
        for (int r = 0; r < size; r++)
          for (int j = 0; j < n; j++) all[r * n + j] = r * 1000 + j - root;
      for (int j = 0; j < n; j++) mine[j] = -1;
      CHECK_MPI(MPI_Scatter(all, n, MPI_INT, mine, n, MPI_INT, root, comm));
      for (int j = 0; j < n; j++)
        CHECK(mine[j] == rank * 1000 + j - root, "Scatter block %d root %d element %d is %d", n, root, j, mine[j]);
    }
    for (int j = 0; j < n; j++) mine[j] = rank * 7 + j;
    for (int j = 0; j < n * size; j++) all[j] = -1;
    CHECK_MPI(MPI_Allgather(mine, n, MPI_INT, all, n, MPI_INT, comm));
    for (int r = 0; r < size; r++)
      for (int j = 0; j < n; j++)
        CHECK(all[r * n + j] == r * 7 + j, "Allgather block %d: from %d element %d is %d", n, r, j, all[r * n + j]);
    free(mine);
    free(all);
  }
  /* send as bytes, receive as ints (type signatures match) */
  int v = rank + 1, *got = malloc(sizeof(int) * size);
  CHECK_MPI(MPI_Allgather(&v, (int)sizeof(int), MPI_BYTE, got, 1, MPI_INT, comm));
  for (int r = 0; r < size; r++) CHECK(got[r] == r + 1, "Allgather bytes->int %d", got[r]);
  free(got);
}

static void test_large_allreduce(MPI_Comm comm) {
  int rank, size;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &size);
  const int n = 1 << 18; /* 1 MiB of ints */
  int *in = malloc(sizeof(int) * n), *out = malloc(sizeof(int) * n);
  for (int j = 0; j < n; j++) in[j] = (j % 1000) + rank;
  CHECK_MPI(MPI_Allreduce(in, out, n, MPI_INT, MPI_SUM, comm));
  for (int j = 0; j < n; j++) {
    int expect = size * (j % 1000) + size * (size - 1) / 2;
    CHECK(out[j] == expect, "large Allreduce element %d is %d, expected %d", j, out[j], expect);
  }
  free(in);
  free(out);
}

/* Mismatched type signatures (an erroneous program, detectable when a receiver is offered more than it can
 * hold): every non-root passes a smaller count to Bcast than the root. The root's children must report
 * MPI_ERR_TRUNCATE, ranks further down (which get what their parent kept) may succeed; nobody hangs, the
 * bytes that fit are delivered, and the communicator works afterwards. Then Gather with a root that expects
 * less than each rank sends: MPI_ERR_TRUNCATE at the root (when there is someone to receive from). */
static void test_mismatch(MPI_Comm parent) {
  MPI_Comm comm;
  int rank, size;
  CHECK_MPI(MPI_Comm_dup(parent, &comm));
  CHECK_MPI(MPI_Comm_set_errhandler(comm, MPI_ERRORS_RETURN));
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &size);
  int buf[8];
  for (int i = 0; i < 8; i++) buf[i] = rank == 0 ? 100 + i : -1;
  int rc = MPI_Bcast(buf, rank == 0 ? 8 : 4, MPI_INT, 0, comm);
  if (rank == 0) CHECK_MPI(rc);
  else if ((rank & (rank - 1)) == 0) CHECK_CLASS(rc, MPI_ERR_TRUNCATE); /* direct children of the root */
  else if (rc != MPI_SUCCESS) CHECK_CLASS(rc, MPI_ERR_TRUNCATE);
  for (int i = 0; i < 4; i++) CHECK(buf[i] == 100 + i, "bcast mismatch: element %d is %d", i, buf[i]);
  CHECK_MPI(MPI_Barrier(comm));

  int mine[4] = {rank, rank, rank, rank}, all[4 * 64];
  CHECK(size <= 64);
  rc = MPI_Gather(mine, 4, MPI_INT, all, 2, MPI_INT, 0, comm);
  if (rank == 0 && size > 1) CHECK_CLASS(rc, MPI_ERR_TRUNCATE);
  else CHECK_MPI(rc);
  CHECK_MPI(MPI_Barrier(comm));

  int v = rank + 1, sum = 0;
  CHECK_MPI(MPI_Allreduce(&v, &sum, 1, MPI_INT, MPI_SUM, comm));
  CHECK(sum == size * (size + 1) / 2, "allreduce after the mismatches: %d", sum);
  CHECK_MPI(MPI_Comm_free(&comm));
}

static void all_types(MPI_Comm comm) {
  t_int(comm, MPI_INT, "INT");
  t_unsigned(comm, MPI_UNSIGNED, "UNSIGNED");
  t_short(comm, MPI_SHORT, "SHORT");
  t_ushort(comm, MPI_UNSIGNED_SHORT, "UNSIGNED_SHORT");
  t_long(comm, MPI_LONG, "LONG");
  t_ulong(comm, MPI_UNSIGNED_LONG, "UNSIGNED_LONG");
  t_llong(comm, MPI_LONG_LONG, "LONG_LONG");
  t_ullong(comm, MPI_UNSIGNED_LONG_LONG, "UNSIGNED_LONG_LONG");
  t_schar(comm, MPI_SIGNED_CHAR, "SIGNED_CHAR");
  t_uchar(comm, MPI_UNSIGNED_CHAR, "UNSIGNED_CHAR");
  t_i8(comm, MPI_INT8_T, "INT8_T");
  t_i16(comm, MPI_INT16_T, "INT16_T");
  t_i32(comm, MPI_INT32_T, "INT32_T");
  t_i64(comm, MPI_INT64_T, "INT64_T");
  t_u8(comm, MPI_UINT8_T, "UINT8_T");
  t_u16(comm, MPI_UINT16_T, "UINT16_T");
  t_u32(comm, MPI_UINT32_T, "UINT32_T");
  t_u64(comm, MPI_UINT64_T, "UINT64_T");
  t_float(comm, MPI_FLOAT, "FLOAT");
  t_double(comm, MPI_DOUBLE, "DOUBLE");
  t_ldouble(comm, MPI_LONG_DOUBLE, "LONG_DOUBLE");
  t_byte(comm);
  t_2int(comm, MPI_2INT, "2INT");
  t_float_int(comm, MPI_FLOAT_INT, "FLOAT_INT");
  t_double_int(comm, MPI_DOUBLE_INT, "DOUBLE_INT");
  t_long_int(comm, MPI_LONG_INT, "LONG_INT");
  t_short_int(comm, MPI_SHORT_INT, "SHORT_INT");
}

int main(int argc, char **argv) {
  int rank, size;
  CHECK_MPI(MPI_Init(&argc, &argv));
  CHECK_MPI(MPI_Comm_rank(MPI_COMM_WORLD, &rank));
  CHECK_MPI(MPI_Comm_size(MPI_COMM_WORLD, &size));
  quick = argc > 1 && !strcmp(argv[1], "quick");

  for (int i = 0; i < 10; i++) CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
  test_bcast(MPI_COMM_WORLD);
  test_large_allreduce(MPI_COMM_WORLD);
  t_int(MPI_COMM_WORLD, MPI_INT, "INT");
  t_double(MPI_COMM_WORLD, MPI_DOUBLE, "DOUBLE");
  if (!quick) {
    all_types(MPI_COMM_WORLD);
    test_gather_scatter(MPI_COMM_WORLD);
    test_mismatch(MPI_COMM_WORLD);
    /* the same on a communicator whose ranks are a reordered subset of the world */
    MPI_Comm sub;
    CHECK_MPI(MPI_Comm_split(MPI_COMM_WORLD, rank % 2, -rank, &sub));
    CHECK_MPI(MPI_Barrier(sub));
    test_bcast(sub);
    t_int(sub, MPI_INT, "INT");
    t_2int(sub, MPI_2INT, "2INT");
    test_gather_scatter(sub);
    CHECK_MPI(MPI_Comm_free(&sub));
    /* collectives on MPI_COMM_SELF */
    int v = 3, w = 0;
    CHECK_MPI(MPI_Allreduce(&v, &w, 1, MPI_INT, MPI_SUM, MPI_COMM_SELF));
    CHECK(w == 3, "Allreduce on COMM_SELF gave %d", w);
    CHECK_MPI(MPI_Barrier(MPI_COMM_SELF));
  }
  check_pass(quick ? "coll_basic quick" : "coll_basic");
  CHECK_MPI(MPI_Finalize());
  return 0;
}
