/* rma_basic: one-sided communication against hand-computed references (MPI-3.1 chapter 11).
 *
 * Any number of ranks >= 1. Portable MPI (also run with Open MPI and MPICH).
 * Covers, each checked against the value every rank can compute by hand:
 *  1. Win_create + fence: every rank puts its id into every target's slot; gets its right neighbour's row.
 *  2. Datatype shapes: contiguous origin -> vector target (strided), vector origin -> indexed target,
 *     struct-of-doubles target, a 1 MiB put/get (the large path) and a 256 KiB strided put.
 *  3. Accumulate: SUM/PROD/MAX/MIN on int/double/unsigned char, BAND/BOR/BXOR on unsigned, MAXLOC on
 *     MPI_2INT, REPLACE; SUM into a vector target type; Get_accumulate (SUM and NO_OP);
 *     Fetch_and_op counters (every fetched value distinct); Compare_and_swap.
 *  4. PSCW: a ring (post to the left, start to the right), with MPI_Win_test polling.
 *  5. Passive target: exclusive-lock read-modify-write increments (mutual exclusion), shared locks, lock_all
 *     with flush/flush_local/flush_all, Rput/Rget/Raccumulate/Rget_accumulate; a target sitting in
 *     MPI_Recv (or MPI_Barrier) while others lock/put/unlock on it (target-side progress).
 *  6. Win_allocate, Win_allocate_shared (+ shared_query, direct load/store, Win_sync), Win_create_dynamic
 *     (+ attach/detach).
 *  7. Window attributes (BASE, SIZE, DISP_UNIT, CREATE_FLAVOR, MODEL), get_group, names, info, user
 *     attributes with a delete callback.
 * PASS: every value as computed, no error. */
#include "../common/check.h"

static int rank, size;

static void fence_basic(void) {
  int *mem = calloc((size_t)size, sizeof(int));
  MPI_Win win;
  CHECK_MPI(MPI_Win_create(mem, (MPI_Aint)(size * sizeof(int)), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &win));
  CHECK_MPI(MPI_Win_fence(0, win));
  int me = 1000 + rank;
  for (int t = 0; t < size; t++) CHECK_MPI(MPI_Put(&me, 1, MPI_INT, t, rank, 1, MPI_INT, win));
  CHECK_MPI(MPI_Win_fence(0, win));
  for (int i = 0; i < size; i++) CHECK(mem[i] == 1000 + i, "slot %d = %d", i, mem[i]);
  int *row = calloc((size_t)size, sizeof(int));
  CHECK_MPI(MPI_Get(row, size, MPI_INT, (rank + 1) % size, 0, size, MPI_INT, win));
  CHECK_MPI(MPI_Win_fence(MPI_MODE_NOSUCCEED, win));
  for (int i = 0; i < size; i++) CHECK(row[i] == 1000 + i, "got slot %d = %d", i, row[i]);
  CHECK_MPI(MPI_Win_free(&win));
  CHECK(win == MPI_WIN_NULL);
  free(row);
  free(mem);
}

