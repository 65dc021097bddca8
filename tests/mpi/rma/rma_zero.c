/* tests/mpi/rma/rma_zero.c — zero-size one-sided operations (count 0, and a datatype of size 0) in every
 * synchronization mode, as IMB-RMA's 0-byte rows issue them (MPI_Put + MPI_Win_flush in a shared lock on an
 * MPI_Win_create window): they move nothing, complete, leave the target's memory untouched, and the checks that
 * come before any data movement still apply. With ftmpi a zero-size operation over messages is not sent at all
 * (src/rma/window.cpp moves_nothing): this test guards that the epochs still close and nothing is lost around
 * them (a real put right after a zero one lands). Any number of ranks.
 *
 * Windows: MPI_Win_create on malloc'd memory (argument "create", default) or MPI_Win_allocate ("allocate").
 * Per mode (fence; lock shared + flush; lock_all + flush_all + request-based Rput/Rget; post/start/complete/wait):
 * each rank does, toward its right neighbour, put/get/accumulate/get_accumulate of count 0, a put of one
 * element of a size-0 datatype, then a real 1-int put of a marker; after the epoch every window holds the
 * marker of its left neighbour and nothing else changed. Errors: a count-0 put outside any epoch gives
 * MPI_ERR_RMA_SYNC; a count-0 put to rank `size` gives MPI_ERR_RANK. Passes with MPICH, and with Open MPI at 2 or
 * more ranks (Open MPI 4.1 here ends every 1-rank window test with exit 53, rma_basic_1 too). */
#include <stdlib.h>

#include "common/check.h"

enum { N = 16 };

static int rank, size;

