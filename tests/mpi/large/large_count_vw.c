/* large_count_vw [big] — the MPI-4.0 large-count v/w collectives with array entries beyond INT_MAX. 1+ ranks.
 *
 * PASS when (default, little memory):
 *  - Gatherv_c, Scatterv_c, Allgatherv_c (also MPI_IN_PLACE), Alltoallv_c, Alltoallw_c, Reduce_scatter_c,
 *    Neighbor_allgatherv_c, Neighbor_alltoallv_c, Neighbor_alltoallw_c, each in its blocking, non-blocking
 *    (I...) and persistent (..._init_c, started twice) form, deliver every block intact at a displacement
 *    beyond INT_MAX: 2^31 + 11 elements (or 4 * that many bytes for the w forms, whose displacements are
 *    bytes). The buffer argument is the real buffer minus that offset, so the data lands in a small array
 *    only when the displacement is carried in 64 bits; elements between blocks stay untouched;
 *  - the same on an intercommunicator (Gatherv_c with MPI_ROOT, Alltoallv_c), with 2+ ranks;
 *  - bad input: a negative count entry -> MPI_ERR_COUNT, (ftmpi) a NULL count array -> MPI_ERR_ARG.
 * With the argument "big" (2 ranks used, ~4.3 GB: one buffer of 2^31 + 5 bytes per rank; RUN_SERIAL):
 * a single COUNT entry beyond INT_MAX (2^31 + 5 MPI_BYTEs) moves from rank 0 to rank 1 intact through
 * Gatherv_c, Igatherv_c, Scatterv_c, Allgatherv_c, Alltoallv_c, Alltoallv_init_c, Alltoallw_c,
 * Neighbor_allgatherv_c, Neighbor_alltoallv_c and Neighbor_alltoallw_c (sampled every 4093 bytes and the
 * last byte, cleared before each). (Reduce_scatter_c is not in it: its direct algorithm keeps p blocks of
 * scratch, 8.6 GB here; its 64-bit recvcounts are the same code path as the others'.)
 *
 * (Passing base - offset as the buffer is the usual way to address data by large displacements; the
 * library only ever adds the displacements back.) */
#include "common/check.h"

static int rank, size;
static const MPI_Count OFF = (MPI_Count)INT32_MAX + 12; /* 2^31 + 11: a displacement beyond INT_MAX */
#define NMAX 64
#define SENTINEL (-7)

static int cnt(int s, int d) { return 1 + (s + 2 * d) % 3; }
static int val(int s, int d, int k) { return 100000 * s + 100 * d + k; }
/* The buffer argument that puts displacement OFF (+ i elements of `ext` bytes) at &real[i]. */
static void *shifted(void *real, MPI_Aint ext) { return (void *)((uintptr_t)real - (uintptr_t)(OFF * ext)); }

/* Run one collective in its blocking, non-blocking and persistent forms (the latter started twice);
 * `clear` resets the receive side, `verify` checks it, before/after every run. */
enum { BLOCKING, NONBLOCKING, PERSISTENT };
#define FORMS(clear, verify, blocking_call, nb_call, init_call)                                   \
  for (int form_ = BLOCKING; form_ <= PERSISTENT; form_++) {                                      \
    MPI_Request req_;                                                                             \
    if (form_ == BLOCKING) {                                                                      \
      clear;                                                                                      \
      CHECK_MPI(blocking_call);                                                                   \
      verify;                                                                                     \
    } else if (form_ == NONBLOCKING) {                                                            \
      clear;                                                                                      \
      MPI_Request *request = &req_;                                                               \
      CHECK_MPI(nb_call);                                                                         \
      CHECK_MPI(MPI_Wait(&req_, MPI_STATUS_IGNORE));                                              \
      verify;                                                                                     \
    } else {                                                                                      \
      MPI_Request *request = &req_;                                                               \
      CHECK_MPI(init_call);                                                                       \
      for (int rep_ = 0; rep_ < 2; rep_++) {                                                      \
        clear;                                                                                    \
        CHECK_MPI(MPI_Start(&req_));                                                              \
        CHECK_MPI(MPI_Wait(&req_, MPI_STATUS_IGNORE));                                            \
        verify;                                                                                   \
      }                                                                                           \
      CHECK_MPI(MPI_Request_free(&req_));                                                         \
    }                                                                                             \
  }

