/* ft_famp_channel_hold: FA-MPI operations over an agreement channel keep it while they are pending.
 * MPI_TryBlock_group_isync over a strict subset G = {0..size-2} of MPI_COMM_WORLD agrees on an agreement channel
 * of G's members (FtManager::channel). While its request is pending, G makes 300
 * distinct MPI_Comm_create_group channels (tags 100..399): beyond 256 live channels the least recently used
 * idle one is compacted into a record, and the FA-MPI channel is the oldest — idle once its agreement decided
 * (during the loop). An MPI_Comm_igroup_sync over G stays pending across the loop too (it holds its channel the
 * same way; until skipfree2 it could not: it and the blocking creations claimed the same lowest free context id,
 * MPI_ERR_INTERN "context id already in use"; its ids now come from the non-blocking pool). Before the fix the operations then read a freed channel and a freed agreement
 * (use after free: a wrong outcome or a crash, or nothing visible — an ASan build sees it); now they hold it.
 * Rank size-1 is outside G: it only takes part in the TryBlock's start and commit.
 * PASS: the isync completes with MPI_SUCCESS, the igroup_sync gives a communicator of |G| members that works,
 * the block commits, twice over. */
#include "ft_check.h"

#define CHANNELS 300

int main(int argc, char **argv) {
  CHECK_MPI(MPI_Init(&argc, &argv));
  CHECK_MPI(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  CHECK(size >= 3, "needs 3 ranks or more");
  MPI_Group wg, g;
  CHECK_MPI(MPI_Comm_group(MPI_COMM_WORLD, &wg));
  const int outside = size - 1;
  CHECK_MPI(MPI_Group_excl(wg, 1, &outside, &g));
  const int member = rank != outside;
  for (int round = 0; round < 2; round++) {
    int inj = 0, st0[64], gathered[64], try_flag = -1;
    MPI_Request tb;
    CHECK_MPI(MPI_TryBlock_start(MPI_COMM_WORLD, MPI_INT, &inj, st0, MPI_TIMEOUT_ZERO, &tb));
    if (member) {
      MPI_Request q[2];
      MPI_Comm c = MPI_COMM_NULL;
      CHECK_MPI(MPI_TryBlock_group_isync(g, tb, MPI_TIMEOUT_ZERO, &q[0]));
      CHECK_MPI(MPI_Comm_igroup_sync(MPI_COMM_WORLD, 7 + round, g, MPI_TIMEOUT_ZERO, &c, &q[1]));
      for (int k = 0; k < CHANNELS; k++) {
        MPI_Comm d = MPI_COMM_NULL;
        CHECK_MPI(MPI_Comm_create_group(MPI_COMM_WORLD, g, 100 + k + round * CHANNELS, &d));
        CHECK(d != MPI_COMM_NULL, "create_group %d: no communicator", k);
        CHECK_MPI(MPI_Comm_free(&d));
      }
      int rc = MPI_Wait(&q[1], MPI_STATUS_IGNORE);
      CHECK(rc == MPI_SUCCESS && c != MPI_COMM_NULL, "round %d: igroup_sync gave %s", round, ft_class_name(rc));
      rc = MPI_Wait(&q[0], MPI_STATUS_IGNORE);
      CHECK(rc == MPI_SUCCESS, "round %d: group_isync gave %s", round, ft_class_name(rc));
      CHECK_MPI(MPI_Comm_set_errhandler(c, MPI_ERRORS_RETURN));
      int n = 0, sum = 0, one = 1;
      MPI_Comm_size(c, &n);
      CHECK(n == size - 1, "round %d: igroup_sync made %d members", round, n);
      CHECK_MPI(MPI_Allreduce(&one, &sum, 1, MPI_INT, MPI_SUM, c));
      CHECK(sum == size - 1, "round %d: allreduce over the new communicator gave %d", round, sum);
      CHECK_MPI(MPI_Comm_free(&c));
    }
    const int rc = MPI_TryBlock_waitall(tb, &try_flag, MPI_STATUS_IGNORE, MPI_INT, &inj, gathered, MPI_TIMEOUT_ZERO, 0,
                                        NULL, NULL, NULL, NULL);
    CHECK(rc == MPI_SUCCESS && try_flag == 1, "round %d: commit rc %d try_flag %d", round, rc, try_flag);
    CHECK_MPI(MPI_Request_free(&tb));
  }
  MPI_Group_free(&g);
  MPI_Group_free(&wg);
  if (rank == 0) printf("ft_famp_channel_hold: 2 rounds of %d channels while FA-MPI operations held one\n", CHANNELS);
  ft_pass(MPI_COMM_WORLD, "ft_famp_channel_hold");
  CHECK_MPI(MPI_Finalize());
  return 0;
}
