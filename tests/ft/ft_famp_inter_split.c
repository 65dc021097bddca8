/* ft_famp_inter_split <victim> — FA-MPI fault-aware creation from an intercommunicator (seed 001 §7.4 with
 * the MPI_Comm_split semantics of MPI-3.1 §6.4.2), with a real SIGKILL.
 *
 * WORLD (even size >= 4) is split into side A (even world ranks) and side B (odd world ranks), joined by
 * MPI_Intercomm_create. World rank <victim> dies (SIGKILL) after a p2p sync (victim -1: nobody dies); the
 * survivors then call, on the intercommunicator:
 *   MPI_Comm_split_sync(color = local rank % 2, key = -local rank) -> MPI_GROUP_SHRUNK (MPI_SUCCESS without a
 *       death): intercommunicators whose local/remote groups are the surviving members of that color on
 *       each side, ordered by descending old local rank (MPI_COMM_NULL when the color has no survivor on
 *       the other side: victim 2 of 6 ranks leaves color 1 without side-A members);
 *   MPI_Comm_split_local(color 0 for all, key = local rank)          -> MPI_SUCCESS, every survivor;
 *   MPI_Comm_isplit_sync + MPI_Wait with a color only side A uses     -> MPI_COMM_NULL everywhere (that color
 *       has no remote group), MPI_GROUP_SHRUNK / MPI_SUCCESS as above;
 *   MPI_Comm_create_group_sync on the intercommunicator              -> MPI_ERR_COMM (intracommunicators only).
 * Every new intercommunicator is checked: sizes, ranks by key, a ping between the two local rank-0s, an
 * Allreduce across the groups (each side receives the sum of the other side's world ranks), and
 * MPI_Intercomm_merge. PASS: every survivor as above, nothing hangs. */
#include "ft_check.h"

static int rank, size, victim;

static int alive(int w) { return w != victim; }

/* Surviving members of side `side` (0: even, 1: odd world ranks) whose side-local rank has parity `parity`
 * (-1: any); their world ranks in local-rank order. */
static int members(int side, int parity, int *out) {
  int n = 0;
  for (int w = side; w < size; w += 2) {
    const int lr = w / 2;
    if (alive(w) && (parity < 0 || lr % 2 == parity)) out[n++] = w;
  }
  return n;
}

static void check_inter(MPI_Comm c, int side, int parity, int by_desc, const char *what) {
  int mine[64], theirs[64];
  const int nl = members(side, parity, mine), nr = members(1 - side, parity, theirs);
  if (nr == 0) { /* the color's only member(s) on the other side died: MPI_COMM_NULL (MPI-3.1 §6.4.2) */
    CHECK(c == MPI_COMM_NULL, "%s: a communicator for a color without remote survivors", what);
    return;
  }
  CHECK(c != MPI_COMM_NULL, "%s: no communicator", what);
  CHECK_MPI(MPI_Comm_set_errhandler(c, MPI_ERRORS_RETURN));
  int flag = 0;
  CHECK_MPI(MPI_Comm_test_inter(c, &flag));
  CHECK(flag, "%s: not an intercommunicator", what);
  int ls, rs, lr;
  MPI_Comm_size(c, &ls);
  MPI_Comm_remote_size(c, &rs);
  MPI_Comm_rank(c, &lr);
  CHECK(ls == nl && rs == nr, "%s: local/remote size %d/%d, expected %d/%d", what, ls, rs, nl, nr);
  int pos = -1;
  for (int i = 0; i < nl; i++)
    if (mine[i] == rank) pos = by_desc ? nl - 1 - i : i;
  CHECK(lr == pos, "%s: world rank %d has local rank %d, expected %d", what, rank, lr, pos);
  /* Ping between the two local rank-0s. */
  if (lr == 0) {
    int out = rank, in = -1;
    CHECK_MPI(MPI_Sendrecv(&out, 1, MPI_INT, 0, 17, &in, 1, MPI_INT, 0, 17, c, MPI_STATUS_IGNORE));
    const int expect = by_desc ? theirs[nr - 1] : theirs[0];
    CHECK(in == expect, "%s: remote rank 0 is world rank %d, expected %d", what, in, expect);
  }
  /* An intercommunicator Allreduce gives each side the other side's sum. */
  int sum = 0, expect = 0, w = rank;
  for (int i = 0; i < nr; i++) expect += theirs[i];
  CHECK_MPI(MPI_Allreduce(&w, &sum, 1, MPI_INT, MPI_SUM, c));
  CHECK(sum == expect, "%s: remote sum %d, expected %d", what, sum, expect);
  MPI_Comm merged;
  CHECK_MPI(MPI_Intercomm_merge(c, side, &merged));
  int ms;
  MPI_Comm_size(merged, &ms);
  CHECK(ms == nl + nr, "%s: merged size %d, expected %d", what, ms, nl + nr);
  MPI_Comm_free(&merged);
}