#define OKR(call)                                                                          \
  do {                                                                                     \
    int rc_ = (call);                                                                      \
    CHECK(rc_ == MPI_SUCCESS, "%s -> %s", #call, check_errstr(rc_));                       \
  } while (0)

static void zero_ops(MPI_Win win, int target, MPI_Datatype empty, int *local, int use_requests) {
  int dummy[2] = {-7, -7};
  OKR(MPI_Put(local, 0, MPI_INT, target, 1, 0, MPI_INT, win));
  OKR(MPI_Get(dummy, 0, MPI_INT, target, 2, 0, MPI_INT, win));
  OKR(MPI_Accumulate(local, 0, MPI_INT, target, 3, 0, MPI_INT, MPI_SUM, win));
  OKR(MPI_Get_accumulate(local, 0, MPI_INT, dummy, 0, MPI_INT, target, 4, 0, MPI_INT, MPI_SUM, win));
  OKR(MPI_Put(local, 1, empty, target, 5, 1, empty, win));
  if (use_requests) {
    MPI_Request rq[2];
    OKR(MPI_Rput(local, 0, MPI_INT, target, 6, 0, MPI_INT, win, &rq[0]));
    OKR(MPI_Rget(dummy, 0, MPI_INT, target, 7, 0, MPI_INT, win, &rq[1]));
    OKR(MPI_Waitall(2, rq, MPI_STATUSES_IGNORE));
  }
  CHECK(dummy[0] == -7 && dummy[1] == -7, "a zero-size get wrote into the origin buffer");
}

static void check_window(const int *base, int round) {
  const int left = (rank + size - 1) % size;
  for (int i = 0; i < N; i++) {
    int want = i == 0 ? 1000 * round + left : 100 + i;
    CHECK(base[i] == want, "round %d: window int %d is %d, wanted %d", round, i, base[i], want);
  }
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const int allocate = argc > 1 && strcmp(argv[1], "allocate") == 0;
  const int right = (rank + 1) % size;
  int *base = NULL;
  MPI_Win win;
  if (allocate) {
    OKR(MPI_Win_allocate(N * sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &base, &win));
  } else {
    base = malloc(N * sizeof(int));
    CHECK(base != NULL, "malloc");
    OKR(MPI_Win_create(base, N * sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &win));
  }
  OKR(MPI_Win_set_errhandler(win, MPI_ERRORS_RETURN));
  MPI_Datatype empty;
  OKR(MPI_Type_contiguous(0, MPI_INT, &empty));
  OKR(MPI_Type_commit(&empty));
  int local[4] = {1, 2, 3, 4};

  /* errors first (no epoch open): the checks before any data movement still apply to zero-size operations */
  {
    int rc = MPI_Put(local, 0, MPI_INT, right, 0, 0, MPI_INT, win), cls = -1;
    if (rc != MPI_SUCCESS) MPI_Error_class(rc, &cls);
    CHECK(rc != MPI_SUCCESS && cls == MPI_ERR_RMA_SYNC, "count-0 put outside an epoch -> %s (class %d)",
          check_errstr(rc), cls);
    OKR(MPI_Win_lock(MPI_LOCK_SHARED, right, 0, win));
    rc = MPI_Put(local, 0, MPI_INT, size, 0, 0, MPI_INT, win), cls = -1;
    if (rc != MPI_SUCCESS) MPI_Error_class(rc, &cls);
    CHECK(rc != MPI_SUCCESS && cls == MPI_ERR_RANK, "count-0 put to rank %d -> %s (class %d)", size,
          check_errstr(rc), cls);
    OKR(MPI_Win_unlock(right, win));
  }

  for (int round = 1; round <= 4; round++) {
    /* reset the local window (own memory, in a private epoch) */
    OKR(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, rank, 0, win));
    for (int i = 0; i < N; i++) base[i] = 100 + i;
    OKR(MPI_Win_unlock(rank, win));
    OKR(MPI_Barrier(MPI_COMM_WORLD));
    int marker = 1000 * round + rank;
    switch (round) {
      case 1: /* fence */
        OKR(MPI_Win_fence(0, win));
        zero_ops(win, right, empty, local, 0);
        OKR(MPI_Put(&marker, 1, MPI_INT, right, 0, 1, MPI_INT, win));
        OKR(MPI_Win_fence(0, win));
        break;
      case 2: /* lock shared + flush after every zero operation (IMB's non-aggregate mode) */
        OKR(MPI_Win_lock(MPI_LOCK_SHARED, right, 0, win));
        for (int i = 0; i < 50; i++) {
          OKR(MPI_Put(local, 0, MPI_INT, right, 0, 0, MPI_INT, win));
          OKR(MPI_Win_flush(right, win));
        }
        zero_ops(win, right, empty, local, 1);
        OKR(MPI_Win_flush(right, win));
        OKR(MPI_Put(&marker, 1, MPI_INT, right, 0, 1, MPI_INT, win));
        OKR(MPI_Win_unlock(right, win));
        break;
      case 3: /* lock_all + flush_all + request-based */
        OKR(MPI_Win_lock_all(0, win));
        zero_ops(win, right, empty, local, 1);
        OKR(MPI_Win_flush_all(win));
        OKR(MPI_Put(&marker, 1, MPI_INT, right, 0, 1, MPI_INT, win));
        OKR(MPI_Win_flush_local_all(win));
        OKR(MPI_Win_unlock_all(win));
        break;
      case 4: { /* post/start/complete/wait: expose to the left neighbour, access the right one */
        MPI_Group world, from, to;
        const int left = (rank + size - 1) % size;
        OKR(MPI_Comm_group(MPI_COMM_WORLD, &world));
        OKR(MPI_Group_incl(world, 1, &left, &from));
        OKR(MPI_Group_incl(world, 1, &right, &to));
        OKR(MPI_Win_post(from, 0, win));
        OKR(MPI_Win_start(to, 0, win));
        zero_ops(win, right, empty, local, 0);
        OKR(MPI_Put(&marker, 1, MPI_INT, right, 0, 1, MPI_INT, win));
        OKR(MPI_Win_complete(win));
        OKR(MPI_Win_wait(win));
        MPI_Group_free(&world);
        MPI_Group_free(&from);
        MPI_Group_free(&to);
        break;
      }
    }
    OKR(MPI_Barrier(MPI_COMM_WORLD));
    OKR(MPI_Win_lock(MPI_LOCK_SHARED, rank, 0, win));
    check_window(base, round);
    OKR(MPI_Win_unlock(rank, win));
    OKR(MPI_Barrier(MPI_COMM_WORLD));
  }
  OKR(MPI_Type_free(&empty));
  OKR(MPI_Win_free(&win));
  if (!allocate) free(base);
  if (rank == 0) printf("PASS rma_zero\n");
  MPI_Finalize();
  return 0;
}
