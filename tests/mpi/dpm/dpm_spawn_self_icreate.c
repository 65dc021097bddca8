/* MPI_Intercomm_create between MPI_COMM_WORLD and processes that only WORLD rank 0 spawned, over
 * MPI_COMM_SELF: the other WORLD ranks never make a dynamic-process call, they meet the children through
 * the intercommunicator only (peer_comm is significant at the leaders only, the others pass
 * MPI_COMM_NULL). Then merge, an Allreduce and a ring over everybody: every pair must be able to talk.
 * (ftmpi hung here: the children could not reach WORLD ranks that had no dynamic-process listener.)
 * Open MPI 4.1 refuses an intercommunicator as peer_comm (MPI_ERR_COMM), which MPI-3.1 §6.6.2 allows. */
#include <mpi.h>
#include <stdio.h>

#define NCHILD 2

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm parent, inter, all;
  MPI_Comm_get_parent(&parent);
  int rank, fails = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  if (parent == MPI_COMM_NULL) {
    MPI_Comm child = MPI_COMM_NULL;
    if (rank == 0)
      MPI_Comm_spawn(argv[0], MPI_ARGV_NULL, NCHILD, MPI_INFO_NULL, 0, MPI_COMM_SELF, &child, MPI_ERRCODES_IGNORE);
    MPI_Intercomm_create(MPI_COMM_WORLD, 0, rank == 0 ? child : MPI_COMM_NULL, 0, 7, &inter);
    if (child != MPI_COMM_NULL) MPI_Comm_disconnect(&child);
  } else {
    MPI_Intercomm_create(MPI_COMM_WORLD, 0, parent, 0, 7, &inter);
  }
  int rsize = 0;
  MPI_Comm_remote_size(inter, &rsize);
  MPI_Intercomm_merge(inter, parent != MPI_COMM_NULL, &all);
  int r, n, sum = 0, got = -1;
  MPI_Comm_rank(all, &r);
  MPI_Comm_size(all, &n);
  MPI_Allreduce(&r, &sum, 1, MPI_INT, MPI_SUM, all);
  if (sum != n * (n - 1) / 2) { printf("rank %d of %d: Allreduce gave %d\n", r, n, sum); ++fails; }
  MPI_Sendrecv(&r, 1, MPI_INT, (r + 1) % n, 0, &got, 1, MPI_INT, (r + n - 1) % n, 0, all, MPI_STATUS_IGNORE);
  if (got != (r + n - 1) % n) { printf("rank %d: ring gave %d\n", r, got); ++fails; }
  int wsize;
  MPI_Comm_size(MPI_COMM_WORLD, &wsize);
  if (parent == MPI_COMM_NULL ? rsize != NCHILD : rsize < 1) { printf("remote size %d\n", rsize); ++fails; }
  int total = 0;
  MPI_Allreduce(&fails, &total, 1, MPI_INT, MPI_SUM, all);
  if (r == 0) printf("%s (%d processes)\n", total ? "FAIL" : "ok", n);
  MPI_Comm_free(&all);
  MPI_Comm_free(&inter);
  if (parent != MPI_COMM_NULL) MPI_Comm_disconnect(&parent);
  MPI_Finalize();
  return total ? 1 : 0;
}