int main(int argc, char **argv) {
  ft_init(&argc, &argv, &rank, &size);
  CHECK(argc == 2, "usage: ft_famp_inter_split <victim world rank or -1>");
  CHECK(size >= 4 && size % 2 == 0 && size <= 64, "needs an even number of ranks, 4..64");
  victim = atoi(argv[1]);
  CHECK(victim >= -1 && victim < size, "bad victim");
  const int side = rank % 2;
  MPI_Comm local, inter;
  CHECK_MPI(MPI_Comm_split(MPI_COMM_WORLD, side, rank, &local));
  CHECK_MPI(MPI_Intercomm_create(local, 0, MPI_COMM_WORLD, 1 - side, 5, &inter));
  MPI_Comm_set_errhandler(inter, MPI_ERRORS_RETURN);
  int lrank;
  MPI_Comm_rank(local, &lrank);
  CHECK_MPI(ft_sync_all(MPI_COMM_WORLD));
  if (rank == victim) ft_die();
  const int want = victim >= 0 ? MPI_GROUP_SHRUNK : MPI_SUCCESS;

  MPI_Comm a = MPI_COMM_NULL, b = MPI_COMM_NULL, c = MPI_COMM_NULL, d = MPI_COMM_NULL;
  int rc = MPI_Comm_split_sync(inter, lrank % 2, -lrank, MPI_TIMEOUT_ZERO, &a);
  CHECK(rc == want, "split_sync returned %d, expected %d", rc, want);
  check_inter(a, side, lrank % 2, 1, "split_sync");

  rc = MPI_Comm_split_local(inter, 0, lrank, MPI_TIMEOUT_ZERO, &b);
  CHECK(rc == MPI_SUCCESS, "split_local returned %d", rc);
  check_inter(b, side, -1, 0, "split_local");

  MPI_Request req;
  CHECK_MPI(MPI_Comm_isplit_sync(inter, side == 0 ? 9 : MPI_UNDEFINED, lrank, MPI_TIMEOUT_ZERO, &c, &req));
  rc = MPI_Wait(&req, MPI_STATUS_IGNORE);
  CHECK(rc == want, "isplit_sync: %d, expected %d", rc, want);
  CHECK(c == MPI_COMM_NULL, "isplit_sync: a color of one side only gave a communicator");

  MPI_Group g;
  CHECK_MPI(MPI_Comm_group(inter, &g));
  rc = MPI_Comm_create_group_sync(inter, 3, g, MPI_TIMEOUT_ZERO, &d);
  CHECK(check_class_of(rc) == MPI_ERR_COMM, "create_group_sync on an intercommunicator: %d", rc);
  CHECK(d == MPI_COMM_NULL, "create_group_sync on an intercommunicator gave a communicator");
  MPI_Group_free(&g);

  if (a != MPI_COMM_NULL) MPI_Comm_free(&a);
  MPI_Comm_free(&b);
  MPI_Comm_free(&inter);
  MPI_Comm_free(&local);
  ft_pass(MPI_COMM_WORLD, "ft_famp_inter_split");
  MPI_Finalize();
  return 0;
}
