/* coll_inter: intercommunicator Barrier, Bcast, Reduce, Allreduce, Gather, Scatter and Allgather against a
 * sequential reference (MPI-3.1 §5.2.2: results come from the remote group).
 *
 * Two intercommunicators: even/odd world ranks, and a lopsided split (world rank < size/3 vs the rest), each
 * tried with every root of both groups (MPI_ROOT at the root, MPI_PROC_NULL in its group, the root's rank in
 * the other group), with 3-int and 5000-int messages. Values name their group, sender and element. Bad input
 * fails with its class and leaves the intercommunicator usable: root out of range (MPI_ERR_ROOT), MPI_IN_PLACE
 * (MPI_ERR_BUFFER), negative count (MPI_ERR_COUNT). On one rank there is no intercommunicator: PASS at once.
 * PASS: every element equals the reference, the root group's other members are untouched, rank 0 prints PASS.
 *
 * With argument "dead" (run with --with-ft ulfm, 4 ranks or more): on the even/odd intercommunicator the last
 * world rank dies; the survivors call Barrier, Allreduce, Bcast, Reduce, Allgather, Gather, Scatter, Gatherv,
 * Scatterv, Allgatherv, Alltoall, Alltoallv, Alltoallw, Reduce_scatter_block and Reduce_scatter twice each,
 * then start the non-blocking form of every one of them at once and wait for each: every call returns
 * MPI_SUCCESS or MPI_ERR_PROC_FAILED and none hangs (a leader whose local phase failed still serves the other
 * group); the dead rank's group leader sees MPI_ERR_PROC_FAILED from Allreduce, and the other group (which
 * exchanges with the dead rank directly) from Alltoall and Ialltoall.
 * PASS: a survivor prints PASS after the shrink of MPI_COMM_WORLD.
 *
 * With argument "revoke" (--with-ft ulfm, 3 ranks or more): world rank 0 probes MPIX_Comm_revoke on a duplicate
 * of the even/odd intercommunicator (it must succeed). Then the odd group starts Iallreduce, Ialltoall, Iallgatherv, Ireduce_scatter_block and Ibarrier,
 * which cannot complete (the even group never joins), world rank 0 revokes the intercommunicator 200 ms later,
 * and each request completes with MPI_ERR_REVOKED within 20 s (including the members waiting in a local phase
 * for their leader); then every blocking collective on it returns MPI_ERR_REVOKED at once. */
#include "../ft/ft_check.h"

static int v(int group, int sender, int k) { return 1 + group * 1000000 + sender * 10000 + k % 10000; }

typedef struct {
  MPI_Comm c;
  int color, lr, ls, rs;
} inter_t;

static int gsize(const inter_t *t, int g) { return g == t->color ? t->ls : t->rs; }

static void check_bcast(const inter_t *t, int n, int *buf) {
  for (int g = 0; g < 2; g++)
    for (int r = 0; r < gsize(t, g); r++) {
      int root = g == t->color ? (t->lr == r ? MPI_ROOT : MPI_PROC_NULL) : r;
      for (int k = 0; k < n; k++) buf[k] = root == MPI_ROOT ? v(g, r, k) : -1;
      CHECK_MPI(MPI_Bcast(buf, n, MPI_INT, root, t->c));
      for (int k = 0; k < n; k++) {
        int want = root == MPI_PROC_NULL ? -1 : v(g, r, k);
        CHECK(buf[k] == want, "bcast g%d r%d elem %d: %d want %d", g, r, k, buf[k], want);
      }
    }
}

