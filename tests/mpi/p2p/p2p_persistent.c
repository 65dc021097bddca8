/* p2p_persistent: persistent requests.
 *
 * Covers MPI_Send_init, MPI_Ssend_init, MPI_Recv_init, MPI_Start, MPI_Startall, MPI_Request_free of inactive
 * persistent requests, and Wait/Test/Waitall leaving persistent requests allocated (inactive).
 * Ranks 0 and 1 exchange 20 iterations of messages of several sizes (0 B .. 1 MiB), the payload changing each
 * iteration.  PASS: every iteration delivers that iteration's payload with the right status. */
#include "../common/check.h"

#define N 5
static const int kSizes[N] = {0, 1, 100, 64 << 10, 1 << 20};
#define ITERS 20

int main(int argc, char **argv) {
  int rank, size;
  CHECK_MPI(MPI_Init(&argc, &argv));
  CHECK_MPI(MPI_Comm_rank(MPI_COMM_WORLD, &rank));
  CHECK_MPI(MPI_Comm_size(MPI_COMM_WORLD, &size));
  CHECK(size >= 2, "needs at least 2 ranks");
  unsigned char *bufs[N];
  for (int k = 0; k < N; k++) bufs[k] = malloc(kSizes[k] + 1);
  MPI_Request reqs[N];
  MPI_Status sts[N];

  if (rank <= 1) {
    /* Send_init (even k) and Ssend_init (odd k) on rank 0, Recv_init on rank 1; Startall each iteration. */
    for (int k = 0; k < N; k++) {
      if (rank == 0) {
        if (k % 2 == 0)
          CHECK_MPI(MPI_Send_init(bufs[k], kSizes[k], MPI_BYTE, 1, k, MPI_COMM_WORLD, &reqs[k]));
        else
          CHECK_MPI(MPI_Ssend_init(bufs[k], kSizes[k], MPI_BYTE, 1, k, MPI_COMM_WORLD, &reqs[k]));
      } else {
        CHECK_MPI(MPI_Recv_init(bufs[k], kSizes[k], MPI_BYTE, 0, k, MPI_COMM_WORLD, &reqs[k]));
      }
    }
    for (int it = 0; it < ITERS; it++) {
      for (int k = 0; k < N; k++) {
        if (rank == 0) check_fill(bufs[k], kSizes[k], it * 10 + k);
        else memset(bufs[k], 0, kSizes[k]);
      }
      if (it % 2 == 0) {
        CHECK_MPI(MPI_Startall(N, reqs));
      } else {
        for (int k = N - 1; k >= 0; k--) CHECK_MPI(MPI_Start(&reqs[k]));
      }
      if (it % 3 == 2) {
        int flag = 0;
        while (!flag) CHECK_MPI(MPI_Testall(N, reqs, &flag, sts));
      } else {
        CHECK_MPI(MPI_Waitall(N, reqs, sts));
      }
      for (int k = 0; k < N; k++) {
        CHECK(reqs[k] != MPI_REQUEST_NULL, "completion freed persistent request %d", k);
        if (rank == 1) {
          int c = -1;
          CHECK(sts[k].MPI_SOURCE == 0 && sts[k].MPI_TAG == k, "iteration %d message %d: source %d tag %d", it, k,
                sts[k].MPI_SOURCE, sts[k].MPI_TAG);
          CHECK_MPI(MPI_Get_count(&sts[k], MPI_BYTE, &c));
          CHECK(c == kSizes[k], "iteration %d message %d: count %d", it, k, c);
          CHECK_PATTERN(bufs[k], kSizes[k], it * 10 + k);
        }
      }
    }
    /* Waiting on an inactive persistent request returns at once with an empty status. */
    CHECK_MPI(MPI_Wait(&reqs[0], MPI_STATUS_IGNORE));
    for (int k = 0; k < N; k++) {
      CHECK_MPI(MPI_Request_free(&reqs[k]));
      CHECK(reqs[k] == MPI_REQUEST_NULL);
    }

    /* A persistent send whose receive is a plain Recv, and a persistent receive fed by plain Sends. */
    {
      MPI_Request p;
      int v = 0;
      if (rank == 0) {
        CHECK_MPI(MPI_Send_init(&v, 1, MPI_INT, 1, 50, MPI_COMM_WORLD, &p));
        for (v = 1; v <= 5; v++) {
          CHECK_MPI(MPI_Start(&p));
          CHECK_MPI(MPI_Wait(&p, MPI_STATUS_IGNORE));
        }
        for (int i = 1; i <= 5; i++) CHECK_MPI(MPI_Send(&i, 1, MPI_INT, 1, 51, MPI_COMM_WORLD));
      } else {
        for (int i = 1; i <= 5; i++) {
          CHECK_MPI(MPI_Recv(&v, 1, MPI_INT, 0, 50, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
          CHECK(v == i, "persistent send %d delivered %d", i, v);
        }
        CHECK_MPI(MPI_Recv_init(&v, 1, MPI_INT, MPI_ANY_SOURCE, 51, MPI_COMM_WORLD, &p));
        for (int i = 1; i <= 5; i++) {
          MPI_Status st;
          CHECK_MPI(MPI_Start(&p));
          CHECK_MPI(MPI_Wait(&p, &st));
          CHECK(v == i && st.MPI_SOURCE == 0, "persistent recv %d got %d from %d", i, v, st.MPI_SOURCE);
        }
      }
      CHECK_MPI(MPI_Request_free(&p));
    }
  }

  for (int k = 0; k < N; k++) free(bufs[k]);
  check_pass("p2p_persistent");
  CHECK_MPI(MPI_Finalize());
  return 0;
}