static int sbuf[NMAX * 4], rbuf[NMAX * 4];
static MPI_Count scounts[NMAX], rcounts[NMAX];
static MPI_Aint sdispls[NMAX], rdispls[NMAX];
static MPI_Datatype stypes[NMAX], rtypes[NMAX];

static void fill(int *b, int n, int v) {
  for (int i = 0; i < n; i++) b[i] = v;
}

/* Blocks laid out with one spare element after each: block i at OFF + pos[i]. Returns the elements used. */
static int layout(MPI_Count *counts, MPI_Aint *displs, int n, int (*count_of)(int)) {
  int pos = 0;
  for (int i = 0; i < n; i++) {
    counts[i] = count_of(i);
    displs[i] = OFF + pos;
    pos += count_of(i) + 1;
  }
  return pos;
}

static int g_root, g_me;
static int to_root(int i) { return cnt(i, g_root); }
static int from_root(int i) { return cnt(g_root, i); }
static int to_me(int i) { return cnt(i, g_me); }
static int from_me(int i) { return cnt(g_me, i); }
static int to_zero(int i) { return cnt(i, 0); }

/* Block i of `b` (as laid out by layout()) holds val(src(i), dst(i), k) and the gap after it SENTINEL. */
static void check_blocks(const int *b, int n, int (*count_of)(int), int self_is_src, const char *what) {
  int pos = 0;
  for (int i = 0; i < n; i++) {
    const int s = self_is_src ? rank : i, d = self_is_src ? i : rank;
    for (int k = 0; k < count_of(i); k++)
      CHECK(b[pos + k] == val(s, d, k), "%s: block %d elt %d = %d want %d", what, i, k, b[pos + k], val(s, d, k));
    CHECK(b[pos + count_of(i)] == SENTINEL, "%s: gap after block %d overwritten", what, i);
    pos += count_of(i) + 1;
  }
}

static void gatherv(void) {
  for (int root = 0; root < size; root++) {
    g_root = root;
    const int mine = cnt(rank, root);
    for (int k = 0; k < mine; k++) sbuf[k] = val(rank, root, k);
    const int used = layout(rcounts, rdispls, size, to_root);
    void *rb = shifted(rbuf, sizeof(int));
    /* val(s, root): check_blocks with the root as the destination of every block */
    FORMS(fill(rbuf, used, SENTINEL),
          if (rank == root) {
            int pos = 0;
            for (int i = 0; i < size; i++) {
              for (int k = 0; k < cnt(i, root); k++) CHECK(rbuf[pos + k] == val(i, root, k), "Gatherv_c blk %d", i);
              CHECK(rbuf[pos + cnt(i, root)] == SENTINEL);
              pos += cnt(i, root) + 1;
            }
          },
          MPI_Gatherv_c(sbuf, mine, MPI_INT, rb, rcounts, rdispls, MPI_INT, root, MPI_COMM_WORLD),
          MPI_Igatherv_c(sbuf, mine, MPI_INT, rb, rcounts, rdispls, MPI_INT, root, MPI_COMM_WORLD, request),
          MPI_Gatherv_init_c(sbuf, mine, MPI_INT, rb, rcounts, rdispls, MPI_INT, root, MPI_COMM_WORLD, MPI_INFO_NULL,
                             request));
  }
}

static void scatterv(void) {
  for (int root = 0; root < size; root++) {
    g_root = root;
    const int used = layout(scounts, sdispls, size, from_root);
    fill(sbuf, used, SENTINEL);
    for (int i = 0, pos = 0; i < size; pos += cnt(root, i) + 1, i++)
      for (int k = 0; k < cnt(root, i); k++) sbuf[pos + k] = val(root, i, k);
    const void *sb = shifted(sbuf, sizeof(int));
    const int mine = cnt(root, rank);
    FORMS(fill(rbuf, mine + 1, SENTINEL),
          for (int k = 0; k < mine; k++) CHECK(rbuf[k] == val(root, rank, k), "Scatterv_c elt %d", k);
          CHECK(rbuf[mine] == SENTINEL),
          MPI_Scatterv_c(sb, scounts, sdispls, MPI_INT, rbuf, mine, MPI_INT, root, MPI_COMM_WORLD),
          MPI_Iscatterv_c(sb, scounts, sdispls, MPI_INT, rbuf, mine, MPI_INT, root, MPI_COMM_WORLD, request),
          MPI_Scatterv_init_c(sb, scounts, sdispls, MPI_INT, rbuf, mine, MPI_INT, root, MPI_COMM_WORLD,
                              MPI_INFO_NULL, request));
  }
}

