/* ft_start: MPI_Init and the first communication of a fault-tolerant job when a rank dies early.
 * Usage: ft_start VICTIM MODE [TOKEN]
 *   MODE none   rank VICTIM does nothing special (the launcher kills or stops it, or a wrapper makes it
 *               die before or during MPI_Init)
 *   MODE kill   rank VICTIM raise(SIGKILL)s right after MPI_Init
 *   MODE exit3  rank VICTIM calls exit(3) right after MPI_Init
 * Every other rank: MPI_Barrier on MPI_COMM_WORLD (MPI_ERRORS_RETURN) until one fails (at most 30 s),
 * then acknowledges the failures, checks that VICTIM is among them and prints
 * "rank R sees rank V failed", shrinks MPI_COMM_WORLD, runs an Allreduce on the shrunk communicator,
 * prints "rank R shrunk to N sum S", and finalizes. Exit 0 on success, 2-6 for what went wrong.
 * PASS is decided by tests/launcher/launcher_test.sh (cases ft_init_death, ft_cause, ft_early_stop). */
#include <mpi.h>
#include <mpi-ext.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <unistd.h>

int main(int argc, char **argv) {
  if (argc < 3) return 64;
  int victim = atoi(argv[1]);
  const char *mode = argv[2];
  if (MPI_Init(&argc, &argv) != MPI_SUCCESS) return 2;
  int rank = -1, size = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  if (rank == victim) {
    if (!strcmp(mode, "kill")) raise(SIGKILL);
    if (!strcmp(mode, "exit3")) exit(3);
  }
  double t0 = MPI_Wtime();
  int rc = MPI_SUCCESS;
  while (MPI_Wtime() - t0 < 30) {
    rc = MPI_Barrier(MPI_COMM_WORLD);
    if (rc != MPI_SUCCESS) break;
    usleep(1000);
  }
  if (rc == MPI_SUCCESS) {
    printf("rank %d: no failure seen in 30 s\n", rank);
    return 3;
  }
  MPI_Group failed, world;
  int nfailed = 0, victim_failed = MPI_UNDEFINED;
  MPIX_Comm_failure_ack(MPI_COMM_WORLD);
  MPIX_Comm_failure_get_acked(MPI_COMM_WORLD, &failed);
  MPI_Group_size(failed, &nfailed);
  MPI_Comm_group(MPI_COMM_WORLD, &world);
  MPI_Group_translate_ranks(world, 1, &victim, failed, &victim_failed);
  if (victim_failed == MPI_UNDEFINED) {
    char msg[MPI_MAX_ERROR_STRING];
    int len = 0, cls = -1;
    MPI_Error_class(rc, &cls);
    MPI_Error_string(rc, msg, &len);
    printf("rank %d: rank %d not among the %d failed (Barrier gave class %d: %s)\n", rank, victim, nfailed, cls,
           msg);
    return 4;
  }
  printf("rank %d sees rank %d failed\n", rank, victim);
  fflush(stdout);
  MPI_Comm shrunk;
  if (MPIX_Comm_shrink(MPI_COMM_WORLD, &shrunk) != MPI_SUCCESS) return 5;
  int n = 0, one = 1, sum = 0;
  MPI_Comm_size(shrunk, &n);
  if (MPI_Allreduce(&one, &sum, 1, MPI_INT, MPI_SUM, shrunk) != MPI_SUCCESS) return 6;
  printf("rank %d shrunk to %d sum %d\n", rank, n, sum);
  fflush(stdout);
  MPI_Comm_free(&shrunk);
  MPI_Group_free(&failed);
  MPI_Group_free(&world);
  MPI_Finalize();
  return 0;
}
