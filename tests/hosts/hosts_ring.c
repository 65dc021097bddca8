/* hosts_ring.c — a job across hosts (tests/hosts): a ring, 8 MiB exchanges with both neighbours, and
 * collectives; MPI_Comm_split_type(SHARED) must group exactly the ranks whose gethostname() agrees (on
 * netns.sh hosts every host has its own name), which is how the launcher's host identity is checked.
 * Portable MPI. Prints "PASS hosts_ring" on rank 0 when everything checks. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define BIG (8u << 20)

static int fail(const char* what, int rank) {
  printf("FAIL rank %d: %s\n", rank, what);
  fflush(stdout);
  MPI_Abort(MPI_COMM_WORLD, 1);
  return 1;
}

int main(int argc, char** argv) {
  int rank, size;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  int rounds = argc > 1 ? atoi(argv[1]) : 1;
  char host[64] = {0};
  gethostname(host, sizeof host - 1);

  /* Host identity: the SHARED split must be exactly the ranks with my hostname. */
  MPI_Comm shared;
  MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &shared);
  int shared_size;
  MPI_Comm_size(shared, &shared_size);
  char* hosts = malloc(64 * (size_t)size);
  MPI_Allgather(host, 64, MPI_CHAR, hosts, 64, MPI_CHAR, MPI_COMM_WORLD);
  int same = 0;
  for (int r = 0; r < size; ++r) same += strcmp(hosts + 64 * r, host) == 0;
  if (same != shared_size) fail("MPI_COMM_TYPE_SHARED does not match the hosts", rank);
  printf("rank %d on %s: %d rank(s) on this host\n", rank, host, shared_size);
#ifdef MPI_COMM_TYPE_HW_UNGUIDED
  /* MPI-4.0: with ranks on several hosts the host is a level strictly below WORLD; the type comes back in info. */
  {
    MPI_Info info;
    MPI_Comm hw;
    MPI_Info_create(&info);
    MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_HW_UNGUIDED, 0, info, &hw);
    if (same < size) {
      int hw_size = -1, flag = 0;
      char value[64] = "";
      if (hw == MPI_COMM_NULL) fail("MPI_COMM_TYPE_HW_UNGUIDED gave MPI_COMM_NULL across hosts", rank);
      MPI_Comm_size(hw, &hw_size);
      if (hw_size != same) fail("MPI_COMM_TYPE_HW_UNGUIDED does not match the hosts", rank);
      MPI_Info_get(info, "mpi_hw_resource_type", sizeof value - 1, value, &flag);
      if (!flag || strcmp(value, "mpi_shared_memory") != 0) fail("HW_UNGUIDED did not name its level", rank);
      MPI_Comm_free(&hw);
    } else if (hw != MPI_COMM_NULL) {
      fail("MPI_COMM_TYPE_HW_UNGUIDED on one host must give MPI_COMM_NULL", rank);
    }
    MPI_Info_free(&info);
  }
#endif

  int right = (rank + 1) % size, left = (rank + size - 1) % size;
  for (int round = 0; round < rounds; ++round) {
    /* Ring: a token goes around once, each rank adds its rank. */
    int token = 0;
    if (rank == 0) {
      MPI_Send(&token, 1, MPI_INT, right, 1, MPI_COMM_WORLD);
      MPI_Recv(&token, 1, MPI_INT, left, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      if (token != size * (size - 1) / 2) fail("ring token", rank);
    } else {
      MPI_Recv(&token, 1, MPI_INT, left, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      token += rank;
      MPI_Send(&token, 1, MPI_INT, right, 1, MPI_COMM_WORLD);
    }
    /* 8 MiB to the right while 8 MiB come from the left. */
    unsigned char* out = malloc(BIG);
    unsigned char* in = malloc(BIG);
    for (unsigned i = 0; i < BIG; ++i) out[i] = (unsigned char)(i * 7 + rank + round);
    MPI_Sendrecv(out, BIG, MPI_BYTE, right, 2, in, BIG, MPI_BYTE, left, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    for (unsigned i = 0; i < BIG; ++i)
      if (in[i] != (unsigned char)(i * 7 + left + round)) fail("8 MiB exchange corrupted", rank);
    /* Collectives. */
    long sum = 0, mine = rank + 1;
    MPI_Allreduce(&mine, &sum, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
    if (sum != (long)size * (size + 1) / 2) fail("allreduce", rank);
    if (rank == 0) memset(in, 0x5a, BIG);
    MPI_Bcast(in, BIG, MPI_BYTE, 0, MPI_COMM_WORLD);
    for (unsigned i = 0; i < BIG; i += 4099)
      if (in[i] != 0x5a) fail("bcast 8 MiB", rank);
    int* a = malloc(sizeof(int) * (size_t)size);
    int* b = malloc(sizeof(int) * (size_t)size);
    for (int r = 0; r < size; ++r) a[r] = rank * 1000 + r;
    MPI_Alltoall(a, 1, MPI_INT, b, 1, MPI_INT, MPI_COMM_WORLD);
    for (int r = 0; r < size; ++r)
      if (b[r] != r * 1000 + rank) fail("alltoall", rank);
    long ssum = 0;
    MPI_Allreduce(&mine, &ssum, 1, MPI_LONG, MPI_SUM, shared);
    free(a);
    free(b);
    free(out);
    free(in);
    MPI_Barrier(MPI_COMM_WORLD);
  }
  MPI_Comm_free(&shared);
  free(hosts);
  if (rank == 0) printf("PASS hosts_ring (%d ranks, %d round(s))\n", size, rounds);
  MPI_Finalize();
  return 0;
}