static void allgatherv(void) {
  const int mine = cnt(rank, 0);
  for (int k = 0; k < mine; k++) sbuf[k] = val(rank, 0, k);
  const int used = layout(rcounts, rdispls, size, to_zero);
  void *rb = shifted(rbuf, sizeof(int));
  /* every block i holds val(i, 0, k): check with a destination of 0 */
#define CHECK_ALLGATHERV                                                                           \
  for (int i = 0, pos = 0; i < size; pos += cnt(i, 0) + 1, i++) {                                  \
    for (int k = 0; k < cnt(i, 0); k++) CHECK(rbuf[pos + k] == val(i, 0, k), "Allgatherv_c %d", i); \
    CHECK(rbuf[pos + cnt(i, 0)] == SENTINEL);                                                      \
  }
  FORMS(fill(rbuf, used, SENTINEL), CHECK_ALLGATHERV,
        MPI_Allgatherv_c(sbuf, mine, MPI_INT, rb, rcounts, rdispls, MPI_INT, MPI_COMM_WORLD),
        MPI_Iallgatherv_c(sbuf, mine, MPI_INT, rb, rcounts, rdispls, MPI_INT, MPI_COMM_WORLD, request),
        MPI_Allgatherv_init_c(sbuf, mine, MPI_INT, rb, rcounts, rdispls, MPI_INT, MPI_COMM_WORLD, MPI_INFO_NULL,
                              request));
  /* MPI_IN_PLACE: this rank's block is already at its displacement */
  fill(rbuf, used, SENTINEL);
  int pos = 0;
  for (int i = 0; i < rank; i++) pos += cnt(i, 0) + 1;
  for (int k = 0; k < mine; k++) rbuf[pos + k] = val(rank, 0, k);
  CHECK_MPI(MPI_Allgatherv_c(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, rb, rcounts, rdispls, MPI_INT, MPI_COMM_WORLD));
  CHECK_ALLGATHERV;
}

/* Alltoallv_c / Alltoallw_c on `comm` (intra or inter: `n` peers, `me` this rank's number in the sender's
 * numbering). Block to peer d holds val(me, d, k). */
static void alltoall_vw(MPI_Comm comm, int n, int w) {
  g_me = rank;
  const int sused = layout(scounts, sdispls, n, from_me);
  const int rused = layout(rcounts, rdispls, n, to_me);
  fill(sbuf, sused, SENTINEL);
  for (int d = 0, pos = 0; d < n; pos += cnt(rank, d) + 1, d++)
    for (int k = 0; k < cnt(rank, d); k++) sbuf[pos + k] = val(rank, d, k);
  if (!w) {
    const void *sb = shifted(sbuf, sizeof(int));
    void *rb = shifted(rbuf, sizeof(int));
    FORMS(fill(rbuf, rused, SENTINEL), check_blocks(rbuf, n, to_me, 0, "Alltoallv_c"),
          MPI_Alltoallv_c(sb, scounts, sdispls, MPI_INT, rb, rcounts, rdispls, MPI_INT, comm),
          MPI_Ialltoallv_c(sb, scounts, sdispls, MPI_INT, rb, rcounts, rdispls, MPI_INT, comm, request),
          MPI_Alltoallv_init_c(sb, scounts, sdispls, MPI_INT, rb, rcounts, rdispls, MPI_INT, comm, MPI_INFO_NULL,
                               request));
    return;
  }
  /* w: displacements in bytes */
  for (int i = 0; i < n; i++) {
    sdispls[i] = OFF * (MPI_Aint)sizeof(int) + (sdispls[i] - OFF) * (MPI_Aint)sizeof(int);
    rdispls[i] = OFF * (MPI_Aint)sizeof(int) + (rdispls[i] - OFF) * (MPI_Aint)sizeof(int);
    stypes[i] = rtypes[i] = MPI_INT;
  }
  const void *sb = shifted(sbuf, sizeof(int));
  void *rb = shifted(rbuf, sizeof(int));
  FORMS(fill(rbuf, rused, SENTINEL), check_blocks(rbuf, n, to_me, 0, "Alltoallw_c"),
        MPI_Alltoallw_c(sb, scounts, sdispls, stypes, rb, rcounts, rdispls, rtypes, comm),
        MPI_Ialltoallw_c(sb, scounts, sdispls, stypes, rb, rcounts, rdispls, rtypes, comm, request),
        MPI_Alltoallw_init_c(sb, scounts, sdispls, stypes, rb, rcounts, rdispls, rtypes, comm, MPI_INFO_NULL,
                             request));
}

