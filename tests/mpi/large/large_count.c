/* large_count: single calls that move more than 2^31 bytes (MPI-3.1 counts are int, so the size comes from a
 * derived type: a contiguous type of 1 MiB, count 2050 = 2^31 + 2^21 bytes).  Exactly 2 ranks.
 *
 * Phases (argument types, p2p, noncontig, coll, allreduce or all; default all; CTest runs each as its own test):
 *   types  (always) Type_size of a 2050 MiB type is MPI_UNDEFINED, Type_size_x / Type_get_extent_x give the
 *          value; statuses set with Status_set_elements_x report such counts; (ftmpi) a type of more than
 *          2^61 bytes is refused with an error, and a receive that cannot get its staging buffer fails with
 *          MPI_ERR_NO_MEM while the send completes.
 *   p2p    rank 0 -> 1: MPI_Send / MPI_Recv of 2050 x 1 MiB; rank 1 -> 0: MPI_Isend of ONE 2050 MiB element /
 *          MPI_Irecv of 2050 x 1 MiB + Waitall.  Get_count / Get_elements / Get_elements_x of the received
 *          status: counts that do not fit an int are MPI_UNDEFINED, the _x variant gives the full value.
 *          MPI_Probe of the pending 2050 MiB message reports the same counts.  MPI_Sendrecv_replace of
 *          2050 MiB from rank 0 (the library sends a packed copy: 2 GiB more on rank 0).
 *   noncontig  2050 elements of a type with a 64-byte hole per MiB (more than 2^31 bytes of data): received
 *          into it and sent from it (the library's unpack and pack of a staging copy); holes stay untouched.
 *   coll   MPI_Bcast of 2050 MiB from rank 1; MPI_Allgather (MPI_IN_PLACE) of 2 blocks of 1025 MiB (total
 *          2^31 + 2^21); MPI_Gather (MPI_IN_PLACE at the root) of the same.
 *   allreduce  MPI_Allreduce (MPI_IN_PLACE, MPI_SUM) of 2050 elements of a contiguous type of 131072 doubles
 *          (2050 MiB).
 *
 * Memory: one buffer of 2050 MiB per rank, reused by every phase (the p2p receive lands in it, collectives
 * run in place); Allreduce adds the library's scratch.  Data are 64-bit words of a position-dependent
 * pattern (word i of a message is a function of i and a seed), filled in place and verified word by word
 * after each transfer, so no second 2 GiB reference buffer is needed.  For Allreduce rank r holds
 * (i mod 1024) + r in double i, so the exact sum is 2 (i mod 1024) + 1.
 * Rank 0 prints each transfer's wall time and the peak resident memory of each rank (getrusage).  When the
 * host has less memory available than a phase needs (Linux MemAvailable, see need_bytes) the program prints
 * SKIP instead of risking the OOM killer.
 * PASS: every word arrives where it belongs and every count/element query gives the sequential value. */
#define _POSIX_C_SOURCE 200809L
#define _DEFAULT_SOURCE 1 /* MAP_ANONYMOUS, MAP_NORESERVE (glibc) */
#include <string.h>
#include <sys/resource.h>

#include "../common/check.h"

#define MIB ((size_t)1 << 20)
enum { kBlocks = 2050 };                         /* 1 MiB elements per message: 2^31 + 2^21 bytes */
static const size_t kTotal = (size_t)kBlocks * MIB;

/* Wall time of each transfer, printed by rank 0 at the end (the figures docs/testing.md quotes); rank 1
 * prints the times it takes (its receives, its side of the collectives) at once. */
static double g_t_start;
static char g_times[512];
/* Both ranks call timer_start() (a barrier, so the figure is not the other rank's filling time). */
static void timer_start(void) {
  CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
  g_t_start = MPI_Wtime();
}
static void timer_stop(const char *op) {
  if (check_world_rank() != 0) {
    printf("large_count rank 1: %s %.2fs\n", op, MPI_Wtime() - g_t_start);
    return;
  }
  size_t used = strlen(g_times);
  snprintf(g_times + used, sizeof g_times - used, " %s %.2fs", op, MPI_Wtime() - g_t_start);
}

/* Both ranks together: two 2050 MiB buffers, plus Allreduce's 1025 MiB of scratch on each rank, or one
 * 2050 MiB staging copy (Sendrecv_replace, non-contiguous types) on one rank, and some margin. */
