/* ft_mpi_finalize: a real MPI program under mpiexec --with-ft ulfm. Usage: ft_mpi_finalize VICTIM MS [TOKEN]
 * Rank VICTIM raise(SIGKILL)s right after MPI_Init; every rank else sleeps MS milliseconds (its service
 * thread heartbeats meanwhile), prints "rank R finalizing" and calls MPI_Finalize.
 * PASS (decided by launcher_test.sh, case ft_mpi): exit status 0, every other rank finalizes, the summary
 * line names the victim; with --inject signal=STOP instead, the stopped rank is declared hung.
 * With FTMPI_TEST_SAY_UP set, each rank prints "rank R up" right after MPI_Init (case shm_killall).
 * With FTMPI_TEST_STOP_AFTER_FINALIZE=R, rank R prints "rank R stopping" and raise(SIGSTOP)s right after
 * MPI_Finalize returned (case ft_late_stop: mpiexec must not wait for it forever). */
#include <mpi.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  if (argc < 3) return 64;
  if (getenv("FTMPI_TEST_SAY_UP")) { /* case shm_killall: tell the script that MPI_Init returned here */
    printf("rank %d up\n", rank);
    fflush(stdout);
  }
  if (rank == atoi(argv[1])) raise(SIGKILL);
  usleep((useconds_t)atoi(argv[2]) * 1000);
  printf("rank %d finalizing\n", rank);
  fflush(stdout);
  MPI_Finalize();
  const char *stop = getenv("FTMPI_TEST_STOP_AFTER_FINALIZE");
  if (stop && atoi(stop) == rank) {
    printf("rank %d stopping\n", rank);
    fflush(stdout);
    raise(SIGSTOP);
  }
  return 0;
}