static void reduce_scatter(void) {
  int total = 0;
  for (int i = 0; i < size; i++) rcounts[i] = cnt(i, 0), total += cnt(i, 0);
  int before = 0;
  for (int i = 0; i < rank; i++) before += cnt(i, 0);
  for (int g = 0; g < total; g++) sbuf[g] = 1000 * rank + g;
  const int mine = cnt(rank, 0);
  const int ranks_sum = size * (size - 1) / 2;
  FORMS(fill(rbuf, mine + 1, SENTINEL),
        for (int k = 0; k < mine; k++) CHECK(rbuf[k] == 1000 * ranks_sum + size * (before + k), "Reduce_scatter_c %d",
                                             k);
        CHECK(rbuf[mine] == SENTINEL),
        MPI_Reduce_scatter_c(sbuf, rbuf, rcounts, MPI_INT, MPI_SUM, MPI_COMM_WORLD),
        MPI_Ireduce_scatter_c(sbuf, rbuf, rcounts, MPI_INT, MPI_SUM, MPI_COMM_WORLD, request),
        MPI_Reduce_scatter_init_c(sbuf, rbuf, rcounts, MPI_INT, MPI_SUM, MPI_COMM_WORLD, MPI_INFO_NULL, request));
}

/* Periodic ring (Cartesian, 1 dimension): slot 0 is the -1 neighbour, slot 1 the +1 neighbour, as source and
 * as destination. The block sent in slot j is received by that neighbour in slot 1 - j. */
static int g_src[2];
static int ncnt(int s, int slot) { return 1 + slot + s % 2; }
static int nval(int s, int slot, int k) { return 100000 * s + 10000 * slot + k; }
static int nb_to_me(int j) { return ncnt(g_src[j], 1 - j); }
static int nb_from_me(int j) { return ncnt(rank, j); }
static int nb_allg(int j) { return cnt(g_src[j], 0); }

static void check_nb(const int *b, int (*count_of)(int), int allgather, const char *what) {
  for (int j = 0, pos = 0; j < 2; pos += count_of(j) + 1, j++) {
    for (int k = 0; k < count_of(j); k++) {
      const int want = allgather ? val(g_src[j], 0, k) : nval(g_src[j], 1 - j, k);
      CHECK(b[pos + k] == want, "%s: slot %d elt %d = %d want %d", what, j, k, b[pos + k], want);
    }
    CHECK(b[pos + count_of(j)] == SENTINEL, "%s: gap after slot %d", what, j);
  }
}

