/* MPI_Comm_spawn of this program: the parents spawn 3 children, who find their parents with
 * MPI_Comm_get_parent; both sides exchange over the intercommunicator, merge it (children high) and
 * allreduce over the merged communicator, then disconnect. Also checks MPI_UNIVERSE_SIZE and errcodes.
 * Portable MPI (runs with Open MPI and MPICH too). */
#include <mpi.h>
#include <stdio.h>
#include <string.h>

#define NCHILD 3
static int fails = 0;
#define CHECK(c, ...) do { if (!(c)) { printf("FAIL: " __VA_ARGS__); printf("\n"); fails++; } } while (0)

static void merged_checks(MPI_Comm inter, int high, int nparents) {
  MPI_Comm all;
  MPI_Intercomm_merge(inter, high, &all);
  int size, rank;
  MPI_Comm_size(all, &size);
  MPI_Comm_rank(all, &rank);
  CHECK(size == nparents + NCHILD, "merged size %d, expected %d", size, nparents + NCHILD);
  int one = 1, sum = 0;
  MPI_Allreduce(&one, &sum, 1, MPI_INT, MPI_SUM, all);
  CHECK(sum == size, "allreduce over the merged communicator gave %d, expected %d", sum, size);
  /* Children are high: they come after the parents. */
  if (high) CHECK(rank >= nparents, "child has merged rank %d < %d", rank, nparents);
  else CHECK(rank < nparents, "parent has merged rank %d >= %d", rank, nparents);
  MPI_Comm_free(&all);
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm parent;
  MPI_Comm_get_parent(&parent);
  const int is_child = parent != MPI_COMM_NULL;
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (parent == MPI_COMM_NULL) {
    int flag = 0, *usize = NULL;
    MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_UNIVERSE_SIZE, &usize, &flag);
    CHECK(flag && *usize >= 1, "MPI_UNIVERSE_SIZE missing");
#ifdef FTMPI
    CHECK(*usize >= size, "MPI_UNIVERSE_SIZE %d smaller than the job (%d)", *usize, size);
#endif
    MPI_Comm inter;
    int codes[NCHILD];
    char* args[] = {"child", NULL};
    int rc = MPI_Comm_spawn(argv[0], args, NCHILD, MPI_INFO_NULL, 0, MPI_COMM_WORLD, &inter, codes);
    CHECK(rc == MPI_SUCCESS, "MPI_Comm_spawn returned %d", rc);
    for (int i = 0; i < NCHILD; ++i) CHECK(codes[i] == MPI_SUCCESS, "errcode[%d] = %d", i, codes[i]);
    int is_inter = 0, rsize = 0;
    MPI_Comm_test_inter(inter, &is_inter);
    MPI_Comm_remote_size(inter, &rsize);
    CHECK(is_inter && rsize == NCHILD, "intercommunicator with %d remote processes", rsize);
    /* Parent rank r sends to child r % NCHILD; each child answers every parent. */
    int v = 1000 + rank, back = -1;
    MPI_Send(&v, 1, MPI_INT, rank % NCHILD, 7, inter);
    for (int c = 0; c < NCHILD; ++c) {
      MPI_Recv(&back, 1, MPI_INT, c, 8, inter, MPI_STATUS_IGNORE);
      CHECK(back == 2000 + c * 10 + rank, "parent %d got %d from child %d", rank, back, c);
    }
    merged_checks(inter, 0, size);
    MPI_Comm_disconnect(&inter);
    CHECK(inter == MPI_COMM_NULL, "disconnect did not set MPI_COMM_NULL");
  } else {
    CHECK(argc >= 2 && strcmp(argv[1], "child") == 0, "child without its argument");
    CHECK(size == NCHILD, "child WORLD has %d processes", size);
    int psize = 0;
    MPI_Comm_remote_size(parent, &psize);
    for (int p = rank; p < psize; p += NCHILD) {
      int v = -1;
      MPI_Recv(&v, 1, MPI_INT, p, 7, parent, MPI_STATUS_IGNORE);
      CHECK(v == 1000 + p, "child %d got %d from parent %d", rank, v, p);
    }
    for (int p = 0; p < psize; ++p) {
      int a = 2000 + rank * 10 + p;
      MPI_Send(&a, 1, MPI_INT, p, 8, parent);
    }
    merged_checks(parent, 1, psize);
    MPI_Comm_disconnect(&parent);
  }
  int all = 0;
  MPI_Allreduce(&fails, &all, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  if (rank == 0) printf("%s: %s\n", is_child ? "children" : "parents", all ? "FAIL" : "ok");
  MPI_Finalize();
  return all ? 1 : 0;
}