static unsigned long long need_bytes(int big_phase) { return (big_phase ? 7ull : 5ull) << 30; }

/* A value from /proc/meminfo in bytes (0 if absent, e.g. not Linux). */
static unsigned long long meminfo_bytes(const char *key) {
  unsigned long long kib = 0, v;
  char line[128], name[64];
  FILE *f = fopen("/proc/meminfo", "r");
  if (!f) return 0;
  while (fgets(line, sizeof line, f))
    if (sscanf(line, "%63[^:]: %llu", name, &v) == 2 && !strcmp(name, key)) kib = v;
  fclose(f);
  return kib * 1024;
}

static uint64_t word_of(uint64_t seed, size_t i) { return ((uint64_t)i + 1) * 0x9E3779B97F4A7C15ull ^ seed; }

static void fill_words(void *buf, size_t first_word, size_t nwords, uint64_t seed) {
  uint64_t *w = (uint64_t *)buf + first_word;
  for (size_t i = 0; i < nwords; i++) w[i] = word_of(seed, first_word + i);
}

/* Every word of [first_word, first_word + nwords) must hold the pattern. */
static void verify_words(const void *buf, size_t first_word, size_t nwords, uint64_t seed, const char *what) {
  const uint64_t *w = (const uint64_t *)buf + first_word;
  for (size_t i = 0; i < nwords; i++)
    if (w[i] != word_of(seed, first_word + i))
      CHECK(0, "%s: word %zu (byte %zu) is %#llx, expected %#llx", what, first_word + i, (first_word + i) * 8,
            (unsigned long long)w[i], (unsigned long long)word_of(seed, first_word + i));
}

/* The counts a status of a kTotal-byte message must report. */
static void check_counts(const MPI_Status *st, MPI_Datatype mib, MPI_Datatype whole, const char *what) {
  int n = -7;
  MPI_Count x = -7;
  CHECK_MPI(MPI_Get_count(st, mib, &n));
  CHECK(n == kBlocks, "%s: Get_count(1 MiB type) = %d, expected %d", what, n, kBlocks);
  CHECK_MPI(MPI_Get_count(st, whole, &n));
  CHECK(n == 1, "%s: Get_count(2050 MiB type) = %d, expected 1", what, n);
  CHECK_MPI(MPI_Get_count(st, MPI_BYTE, &n));
  CHECK(n == MPI_UNDEFINED, "%s: Get_count(MPI_BYTE) = %d, expected MPI_UNDEFINED", what, n);
  CHECK_MPI(MPI_Get_elements(st, MPI_BYTE, &n));
  CHECK(n == MPI_UNDEFINED, "%s: Get_elements(MPI_BYTE) = %d, expected MPI_UNDEFINED", what, n);
  CHECK_MPI(MPI_Get_elements(st, mib, &n));  /* basic elements are bytes: 2^31 + 2^21 does not fit */
  CHECK(n == MPI_UNDEFINED, "%s: Get_elements(1 MiB type) = %d, expected MPI_UNDEFINED", what, n);
  CHECK_MPI(MPI_Get_elements_x(st, MPI_BYTE, &x));
  CHECK(x == (MPI_Count)kTotal, "%s: Get_elements_x(MPI_BYTE) = %lld, expected %zu", what, (long long)x, kTotal);
  CHECK_MPI(MPI_Get_elements_x(st, mib, &x));
  CHECK(x == (MPI_Count)kTotal, "%s: Get_elements_x(1 MiB type) = %lld, expected %zu", what, (long long)x, kTotal);
  CHECK_MPI(MPI_Get_count(st, MPI_DOUBLE, &n));
  CHECK(n == (int)(kTotal / 8), "%s: Get_count(MPI_DOUBLE) = %d, expected %zu", what, n, kTotal / 8);
}