static void neighbor(void) {
  MPI_Comm ring;
  int dims[1] = {size}, periods[1] = {1};
  CHECK_MPI(MPI_Cart_create(MPI_COMM_WORLD, 1, dims, periods, 0, &ring));
  CHECK_MPI(MPI_Cart_shift(ring, 0, 1, &g_src[0], &g_src[1]));
  void *rb = shifted(rbuf, sizeof(int));
  /* allgatherv: every neighbour's block i holds val(src, 0, k) */
  {
    const int mine = cnt(rank, 0);
    for (int k = 0; k < mine; k++) sbuf[k] = val(rank, 0, k);
    const int used = layout(rcounts, rdispls, 2, nb_allg);
    FORMS(fill(rbuf, used, SENTINEL), check_nb(rbuf, nb_allg, 1, "Neighbor_allgatherv_c"),
          MPI_Neighbor_allgatherv_c(sbuf, mine, MPI_INT, rb, rcounts, rdispls, MPI_INT, ring),
          MPI_Ineighbor_allgatherv_c(sbuf, mine, MPI_INT, rb, rcounts, rdispls, MPI_INT, ring, request),
          MPI_Neighbor_allgatherv_init_c(sbuf, mine, MPI_INT, rb, rcounts, rdispls, MPI_INT, ring, MPI_INFO_NULL,
                                         request));
  }
#ifndef FTMPI
  /* MPICH 4.0.2 pairs the two blocks between the same two processes (periodic ring of 2) in posting order,
   * not by direction as MPI-4.0 §7.6 states; ftmpi's order is checked by coll_neighbor_2 too */
  if (size == 2) {
    if (rank == 0) printf("SKIP Neighbor_alltoallv_c/w on a ring of 2 (peer)\n");
    CHECK_MPI(MPI_Comm_free(&ring));
    return;
  }
#endif
  const int sused = layout(scounts, sdispls, 2, nb_from_me);
  const int rused = layout(rcounts, rdispls, 2, nb_to_me);
  fill(sbuf, sused, SENTINEL);
  for (int j = 0, pos = 0; j < 2; pos += ncnt(rank, j) + 1, j++)
    for (int k = 0; k < ncnt(rank, j); k++) sbuf[pos + k] = nval(rank, j, k);
  const void *sb = shifted(sbuf, sizeof(int));
  FORMS(fill(rbuf, rused, SENTINEL), check_nb(rbuf, nb_to_me, 0, "Neighbor_alltoallv_c"),
        MPI_Neighbor_alltoallv_c(sb, scounts, sdispls, MPI_INT, rb, rcounts, rdispls, MPI_INT, ring),
        MPI_Ineighbor_alltoallv_c(sb, scounts, sdispls, MPI_INT, rb, rcounts, rdispls, MPI_INT, ring, request),
        MPI_Neighbor_alltoallv_init_c(sb, scounts, sdispls, MPI_INT, rb, rcounts, rdispls, MPI_INT, ring,
                                      MPI_INFO_NULL, request));
  for (int j = 0; j < 2; j++) {
    sdispls[j] = OFF * (MPI_Aint)sizeof(int) + (sdispls[j] - OFF) * (MPI_Aint)sizeof(int);
    rdispls[j] = OFF * (MPI_Aint)sizeof(int) + (rdispls[j] - OFF) * (MPI_Aint)sizeof(int);
    stypes[j] = rtypes[j] = MPI_INT;
  }
  FORMS(fill(rbuf, rused, SENTINEL), check_nb(rbuf, nb_to_me, 0, "Neighbor_alltoallw_c"),
        MPI_Neighbor_alltoallw_c(sb, scounts, sdispls, stypes, rb, rcounts, rdispls, rtypes, ring),
        MPI_Ineighbor_alltoallw_c(sb, scounts, sdispls, stypes, rb, rcounts, rdispls, rtypes, ring, request),
        MPI_Neighbor_alltoallw_init_c(sb, scounts, sdispls, stypes, rb, rcounts, rdispls, rtypes, ring,
                                      MPI_INFO_NULL, request));
  CHECK_MPI(MPI_Comm_free(&ring));
}

/* Intercommunicator: even world ranks against odd ones. Alltoallv_c with every block addressed beyond
 * INT_MAX; Gatherv_c to remote rank 0 of the even group (MPI_ROOT there). */