static void check_reduce(const inter_t *t, int n, int *sb, int *rb) {
  int other = 1 - t->color;
  for (int k = 0; k < n; k++) sb[k] = v(t->color, t->lr, k);
  for (int k = 0; k < n; k++) rb[k] = -1;
  CHECK_MPI(MPI_Allreduce(sb, rb, n, MPI_INT, MPI_SUM, t->c));
  for (int k = 0; k < n; k++) {
    int want = 0;
    for (int i = 0; i < t->rs; i++) want += v(other, i, k);
    CHECK(rb[k] == want, "allreduce elem %d: %d want %d", k, rb[k], want);
  }
  for (int g = 0; g < 2; g++)
    for (int r = 0; r < gsize(t, g); r++) {
      int root = g == t->color ? (t->lr == r ? MPI_ROOT : MPI_PROC_NULL) : r;
      for (int k = 0; k < n; k++) rb[k] = -1;
      CHECK_MPI(MPI_Reduce(sb, rb, n, MPI_INT, MPI_SUM, root, t->c));
      for (int k = 0; k < n; k++) {
        int want = -1;
        if (root == MPI_ROOT) {
          want = 0;
          for (int i = 0; i < t->rs; i++) want += v(other, i, k);
        }
        CHECK(rb[k] == want, "reduce g%d r%d elem %d: %d want %d", g, r, k, rb[k], want);
      }
    }
}

static void check_gathers(const inter_t *t, int n, int *sb, int *rb) {
  int other = 1 - t->color;
  for (int k = 0; k < n; k++) sb[k] = v(t->color, t->lr, k);
  for (int i = 0; i < n * t->rs; i++) rb[i] = -1;
  CHECK_MPI(MPI_Allgather(sb, n, MPI_INT, rb, n, MPI_INT, t->c));
  for (int i = 0; i < t->rs; i++)
    for (int k = 0; k < n; k++)
      CHECK(rb[i * n + k] == v(other, i, k), "allgather block %d elem %d: %d", i, k, rb[i * n + k]);
  for (int g = 0; g < 2; g++)
    for (int r = 0; r < gsize(t, g); r++) {
      int root = g == t->color ? (t->lr == r ? MPI_ROOT : MPI_PROC_NULL) : r;
      /* gather */
      for (int i = 0; i < n * t->rs; i++) rb[i] = -1;
      CHECK_MPI(MPI_Gather(sb, n, MPI_INT, rb, n, MPI_INT, root, t->c));
      for (int i = 0; i < t->rs; i++)
        for (int k = 0; k < n; k++) {
          int want = root == MPI_ROOT ? v(other, i, k) : -1;
          CHECK(rb[i * n + k] == want, "gather g%d r%d block %d elem %d: %d", g, r, i, k, rb[i * n + k]);
        }
      /* scatter: the root's block j for remote rank j */
      int *big = malloc(sizeof(int) * (size_t)(n * t->rs + 1));
      for (int j = 0; j < t->rs; j++)
        for (int k = 0; k < n; k++) big[j * n + k] = v(g * 10 + r, j, k);
      for (int k = 0; k < n; k++) rb[k] = -1;
      CHECK_MPI(MPI_Scatter(big, n, MPI_INT, rb, n, MPI_INT, root, t->c));
      for (int k = 0; k < n; k++) {
        int want = root >= 0 ? v(g * 10 + r, t->lr, k) : -1;
        CHECK(rb[k] == want, "scatter g%d r%d elem %d: %d want %d", g, r, k, rb[k], want);
      }
      free(big);
    }
}

static void bad_input(const inter_t *t) {
  int a[4] = {0}, b[4] = {0};
  CHECK_MPI(MPI_Comm_set_errhandler(t->c, MPI_ERRORS_RETURN));
  CHECK_CLASS(MPI_Bcast(a, 1, MPI_INT, t->rs, t->c), MPI_ERR_ROOT);
  CHECK_CLASS(MPI_Reduce(a, b, 1, MPI_INT, MPI_SUM, -7, t->c), MPI_ERR_ROOT);
  CHECK_CLASS(MPI_Allreduce(MPI_IN_PLACE, b, 1, MPI_INT, MPI_SUM, t->c), MPI_ERR_BUFFER);
  CHECK_CLASS(MPI_Allgather(a, -1, MPI_INT, b, 1, MPI_INT, t->c), MPI_ERR_COUNT);
  CHECK_MPI(MPI_Comm_set_errhandler(t->c, MPI_ERRORS_ARE_FATAL));
  CHECK_MPI(MPI_Barrier(t->c));
}