static void phase_types(MPI_Datatype mib, MPI_Datatype whole) {
  int size = -7;
  MPI_Count size_x = -7, lb = -7, extent = -7;
  CHECK_MPI(MPI_Type_size(mib, &size));
  CHECK(size == (int)MIB, "Type_size(1 MiB type) = %d", size);
  CHECK_MPI(MPI_Type_size(whole, &size));
  CHECK(size == MPI_UNDEFINED, "Type_size(2050 MiB type) = %d, expected MPI_UNDEFINED", size);
  CHECK_MPI(MPI_Type_size_x(whole, &size_x));
  CHECK(size_x == (MPI_Count)kTotal, "Type_size_x(2050 MiB type) = %lld", (long long)size_x);
  CHECK_MPI(MPI_Type_get_extent_x(whole, &lb, &extent));
  CHECK(lb == 0 && extent == (MPI_Count)kTotal, "Type_get_extent_x = %lld, %lld", (long long)lb, (long long)extent);
  MPI_Aint alb = -7, aextent = -7;
  CHECK_MPI(MPI_Type_get_extent(whole, &alb, &aextent));
  CHECK(alb == 0 && aextent == (MPI_Aint)kTotal, "Type_get_extent = %ld, %ld", (long)alb, (long)aextent);

  /* Statuses made by hand: three 2050 MiB elements, and 2^31 + 2^21 bytes. Set with MPI_BYTE: with a derived
   * type, MPICH 4.0 multiplies the count by the type's size (the standard counts basic elements). */
  MPI_Status st;
  int n = -7;
  MPI_Count x = -7;
  CHECK_MPI(MPI_Status_set_elements_x(&st, MPI_BYTE, 3 * (MPI_Count)kTotal));
  CHECK_MPI(MPI_Get_elements_x(&st, whole, &x));
  CHECK(x == 3 * (MPI_Count)kTotal, "Get_elements_x(whole) of 3 x 2050 MiB = %lld", (long long)x);
  CHECK_MPI(MPI_Get_count(&st, whole, &n));
  CHECK(n == 3, "Get_count after Status_set_elements_x(3 x 2050 MiB) = %d", n);
  CHECK_MPI(MPI_Get_count(&st, mib, &n));
  CHECK(n == 3 * kBlocks, "Get_count(1 MiB type) after Status_set_elements_x(3 x 2050 MiB) = %d", n);
  CHECK_MPI(MPI_Get_elements_x(&st, MPI_BYTE, &x));
  CHECK(x == 3 * (MPI_Count)kTotal, "Get_elements_x after Status_set_elements_x(3 x 2050 MiB) = %lld", (long long)x);
  CHECK_MPI(MPI_Status_set_elements_x(&st, MPI_BYTE, (MPI_Count)kTotal));
  CHECK_MPI(MPI_Get_count(&st, MPI_BYTE, &n));
  CHECK(n == MPI_UNDEFINED, "Get_count(MPI_BYTE) of 2^31 + 2^21 bytes = %d", n);
  CHECK_MPI(MPI_Get_count(&st, whole, &n));
  CHECK(n == 1, "Get_count(2050 MiB type) of 2^31 + 2^21 bytes = %d", n);

  /* A type whose size overflows 63 bits is refused with an error, not wrapped around. */
  MPI_Datatype huge = MPI_DATATYPE_NULL, too_big = MPI_DATATYPE_NULL;
  CHECK_MPI(MPI_Type_contiguous(1 << 28, whole, &huge));  /* 2^59 + 2^49 bytes: still fits */
  CHECK_MPI(MPI_Type_size_x(huge, &x));
  CHECK(x == ((MPI_Count)1 << 28) * (MPI_Count)kTotal, "Type_size_x(2^28 x 2050 MiB) = %lld", (long long)x);
  CHECK_MPI(MPI_Type_size(huge, &n));
  CHECK(n == MPI_UNDEFINED, "Type_size(2^28 x 2050 MiB) = %d", n);
#ifdef FTMPI /* MPICH 4.0 accepts it (the size wraps around) */
  WITH_ERRORS_RETURN(MPI_COMM_WORLD, {
    int rc = MPI_Type_contiguous(16, huge, &too_big);
    CHECK(rc != MPI_SUCCESS, "Type_contiguous(16 x 2^59 bytes) succeeded");
  });
#else
  (void)too_big;
#endif
  CHECK_MPI(MPI_Type_free(&huge));
}

#if defined(FTMPI) && defined(__linux__)
#include <sys/mman.h>
/* GiB that this host certainly refuses to malloc in one piece (twice RAM + swap, at least 40), or 0 when the
 * kernel might grant it (vm.overcommit_memory = 1 grants everything). */
static int refused_gib(void) {
  int mode = -1;
  FILE *f = fopen("/proc/sys/vm/overcommit_memory", "r");
  if (f) {
    if (fscanf(f, "%d", &mode) != 1) mode = -1;
    fclose(f);
  }
  unsigned long long total = meminfo_bytes("MemTotal") + meminfo_bytes("SwapTotal");
  if ((mode != 0 && mode != 2) || total == 0) return 0;
  unsigned long long gib = 2 * total / (1ull << 30) + 1;
  return gib < 40 ? 40 : gib > 4096 ? 0 : (int)gib;
}