static void inter(void) {
  if (size < 2) return;
  MPI_Comm half, ic;
  CHECK_MPI(MPI_Comm_split(MPI_COMM_WORLD, rank % 2, rank, &half));
  CHECK_MPI(MPI_Intercomm_create(half, 0, MPI_COMM_WORLD, rank % 2 ? 0 : 1, 7, &ic));
  int lrank, rsize;
  MPI_Comm_rank(ic, &lrank);
  MPI_Comm_remote_size(ic, &rsize);
  /* remote rank r of group g is world rank 2r + g */
  const int other = 1 - rank % 2;
  const int rs = rsize;
  int sused = 0, rused = 0;
  for (int d = 0; d < rs; d++) {
    const int wd = 2 * d + other;
    scounts[d] = cnt(rank, wd), sdispls[d] = OFF + sused, sused += cnt(rank, wd) + 1;
  }
  for (int s = 0; s < rs; s++) {
    const int ws = 2 * s + other;
    rcounts[s] = cnt(ws, rank), rdispls[s] = OFF + rused, rused += cnt(ws, rank) + 1;
  }
  fill(sbuf, sused, SENTINEL);
  fill(rbuf, rused, SENTINEL);
  for (int d = 0; d < rs; d++)
    for (int k = 0; k < cnt(rank, 2 * d + other); k++) sbuf[sdispls[d] - OFF + k] = val(rank, 2 * d + other, k);
  CHECK_MPI(MPI_Alltoallv_c(shifted(sbuf, sizeof(int)), scounts, sdispls, MPI_INT, shifted(rbuf, sizeof(int)),
                            rcounts, rdispls, MPI_INT, ic));
  for (int s = 0; s < rs; s++) {
    const int ws = 2 * s + other;
    for (int k = 0; k < cnt(ws, rank); k++)
      CHECK(rbuf[rdispls[s] - OFF + k] == val(ws, rank, k), "inter Alltoallv_c from %d", ws);
    CHECK(rbuf[rdispls[s] - OFF + cnt(ws, rank)] == SENTINEL);
  }
  /* Gatherv_c: the odd group sends to rank 0 of the even group */
  const int root_here = rank == 0;
  const int root = rank % 2 ? 0 : (root_here ? MPI_ROOT : MPI_PROC_NULL);
  fill(rbuf, rused, SENTINEL);
  const int mine = cnt(rank, 0);
  for (int k = 0; k < mine; k++) sbuf[k] = val(rank, 0, k);
  CHECK_MPI(MPI_Gatherv_c(sbuf, mine, MPI_INT, shifted(rbuf, sizeof(int)), rcounts, rdispls, MPI_INT, root, ic));
  if (root_here) {
    for (int s = 0; s < rs; s++)
      for (int k = 0; k < cnt(2 * s + 1, 0); k++)
        CHECK(rbuf[rdispls[s] - OFF + k] == val(2 * s + 1, 0, k), "inter Gatherv_c from %d", 2 * s + 1);
  }
  MPI_Comm_free(&ic);
  MPI_Comm_free(&half);
}

static void bad(void) {
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  for (int i = 0; i < size; i++) scounts[i] = rcounts[i] = 1, sdispls[i] = rdispls[i] = i;
  rcounts[0] = -1;
  CHECK_CLASS(MPI_Alltoallv_c(sbuf, scounts, sdispls, MPI_INT, rbuf, rcounts, rdispls, MPI_INT, MPI_COMM_WORLD),
              MPI_ERR_COUNT);
  rcounts[0] = 1;
#ifdef FTMPI /* MPICH 4.0.2 dereferences the NULL array */
  CHECK_CLASS(MPI_Alltoallv_c(sbuf, scounts, sdispls, MPI_INT, rbuf, NULL, rdispls, MPI_INT, MPI_COMM_WORLD),
              MPI_ERR_ARG);
#endif
  CHECK_CLASS(MPI_Allgatherv_c(sbuf, -1, MPI_INT, rbuf, rcounts, rdispls, MPI_INT, MPI_COMM_WORLD), MPI_ERR_COUNT);
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
  CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
}

/* ---- big: one count entry beyond INT_MAX, real data (2 ranks) ---- */
static const MPI_Count BIG = (MPI_Count)INT32_MAX + 6; /* 2^31 + 5 bytes */
static unsigned char pat(MPI_Count i) { return (unsigned char)(i / 4093 + 1); }
static void big_clear(unsigned char *b) {
  for (MPI_Count i = 0; i < BIG; i += 4093) b[i] = 0;
  b[BIG - 1] = 0;
}
static void big_check(const unsigned char *b, const char *what) {
  for (MPI_Count i = 0; i < BIG; i += 4093) CHECK(b[i] == pat(i), "%s: byte %lld", what, (long long)i);
  CHECK(b[BIG - 1] == 0xAB, "%s: last byte", what);
}

