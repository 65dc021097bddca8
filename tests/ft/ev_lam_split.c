/* ev_lam_split <victims,comma-separated|-> [during|stopped] — MPI_Comm_split on a wounded communicator in LAM's reliable
 * mode (seed 002 §7.3.3; `mpiexec --with-ft lam`), and seed 002's Figure 14 subset pattern.
 *
 * The victims die right after a barrier (raise(SIGKILL)); with `during`, mpiexec's --inject at=MPI_Comm_split:1
 * kills them inside their first split instead (the test passes `-` as the victim list then, and the victims are
 * given by the injection: every rank whose FTMPI_INJECT_AT is set). The survivors call MPI_Comm_split(world,
 * rank % 3, -rank) at once, without waiting for the failure notices.
 *
 * With `stopped`, the victims stop themselves (raise(SIGSTOP)) instead of dying; the detector declares them hung
 * and mpiexec kills them while the survivors wait in their split.
 *
 * PASS when on every survivor: the split succeeds; the new communicator holds exactly the survivors of the same
 * color, ordered by key (descending world rank); every member of it agrees on its members (each one's list of
 * world ranks is gathered and compared); then Figure 14 — new = split(orig, 0, 0); free(orig) — gives a
 * communicator of all survivors on which Allreduce works; MPI_Comm_free of the wounded communicators succeeds. */

#include "ft_check.h"
#include <string.h>

#define MAXR 64

static MPI_Comm subset_comm(MPI_Comm orig_comm) { /* seed 002, Figure 14 */
  MPI_Comm new_comm;
  CHECK_MPI(MPI_Comm_split(orig_comm, 0, 0, &new_comm));
  CHECK_MPI(MPI_Comm_free(&orig_comm));
  return new_comm;
}

int main(int argc, char **argv) {
  int rank, size;
  ft_init(&argc, &argv, &rank, &size);
  CHECK(argc >= 2, "usage: ev_lam_split victims|- [during|stopped]");
  CHECK(size <= MAXR);
  int during = argc > 2 && strcmp(argv[2], "during") == 0;
  int victim[MAXR] = {0}, nvict = 0;
  if (strcmp(argv[1], "-") != 0)
    for (char *p = strtok(argv[1], ","); p; p = strtok(NULL, ",")) {
      int v = atoi(p);
      CHECK(v >= 0 && v < size, "victim %d", v);
      victim[v] = 1;
      nvict++;
    }
  if (during) { /* the victims are the ranks the injection will kill: learn them by an Allgather first */
    int mine = getenv("FTMPI_INJECT_AT") != NULL, all[MAXR];
    CHECK_MPI(MPI_Allgather(&mine, 1, MPI_INT, all, 1, MPI_INT, MPI_COMM_WORLD));
    for (int r = 0; r < size; r++)
      if (all[r]) victim[r] = 1, nvict++;
  }
  CHECK(!victim[0], "rank 0 must survive");
  MPI_Comm orig;
  CHECK_MPI(MPI_Comm_dup(MPI_COMM_WORLD, &orig));
  CHECK_MPI(MPI_Comm_set_errhandler(orig, MPI_ERRORS_RETURN));
  CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
  int stopped = argc > 2 && strcmp(argv[2], "stopped") == 0; /* mpiexec --inject ...,signal=STOP stops the victims */
  if (victim[rank] && stopped) {
    raise(SIGSTOP);
    for (;;) pause();
  }
  if (victim[rank] && !during) ft_die();

  MPI_Comm c;
  int color = rank % 3;
  CHECK_MPI(MPI_Comm_split(MPI_COMM_WORLD, color, -rank, &c));
  CHECK(!victim[rank], "a victim came back from its split");
  int expect[MAXR], ne = 0;
  for (int r = size - 1; r >= 0; r--)
    if (!victim[r] && r % 3 == color) expect[ne++] = r;
  int csize, crank;
  MPI_Comm_size(c, &csize);
  MPI_Comm_rank(c, &crank);
  CHECK(csize == ne, "split: %d members, expected %d", csize, ne);
  CHECK(expect[crank] == rank, "split: my rank %d holds world rank %d", crank, expect[crank]);
  int mine[MAXR] = {0}, all[MAXR * MAXR];
  MPI_Group g, wg;
  MPI_Comm_group(c, &g);
  MPI_Comm_group(MPI_COMM_WORLD, &wg);
  for (int r = 0; r < csize; r++) MPI_Group_translate_ranks(g, 1, &r, wg, &mine[r]);
  MPI_Group_free(&g);
  MPI_Group_free(&wg);
  CHECK_MPI(MPI_Allgather(mine, MAXR, MPI_INT, all, MAXR, MPI_INT, c));
  for (int q = 0; q < csize; q++)
    CHECK(memcmp(all + q * MAXR, mine, sizeof mine) == 0, "member %d of the new communicator sees other members", q);
  CHECK_MPI(MPI_Comm_free(&c));

  MPI_Comm healthy = subset_comm(orig);
  int hsize, sum = 0, esum = 0;
  MPI_Comm_size(healthy, &hsize);
  CHECK(hsize == size - nvict, "Figure 14: %d members, expected %d", hsize, size - nvict);
  for (int r = 0; r < size; r++) esum += victim[r] ? 0 : r;
  CHECK_MPI(MPI_Allreduce(&rank, &sum, 1, MPI_INT, MPI_SUM, healthy));
  CHECK(sum == esum, "Figure 14: Allreduce gave %d, expected %d", sum, esum);
  CHECK_MPI(MPI_Barrier(healthy));
  if (rank == 0) printf("PASS ev_lam_split (%d ranks, %d victims%s)\n", size, nvict, during ? ", killed inside the split" : "");
  CHECK_MPI(MPI_Comm_free(&healthy));
  MPI_Finalize();
  return 0;
}
