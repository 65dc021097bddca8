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
 * world rank dies; the survivors call Barrier, Allreduce, Bcast, Reduce, Allgather, Gather and Scatter twice
 * each: every call returns MPI_SUCCESS or MPI_ERR_PROC_FAILED and none hangs (a leader whose local phase failed
 * still serves the other group), and the dead rank's group leader sees MPI_ERR_PROC_FAILED from Allreduce.
 * PASS: a survivor prints PASS after the shrink of MPI_COMM_WORLD. */
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
  }
  ft_wait_failed(MPI_COMM_WORLD, 1, 10.0);
  ft_pass(MPI_COMM_WORLD, "coll_inter dead");
  MPI_Finalize();
}

int main(int argc, char **argv) {
  int rank, size;
  if (argc > 1 && strcmp(argv[1], "dead") == 0) {
    dead();
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