static void run(int color, int wrank) {
  MPI_Comm half;
  inter_t t;
  t.color = color;
  CHECK_MPI(MPI_Comm_split(MPI_COMM_WORLD, color, wrank, &half));
  /* remote leader: the lowest world rank of the other group */
  int size;
  CHECK_MPI(MPI_Comm_size(MPI_COMM_WORLD, &size));
  int remote_leader = -1;
  int *colors = malloc(sizeof(int) * (size_t)size);
  CHECK_MPI(MPI_Allgather(&color, 1, MPI_INT, colors, 1, MPI_INT, MPI_COMM_WORLD));
  for (int r = 0; r < size && remote_leader < 0; r++)
    if (colors[r] != color) remote_leader = r;
  free(colors);
  CHECK_MPI(MPI_Intercomm_create(half, 0, MPI_COMM_WORLD, remote_leader, 7, &t.c));
  CHECK_MPI(MPI_Comm_rank(t.c, &t.lr));
  CHECK_MPI(MPI_Comm_size(t.c, &t.ls));
  CHECK_MPI(MPI_Comm_remote_size(t.c, &t.rs));
  CHECK_MPI(MPI_Barrier(t.c));
  int ns[2] = {3, 5000};
  for (int i = 0; i < 2; i++) {
    int n = ns[i];
    int *sb = malloc(sizeof(int) * (size_t)n), *rb = malloc(sizeof(int) * (size_t)(n * 8 + 1));
    check_bcast(&t, n, rb);
    check_reduce(&t, n, sb, rb);
    check_gathers(&t, n, sb, rb);
    free(sb);
    free(rb);
  }
  bad_input(&t);
  CHECK_MPI(MPI_Comm_free(&t.c));
  CHECK_MPI(MPI_Comm_free(&half));
}

static MPI_Comm make_inter(int color, int wrank, inter_t *t) {
  MPI_Comm half;
  int size;
  t->color = color;
  CHECK_MPI(MPI_Comm_size(MPI_COMM_WORLD, &size));
  CHECK_MPI(MPI_Comm_split(MPI_COMM_WORLD, color, wrank, &half));
  int remote_leader = -1;
  for (int r = 0; r < size && remote_leader < 0; r++)
    if (r % 2 != color) remote_leader = r;
  CHECK_MPI(MPI_Intercomm_create(half, 0, MPI_COMM_WORLD, remote_leader, 8, &t->c));
  CHECK_MPI(MPI_Comm_rank(t->c, &t->lr));
  CHECK_MPI(MPI_Comm_size(t->c, &t->ls));
  CHECK_MPI(MPI_Comm_remote_size(t->c, &t->rs));
  return half;
}

/* The collectives added after the first seven, on an intercommunicator with a dead member: blocking (nb = 0)
 * or all started at once and then waited for one by one (nb = 1). Every call returns MPI_SUCCESS or
 * MPI_ERR_PROC_FAILED; `direct` (a group that exchanges with the dead rank itself) requires MPI_ERR_PROC_FAILED
 * from (I)Alltoall. */