static void shapes(void) {
  enum { N = 64 };
  double *mem = calloc(4 * N, sizeof(double));
  MPI_Win win;
  CHECK_MPI(MPI_Win_create(mem, 4 * N * sizeof(double), sizeof(double), MPI_INFO_NULL, MPI_COMM_WORLD, &win));
  int tgt = (rank + 1) % size, src = (rank + size - 1) % size;
  /* contiguous origin -> vector target (every other double) */
  double orig[N];
  for (int i = 0; i < N; i++) orig[i] = rank * 1000.0 + i;
  MPI_Datatype vec;
  CHECK_MPI(MPI_Type_vector(N, 1, 2, MPI_DOUBLE, &vec));
  CHECK_MPI(MPI_Type_commit(&vec));
  CHECK_MPI(MPI_Win_fence(0, win));
  CHECK_MPI(MPI_Put(orig, N, MPI_DOUBLE, tgt, 1, 1, vec, win));
  CHECK_MPI(MPI_Win_fence(0, win));
  for (int i = 0; i < 2 * N - 1; i++) { /* the vector's elements at 1, 3, 5, ...; gaps untouched */
    double want = (i % 2 == 0) ? src * 1000.0 + i / 2 : 0.0;
    CHECK(mem[1 + i] == want, "vector slot %d = %g want %g", i, mem[1 + i], want);
  }
  /* get it back through the vector type into a contiguous buffer */
  double back[N];
  CHECK_MPI(MPI_Get(back, N, MPI_DOUBLE, tgt, 1, 1, vec, win));
  CHECK_MPI(MPI_Win_fence(0, win));
  for (int i = 0; i < N; i++) CHECK(back[i] == rank * 1000.0 + i, "vector get %d = %g", i, back[i]);
  /* vector origin -> indexed target */
  int bl[3] = {2, 3, 1}, dis[3] = {200, 210, 250};
  MPI_Datatype idx, ovec;
  CHECK_MPI(MPI_Type_indexed(3, bl, dis, MPI_DOUBLE, &idx));
  CHECK_MPI(MPI_Type_commit(&idx));
  CHECK_MPI(MPI_Type_vector(6, 1, 3, MPI_DOUBLE, &ovec));
  CHECK_MPI(MPI_Type_commit(&ovec));
  double o18[18];
  for (int i = 0; i < 18; i++) o18[i] = 5000.0 + i + rank;
  CHECK_MPI(MPI_Put(o18, 1, ovec, tgt, 0, 1, idx, win));
  CHECK_MPI(MPI_Win_fence(0, win));
  int at[6] = {200, 201, 210, 211, 212, 250};
  for (int k = 0; k < 6; k++) CHECK(mem[at[k]] == 5000.0 + 3 * k + src, "indexed %d = %g", at[k], mem[at[k]]);
  /* struct of doubles with a hole, count 2 */
  int sbl[2] = {1, 2};
  MPI_Aint sdis[2] = {0, 3 * sizeof(double)};
  MPI_Datatype stypes[2] = {MPI_DOUBLE, MPI_DOUBLE}, st, str;
  CHECK_MPI(MPI_Type_create_struct(2, sbl, sdis, stypes, &st));
  CHECK_MPI(MPI_Type_create_resized(st, 0, 6 * sizeof(double), &str));
  CHECK_MPI(MPI_Type_commit(&str));
  double six[6] = {1, 2, 3, 4, 5, 6};
  CHECK_MPI(MPI_Accumulate(six, 6, MPI_DOUBLE, tgt, 140, 2, str, MPI_SUM, win));
  CHECK_MPI(MPI_Win_fence(0, win));
  double want_s[12] = {1, 0, 0, 2, 3, 0, 4, 0, 0, 5, 6, 0};
  for (int i = 0; i < 12; i++) CHECK(mem[140 + i] == want_s[i], "struct slot %d = %g", i, mem[140 + i]);
  CHECK_MPI(MPI_Win_fence(MPI_MODE_NOSUCCEED, win));
  CHECK_MPI(MPI_Win_free(&win));
  MPI_Type_free(&vec);
  MPI_Type_free(&idx);
  MPI_Type_free(&ovec);
  MPI_Type_free(&st);
  MPI_Type_free(&str);
  free(mem);

  /* large: 1 MiB contiguous put/get and a 256 KiB strided put */
  const int big = 1 << 20;
  unsigned char *bm = calloc(2 * (size_t)big, 1), *bo = malloc(big), *bb = malloc(big);
  check_fill(bo, big, 10 + rank);
  CHECK_MPI(MPI_Win_create(bm, 2 * big, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &win));
  CHECK_MPI(MPI_Win_fence(0, win));
  CHECK_MPI(MPI_Put(bo, big, MPI_BYTE, tgt, 0, big, MPI_BYTE, win));
  CHECK_MPI(MPI_Win_fence(0, win));
  CHECK_PATTERN(bm, big, 10 + src);
  CHECK_MPI(MPI_Get(bb, big, MPI_BYTE, tgt, 0, big, MPI_BYTE, win));
  CHECK_MPI(MPI_Win_fence(0, win));
  CHECK_PATTERN(bb, big, 10 + rank);
  MPI_Datatype sv;
  CHECK_MPI(MPI_Type_vector(big / 4 / 8, 8, 16, MPI_BYTE, &sv)); /* 32 Ki blocks of 8 B, stride 16 */
  CHECK_MPI(MPI_Type_commit(&sv));
  CHECK_MPI(MPI_Put(bo, big / 4, MPI_BYTE, tgt, big, 1, sv, win));
  CHECK_MPI(MPI_Win_fence(MPI_MODE_NOSUCCEED, win));
  for (int b = 0; b < big / 4 / 8; b++) {
    unsigned char *blk = bm + big + (size_t)b * 16;
    for (int k = 0; k < 8; k++)
      CHECK(blk[k] == check_pattern_byte(10 + src, (size_t)b * 8 + k), "strided byte %d.%d", b, k);
    for (int k = 8; k < 16; k++) CHECK(blk[k] == 0, "strided gap %d.%d", b, k);
  }
  CHECK_MPI(MPI_Win_free(&win));
  MPI_Type_free(&sv);
  free(bm);
  free(bo);
  free(bb);
}

