/* comm_create_group_seq — MPI_Comm_create_group called one after another, always with the same tag, over
 * groups that overlap but differ (each process calls only those it belongs to). A member that has finished
 * one call may already be in the next one, over another group, while a fellow member of the first call is
 * still in it: the two calls' messages must not be taken for each other (MPI-3.1 §6.4.2 asks for distinct
 * tags only for calls that are concurrent at one process). Before the fix ftmpi deadlocked here (MPICH suite
 * comm/comm_group_rand, 4 and 8 ranks). Each new communicator is checked (size, rank order, an allreduce)
 * before it is freed. Also: a group that is a rotation of the parent's (ranks in another order).
 * Portable MPI; any number of ranks (4+ to be interesting). */
#include "common/check.h"

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  MPI_Group world;
  MPI_Comm_group(MPI_COMM_WORLD, &world);
  int *members = malloc(sizeof(int) * (size_t)size);
  unsigned seed = 12345u;
  for (int iter = 0; iter < 200; ++iter) {
    /* the same pseudo-random subset on every rank (a linear congruential step per rank) */
    int n = 0, me = -1;
    for (int r = 0; r < size; ++r) {
      seed = seed * 1103515245u + 12345u;
      if ((seed >> 16) & 1u) {
        if (r == rank) me = n;
        members[n++] = r;
      }
    }
    if (iter % 7 == 0 && n > 1) { /* rotate: group order differs from the parent's */
      const int first = members[0];
      for (int i = 0; i + 1 < n; ++i) members[i] = members[i + 1];
      members[n - 1] = first;
      if (me >= 0) me = (me + n - 1) % n;
    }
    if (me < 0) continue;
    MPI_Group g;
    CHECK_MPI(MPI_Group_incl(world, n, members, &g));
    MPI_Comm c;
    CHECK_MPI(MPI_Comm_create_group(MPI_COMM_WORLD, g, 7, &c));
    int csize = -1, crank = -1;
    MPI_Comm_size(c, &csize);
    MPI_Comm_rank(c, &crank);
    CHECK(csize == n && crank == me, "iteration %d: size %d rank %d, want %d %d", iter, csize, crank, n, me);
    int sum = 0, mine = members[crank];
    CHECK_MPI(MPI_Allreduce(&mine, &sum, 1, MPI_INT, MPI_SUM, c));
    int want = 0;
    for (int i = 0; i < n; ++i) want += members[i];
    CHECK(sum == want, "iteration %d: allreduce %d, want %d", iter, sum, want);
    CHECK_MPI(MPI_Comm_free(&c));
    CHECK_MPI(MPI_Group_free(&g));
  }
  free(members);
  MPI_Group_free(&world);
  CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
  if (rank == 0) printf("comm_create_group_seq: OK\n");
  MPI_Finalize();
  return 0;
}
