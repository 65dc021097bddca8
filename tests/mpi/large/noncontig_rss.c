/* noncontig_rss — a large message of a non-contiguous type does not cost a packed copy of itself.  2 ranks.
 *
 * Rank 0 sends 64 MiB of data described by a vector type (1 KiB blocks, 2 KiB stride: a 128 MiB buffer)
 * to rank 1 three ways: vector -> vector, vector -> contiguous bytes, contiguous bytes -> vector; then
 * the same with Isend/Irecv.  Every buffer is touched before the measurement, so the peak resident size
 * (getrusage ru_maxrss) grows only by what the library allocates during the transfers.
 * PASS: every byte arrives where the types say (the holes of a receive vector stay untouched), and, with
 * ftmpi, the peak RSS of each rank grows by less than 24 MiB over all transfers (a library that stages the
 * whole packed message would grow by 64 MiB on each side).  Rank 0 prints the growth of both ranks. */
#define _DEFAULT_SOURCE 1
#include <sys/resource.h>

#include "../common/check.h"

enum { kBlock = 1024, kStride = 2048, kBlocks = 65536 }; /* 64 MiB of data in a 128 MiB span */
static const size_t kData = (size_t)kBlock * kBlocks, kSpan = (size_t)kStride * kBlocks;

static long max_rss_kib(void) {
  struct rusage ru;
  getrusage(RUSAGE_SELF, &ru);
  return ru.ru_maxrss;
}

/* byte j of the data (packed order) */
static unsigned char pat(size_t j, int seed) { return (unsigned char)((j * 7 + j / 4093 + (size_t)seed) & 0xff); }

static void fill_vec(unsigned char *v, int seed) {
  for (size_t b = 0; b < kBlocks; b++)
    for (size_t k = 0; k < kBlock; k++) v[b * kStride + k] = pat(b * kBlock + k, seed), v[b * kStride + kBlock + k] = 0xEE;
}
static void check_vec(const unsigned char *v, int seed) {
  for (size_t b = 0; b < kBlocks; b++)
    for (size_t k = 0; k < kBlock; k++) {
      if (v[b * kStride + k] != pat(b * kBlock + k, seed) || v[b * kStride + kBlock + k] != 0xEE) {
        CHECK(0, "vector byte %zu of block %zu (seed %d)", k, b, seed);
        return;
      }
    }
}
static void fill_bytes(unsigned char *c, int seed) {
  for (size_t j = 0; j < kData; j++) c[j] = pat(j, seed);
}
static void check_bytes(const unsigned char *c, int seed) {
  for (size_t j = 0; j < kData; j++)
    if (c[j] != pat(j, seed)) {
      CHECK(0, "byte %zu (seed %d)", j, seed);
      return;
    }
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  CHECK(size == 2, "needs 2 ranks");
  MPI_Datatype vec;
  CHECK_MPI(MPI_Type_vector(kBlocks, kBlock, kStride, MPI_BYTE, &vec));
  CHECK_MPI(MPI_Type_commit(&vec));
  unsigned char *v = malloc(kSpan), *c = malloc(kData);
  CHECK(v && c, "no memory");
  memset(v, 0xEE, kSpan);
  memset(c, 1, kData); /* not 0: the compiler may turn malloc + memset(0) into calloc, which touches nothing */
  /* warm-up: the library's own buffers (transport rings, frame scratch) exist before the measurement */
  CHECK_MPI(MPI_Sendrecv(c, 1 << 20, MPI_BYTE, 1 - rank, 0, c + (1 << 20), 1 << 20, MPI_BYTE, 1 - rank, 0,
                         MPI_COMM_WORLD, MPI_STATUS_IGNORE));
  MPI_Barrier(MPI_COMM_WORLD);
  const long before = max_rss_kib();
  for (int nb = 0; nb < 2; nb++) {
    for (int way = 0; way < 3; way++) {
      const int seed = nb * 3 + way + 1;
      MPI_Request r;
      if (rank == 0) {
        if (way == 2) fill_bytes(c, seed); else fill_vec(v, seed);
        const void *src = way == 2 ? (void *)c : (void *)v;
        const int n = way == 2 ? (int)kData : 1;
        const MPI_Datatype t = way == 2 ? MPI_BYTE : vec;
        if (nb) {
          CHECK_MPI(MPI_Isend(src, n, t, 1, seed, MPI_COMM_WORLD, &r));
          CHECK_MPI(MPI_Wait(&r, MPI_STATUS_IGNORE));
        } else {
          CHECK_MPI(MPI_Send(src, n, t, 1, seed, MPI_COMM_WORLD));
        }
      } else {
        if (way == 1) memset(c, 1, kData); else memset(v, 0xEE, kSpan);
        void *dst = way == 1 ? (void *)c : (void *)v;
        const int n = way == 1 ? (int)kData : 1;
        const MPI_Datatype t = way == 1 ? MPI_BYTE : vec;
        MPI_Status st;
        if (nb) {
          CHECK_MPI(MPI_Irecv(dst, n, t, 0, seed, MPI_COMM_WORLD, &r));
          CHECK_MPI(MPI_Wait(&r, &st));
        } else {
          CHECK_MPI(MPI_Recv(dst, n, t, 0, seed, MPI_COMM_WORLD, &st));
        }
        int got = -1;
        CHECK_MPI(MPI_Get_count(&st, MPI_BYTE, &got));
        CHECK(got == (int)kData, "received %d bytes", got);
        if (way == 1) check_bytes(c, seed); else check_vec(v, seed);
      }
      if (getenv("NONCONTIG_RSS_VERBOSE"))
        printf("rank %d: after transfer %d (%s, %s): peak RSS +%ld MiB\n", rank, seed, nb ? "Isend/Irecv" : "Send/Recv",
               way == 0 ? "vector -> vector" : way == 1 ? "vector -> bytes" : "bytes -> vector",
               (max_rss_kib() - before) / 1024);
    }
  }
  long grew = (max_rss_kib() - before) / 1024, grew1 = 0;
  if (rank == 1) MPI_Send(&grew, 1, MPI_LONG, 0, 99, MPI_COMM_WORLD);
  else MPI_Recv(&grew1, 1, MPI_LONG, 1, 99, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  if (rank == 0) printf("noncontig_rss: peak RSS growth over 6 transfers of 64 MiB: rank 0 %ld MiB, rank 1 %ld MiB\n",
                        grew, grew1);
#ifdef FTMPI
  CHECK(grew < 24, "peak RSS grew by %ld MiB", grew);
#endif
  MPI_Type_free(&vec);
  free(v), free(c);
  check_pass("noncontig_rss");
  MPI_Finalize();
  return 0;
}
