/* p2p_blocking: blocking point-to-point in every send mode.
 *
 * Covers MPI_Send, MPI_Recv, MPI_Ssend, MPI_Rsend, MPI_Bsend with MPI_Buffer_attach/detach, MPI_Sendrecv,
 * MPI_Sendrecv_replace, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_PROC_NULL, MPI_STATUS_IGNORE, MPI_Get_count and
 * MPI_Get_elements, with message sizes 0 B .. 4 MiB (eager and rendezvous).
 * Needs >= 2 ranks.  PASS: every received payload, status and count is exactly what was sent, and
 * MPI_Buffer_detach hands back the attached buffer and size. */
#include "../common/check.h"

static const int kSizes[] = {0, 1, 100, 8 << 10, 64 << 10, 1 << 20, 4 << 20};
#define NSIZES ((int)(sizeof kSizes / sizeof kSizes[0]))

static void check_status(const MPI_Status *st, int src, int tag, int bytes) {
  int count = -1, elems = -1;
  CHECK(st->MPI_SOURCE == src, "source %d, expected %d", st->MPI_SOURCE, src);
  CHECK(st->MPI_TAG == tag, "tag %d, expected %d", st->MPI_TAG, tag);
  CHECK_MPI(MPI_Get_count(st, MPI_BYTE, &count));
  CHECK(count == bytes, "count %d, expected %d", count, bytes);
  CHECK_MPI(MPI_Get_elements(st, MPI_BYTE, &elems));
  CHECK(elems == bytes, "elements %d, expected %d", elems, bytes);
  if (bytes % (int)sizeof(int) != 0) { /* not a whole number of ints */
    CHECK_MPI(MPI_Get_count(st, MPI_INT, &count));
    CHECK(count == MPI_UNDEFINED, "%d bytes as MPI_INT: count %d, expected MPI_UNDEFINED", bytes, count);
  }
}

