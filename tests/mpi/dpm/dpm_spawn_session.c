/* The Sessions model in spawned processes: a child's mpi://WORLD process set is its own MPI_COMM_WORLD (whose
 * members are not the first world ranks of the job: the parents come first). The parents spawn 3 children;
 * every process (parents and children) opens a session, builds a communicator from mpi://WORLD with
 * MPI_Comm_create_from_group, checks it is congruent with its MPI_COMM_WORLD and sums over it; the children
 * send their sum to the parents' root over the parent intercommunicator.
 * PASS when every sum is the size of the process's own world. Any rank count >= 1. Needs MPI-4 sessions (prints
 * SKIP with an MPI-3 library). */
#include "common/check.h"

#if MPI_VERSION >= 4 || defined(FTMPI)

#define NCHILD 3

static int session_world_sum(void) {
  MPI_Session s;
  MPI_Group g;
  MPI_Comm c;
  CHECK_MPI(MPI_Session_init(MPI_INFO_NULL, MPI_ERRORS_RETURN, &s));
  CHECK_MPI(MPI_Group_from_session_pset(s, "mpi://WORLD", &g));
  int rc = MPI_Comm_create_from_group(g, "org.ftmpi.test.spawn_session", MPI_INFO_NULL, MPI_ERRORS_RETURN, &c);
  CHECK(rc == MPI_SUCCESS, "MPI_Comm_create_from_group on mpi://WORLD returned %d", rc);
  int result = -1, one = 1, sum = 0;
  CHECK_MPI(MPI_Comm_compare(MPI_COMM_WORLD, c, &result));
  CHECK(result == MPI_CONGRUENT, "mpi://WORLD vs MPI_COMM_WORLD: %d", result);
  CHECK_MPI(MPI_Allreduce(&one, &sum, 1, MPI_INT, MPI_SUM, c));
  CHECK_MPI(MPI_Group_free(&g));
  CHECK_MPI(MPI_Comm_free(&c));
  CHECK_MPI(MPI_Session_finalize(&s));
  return sum;
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  MPI_Comm parent;
  MPI_Comm_get_parent(&parent);
  const int sum = session_world_sum();
  CHECK(sum == size, "session world sum %d, world size %d", sum, size);
  if (parent != MPI_COMM_NULL) {
    CHECK(size == NCHILD, "child world size %d", size);
    CHECK_MPI(MPI_Send(&sum, 1, MPI_INT, 0, 7, parent));
    CHECK_MPI(MPI_Comm_disconnect(&parent));
  } else {
    MPI_Comm inter;
    int codes[NCHILD];
    CHECK_MPI(MPI_Comm_spawn(argv[0], MPI_ARGV_NULL, NCHILD, MPI_INFO_NULL, 0, MPI_COMM_WORLD, &inter, codes));
    if (rank == 0)
      for (int i = 0; i < NCHILD; i++) {
        int child_sum = -1;
        CHECK_MPI(MPI_Recv(&child_sum, 1, MPI_INT, i, 7, inter, MPI_STATUS_IGNORE));
        CHECK(child_sum == NCHILD, "child %d: session world sum %d", i, child_sum);
      }
    CHECK_MPI(MPI_Comm_disconnect(&inter));
    if (rank == 0) printf("PASS dpm_spawn_session\n");
  }
  MPI_Finalize();
  return 0;
}
#else
int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm parent;
  MPI_Comm_get_parent(&parent);
  int rank;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  if (rank == 0) printf("SKIP MPI-4 sessions not available\nPASS dpm_spawn_session\n");
  MPI_Finalize();
  return 0;
}
#endif