static void vector_calls(const inter_t *t, int root, int direct, int nb) {
  static int a[8 * 64], b[8 * 64];
  int counts[8], displs[8], bytes[8];
  MPI_Datatype types[8];
  for (int i = 0; i < 8; i++) counts[i] = 8, displs[i] = 8 * i, bytes[i] = 32 * i, types[i] = MPI_INT;
  const int rc = 8 * t->rs; /* Reduce_scatter_block: both groups reduce ls*rs*8 ints */
  int rcounts[8];
  for (int i = 0; i < t->ls; i++) rcounts[i] = rc;
  if (!nb) {
    CHECK_CLASS2(MPI_Gatherv(a, 8, MPI_INT, b, counts, displs, MPI_INT, root, t->c), MPI_SUCCESS, MPI_ERR_PROC_FAILED);
    CHECK_CLASS2(MPI_Scatterv(a, counts, displs, MPI_INT, b, 8, MPI_INT, root, t->c), MPI_SUCCESS,
                 MPI_ERR_PROC_FAILED);
    CHECK_CLASS2(MPI_Allgatherv(a, 8, MPI_INT, b, counts, displs, MPI_INT, t->c), MPI_SUCCESS, MPI_ERR_PROC_FAILED);
    int rc2 = MPI_Alltoall(a, 8, MPI_INT, b, 8, MPI_INT, t->c);
    CHECK_CLASS2(rc2, MPI_SUCCESS, MPI_ERR_PROC_FAILED);
    if (direct) CHECK_CLASS(rc2, MPI_ERR_PROC_FAILED);
    CHECK_CLASS2(MPI_Alltoallv(a, counts, displs, MPI_INT, b, counts, displs, MPI_INT, t->c), MPI_SUCCESS,
                 MPI_ERR_PROC_FAILED);
    CHECK_CLASS2(MPI_Alltoallw(a, counts, bytes, types, b, counts, bytes, types, t->c), MPI_SUCCESS,
                 MPI_ERR_PROC_FAILED);
    CHECK_CLASS2(MPI_Reduce_scatter_block(a, b, rc, MPI_INT, MPI_SUM, t->c), MPI_SUCCESS, MPI_ERR_PROC_FAILED);
    CHECK_CLASS2(MPI_Reduce_scatter(a, b, rcounts, MPI_INT, MPI_SUM, t->c), MPI_SUCCESS, MPI_ERR_PROC_FAILED);
    return;
  }
  /* Each request has its own receive buffer (the rest only read theirs). */
  static int rb[16][8 * 64];
  MPI_Request r[16];
  int n = 0;
  CHECK_MPI(MPI_Ibarrier(t->c, &r[n++]));
  CHECK_MPI(MPI_Ibcast(rb[n], 8, MPI_INT, root, t->c, &r[n])); n++;
  CHECK_MPI(MPI_Ireduce(a, rb[n], 8, MPI_INT, MPI_SUM, root, t->c, &r[n])); n++;
  CHECK_MPI(MPI_Iallreduce(a, rb[n], 8, MPI_INT, MPI_SUM, t->c, &r[n])); n++;
  CHECK_MPI(MPI_Igather(a, 8, MPI_INT, rb[n], 8, MPI_INT, root, t->c, &r[n])); n++;
  CHECK_MPI(MPI_Iscatter(a, 8, MPI_INT, rb[n], 8, MPI_INT, root, t->c, &r[n])); n++;
  CHECK_MPI(MPI_Iallgather(a, 8, MPI_INT, rb[n], 8, MPI_INT, t->c, &r[n])); n++;
  CHECK_MPI(MPI_Igatherv(a, 8, MPI_INT, rb[n], counts, displs, MPI_INT, root, t->c, &r[n])); n++;
  CHECK_MPI(MPI_Iscatterv(a, counts, displs, MPI_INT, rb[n], 8, MPI_INT, root, t->c, &r[n])); n++;
  CHECK_MPI(MPI_Iallgatherv(a, 8, MPI_INT, rb[n], counts, displs, MPI_INT, t->c, &r[n])); n++;
  const int ia2a = n;
  CHECK_MPI(MPI_Ialltoall(a, 8, MPI_INT, rb[n], 8, MPI_INT, t->c, &r[n])); n++;
  CHECK_MPI(MPI_Ialltoallv(a, counts, displs, MPI_INT, rb[n], counts, displs, MPI_INT, t->c, &r[n])); n++;
  CHECK_MPI(MPI_Ialltoallw(a, counts, bytes, types, rb[n], counts, bytes, types, t->c, &r[n])); n++;
  CHECK_MPI(MPI_Ireduce_scatter_block(a, rb[n], rc, MPI_INT, MPI_SUM, t->c, &r[n])); n++;
  CHECK_MPI(MPI_Ireduce_scatter(a, rb[n], rcounts, MPI_INT, MPI_SUM, t->c, &r[n])); n++;
  for (int i = 0; i < n; i++) {
    int rc3 = MPI_Wait(&r[i], MPI_STATUS_IGNORE);
    CHECK_CLASS2(rc3, MPI_SUCCESS, MPI_ERR_PROC_FAILED);
    if (direct && i == ia2a) CHECK_CLASS(rc3, MPI_ERR_PROC_FAILED);
  }
}