int main(int argc, char **argv) {
  int rank, size;
  CHECK_MPI(MPI_Init(&argc, &argv));
  CHECK_MPI(MPI_Comm_rank(MPI_COMM_WORLD, &rank));
  CHECK_MPI(MPI_Comm_size(MPI_COMM_WORLD, &size));
  CHECK(size >= 2, "needs at least 2 ranks");
  const int max = 4 << 20;
  unsigned char *buf = malloc(max);
  CHECK(buf != NULL);
  MPI_Status st;

  /* 1. Send/Recv between 0 and 1, every size, both directions. */
  for (int i = 0; i < NSIZES; i++) {
    int n = kSizes[i];
    if (rank == 0) {
      check_fill(buf, n, 100 + i);
      CHECK_MPI(MPI_Send(buf, n, MPI_BYTE, 1, 10 + i, MPI_COMM_WORLD));
      memset(buf, 0, n);
      CHECK_MPI(MPI_Recv(buf, max, MPI_BYTE, 1, 20 + i, MPI_COMM_WORLD, &st));
      check_status(&st, 1, 20 + i, n);
      CHECK_PATTERN(buf, n, 200 + i);
    } else if (rank == 1) {
      memset(buf, 0, n);
      CHECK_MPI(MPI_Recv(buf, max, MPI_BYTE, 0, 10 + i, MPI_COMM_WORLD, &st));
      check_status(&st, 0, 10 + i, n);
      CHECK_PATTERN(buf, n, 100 + i);
      check_fill(buf, n, 200 + i);
      CHECK_MPI(MPI_Send(buf, n, MPI_BYTE, 0, 20 + i, MPI_COMM_WORLD));
    }
  }

  /* 2. Ssend: rank 1 receives with MPI_STATUS_IGNORE; typed count on ints. */
  for (int i = 0; i < NSIZES; i++) {
    int n = kSizes[i] / (int)sizeof(int);
    if (rank == 0) {
      check_fill(buf, n * sizeof(int), 300 + i);
      CHECK_MPI(MPI_Ssend(buf, n, MPI_INT, 1, 5, MPI_COMM_WORLD));
    } else if (rank == 1) {
      memset(buf, 0, n * sizeof(int));
      CHECK_MPI(MPI_Recv(buf, n, MPI_INT, 0, 5, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
      CHECK_PATTERN(buf, n * sizeof(int), 300 + i);
    }
  }
  /* Typed counts: 10 doubles -> Get_count(DOUBLE)=10, Get_count(BYTE)=80. */
  if (rank == 0) {
    double d[10];
    for (int i = 0; i < 10; i++) d[i] = i * 1.5;
    CHECK_MPI(MPI_Send(d, 10, MPI_DOUBLE, 1, 6, MPI_COMM_WORLD));
  } else if (rank == 1) {
    double d[20] = {0};
    int c = -1;
    CHECK_MPI(MPI_Recv(d, 20, MPI_DOUBLE, 0, 6, MPI_COMM_WORLD, &st));
    CHECK_MPI(MPI_Get_count(&st, MPI_DOUBLE, &c));
    CHECK(c == 10, "double count %d", c);
    CHECK_MPI(MPI_Get_elements(&st, MPI_DOUBLE, &c));
    CHECK(c == 10, "double elements %d", c);
    CHECK_MPI(MPI_Get_count(&st, MPI_BYTE, &c));
    CHECK(c == 80, "byte count %d", c);
    for (int i = 0; i < 10; i++) CHECK(d[i] == i * 1.5, "d[%d]=%g", i, d[i]);
  }

  /* 3. Rsend: the receiver posts first, then says "ready" with a zero-byte message. */
  for (int i = 0; i < NSIZES; i++) {
    int n = kSizes[i];
    if (rank == 0) {
      CHECK_MPI(MPI_Recv(NULL, 0, MPI_BYTE, 1, 30, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
      check_fill(buf, n, 400 + i);
      CHECK_MPI(MPI_Rsend(buf, n, MPI_BYTE, 1, 31, MPI_COMM_WORLD));
    } else if (rank == 1) {
      MPI_Request r;
      memset(buf, 0, n);
      CHECK_MPI(MPI_Irecv(buf, n, MPI_BYTE, 0, 31, MPI_COMM_WORLD, &r));
      CHECK_MPI(MPI_Send(NULL, 0, MPI_BYTE, 0, 30, MPI_COMM_WORLD));
      CHECK_MPI(MPI_Wait(&r, &st));
      check_status(&st, 0, 31, n);
      CHECK_PATTERN(buf, n, 400 + i);
    }
  }

  /* 4. Bsend with an attached buffer: three messages, then detach (waits for delivery). */
  {
    int bsize = 3 * (64 << 10) + 3 * MPI_BSEND_OVERHEAD + 64;
    char *attach = malloc(bsize);
    CHECK(attach != NULL);
    CHECK_MPI(MPI_Buffer_attach(attach, bsize));
    if (rank == 0) {
      for (int k = 0; k < 3; k++) {
        int n = k == 0 ? 0 : (k == 1 ? 100 : 64 << 10);
        check_fill(buf, n, 500 + k);
        CHECK_MPI(MPI_Bsend(buf, n, MPI_BYTE, 1, 40 + k, MPI_COMM_WORLD));
        memset(buf, 0xee, n); /* the library must have copied it */
      }
    } else if (rank == 1) {
      for (int k = 2; k >= 0; k--) { /* receive in reverse tag order: buffered sends must not block */
        int n = k == 0 ? 0 : (k == 1 ? 100 : 64 << 10);
        CHECK_MPI(MPI_Recv(buf, max, MPI_BYTE, 0, 40 + k, MPI_COMM_WORLD, &st));
        check_status(&st, 0, 40 + k, n);
        CHECK_PATTERN(buf, n, 500 + k);
      }
    }
    void *got = NULL;
    int got_size = 0;
    CHECK_MPI(MPI_Buffer_detach(&got, &got_size));
    CHECK(got == attach, "detach returned %p, attached %p", got, (void *)attach);
    CHECK(got_size == bsize, "detach size %d, attached %d", got_size, bsize);
    free(attach);
  }

  /* 5. ANY_SOURCE / ANY_TAG: everybody sends its rank (tag = rank + 100) to 0. */
  if (rank == 0) {
    char *seen = calloc(size, 1);
    for (int k = 1; k < size; k++) {
      int v = -1;
      CHECK_MPI(MPI_Recv(&v, 1, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &st));
      CHECK(st.MPI_SOURCE >= 1 && st.MPI_SOURCE < size, "source %d", st.MPI_SOURCE);
      CHECK(v == st.MPI_SOURCE && st.MPI_TAG == v + 100, "value %d source %d tag %d", v, st.MPI_SOURCE, st.MPI_TAG);
      CHECK(!seen[v], "rank %d seen twice", v);
      seen[v] = 1;
    }
    free(seen);
  } else {
    CHECK_MPI(MPI_Send(&rank, 1, MPI_INT, 0, rank + 100, MPI_COMM_WORLD));
  }

  /* ANY_TAG above must not catch the ring traffic below. */
  CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));

  /* 6. Sendrecv around a ring, every size; Sendrecv_replace the other way. */
  {
    int right = (rank + 1) % size, left = (rank + size - 1) % size;
    unsigned char *out = malloc(max);
    CHECK(out != NULL);
    for (int i = 0; i < NSIZES; i++) {
      int n = kSizes[i];
      check_fill(out, n, 1000 * rank + i);
      memset(buf, 0, n);
      CHECK_MPI(MPI_Sendrecv(out, n, MPI_BYTE, right, 50, buf, max, MPI_BYTE, left, 50, MPI_COMM_WORLD, &st));
      check_status(&st, left, 50, n);
      CHECK_PATTERN(buf, n, 1000 * left + i);

      check_fill(buf, n, 2000 * rank + i);
      CHECK_MPI(MPI_Sendrecv_replace(buf, n, MPI_BYTE, left, 51, right, 51, MPI_COMM_WORLD, &st));
      check_status(&st, right, 51, n);
      CHECK_PATTERN(buf, n, 2000 * right + i);
    }
    free(out);
  }

  /* 7. MPI_PROC_NULL: sends succeed at once; receives complete with source PROC_NULL, tag ANY_TAG, 0 bytes. */
  {
    int v = 42;
    CHECK_MPI(MPI_Send(&v, 1, MPI_INT, MPI_PROC_NULL, 1, MPI_COMM_WORLD));
    CHECK_MPI(MPI_Ssend(&v, 1, MPI_INT, MPI_PROC_NULL, 1, MPI_COMM_WORLD));
    CHECK_MPI(MPI_Rsend(&v, 1, MPI_INT, MPI_PROC_NULL, 1, MPI_COMM_WORLD));
    CHECK_MPI(MPI_Recv(&v, 1, MPI_INT, MPI_PROC_NULL, 1, MPI_COMM_WORLD, &st));
    CHECK(v == 42, "recv from PROC_NULL modified the buffer");
    check_status(&st, MPI_PROC_NULL, MPI_ANY_TAG, 0);
    CHECK_MPI(MPI_Sendrecv(&v, 1, MPI_INT, MPI_PROC_NULL, 1, &v, 1, MPI_INT, MPI_PROC_NULL, 1, MPI_COMM_WORLD, &st));
    check_status(&st, MPI_PROC_NULL, MPI_ANY_TAG, 0);
    CHECK_MPI(MPI_Recv(&v, 1, MPI_INT, MPI_PROC_NULL, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
  }

  /* 8. Send to self. */
  {
    int a = rank * 7 + 1, b = -1;
    CHECK_MPI(MPI_Sendrecv(&a, 1, MPI_INT, rank, 60, &b, 1, MPI_INT, rank, 60, MPI_COMM_WORLD, &st));
    CHECK(b == a, "self sendrecv got %d", b);
    check_status(&st, rank, 60, (int)sizeof(int));
  }

  free(buf);
  check_pass("p2p_blocking");
  CHECK_MPI(MPI_Finalize());
  return 0;
}