static void big(void) {
  MPI_Comm pair;
  CHECK_MPI(MPI_Comm_split(MPI_COMM_WORLD, rank < 2 ? 0 : MPI_UNDEFINED, rank, &pair));
  if (pair == MPI_COMM_NULL) return;
  if (size < 2) {
    MPI_Comm_free(&pair);
    return;
  }
  unsigned char *buf = malloc((size_t)BIG);
  int ok = buf != NULL, all_ok = 0;
  MPI_Allreduce(&ok, &all_ok, 1, MPI_INT, MPI_LAND, pair);
  if (!all_ok) {
    if (rank == 0) printf("SKIP big: no memory for %lld bytes\n", (long long)BIG);
    free(buf);
    MPI_Comm_free(&pair);
    return;
  }
  if (rank == 0) {
    for (MPI_Count i = 0; i < BIG; i += 4093) buf[i] = pat(i);
    buf[BIG - 1] = 0xAB;
  }
  const int me = rank; /* 0 sends, 1 receives */
  MPI_Count c01[2] = {0, BIG}, c10[2] = {BIG, 0}, z[2] = {0, 0};
  MPI_Aint d0[2] = {0, 0};
  MPI_Datatype bytes[2] = {MPI_BYTE, MPI_BYTE};
  MPI_Request req;

#define BIG_STEP(what, call)          \
  do {                                \
    if (me == 1) big_clear(buf);      \
    CHECK_MPI(call);                  \
    if (me == 1) big_check(buf, what); \
  } while (0)
  BIG_STEP("Gatherv_c", MPI_Gatherv_c(buf, me == 0 ? BIG : 0, MPI_BYTE, buf, c10, d0, MPI_BYTE, 1, pair));
  if (me == 1) big_clear(buf);
  CHECK_MPI(MPI_Igatherv_c(buf, me == 0 ? BIG : 0, MPI_BYTE, buf, c10, d0, MPI_BYTE, 1, pair, &req));
  CHECK_MPI(MPI_Wait(&req, MPI_STATUS_IGNORE));
  if (me == 1) big_check(buf, "Igatherv_c");
  BIG_STEP("Scatterv_c", MPI_Scatterv_c(buf, c01, d0, MPI_BYTE, buf, me == 1 ? BIG : 0, MPI_BYTE, 0, pair));
  /* Allgatherv_c: rank 0's block (its whole buffer, in place) reaches rank 1; rank 1 contributes nothing */
  BIG_STEP("Allgatherv_c",
           MPI_Allgatherv_c(me == 0 ? MPI_IN_PLACE : buf, 0, MPI_BYTE, buf, c10, d0, MPI_BYTE, pair));
  BIG_STEP("Alltoallv_c", MPI_Alltoallv_c(buf, me == 0 ? c01 : z, d0, MPI_BYTE, buf, me == 1 ? c10 : z, d0,
                                          MPI_BYTE, pair));
  CHECK_MPI(MPI_Alltoallv_init_c(buf, me == 0 ? c01 : z, d0, MPI_BYTE, buf, me == 1 ? c10 : z, d0, MPI_BYTE, pair,
                                 MPI_INFO_NULL, &req));
  if (me == 1) big_clear(buf);
  CHECK_MPI(MPI_Start(&req));
  CHECK_MPI(MPI_Wait(&req, MPI_STATUS_IGNORE));
  if (me == 1) big_check(buf, "Alltoallv_init_c");
  CHECK_MPI(MPI_Request_free(&req));
  BIG_STEP("Alltoallw_c", MPI_Alltoallw_c(buf, me == 0 ? c01 : z, d0, bytes, buf, me == 1 ? c10 : z, d0, bytes,
                                          pair));
  /* neighbourhood: a distributed graph with the one edge 0 -> 1 */
  MPI_Comm g;
  int srcs[1] = {0}, dsts[1] = {1}, wts[1] = {1};
  CHECK_MPI(MPI_Dist_graph_create_adjacent(pair, me == 1 ? 1 : 0, srcs, wts, me == 0 ? 1 : 0, dsts, wts,
                                           MPI_INFO_NULL, 0, &g));
  MPI_Count cb[1] = {BIG};
  BIG_STEP("Neighbor_allgatherv_c", MPI_Neighbor_allgatherv_c(buf, BIG, MPI_BYTE, buf, cb, d0, MPI_BYTE, g));
  BIG_STEP("Neighbor_alltoallv_c", MPI_Neighbor_alltoallv_c(buf, cb, d0, MPI_BYTE, buf, cb, d0, MPI_BYTE, g));
  BIG_STEP("Neighbor_alltoallw_c", MPI_Neighbor_alltoallw_c(buf, cb, d0, bytes, buf, cb, d0, bytes, g));
  MPI_Comm_free(&g);
  free(buf);

  MPI_Comm_free(&pair);
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  CHECK(size <= NMAX / 4);
  if (argc > 1 && strcmp(argv[1], "big") == 0) {
    big();
  } else {
    gatherv();
    scatterv();
    allgatherv();
    alltoall_vw(MPI_COMM_WORLD, size, 0);
    alltoall_vw(MPI_COMM_WORLD, size, 1);
    reduce_scatter();
    neighbor();
    inter();
    bad();
  }
  check_pass("large_count_vw");
  MPI_Finalize();
  return 0;
}