static void dead(void) {
  int rank, size;
  ft_init(NULL, NULL, &rank, &size);
  CHECK(size >= 4, "dead needs 4 ranks or more");
  inter_t t;
  MPI_Comm half = make_inter(rank % 2, rank, &t);
  CHECK_MPI(MPI_Comm_set_errhandler(t.c, MPI_ERRORS_RETURN));
  CHECK_MPI(MPI_Comm_set_errhandler(half, MPI_ERRORS_RETURN));
  CHECK_MPI(ft_sync_all(MPI_COMM_WORLD));
  if (rank == size - 1) ft_die();
  int a[64] = {0}, b[8 * 64] = {0};
  const int dead_color = (size - 1) % 2;
  for (int round = 0; round < 2; round++) {
    /* roots: local rank 0 of the group without the dead rank */
    int root = t.color == dead_color ? 0 : (t.lr == 0 ? MPI_ROOT : MPI_PROC_NULL);
    CHECK_CLASS2(MPI_Barrier(t.c), MPI_SUCCESS, MPI_ERR_PROC_FAILED);
    int rc = MPI_Allreduce(a, b, 64, MPI_INT, MPI_SUM, t.c);
    CHECK_CLASS2(rc, MPI_SUCCESS, MPI_ERR_PROC_FAILED);
    if (t.color == dead_color && t.lr == 0) CHECK_CLASS(rc, MPI_ERR_PROC_FAILED);
    CHECK_CLASS2(MPI_Bcast(a, 64, MPI_INT, root, t.c), MPI_SUCCESS, MPI_ERR_PROC_FAILED);
    CHECK_CLASS2(MPI_Reduce(a, b, 64, MPI_INT, MPI_SUM, root, t.c), MPI_SUCCESS, MPI_ERR_PROC_FAILED);
    CHECK_CLASS2(MPI_Allgather(a, 64, MPI_INT, b, 64, MPI_INT, t.c), MPI_SUCCESS, MPI_ERR_PROC_FAILED);
    CHECK_CLASS2(MPI_Gather(a, 64, MPI_INT, b, 64, MPI_INT, root, t.c), MPI_SUCCESS, MPI_ERR_PROC_FAILED);
    CHECK_CLASS2(MPI_Scatter(b, 64, MPI_INT, a, 64, MPI_INT, root, t.c), MPI_SUCCESS, MPI_ERR_PROC_FAILED);
    vector_calls(&t, root, t.color != dead_color, 0);
  }
  vector_calls(&t, t.color == dead_color ? 0 : (t.lr == 0 ? MPI_ROOT : MPI_PROC_NULL), t.color != dead_color, 1);
  ft_wait_failed(MPI_COMM_WORLD, 1, 10.0);
  ft_pass(MPI_COMM_WORLD, "coll_inter dead");
  MPI_Finalize();
}

/* The revoked intercommunicators are freed only after ft_pass (see coll_ft.c: context reuse after a revoke). */
static MPI_Comm revoked_inter = MPI_COMM_NULL, probe = MPI_COMM_NULL;

