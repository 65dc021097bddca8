/* tests/mpi/comm/comm_idup.c — MPI_Comm_idup is non-blocking (MPI-3.1 §6.4.2): it returns at once and
 * completes later, so that a process can start several, overlap them with other communication, and start
 * them on different communicators in different orders on different ranks (the same order per parent).
 * Each case below deadlocks if idup blocks inside the call. Also: idup after MPI_Comm_create_group, on an
 * intercommunicator, completion by MPI_Test polling, MPI_Comm_idup_with_info (MPI-4), bad input.
 * Any number of ranks (1 too). Portable MPI; ftmpi-only checks under #ifdef FTMPI. */
#include "../common/check.h"

static int rank, size;

/* The communicator works and is isolated: an allreduce of world ranks gives the members' sum. */
static void check_works(MPI_Comm c) {
  int n, sum = 0, want = 0;
  MPI_Group g, wg;
  CHECK_MPI(MPI_Comm_size(c, &n));
  CHECK_MPI(MPI_Comm_group(c, &g));
  CHECK_MPI(MPI_Comm_group(MPI_COMM_WORLD, &wg));
  for (int r = 0; r < n; r++) {
    int w;
    CHECK_MPI(MPI_Group_translate_ranks(g, 1, &r, wg, &w));
    want += w;
  }
  CHECK_MPI(MPI_Group_free(&g));
  CHECK_MPI(MPI_Group_free(&wg));
  CHECK_MPI(MPI_Allreduce(&rank, &sum, 1, MPI_INT, MPI_SUM, c));
  CHECK(sum == want, "allreduce over the duplicate: %d, want %d", sum, want);
}

/* Several outstanding idups of one communicator, completed together. */
static void test_many_outstanding(void) {
  enum { N = 24 };
  MPI_Comm d[N];
  MPI_Request r[N];
  for (int i = 0; i < N; i++) CHECK_MPI(MPI_Comm_idup(MPI_COMM_WORLD, &d[i], &r[i]));
  CHECK_MPI(MPI_Waitall(N, r, MPI_STATUSES_IGNORE));
  /* Messages on one duplicate never match receives on another. */
  int peer = (rank + 1) % size, from = (rank + size - 1) % size;
  int got[N];
  MPI_Request rr[N];
  for (int i = 0; i < N; i++) CHECK_MPI(MPI_Irecv(&got[i], 1, MPI_INT, from, 0, d[i], &rr[i]));
  for (int i = N - 1; i >= 0; i--) {
    int v = 1000 * i + rank;
    CHECK_MPI(MPI_Send(&v, 1, MPI_INT, peer, 0, d[i]));
  }
  CHECK_MPI(MPI_Waitall(N, rr, MPI_STATUSES_IGNORE));
  for (int i = 0; i < N; i++) CHECK(got[i] == 1000 * i + from, "duplicate %d got %d", i, got[i]);
  for (int i = 0; i < N; i++) {
    int result;
    CHECK_MPI(MPI_Comm_compare(MPI_COMM_WORLD, d[i], &result));
    CHECK(result == MPI_CONGRUENT, "idup is congruent (%d)", result);
    check_works(d[i]);
    CHECK_MPI(MPI_Comm_free(&d[i]));
  }
}