/* ftmpi only: a non-contiguous receive of more than the host's memory needs a staging buffer the kernel
 * refuses (with FTMPI_STAGING_LIMIT raised, see main: by default such a message is unpacked in pieces). The receive must fail with MPI_ERR_NO_MEM and the send complete: no crash, no hang. The sender's
 * bytes are an untouched read-only mapping (zero pages, no memory used); nothing is moved because the
 * receiver gives up first. */
static void staging_out_of_memory(int rank) {
  int n = rank == 0 ? refused_gib() : 0;
  CHECK_MPI(MPI_Bcast(&n, 1, MPI_INT, 0, MPI_COMM_WORLD));
  if (n == 0) {
    if (rank == 0) printf("SKIP staging out-of-memory check: this host might grant the allocation\n");
    return;
  }
  const size_t nbytes = (size_t)n << 30;
  MPI_Datatype gib_type, sparse;
  CHECK_MPI(MPI_Type_contiguous(1 << 30, MPI_BYTE, &gib_type));
  CHECK_MPI(MPI_Type_commit(&gib_type));
  CHECK_MPI(MPI_Type_vector(n, 1, 2, gib_type, &sparse));  /* n GiB of data, every other GiB */
  CHECK_MPI(MPI_Type_commit(&sparse));
  if (rank == 0) {
    void *src = mmap(NULL, nbytes, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    CHECK(src != MAP_FAILED, "mmap of %d GiB (no reserve) failed", n);
    CHECK_MPI(MPI_Send(src, n, gib_type, 1, 9, MPI_COMM_WORLD));
    munmap(src, nbytes);
  } else {
    char never_written = 0;  /* the receive fails before it unpacks anything */
    MPI_Status st;
    WITH_ERRORS_RETURN(MPI_COMM_WORLD, {
      CHECK_CLASS(MPI_Recv(&never_written, 1, sparse, 0, 9, MPI_COMM_WORLD, &st), MPI_ERR_NO_MEM);
    });
  }
  CHECK_MPI(MPI_Type_free(&sparse));
  CHECK_MPI(MPI_Type_free(&gib_type));
}
#endif

static void phase_p2p(int rank, char *buf, MPI_Datatype mib, MPI_Datatype whole) {
  const size_t nwords = kTotal / 8;
  MPI_Status st;
  /* Blocking, 2050 x 1 MiB, 0 -> 1. */
  if (rank == 0) {
    fill_words(buf, 0, nwords, 11);
  } else {
    memset(buf, 0, 4096);  /* stale data from an earlier phase must not pass for a transfer */
    memset(buf + kTotal - 4096, 0, 4096);
  }
  timer_start();
  if (rank == 0) {
    CHECK_MPI(MPI_Send(buf, kBlocks, mib, 1, 5, MPI_COMM_WORLD));
    timer_stop("Send");
  } else {
    CHECK_MPI(MPI_Recv(buf, kBlocks, mib, 0, 5, MPI_COMM_WORLD, &st));
    CHECK(st.MPI_SOURCE == 0 && st.MPI_TAG == 5, "Recv status source %d tag %d", st.MPI_SOURCE, st.MPI_TAG);
    verify_words(buf, 0, nwords, 11, "Send/Recv");
    check_counts(&st, mib, whole, "Recv");
  }
  /* Non-blocking, ONE 2050 MiB element against 2050 x 1 MiB, 1 -> 0; the receiver probes first. */
  MPI_Request req;
  if (rank == 1) {
    fill_words(buf, 0, nwords, 12);
  } else {
    memset(buf, 0, 4096);
    memset(buf + kTotal - 4096, 0, 4096);
  }
  timer_start();
  if (rank == 1) {
    CHECK_MPI(MPI_Isend(buf, 1, whole, 0, 6, MPI_COMM_WORLD, &req));
    CHECK_MPI(MPI_Waitall(1, &req, MPI_STATUSES_IGNORE));
  } else {
    CHECK_MPI(MPI_Probe(1, 6, MPI_COMM_WORLD, &st));
    check_counts(&st, mib, whole, "Probe");
    CHECK_MPI(MPI_Irecv(buf, kBlocks, mib, 1, 6, MPI_COMM_WORLD, &req));
    CHECK_MPI(MPI_Waitall(1, &req, &st));
    timer_stop("Probe+Irecv+Wait");
    verify_words(buf, 0, nwords, 12, "Isend/Irecv");
    check_counts(&st, mib, whole, "Irecv");
  }
  /* Sendrecv_replace, 0 -> 1 (its receive from MPI_PROC_NULL: a two-way exchange would need a third 2 GiB
   * buffer on each rank for the library's packed copy). */
  if (rank == 0) fill_words(buf, 0, nwords, 13);
  else memset(buf, 0, 4096);
  timer_start();
  if (rank == 0) {
    CHECK_MPI(MPI_Sendrecv_replace(buf, kBlocks, mib, 1, 7, MPI_PROC_NULL, 7, MPI_COMM_WORLD, &st));
    timer_stop("Sendrecv_replace");
    CHECK(st.MPI_SOURCE == MPI_PROC_NULL, "Sendrecv_replace from PROC_NULL: source %d", st.MPI_SOURCE);
    verify_words(buf, 0, 1024, 13, "Sendrecv_replace (sender's buffer)");
  } else {
    CHECK_MPI(MPI_Recv(buf, kBlocks, mib, 0, 7, MPI_COMM_WORLD, &st));
    verify_words(buf, 0, nwords, 13, "Sendrecv_replace");
    check_counts(&st, mib, whole, "Recv from Sendrecv_replace");
  }
}

static void phase_coll(int rank, char *buf, MPI_Datatype mib) {
  const size_t nwords = kTotal / 8, half_words = nwords / 2;
  const int half = kBlocks / 2;

  /* Bcast from rank 1. */
  if (rank == 1) fill_words(buf, 0, nwords, 21);
  else memset(buf, 0, kTotal);
  timer_start();
  CHECK_MPI(MPI_Bcast(buf, kBlocks, mib, 1, MPI_COMM_WORLD));
  timer_stop("Bcast");
  if (rank == 0) verify_words(buf, 0, nwords, 21, "Bcast");
  else verify_words(buf, 0, 1024, 21, "Bcast (root's buffer)");

  /* Allgather in place: rank r owns words [r * half_words, (r + 1) * half_words). */
  memset(buf + (size_t)(1 - rank) * half * MIB, 0, (size_t)half * MIB);
  fill_words(buf, (size_t)rank * half_words, half_words, 22);
  timer_start();
  CHECK_MPI(MPI_Allgather(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, buf, half, mib, MPI_COMM_WORLD));
  timer_stop("Allgather");
  verify_words(buf, 0, nwords, 22, "Allgather");

  /* Gather in place at rank 0. */
  if (rank == 0) {
    fill_words(buf, 0, half_words, 23);
    memset(buf + (size_t)half * MIB, 0, (size_t)half * MIB);
  } else {
    fill_words(buf, half_words, half_words, 23);
  }
  timer_start();
  if (rank == 0) {
    CHECK_MPI(MPI_Gather(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, buf, half, mib, 0, MPI_COMM_WORLD));
    timer_stop("Gather");
    verify_words(buf, 0, nwords, 23, "Gather");
  } else {
    CHECK_MPI(MPI_Gather(buf + (size_t)half * MIB, half, mib, NULL, 0, MPI_DATATYPE_NULL, 0, MPI_COMM_WORLD));
  }
}

/* Non-contiguous: 2050 elements of a type with 1 MiB - 64 bytes of data and a 64-byte hole (extent 1 MiB):
 * 2^31 + 2^21 - 131200 bytes of data. Rank 0 sends them as contiguous bytes and rank 1 receives them into the
 * holes type (the library unpacks a staging copy), then rank 1 sends them back from the holes type (the
 * library packs a staging copy) and rank 0 receives contiguous bytes. */
static void phase_noncontig(int rank, char *buf) {
  const size_t data = MIB - 64, data_words = data / 8, total = (size_t)kBlocks * data;
  MPI_Datatype packed, piece, holes;
  CHECK_MPI(MPI_Type_contiguous((int)data, MPI_BYTE, &packed));
  CHECK_MPI(MPI_Type_commit(&packed));
  CHECK_MPI(MPI_Type_contiguous((int)data, MPI_BYTE, &piece));
  CHECK_MPI(MPI_Type_create_resized(piece, 0, (MPI_Aint)MIB, &holes));
  CHECK_MPI(MPI_Type_commit(&holes));
  CHECK_MPI(MPI_Type_free(&piece));
  MPI_Status st;
  int n = -7;
  MPI_Count x = -7;

  if (rank == 0) fill_words(buf, 0, total / 8, 31);
  else memset(buf, 0x5a, kTotal);
  timer_start();
  if (rank == 0) {
    CHECK_MPI(MPI_Send(buf, kBlocks, packed, 1, 8, MPI_COMM_WORLD));
  } else {
    CHECK_MPI(MPI_Recv(buf, kBlocks, holes, 0, 8, MPI_COMM_WORLD, &st));
    timer_stop("Recv(holes)");
    for (size_t b = 0; b < kBlocks; b++) {
      const uint64_t *w = (const uint64_t *)(buf + b * MIB);
      for (size_t j = 0; j < data_words; j++)
        if (w[j] != word_of(31, b * data_words + j))
          CHECK(0, "Recv into holes: block %zu word %zu is %#llx", b, j, (unsigned long long)w[j]);
      for (size_t k = data; k < MIB; k++)
        CHECK((unsigned char)buf[b * MIB + k] == 0x5a, "Recv into holes wrote hole byte %zu of block %zu", k, b);
    }
    CHECK_MPI(MPI_Get_count(&st, holes, &n));
    CHECK(n == kBlocks, "Get_count(holes) = %d", n);
    CHECK_MPI(MPI_Get_elements_x(&st, MPI_BYTE, &x));
    CHECK(x == (MPI_Count)total, "Get_elements_x(MPI_BYTE) = %lld, expected %zu", (long long)x, total);
    CHECK_MPI(MPI_Get_elements(&st, holes, &n));
    CHECK(n == MPI_UNDEFINED, "Get_elements(holes) = %d, expected MPI_UNDEFINED", n);
  }

  if (rank == 0) memset(buf, 0, 4096);
  timer_start();
  if (rank == 1) {
    CHECK_MPI(MPI_Send(buf, kBlocks, holes, 0, 10, MPI_COMM_WORLD));
  } else {
    CHECK_MPI(MPI_Recv(buf, kBlocks, packed, 1, 10, MPI_COMM_WORLD, &st));
    timer_stop("Send(holes)");
    verify_words(buf, 0, total / 8, 31, "Send from holes");
    CHECK_MPI(MPI_Get_count(&st, packed, &n));
    CHECK(n == kBlocks, "Get_count(packed) = %d", n);
  }
  CHECK_MPI(MPI_Type_free(&holes));
  CHECK_MPI(MPI_Type_free(&packed));
}

static void phase_allreduce(int rank, char *buf) {
  /* Allreduce (sum) in place on 2050 x (131072 doubles). */
  MPI_Datatype dmib;
  CHECK_MPI(MPI_Type_contiguous((int)(MIB / sizeof(double)), MPI_DOUBLE, &dmib));
  CHECK_MPI(MPI_Type_commit(&dmib));
  double *d = (double *)buf;
  const size_t nd = kTotal / sizeof(double);
  for (size_t i = 0; i < nd; i++) d[i] = (double)(i & 1023) + rank;
  timer_start();
#ifdef FTMPI
  CHECK_MPI(MPI_Allreduce(MPI_IN_PLACE, buf, kBlocks, dmib, MPI_SUM, MPI_COMM_WORLD));
#else /* MPICH 4.0 refuses predefined ops on derived types (MPI_ERR_OP) */
  int rc = MPI_SUCCESS;
  WITH_ERRORS_RETURN(MPI_COMM_WORLD, { rc = MPI_Allreduce(MPI_IN_PLACE, buf, kBlocks, dmib, MPI_SUM, MPI_COMM_WORLD); });
  if (check_class_of(rc) == MPI_ERR_OP) {
    if (rank == 0) printf("SKIP Allreduce: MPI_SUM on a derived type is refused by this MPI\n");
    CHECK_MPI(MPI_Type_free(&dmib));
    return;
  }
  CHECK_MPI(rc);
#endif
  timer_stop("Allreduce");
  for (size_t i = 0; i < nd; i++)
    if (d[i] != (double)(2 * (i & 1023) + 1))
      CHECK(0, "Allreduce: double %zu is %g, expected %g", i, d[i], (double)(2 * (i & 1023) + 1));
  CHECK_MPI(MPI_Type_free(&dmib));
}

int main(int argc, char **argv) {
  int rank, size;
#ifdef FTMPI
  /* The staging out-of-memory check needs the single staging copy, which ftmpi uses only up to
   * FTMPI_STAGING_LIMIT bytes (larger non-contiguous messages are packed/unpacked in pieces, test
   * noncontig_rss): raise the limit for the "types" phase. */
  if (argc > 1 && !strcmp(argv[1], "types")) setenv("FTMPI_STAGING_LIMIT", "1000000000000000", 1);
#endif
  CHECK_MPI(MPI_Init(&argc, &argv));
  CHECK_MPI(MPI_Comm_rank(MPI_COMM_WORLD, &rank));
  CHECK_MPI(MPI_Comm_size(MPI_COMM_WORLD, &size));
  CHECK(size == 2, "needs exactly 2 ranks");
  const char *what = argc > 1 ? argv[1] : "all";
  const int all = !strcmp(what, "all");
  const int do_p2p = all || !strcmp(what, "p2p");
  const int do_coll = all || !strcmp(what, "coll");
  const int do_allreduce = all || !strcmp(what, "allreduce");
  const int do_noncontig = all || !strcmp(what, "noncontig");
  const int only_types = !strcmp(what, "types");
  CHECK(do_p2p || do_coll || do_allreduce || do_noncontig || only_types,
        "unknown phase '%s' (types, p2p, noncontig, coll, allreduce or all)",
        what);

  MPI_Datatype mib, whole;
  CHECK_MPI(MPI_Type_contiguous((int)MIB, MPI_BYTE, &mib));
  CHECK_MPI(MPI_Type_commit(&mib));
  CHECK_MPI(MPI_Type_contiguous(kBlocks, mib, &whole));
  CHECK_MPI(MPI_Type_commit(&whole));
  phase_types(mib, whole);

  if (only_types) {  /* no 2 GiB buffers */
#if defined(FTMPI) && defined(__linux__)
    staging_out_of_memory(rank);
#endif
    CHECK_MPI(MPI_Type_free(&whole));
    CHECK_MPI(MPI_Type_free(&mib));
    check_pass("large_count types");
    CHECK_MPI(MPI_Finalize());
    return 0;
  }
  unsigned long long avail = rank == 0 ? meminfo_bytes("MemAvailable") : 0;
  CHECK_MPI(MPI_Bcast(&avail, 1, MPI_UNSIGNED_LONG_LONG, 0, MPI_COMM_WORLD));
  if (avail != 0 && avail < need_bytes(do_allreduce || do_p2p || do_noncontig)) {
    if (rank == 0)
      printf("SKIP large_count %s: %.1f GiB of memory available, %.1f GiB needed\n", what,
             avail / 1073741824.0, need_bytes(do_allreduce || do_p2p || do_noncontig) / 1073741824.0);
  } else {
    char *buf = (char *)malloc(kTotal);
    CHECK(buf != NULL, "cannot allocate %zu bytes", kTotal);
    memset(buf, 0xa5, kTotal);  /* fault the pages in once, outside the timed transfers (not 0: calloc-able) */
    double t0 = MPI_Wtime();
    if (do_p2p) phase_p2p(rank, buf, mib, whole);
    if (do_coll) phase_coll(rank, buf, mib);
    if (do_noncontig) phase_noncontig(rank, buf);
    if (do_allreduce) phase_allreduce(rank, buf);
    double t1 = MPI_Wtime();
    free(buf);
    struct rusage ru;
    CHECK(getrusage(RUSAGE_SELF, &ru) == 0);
    long rss[2] = {0, 0}, mine = ru.ru_maxrss;  /* KiB on Linux */
    CHECK_MPI(MPI_Gather(&mine, 1, MPI_LONG, rss, 1, MPI_LONG, 0, MPI_COMM_WORLD));
    if (rank == 0)
      printf("large_count %s: %.2fs in all;%s; peak RSS %.2f + %.2f GiB\n", what, t1 - t0, g_times,
             rss[0] / 1048576.0, rss[1] / 1048576.0);
  }
  CHECK_MPI(MPI_Type_free(&whole));
  CHECK_MPI(MPI_Type_free(&mib));
  check_pass("large_count");
  CHECK_MPI(MPI_Finalize());
  return 0;
}