static void revoke(void) {
  int rank, size;
  ft_init(NULL, NULL, &rank, &size);
  CHECK(size >= 3, "revoke needs 3 ranks or more");
  inter_t t;
  MPI_Comm half = make_inter(rank % 2, rank, &t);
  revoked_inter = t.c;
  CHECK_MPI(MPI_Comm_set_errhandler(t.c, MPI_ERRORS_RETURN));
  CHECK_MPI(MPI_Comm_dup(t.c, &probe));
  CHECK_MPI(MPI_Comm_set_errhandler(probe, MPI_ERRORS_RETURN));
  int supported = 0;
  if (rank == 0) supported = MPIX_Comm_revoke(probe) == MPI_SUCCESS;
  CHECK_MPI(MPI_Bcast(&supported, 1, MPI_INT, 0, MPI_COMM_WORLD));
  CHECK(supported, "MPIX_Comm_revoke on an intercommunicator");
  {
    int a[64] = {0}, b[8 * 64] = {0}, c[8 * 64] = {0}, counts[8], displs[8];
    for (int i = 0; i < 8; i++) counts[i] = 8, displs[i] = 8 * i;
    if (rank == 0) {
      ft_sleep_ms(200);
      CHECK_MPI(MPIX_Comm_revoke(t.c));
    } else if (t.color == 1) {
      MPI_Request r[5];
      const double t0 = ft_now();
      CHECK_MPI(MPI_Iallreduce(a, b, 8, MPI_INT, MPI_SUM, t.c, &r[0]));
      CHECK_MPI(MPI_Ialltoall(b, 8, MPI_INT, c, 8, MPI_INT, t.c, &r[1]));
      CHECK_MPI(MPI_Iallgatherv(a, 8, MPI_INT, c, counts, displs, MPI_INT, t.c, &r[2]));
      CHECK_MPI(MPI_Ireduce_scatter_block(b, c, 8, MPI_INT, MPI_SUM, t.c, &r[3]));
      CHECK_MPI(MPI_Ibarrier(t.c, &r[4]));
      for (int i = 0; i < 5; i++) CHECK_CLASS(MPI_Wait(&r[i], MPI_STATUS_IGNORE), MPI_ERR_REVOKED);
      CHECK(ft_now() - t0 < 20.0, "the revoke took too long to interrupt");
    }
    /* blocking calls: at once where the revoke is known, interrupted where it is still on its way */
    CHECK_CLASS(MPI_Barrier(t.c), MPI_ERR_REVOKED);
    CHECK_CLASS(MPI_Alltoall(b, 8, MPI_INT, c, 8, MPI_INT, t.c), MPI_ERR_REVOKED);
    CHECK_CLASS(MPI_Allgatherv(a, 8, MPI_INT, c, counts, displs, MPI_INT, t.c), MPI_ERR_REVOKED);
    CHECK_CLASS(MPI_Reduce_scatter_block(b, c, 8, MPI_INT, MPI_SUM, t.c), MPI_ERR_REVOKED);
    CHECK_CLASS(MPI_Gatherv(a, 8, MPI_INT, c, counts, displs, MPI_INT, t.color ? 0 : (t.lr ? MPI_PROC_NULL : MPI_ROOT),
                            t.c),
                MPI_ERR_REVOKED);
  }
  CHECK_MPI(MPI_Comm_free(&half));
  ft_pass(MPI_COMM_WORLD, "coll_inter revoke");
  CHECK_MPI(MPI_Comm_free(&probe));
  CHECK_MPI(MPI_Comm_free(&revoked_inter));
  MPI_Finalize();
}

int main(int argc, char **argv) {
  int rank, size;
  if (argc > 1 && strcmp(argv[1], "dead") == 0) {
    dead();
    return 0;
  }
  if (argc > 1 && strcmp(argv[1], "revoke") == 0) {
    revoke();
    return 0;
  }
  CHECK_MPI(MPI_Init(&argc, &argv));
  CHECK_MPI(MPI_Comm_rank(MPI_COMM_WORLD, &rank));
  CHECK_MPI(MPI_Comm_size(MPI_COMM_WORLD, &size));
  CHECK(size <= 8, "at most 8 ranks");
  if (size > 1) {
    run(rank % 2, rank);
    run(rank < size / 3 || rank == 0 ? 0 : 1, rank);
  }
  CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
  if (rank == 0) printf("PASS coll_inter\n");
  CHECK_MPI(MPI_Finalize());
  return 0;
}