/* Overlap: other collectives and point-to-point on the parent between start and completion. */
static void test_overlap(void) {
  MPI_Comm d;
  MPI_Request r;
  CHECK_MPI(MPI_Comm_idup(MPI_COMM_WORLD, &d, &r));
  int sum = 0;
  CHECK_MPI(MPI_Allreduce(&rank, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
  CHECK(sum == size * (size - 1) / 2, "allreduce while an idup is pending");
  int v = rank, got = -1;
  CHECK_MPI(MPI_Sendrecv(&v, 1, MPI_INT, (rank + 1) % size, 5, &got, 1, MPI_INT, (rank + size - 1) % size, 5,
                         MPI_COMM_WORLD, MPI_STATUS_IGNORE));
  CHECK(got == (rank + size - 1) % size, "sendrecv while an idup is pending");
  /* Completion by polling. */
  int flag = 0;
  while (!flag) CHECK_MPI(MPI_Test(&r, &flag, MPI_STATUS_IGNORE));
  CHECK(r == MPI_REQUEST_NULL, "request freed by Test");
  check_works(d);
  CHECK_MPI(MPI_Comm_free(&d));
}

/* Different communicators, in different orders on different ranks, and a rank that waits on one before it
 * even starts the other (legal when every other rank starts that one without first waiting for the other:
 * each completes once all its members started it). */
static void test_orders(void) {
  MPI_Comm a, b, da, db;
  MPI_Request ra, rb;
  CHECK_MPI(MPI_Comm_dup(MPI_COMM_WORLD, &a));
  CHECK_MPI(MPI_Comm_dup(MPI_COMM_WORLD, &b));
  if (rank % 3 == 0) {
    CHECK_MPI(MPI_Comm_idup(a, &da, &ra));
    CHECK_MPI(MPI_Wait(&ra, MPI_STATUS_IGNORE));
    CHECK_MPI(MPI_Comm_idup(b, &db, &rb));
    CHECK_MPI(MPI_Wait(&rb, MPI_STATUS_IGNORE));
  } else if (rank % 3 == 1) {
    CHECK_MPI(MPI_Comm_idup(b, &db, &rb));
    CHECK_MPI(MPI_Comm_idup(a, &da, &ra));
    MPI_Request both[2] = {rb, ra};
    CHECK_MPI(MPI_Waitall(2, both, MPI_STATUSES_IGNORE));
  } else {
    /* b first, then a, completed in the other order (a needs rank 0, which starts b only after a completed). */
    CHECK_MPI(MPI_Comm_idup(b, &db, &rb));
    CHECK_MPI(MPI_Comm_idup(a, &da, &ra));
    CHECK_MPI(MPI_Wait(&ra, MPI_STATUS_IGNORE));
    CHECK_MPI(MPI_Wait(&rb, MPI_STATUS_IGNORE));
  }
  check_works(da);
  check_works(db);
  CHECK_MPI(MPI_Comm_free(&da));
  CHECK_MPI(MPI_Comm_free(&db));
  CHECK_MPI(MPI_Comm_free(&a));
  CHECK_MPI(MPI_Comm_free(&b));
}

/* Overlapping sub-communicators (pairs {i, i+1}), idups started in rank-dependent order. */
static void test_overlapping_pairs(void) {
  if (size < 3) return;
  MPI_Comm left = MPI_COMM_NULL, right = MPI_COMM_NULL;  /* pair with rank-1 and with rank+1 */
  MPI_Comm even_pairs, odd_pairs;
  CHECK_MPI(MPI_Comm_split(MPI_COMM_WORLD, rank / 2, rank, &even_pairs));                /* {0,1},{2,3},... */
  CHECK_MPI(MPI_Comm_split(MPI_COMM_WORLD, rank == 0 ? MPI_UNDEFINED : (rank - 1) / 2, rank, &odd_pairs)); /* {1,2},{3,4},... */
  left = rank % 2 ? even_pairs : odd_pairs;
  right = rank % 2 ? odd_pairs : even_pairs;
  MPI_Comm dl = MPI_COMM_NULL, dr = MPI_COMM_NULL;
  MPI_Request req[2] = {MPI_REQUEST_NULL, MPI_REQUEST_NULL};
  if (rank % 2) {
    if (right != MPI_COMM_NULL) CHECK_MPI(MPI_Comm_idup(right, &dr, &req[1]));
    if (left != MPI_COMM_NULL) CHECK_MPI(MPI_Comm_idup(left, &dl, &req[0]));
  } else {
    if (left != MPI_COMM_NULL) CHECK_MPI(MPI_Comm_idup(left, &dl, &req[0]));
    if (right != MPI_COMM_NULL) CHECK_MPI(MPI_Comm_idup(right, &dr, &req[1]));
  }
  CHECK_MPI(MPI_Waitall(2, req, MPI_STATUSES_IGNORE));
  if (dl != MPI_COMM_NULL) {
    check_works(dl);
    CHECK_MPI(MPI_Comm_free(&dl));
  }
  if (dr != MPI_COMM_NULL) {
    check_works(dr);
    CHECK_MPI(MPI_Comm_free(&dr));
  }
  CHECK_MPI(MPI_Comm_free(&even_pairs));
  if (odd_pairs != MPI_COMM_NULL) CHECK_MPI(MPI_Comm_free(&odd_pairs));
}

/* idup of a communicator made by MPI_Comm_create_group, then of its duplicate, with a collective between. */
static void test_after_create_group(void) {
  MPI_Group wg, eg;
  CHECK_MPI(MPI_Comm_group(MPI_COMM_WORLD, &wg));
  int n = (size + 1) / 2, range[1][3] = {{0, size - 1, 2}};
  CHECK_MPI(MPI_Group_range_incl(wg, 1, range, &eg));
  if (rank % 2 == 0) {
    MPI_Comm c, d1, d2;
    MPI_Request r[2];
    CHECK_MPI(MPI_Comm_create_group(MPI_COMM_WORLD, eg, 3, &c));
    int cs;
    CHECK_MPI(MPI_Comm_size(c, &cs));
    CHECK(cs == n, "create_group size");
    CHECK_MPI(MPI_Comm_idup(c, &d1, &r[0]));
    CHECK_MPI(MPI_Barrier(c));
    CHECK_MPI(MPI_Comm_idup(c, &d2, &r[1]));
    CHECK_MPI(MPI_Waitall(2, r, MPI_STATUSES_IGNORE));
    check_works(d1);
    check_works(d2);
    CHECK_MPI(MPI_Comm_free(&d1));
    CHECK_MPI(MPI_Comm_free(&d2));
    CHECK_MPI(MPI_Comm_free(&c));
  }
  CHECK_MPI(MPI_Group_free(&eg));
  CHECK_MPI(MPI_Group_free(&wg));
}

/* Outstanding idups of an intercommunicator (evens vs odds). */
static void test_inter(void) {
  if (size < 2) return;
  MPI_Comm half, inter, d[3];
  MPI_Request r[3];
  CHECK_MPI(MPI_Comm_split(MPI_COMM_WORLD, rank % 2, rank, &half));
  CHECK_MPI(MPI_Intercomm_create(half, 0, MPI_COMM_WORLD, rank % 2 ? 0 : 1, 9, &inter));
  for (int i = 0; i < 3; i++) CHECK_MPI(MPI_Comm_idup(inter, &d[i], &r[i]));
  CHECK_MPI(MPI_Barrier(half));
  CHECK_MPI(MPI_Waitall(3, r, MPI_STATUSES_IGNORE));
  for (int i = 0; i < 3; i++) {
    int flag, rs, result;
    CHECK_MPI(MPI_Comm_test_inter(d[i], &flag));
    CHECK_MPI(MPI_Comm_remote_size(d[i], &rs));
    CHECK(flag && rs == (rank % 2 ? (size + 1) / 2 : size / 2), "idup of an intercommunicator");
    CHECK_MPI(MPI_Comm_compare(inter, d[i], &result));
    CHECK(result == MPI_CONGRUENT, "inter idup congruent (%d)", result);
    int sum = 0, want = 0;
    for (int w = rank % 2 ? 0 : 1; w < size; w += 2) want += w;
    CHECK_MPI(MPI_Allreduce(&rank, &sum, 1, MPI_INT, MPI_SUM, d[i]));
    CHECK(sum == want, "inter allreduce %d want %d", sum, want);
    /* The duplicate's hidden local side works too: a merge needs it. */
    MPI_Comm m;
    CHECK_MPI(MPI_Intercomm_merge(d[i], rank % 2, &m));
    check_works(m);
    CHECK_MPI(MPI_Comm_free(&m));
    CHECK_MPI(MPI_Comm_free(&d[i]));
  }
  CHECK_MPI(MPI_Comm_free(&inter));
  CHECK_MPI(MPI_Comm_free(&half));
}

static void test_with_info(void) {
#if MPI_VERSION >= 4
  MPI_Info info, used;
  MPI_Comm d;
  MPI_Request r;
  CHECK_MPI(MPI_Info_create(&info));
  CHECK_MPI(MPI_Info_set(info, "mpi_assert_no_any_tag", "true"));
  CHECK_MPI(MPI_Comm_idup_with_info(MPI_COMM_WORLD, info, &d, &r));
  CHECK_MPI(MPI_Info_free(&info));
  CHECK_MPI(MPI_Wait(&r, MPI_STATUS_IGNORE));
  check_works(d);
  CHECK_MPI(MPI_Comm_get_info(d, &used));
  int flag = 0;
  char v[64];
#if defined(FTMPI)
  CHECK_MPI(MPI_Info_get(used, "mpi_assert_no_any_tag", sizeof v - 1, v, &flag));
  CHECK(flag && strcmp(v, "true") == 0, "hint kept by idup_with_info");
#else
  (void)flag, (void)v;
#endif
  CHECK_MPI(MPI_Info_free(&used));
  CHECK_MPI(MPI_Comm_free(&d));
#endif
}

static void test_bad_input(void) {
  MPI_Comm d;
  MPI_Request r;
  int rc = MPI_Comm_idup(MPI_COMM_NULL, &d, &r);
  CHECK(check_class_of(rc) == MPI_ERR_COMM, "idup(MPI_COMM_NULL): %s", check_errstr(rc));
#ifdef FTMPI
  MPI_Comm c, stale;
  CHECK_MPI(MPI_Comm_dup(MPI_COMM_WORLD, &c));
  stale = c;
  CHECK_MPI(MPI_Comm_free(&c));
  CHECK_CLASS(MPI_Comm_idup(stale, &d, &r), MPI_ERR_COMM);
  CHECK_CLASS(MPI_Comm_idup(MPI_COMM_WORLD, &d, NULL), MPI_ERR_ARG);
  CHECK_CLASS(MPI_Comm_idup(MPI_COMM_WORLD, NULL, &r), MPI_ERR_ARG);
  CHECK_CLASS(MPI_Comm_idup_with_info(MPI_COMM_WORLD, (MPI_Info)&rank, &d, &r), MPI_ERR_INFO);
  /* The new handle is not a communicator before completion. */
  CHECK_MPI(MPI_Comm_idup(MPI_COMM_WORLD, &d, &r));
  int flag = 0;
  CHECK_MPI(MPI_Test(&r, &flag, MPI_STATUS_IGNORE));
  if (!flag) {
    int n;
    CHECK_CLASS(MPI_Comm_size(d, &n), MPI_ERR_COMM);
  }
  CHECK_MPI(MPI_Wait(&r, MPI_STATUS_IGNORE));
  CHECK_MPI(MPI_Comm_free(&d));
#endif
}

int main(int argc, char **argv) {
  CHECK_MPI(MPI_Init(&argc, &argv));
  CHECK_MPI(MPI_Comm_rank(MPI_COMM_WORLD, &rank));
  CHECK_MPI(MPI_Comm_size(MPI_COMM_WORLD, &size));
  CHECK_MPI(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
  for (int iter = 0; iter < 2; iter++) {
    test_many_outstanding();
    test_overlap();
    test_orders();
    test_overlapping_pairs();
    test_after_create_group();
    test_inter();
    test_with_info();
  }
  test_bad_input();
  CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
  if (rank == 0) printf("PASS comm_idup\n");
  CHECK_MPI(MPI_Finalize());
  return 0;
}