static void accumulates(void) {
  struct {
    int isum, iprod, imax, imin;
    double dsum, dmax;
    unsigned band, bor, bxor;
    unsigned char csum;
    int loc[2];
    int rep;
    double vec[8];
    int counter;
    int cas;
    long gsum;
  } *m = calloc(1, 512);
  MPI_Win win;
  CHECK_MPI(MPI_Win_create(m, 512, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &win));
  if (rank == 0) {
    m->iprod = 1;
    m->imax = -1000;
    m->imin = 1000;
    m->dmax = -1e9;
    m->band = 0xFFFFFFFFu;
    m->loc[0] = -1;
    m->cas = -1;
  }
  CHECK_MPI(MPI_Win_fence(0, win));
#define OFF(f) ((MPI_Aint)((char *)&m->f - (char *)m))
  int r1 = rank + 1, rm = rank - 3;
  double d = 0.5 * rank;
  unsigned bits = 1u << (rank % 32), nb = ~(1u << (rank % 32));
  unsigned char c = 3;
  int loc[2] = {(rank * 7) % 5, rank};
  CHECK_MPI(MPI_Accumulate(&r1, 1, MPI_INT, 0, OFF(isum), 1, MPI_INT, MPI_SUM, win));
  CHECK_MPI(MPI_Accumulate(&r1, 1, MPI_INT, 0, OFF(iprod), 1, MPI_INT, MPI_PROD, win));
  CHECK_MPI(MPI_Accumulate(&rm, 1, MPI_INT, 0, OFF(imax), 1, MPI_INT, MPI_MAX, win));
  CHECK_MPI(MPI_Accumulate(&rm, 1, MPI_INT, 0, OFF(imin), 1, MPI_INT, MPI_MIN, win));
  CHECK_MPI(MPI_Accumulate(&d, 1, MPI_DOUBLE, 0, OFF(dsum), 1, MPI_DOUBLE, MPI_SUM, win));
  CHECK_MPI(MPI_Accumulate(&d, 1, MPI_DOUBLE, 0, OFF(dmax), 1, MPI_DOUBLE, MPI_MAX, win));
  CHECK_MPI(MPI_Accumulate(&nb, 1, MPI_UNSIGNED, 0, OFF(band), 1, MPI_UNSIGNED, MPI_BAND, win));
  CHECK_MPI(MPI_Accumulate(&bits, 1, MPI_UNSIGNED, 0, OFF(bor), 1, MPI_UNSIGNED, MPI_BOR, win));
  CHECK_MPI(MPI_Accumulate(&bits, 1, MPI_UNSIGNED, 0, OFF(bxor), 1, MPI_UNSIGNED, MPI_BXOR, win));
  CHECK_MPI(MPI_Accumulate(&c, 1, MPI_UNSIGNED_CHAR, 0, OFF(csum), 1, MPI_UNSIGNED_CHAR, MPI_SUM, win));
  CHECK_MPI(MPI_Accumulate(loc, 1, MPI_2INT, 0, OFF(loc), 1, MPI_2INT, MPI_MAXLOC, win));
  if (rank == size - 1) CHECK_MPI(MPI_Accumulate(&r1, 1, MPI_INT, 0, OFF(rep), 1, MPI_INT, MPI_REPLACE, win));
  /* SUM into a vector target: doubles 0,2,4,6 */
  double four[4] = {1, 2, 3, 4};
  MPI_Datatype v;
  CHECK_MPI(MPI_Type_vector(4, 1, 2, MPI_DOUBLE, &v));
  CHECK_MPI(MPI_Type_commit(&v));
  CHECK_MPI(MPI_Accumulate(four, 4, MPI_DOUBLE, 0, OFF(vec), 1, v, MPI_SUM, win));
  CHECK_MPI(MPI_Win_fence(0, win));
  if (rank == 0) {
    int n = size;
    long prod = 1;
    double dsum = 0, dmax = 0;
    unsigned band = 0xFFFFFFFFu, bor = 0, bxor = 0;
    int maxv = -1, maxr = 0;
    for (int r = 0; r < n; r++) {
      prod *= r + 1;
      dsum += 0.5 * r;
      dmax = 0.5 * r;
      band &= ~(1u << (r % 32));
      bor |= 1u << (r % 32);
      bxor ^= 1u << (r % 32);
      int val = (r * 7) % 5;
      if (val > maxv) { maxv = val; maxr = r; }
    }
    CHECK(m->isum == n * (n + 1) / 2, "isum %d", m->isum);
    CHECK(m->iprod == (int)prod, "iprod %d", m->iprod);
    CHECK(m->imax == n - 4 && m->imin == -3, "max %d min %d", m->imax, m->imin);
    CHECK(m->dsum == dsum && m->dmax == dmax, "dsum %g dmax %g", m->dsum, m->dmax);
    CHECK(m->band == band && m->bor == bor && m->bxor == bxor, "bits %x %x %x", m->band, m->bor, m->bxor);
    CHECK(m->csum == (unsigned char)(3 * n), "csum %d", m->csum);
    CHECK(m->loc[0] == maxv && m->loc[1] == maxr, "maxloc %d@%d want %d@%d", m->loc[0], m->loc[1], maxv, maxr);
    CHECK(m->rep == n, "replace %d", m->rep);
    for (int i = 0; i < 8; i++) CHECK(m->vec[i] == (i % 2 ? 0 : n * (i / 2 + 1.0)), "vec %d = %g", i, m->vec[i]);
  }
  /* Get_accumulate / Fetch_and_op / Compare_and_swap under lock_all */
  CHECK_MPI(MPI_Win_fence(MPI_MODE_NOSUCCEED, win));
  CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
  enum { K = 20 };
  int fetched[K];
  CHECK_MPI(MPI_Win_lock_all(0, win));
  int one = 1;
  for (int k = 0; k < K; k++) {
    CHECK_MPI(MPI_Fetch_and_op(&one, &fetched[k], MPI_INT, 0, OFF(counter), MPI_SUM, win));
    CHECK_MPI(MPI_Win_flush(0, win));
  }
  long lr = rank + 1, old = -1;
  CHECK_MPI(MPI_Get_accumulate(&lr, 1, MPI_LONG, &old, 1, MPI_LONG, 0, OFF(gsum), 1, MPI_LONG, MPI_SUM, win));
  CHECK_MPI(MPI_Win_flush(0, win));
  CHECK(old >= 0, "get_accumulate old %ld", old);
  int mine = rank, prev = -2, minus1 = -1;
  CHECK_MPI(MPI_Compare_and_swap(&mine, &minus1, &prev, MPI_INT, 0, OFF(cas), win));
  CHECK_MPI(MPI_Win_unlock_all(win));
  CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
  /* all fetched values are distinct and cover 0 .. size*K-1; exactly one CAS winner */
  int *all = malloc(sizeof(int) * K * size);
  CHECK_MPI(MPI_Allgather(fetched, K, MPI_INT, all, K, MPI_INT, MPI_COMM_WORLD));
  char *seen = calloc((size_t)(K * size), 1);
  for (int i = 0; i < K * size; i++) {
    CHECK(all[i] >= 0 && all[i] < K * size && !seen[all[i]], "fetched value %d twice or out of range", all[i]);
    seen[all[i]] = 1;
  }
  int winner = prev == -1 ? 1 : 0, winners = 0;
  CHECK_MPI(MPI_Allreduce(&winner, &winners, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
  CHECK(winners == 1, "%d CAS winners", winners);
  long noop = -1;
  CHECK_MPI(MPI_Win_lock(MPI_LOCK_SHARED, 0, 0, win));
  CHECK_MPI(MPI_Get_accumulate(NULL, 0, MPI_LONG, &noop, 1, MPI_LONG, 0, OFF(gsum), 1, MPI_LONG, MPI_NO_OP, win));
  CHECK_MPI(MPI_Win_unlock(0, win));
  CHECK(noop == (long)size * (size + 1) / 2, "gsum %ld", noop);
  if (rank == 0) CHECK(m->counter == K * size && m->cas >= 0 && m->cas < size, "counter %d cas %d", m->counter, m->cas);
  CHECK_MPI(MPI_Win_free(&win));
  MPI_Type_free(&v);
  free(all);
  free(seen);
  free(m);
#undef OFF
}

static void pscw(void) {
  int mem[4] = {0, 0, 0, 0};
  MPI_Win win;
  CHECK_MPI(MPI_Win_create(mem, sizeof mem, sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &win));
  MPI_Group world, left, right;
  CHECK_MPI(MPI_Comm_group(MPI_COMM_WORLD, &world));
  int l = (rank + size - 1) % size, r = (rank + 1) % size;
  CHECK_MPI(MPI_Group_incl(world, 1, &l, &left));
  CHECK_MPI(MPI_Group_incl(world, 1, &r, &right));
  for (int round = 0; round < 3; round++) {
    CHECK_MPI(MPI_Win_post(left, 0, win));
    CHECK_MPI(MPI_Win_start(right, 0, win));
    int v = rank * 10 + round;
    CHECK_MPI(MPI_Put(&v, 1, MPI_INT, r, round, 1, MPI_INT, win));
    CHECK_MPI(MPI_Accumulate(&v, 1, MPI_INT, r, 3, 1, MPI_INT, MPI_SUM, win));
    CHECK_MPI(MPI_Win_complete(win));
    if (round == 1) {
      int flag = 0;
      while (!flag) CHECK_MPI(MPI_Win_test(win, &flag));
    } else {
      CHECK_MPI(MPI_Win_wait(win));
    }
    CHECK(mem[round] == l * 10 + round, "pscw round %d: %d", round, mem[round]);
  }
  CHECK(mem[3] == 3 * l * 10 + 3, "pscw acc %d", mem[3]);
  MPI_Group_free(&world);
  MPI_Group_free(&left);
  MPI_Group_free(&right);
  CHECK_MPI(MPI_Win_free(&win));
}

static void passive(void) {
  long *mem = calloc(16, sizeof(long));
  MPI_Win win;
  CHECK_MPI(MPI_Win_allocate(16 * sizeof(long), sizeof(long), MPI_INFO_NULL, MPI_COMM_WORLD, &mem, &win));
  for (int i = 0; i < 16; i++) mem[i] = 0;
  CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
  /* exclusive read-modify-write increments: no update lost */
  enum { K = 25 };
  for (int k = 0; k < K; k++) {
    long v;
    CHECK_MPI(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 0, 0, win));
    CHECK_MPI(MPI_Get(&v, 1, MPI_LONG, 0, 0, 1, MPI_LONG, win));
    CHECK_MPI(MPI_Win_flush(0, win));
    v += 1;
    CHECK_MPI(MPI_Put(&v, 1, MPI_LONG, 0, 0, 1, MPI_LONG, win));
    CHECK_MPI(MPI_Win_unlock(0, win));
  }
  CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
  if (rank == 0) CHECK(mem[0] == (long)K * size, "exclusive counter %ld want %ld", mem[0], (long)K * size);
  /* shared lock on a neighbour, Rput + Rget with Wait, flush_local */
  int t = (rank + 1) % size;
  long mine = 77 + rank, got = -1;
  MPI_Request rq[2];
  CHECK_MPI(MPI_Win_lock(MPI_LOCK_SHARED, t, 0, win));
  CHECK_MPI(MPI_Rput(&mine, 1, MPI_LONG, t, 1, 1, MPI_LONG, win, &rq[0]));
  CHECK_MPI(MPI_Wait(&rq[0], MPI_STATUS_IGNORE));
  CHECK_MPI(MPI_Win_flush(t, win));
  CHECK_MPI(MPI_Rget(&got, 1, MPI_LONG, t, 1, 1, MPI_LONG, win, &rq[1]));
  CHECK_MPI(MPI_Wait(&rq[1], MPI_STATUS_IGNORE));
  CHECK(got == mine, "rget %ld", got);
  CHECK_MPI(MPI_Win_flush_local(t, win));
  CHECK_MPI(MPI_Win_unlock(t, win));
  /* lock_all: Raccumulate into everyone's slot 2, Rget_accumulate, flush_all */
  CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
  CHECK_MPI(MPI_Win_lock_all(0, win));
  long one = 1, before = 0;
  MPI_Request* rs = malloc(sizeof(MPI_Request) * (size_t)size);
  for (int p = 0; p < size; p++) CHECK_MPI(MPI_Raccumulate(&one, 1, MPI_LONG, p, 2, 1, MPI_LONG, MPI_SUM, win, &rs[p]));
  CHECK_MPI(MPI_Waitall(size, rs, MPI_STATUSES_IGNORE));
  CHECK_MPI(MPI_Win_flush_all(win));
  CHECK_MPI(MPI_Rget_accumulate(&one, 1, MPI_LONG, &before, 1, MPI_LONG, t, 3, 1, MPI_LONG, MPI_SUM, win, &rs[0]));
  CHECK_MPI(MPI_Wait(&rs[0], MPI_STATUS_IGNORE));
  CHECK_MPI(MPI_Win_flush_local_all(win));
  CHECK_MPI(MPI_Win_unlock_all(win));
  CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
  CHECK(mem[2] == size, "lock_all accumulate %ld", mem[2]);
  CHECK(mem[3] == 1 && before == 0, "rget_accumulate %ld before %ld", mem[3], before);
  /* target-side progress: rank 0 waits in MPI_Recv for a message the others send only after their
     passive-target epoch on rank 0 completed */
  if (size > 1) {
    if (rank == 0) {
      for (int p = 1; p < size; p++) {
        int x;
        CHECK_MPI(MPI_Recv(&x, 1, MPI_INT, MPI_ANY_SOURCE, 99, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
      }
      for (int p = 1; p < size; p++) CHECK(mem[4 + p % 12] >= 1, "progress put from %d missing", p);
    } else {
      long v = 1;
      CHECK_MPI(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 0, 0, win));
      CHECK_MPI(MPI_Accumulate(&v, 1, MPI_LONG, 0, 4 + rank % 12, 1, MPI_LONG, MPI_SUM, win));
      CHECK_MPI(MPI_Win_unlock(0, win));
      int x = 1;
      CHECK_MPI(MPI_Send(&x, 1, MPI_INT, 0, 99, MPI_COMM_WORLD));
    }
  }
  CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
  CHECK_MPI(MPI_Win_free(&win));
  free(rs);
}

static void flavors(void) {
  /* shared memory: direct load/store of the neighbour's segment */
  MPI_Comm node;
  CHECK_MPI(MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node));
  int nr, ns;
  MPI_Comm_rank(node, &nr);
  MPI_Comm_size(node, &ns);
  int *seg = NULL;
  MPI_Win sw;
  CHECK_MPI(MPI_Win_allocate_shared(4 * sizeof(int), sizeof(int), MPI_INFO_NULL, node, &seg, &sw));
  CHECK_MPI(MPI_Win_lock_all(0, sw));
  for (int i = 0; i < 4; i++) seg[i] = nr * 100 + i;
  CHECK_MPI(MPI_Win_sync(sw));
  CHECK_MPI(MPI_Barrier(node));
  CHECK_MPI(MPI_Win_sync(sw));
  int peer = (nr + 1) % ns;
  MPI_Aint psz;
  int pdu;
  int *pseg = NULL;
  CHECK_MPI(MPI_Win_shared_query(sw, peer, &psz, &pdu, &pseg));
  CHECK(psz == 4 * sizeof(int) && pdu == sizeof(int), "shared_query %ld %d", (long)psz, pdu);
  for (int i = 0; i < 4; i++) CHECK(pseg[i] == peer * 100 + i, "shared load %d = %d", i, pseg[i]);
  CHECK(ns == 1 || pseg == seg + 4 * (peer - nr) || peer == 0, "segments not contiguous");
  int got = -1;
  CHECK_MPI(MPI_Get(&got, 1, MPI_INT, peer, 2, 1, MPI_INT, sw));
  CHECK_MPI(MPI_Win_flush(peer, sw));
  CHECK(got == peer * 100 + 2, "get from shared window %d", got);
  CHECK_MPI(MPI_Win_unlock_all(sw));
  int flavor = 0, *fp = NULL, flag = 0;
  CHECK_MPI(MPI_Win_get_attr(sw, MPI_WIN_CREATE_FLAVOR, &fp, &flag));
  CHECK(flag && *fp == MPI_WIN_FLAVOR_SHARED, "shared flavor");
  (void)flavor;
  CHECK_MPI(MPI_Win_free(&sw));
  MPI_Comm_free(&node);

  /* dynamic: attach a region, publish its address, others put into it */
  MPI_Win dw;
  CHECK_MPI(MPI_Win_create_dynamic(MPI_INFO_NULL, MPI_COMM_WORLD, &dw));
  int *region = calloc((size_t)size, sizeof(int));
  CHECK_MPI(MPI_Win_attach(dw, region, (MPI_Aint)(size * sizeof(int))));
  MPI_Aint addr, *addrs = malloc(sizeof(MPI_Aint) * (size_t)size);
  CHECK_MPI(MPI_Get_address(region, &addr));
  CHECK_MPI(MPI_Allgather(&addr, 1, MPI_AINT, addrs, 1, MPI_AINT, MPI_COMM_WORLD));
  CHECK_MPI(MPI_Win_fence(0, dw));
  int me = 500 + rank;
  for (int t = 0; t < size; t++)
    CHECK_MPI(MPI_Put(&me, 1, MPI_INT, t, addrs[t] + (MPI_Aint)(rank * sizeof(int)), 1, MPI_INT, dw));
  CHECK_MPI(MPI_Win_fence(0, dw));
  for (int i = 0; i < size; i++) CHECK(region[i] == 500 + i, "dynamic slot %d = %d", i, region[i]);
  CHECK_MPI(MPI_Win_detach(dw, region));
  CHECK_MPI(MPI_Win_free(&dw));
  free(region);
  free(addrs);
}

static int deleted = 0;
static int del_fn(MPI_Win w, int k, void *v, void *x) {
  (void)w; (void)k; (void)x;
  deleted += *(int *)v;
  return MPI_SUCCESS;
}

static void attributes(void) {
  char mem[24];
  MPI_Win win;
  CHECK_MPI(MPI_Win_create(mem, 24, 8, MPI_INFO_NULL, MPI_COMM_WORLD, &win));
  void *base = NULL;
  MPI_Aint *sz = NULL;
  int *du = NULL, *fl = NULL, *model = NULL, flag = 0;
  CHECK_MPI(MPI_Win_get_attr(win, MPI_WIN_BASE, &base, &flag));
  CHECK(flag && base == mem, "WIN_BASE");
  CHECK_MPI(MPI_Win_get_attr(win, MPI_WIN_SIZE, &sz, &flag));
  CHECK(flag && *sz == 24, "WIN_SIZE");
  CHECK_MPI(MPI_Win_get_attr(win, MPI_WIN_DISP_UNIT, &du, &flag));
  CHECK(flag && *du == 8, "WIN_DISP_UNIT");
  CHECK_MPI(MPI_Win_get_attr(win, MPI_WIN_CREATE_FLAVOR, &fl, &flag));
  CHECK(flag && *fl == MPI_WIN_FLAVOR_CREATE, "CREATE_FLAVOR");
  CHECK_MPI(MPI_Win_get_attr(win, MPI_WIN_MODEL, &model, &flag));
  CHECK(flag && (*model == MPI_WIN_UNIFIED || *model == MPI_WIN_SEPARATE), "MODEL");
  MPI_Group g, wg;
  int res;
  CHECK_MPI(MPI_Win_get_group(win, &g));
  CHECK_MPI(MPI_Comm_group(MPI_COMM_WORLD, &wg));
  CHECK_MPI(MPI_Group_compare(g, wg, &res));
  CHECK(res == MPI_IDENT, "group");
  MPI_Group_free(&g);
  MPI_Group_free(&wg);
  char name[MPI_MAX_OBJECT_NAME];
  int len;
  CHECK_MPI(MPI_Win_set_name(win, "halo"));
  CHECK_MPI(MPI_Win_get_name(win, name, &len));
  CHECK(len == 4 && strcmp(name, "halo") == 0, "name %s", name);
  MPI_Info info;
  CHECK_MPI(MPI_Win_get_info(win, &info));
  CHECK(info != MPI_INFO_NULL);
  MPI_Info_free(&info);
  int key, val = 3;
  CHECK_MPI(MPI_Win_create_keyval(MPI_WIN_NULL_COPY_FN, del_fn, &key, NULL));
  CHECK_MPI(MPI_Win_set_attr(win, key, &val));
  int *vp = NULL;
  CHECK_MPI(MPI_Win_get_attr(win, key, &vp, &flag));
  CHECK(flag && vp == &val, "user attribute");
  CHECK_MPI(MPI_Win_free(&win));
  CHECK(deleted == 3, "delete callback ran %d", deleted);
  CHECK_MPI(MPI_Win_free_keyval(&key));
}

int main(int argc, char **argv) {
  CHECK_MPI(MPI_Init(&argc, &argv));
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  fence_basic();
  shapes();
  accumulates();
  pscw();
  passive();
  flavors();
  attributes();
  check_pass("rma_basic");
  MPI_Finalize();
  return 0;
}
