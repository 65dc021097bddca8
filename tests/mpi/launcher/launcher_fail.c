/* launcher_fail: a job that ends badly on purpose, to test how mpiexec reports it.
 *
 * Usage: launcher_fail abort|exit3|kill|nofinalize|hang
 *   abort       the last rank calls MPI_Abort(MPI_COMM_WORLD, 7)       -> mpiexec exits 7
 *   exit3       the last rank exits with code 3 without MPI_Finalize   -> mpiexec exits 3
 *   kill        the last rank raises SIGKILL                           -> mpiexec exits 137 (128 + 9)
 *   nofinalize  the last rank exits 0 after MPI_Init, never finalizing -> mpiexec exits 1
 *   hang        every rank blocks in a receive nobody sends            -> mpiexec --timeout ends it (124)
 * The other ranks block in MPI_Recv from the failing rank (so they must be terminated by mpiexec).
 * PASS (declared with EXPECT exit:<code> or fail): mpiexec ends the job promptly with that status and
 * leaves no process behind.  The program never prints FAIL itself in these modes. */
#define _POSIX_C_SOURCE 200809L
#include <signal.h>
#include <time.h>

#include "common/check.h"

int main(int argc, char **argv) {
  int rank, size, v = 0;
  const char *mode = argc > 1 ? argv[1] : "abort";
  CHECK_MPI(MPI_Init(&argc, &argv));
  CHECK_MPI(MPI_Comm_rank(MPI_COMM_WORLD, &rank));
  CHECK_MPI(MPI_Comm_size(MPI_COMM_WORLD, &size));
  int last = size - 1;
  CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
  if (strcmp(mode, "hang") == 0 || rank != last) {
    /* wait for a message that never comes */
    MPI_Recv(&v, 1, MPI_INT, strcmp(mode, "hang") == 0 ? MPI_ANY_SOURCE : last, 99, MPI_COMM_WORLD,
             MPI_STATUS_IGNORE);
    printf("rank %d: the receive returned, which it should not\n", rank);
    return 0;
  }
  struct timespec ts = {0, 100 * 1000 * 1000};
  nanosleep(&ts, NULL); /* let the others block first */
  if (strcmp(mode, "abort") == 0) MPI_Abort(MPI_COMM_WORLD, 7);
  if (strcmp(mode, "exit3") == 0) exit(3);
  if (strcmp(mode, "kill") == 0) raise(SIGKILL);
  if (strcmp(mode, "nofinalize") == 0) exit(0);
  printf("unknown mode %s\n", mode);
  return 2;
}
