/* heat_ft — the ftmpi demo: a 1-D heat equation that survives the loss of a rank (ULFM, Open MPI 5 names).
 *
 *   mpiexec -n 6 --with-ft ulfm --inject rank=2,at=MPI_Allreduce:150 ./heat_ft [cells] [steps]
 *   mpiexec -n 4 --with-ft ulfm --inject rank=1,after=1.0 ./heat_ft
 *
 * The rod of `cells` cells (ends held at 0) is cut into one contiguous range per rank. Each step exchanges
 * halo cells with the neighbours, updates u += a (u[i-1] - 2 u[i] + u[i+1]) and computes the total heat
 * with MPI_Allreduce. Every CKPT_EVERY steps each rank keeps a copy of its range in memory and sends one to
 * its buddy (the next rank; the last rank's buddy is the previous one), so any single lost range can be
 * rebuilt from the buddy. Two generations of copies are kept, because a failure can interrupt a checkpoint.
 *
 * When a rank dies, the first survivor to see an error (MPI_ERR_PROC_FAILED) revokes the communicator, which
 * interrupts everybody else (MPI_ERR_REVOKED); the survivors shrink it, agree (MIN) on the newest checkpoint
 * everybody holds completely, roll back to it, the dead rank's buddy adopts the dead range from its copy, and
 * the computation continues on fewer ranks. At the end the survivors agree that the final gather worked; the
 * first survivor recomputes the whole run sequentially and compares: the results must be bit-identical.
 *
 * Output: a timeline printed by the current rank 0 (t = seconds since the start), then "PASS heat_ft" or
 * "FAIL ...". Exit status 0 on PASS. Works without --inject too (no failure, same answer). */
#define _POSIX_C_SOURCE 200809L
#include <mpi.h>
#include <mpi-ext.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define CKPT_EVERY 50
#define ALPHA 0.4
#define TAG_HALO_L 1
#define TAG_HALO_R 2
#define TAG_CKPT 3
#define TAG_GATHER 4
#define MAX_COPIES 8
#define MAX_RECOVERIES 4

/* ---- the physics ----------------------------------------------------------------------------------- */

static double initial(int i, int cells) {
  double x = (i + 0.5) / cells;
  double u = 400.0 * x * (1.0 - x);
  if (i >= cells / 3 && i < cells / 3 + cells / 50 + 1) u += 500.0; /* a hot spot */
  return u;
}

/* One explicit step on u[1..n] with halos u[0], u[n+1]; writes to `out` (same layout). */
static void update(const double *u, double *out, int n) {
  for (int i = 1; i <= n; i++) out[i] = u[i] + ALPHA * (u[i - 1] - 2.0 * u[i] + u[i + 1]);
}

/* ---- the distributed state ------------------------------------------------------------------------- */

typedef struct { /* one checkpoint of one range */
  int step, lo, hi;
  double *data;
} Copy;

typedef struct {
  MPI_Comm comm;
  int rank, size;
  int cells, steps;
  int lo, hi;         /* my cells [lo, hi) */
  double *u, *tmp;    /* hi-lo cells plus two halos */
  int *lay_lo, *lay_hi; /* every rank's range, by rank in comm */
  Copy own[2];        /* my two newest checkpoints */
  Copy held[MAX_COPIES]; /* buddy copies I keep for others */
  int complete;       /* newest step for which I hold my checkpoint and every copy I am buddy for */
  double t0;
} Heat;

static double now(const Heat *h) { return MPI_Wtime() - h->t0; }

#define SAY(h, ...)                                 \
  do {                                              \
    if ((h)->rank == 0) {                           \
      printf("t=%6.3fs  ", now(h));                 \
      printf(__VA_ARGS__);                          \
      printf("\n");                                 \
      fflush(stdout);                               \
    }                                               \
  } while (0)

static void die(const char *why) {
  printf("FAIL heat_ft: %s\n", why);
  fflush(stdout);
  MPI_Abort(MPI_COMM_WORLD, 1);
}

static int buddy_of(int r, int size) { return r < size - 1 ? r + 1 : r - 1; }

static void set_range(Heat *h, int lo, int hi) {
  h->lo = lo;
  h->hi = hi;
  free(h->u);
  free(h->tmp);
  h->u = calloc((size_t)(hi - lo + 2), sizeof(double));
  h->tmp = calloc((size_t)(hi - lo + 2), sizeof(double));
  if (!h->u || !h->tmp) die("out of memory");
}

static int refresh_layout(Heat *h) {
  MPI_Comm_rank(h->comm, &h->rank);
  MPI_Comm_size(h->comm, &h->size);
  h->lay_lo = realloc(h->lay_lo, (size_t)h->size * sizeof(int));
  h->lay_hi = realloc(h->lay_hi, (size_t)h->size * sizeof(int));
  int rc = MPI_Allgather(&h->lo, 1, MPI_INT, h->lay_lo, 1, MPI_INT, h->comm);
  if (rc == MPI_SUCCESS) rc = MPI_Allgather(&h->hi, 1, MPI_INT, h->lay_hi, 1, MPI_INT, h->comm);
  return rc;
}

static void keep_copy(Copy *slot, int step, int lo, int hi, const double *data) {
  free(slot->data);
  slot->step = step;
  slot->lo = lo;
  slot->hi = hi;
  slot->data = malloc((size_t)(hi - lo) * sizeof(double) + 1);
  if (!slot->data) die("out of memory");
  memcpy(slot->data, data, (size_t)(hi - lo) * sizeof(double));
}

static void forget_copies(Heat *h) {
  for (int i = 0; i < 2; i++) {
    free(h->own[i].data);
    h->own[i] = (Copy){-1, 0, 0, NULL};
  }
  for (int i = 0; i < MAX_COPIES; i++) {
    free(h->held[i].data);
    h->held[i] = (Copy){-1, 0, 0, NULL};
  }
  h->complete = -1;
}

/* The slot of the oldest held copy (or an empty one). */
static Copy *free_held_slot(Heat *h) {
  Copy *best = &h->held[0];
  for (int i = 0; i < MAX_COPIES; i++)
    if (h->held[i].step < best->step) best = &h->held[i];
  return best;
}

static const Copy *find_copy(const Heat *h, int step, int lo, int hi) {
  for (int i = 0; i < 2; i++)
    if (h->own[i].step == step && h->own[i].lo == lo && h->own[i].hi == hi) return &h->own[i];
  for (int i = 0; i < MAX_COPIES; i++)
    if (h->held[i].step == step && h->held[i].lo == lo && h->held[i].hi == hi) return &h->held[i];
  return NULL;
}

/* Checkpoint at `step`: keep my range, send a copy to my buddy, receive the ranges I am buddy for. */
static int checkpoint(Heat *h, int step) {
  int n = h->hi - h->lo;
  Copy *older = h->own[0].step <= h->own[1].step ? &h->own[0] : &h->own[1];
  keep_copy(older, step, h->lo, h->hi, h->u + 1);
  if (h->size == 1) {
    h->complete = step;
    return MPI_SUCCESS;
  }
  MPI_Request req[3];
  double *in[2] = {NULL, NULL};
  int from[2], nin = 0, nreq = 0;
  for (int q = 0; q < h->size; q++)
    if (q != h->rank && buddy_of(q, h->size) == h->rank) {
      from[nin] = q;
      in[nin] = malloc((size_t)(h->lay_hi[q] - h->lay_lo[q]) * sizeof(double) + 1);
      MPI_Irecv(in[nin], h->lay_hi[q] - h->lay_lo[q], MPI_DOUBLE, q, TAG_CKPT, h->comm, &req[nreq++]);
      nin++;
    }
  MPI_Isend(h->u + 1, n, MPI_DOUBLE, buddy_of(h->rank, h->size), TAG_CKPT, h->comm, &req[nreq++]);
  int rc = MPI_Waitall(nreq, req, MPI_STATUSES_IGNORE);
  for (int i = 0; i < nin; i++) {
    if (rc == MPI_SUCCESS) keep_copy(free_held_slot(h), step, h->lay_lo[from[i]], h->lay_hi[from[i]], in[i]);
    free(in[i]);
  }
  if (rc == MPI_SUCCESS) h->complete = step;
  return rc;
}

/* One time step; `which` names the call that failed, if one did. */
static int step_once(Heat *h, double *total, const char **which) {
  int n = h->hi - h->lo, rc = MPI_SUCCESS;
  int left = h->rank > 0 ? h->rank - 1 : MPI_PROC_NULL;
  int right = h->rank < h->size - 1 ? h->rank + 1 : MPI_PROC_NULL;
  h->u[0] = 0.0;
  h->u[n + 1] = 0.0;
  *which = "MPI_Sendrecv";
  rc = MPI_Sendrecv(&h->u[n], 1, MPI_DOUBLE, right, TAG_HALO_R, &h->u[0], 1, MPI_DOUBLE, left, TAG_HALO_R,
                    h->comm, MPI_STATUS_IGNORE);
  if (rc != MPI_SUCCESS) return rc;
  rc = MPI_Sendrecv(&h->u[1], 1, MPI_DOUBLE, left, TAG_HALO_L, &h->u[n + 1], 1, MPI_DOUBLE, right, TAG_HALO_L,
                    h->comm, MPI_STATUS_IGNORE);
  if (rc != MPI_SUCCESS) return rc;
  if (left == MPI_PROC_NULL) h->u[0] = 0.0;
  if (right == MPI_PROC_NULL) h->u[n + 1] = 0.0;
  update(h->u, h->tmp, n);
  double *t = h->u;
  h->u = h->tmp;
  h->tmp = t;
  double mine = 0.0;
  for (int i = 1; i <= n; i++) mine += h->u[i];
  *which = "MPI_Allreduce";
  return MPI_Allreduce(&mine, total, 1, MPI_DOUBLE, MPI_SUM, h->comm);
}

/* Final gather of the whole rod to rank 0 (plain p2p: the layout is irregular). */
static int gather(Heat *h, double *rod) {
  int n = h->hi - h->lo;
  if (h->rank != 0) return MPI_Send(h->u + 1, n, MPI_DOUBLE, 0, TAG_GATHER, h->comm);
  memcpy(rod + h->lo, h->u + 1, (size_t)n * sizeof(double));
  for (int q = 1; q < h->size; q++) {
    int rc = MPI_Recv(rod + h->lay_lo[q], h->lay_hi[q] - h->lay_lo[q], MPI_DOUBLE, q, TAG_GATHER, h->comm,
                      MPI_STATUS_IGNORE);
    if (rc != MPI_SUCCESS) return rc;
  }
  return MPI_SUCCESS;
}

/* ---- recovery -------------------------------------------------------------------------------------- */

/* World rank of rank r of comm. */
static int world_of(MPI_Comm comm, int r) {
  MPI_Group g, w;
  int wr = -1;
  MPI_Comm_group(comm, &g);
  MPI_Comm_group(MPI_COMM_WORLD, &w);
  MPI_Group_translate_ranks(g, 1, &r, w, &wr);
  MPI_Group_free(&g);
  MPI_Group_free(&w);
  return wr;
}

/* Revoke, shrink, roll back to the newest complete checkpoint, adopt dead ranges from buddy copies.
 * Returns the step to resume from. A second failure during the repair itself is not handled (the demo says
 * so and stops): a real code would loop. */
static int recover(Heat *h) {
  MPIX_Comm_revoke(h->comm);
  MPI_Comm shrunk;
  if (MPIX_Comm_shrink(h->comm, &shrunk) != MPI_SUCCESS) die("MPIX_Comm_shrink did not succeed");
  MPI_Comm_set_errhandler(shrunk, MPI_ERRORS_RETURN);

  /* which old ranks are gone? (old rank of every survivor, by translating the groups) */
  int old_size = h->size, old_rank = h->rank, new_size;
  MPI_Comm_size(shrunk, &new_size);
  MPI_Group og, ng;
  MPI_Comm_group(h->comm, &og);
  MPI_Comm_group(shrunk, &ng);
  int *alive = calloc((size_t)old_size, sizeof(int));
  for (int i = 0; i < new_size; i++) {
    int o = MPI_UNDEFINED;
    MPI_Group_translate_ranks(ng, 1, &i, og, &o);
    if (o >= 0 && o < old_size) alive[o] = 1;
  }
  MPI_Group_free(&og);
  MPI_Group_free(&ng);
  int old_rank_in_new = -1;
  MPI_Comm_rank(shrunk, &old_rank_in_new);
  h->rank = old_rank_in_new; /* so SAY prints from the new rank 0 */
  SAY(h, "revoked the communicator of %d ranks", old_size);
  for (int d = 0; d < old_size; d++)
    if (!alive[d]) SAY(h, "rank %d failed (world rank %d, cells %d..%d)", d, world_of(h->comm, d), h->lay_lo[d],
                       h->lay_hi[d] - 1);
  SAY(h, "shrunk to %d ranks", new_size);

  /* the newest checkpoint every survivor holds completely */
  int resume = -1;
  int rc = MPI_Allreduce(&h->complete, &resume, 1, MPI_INT, MPI_MIN, shrunk);
  if (rc != MPI_SUCCESS) die("another failure during the repair (not handled by this demo)");
  SAY(h, "rolling back to the checkpoint of step %d", resume);

  /* my new range: my own range plus the ranges of the dead ranks I was buddy for (contiguous) */
  const Copy *mine = find_copy(h, resume, h->lay_lo[old_rank], h->lay_hi[old_rank]);
  if (!mine) die("my own checkpoint is missing");
  int lo = mine->lo, hi = mine->hi;
  for (int d = 0; d < old_size; d++) {
    if (alive[d]) continue;
    int b = buddy_of(d, old_size);
    if (!alive[b]) die("a rank and its buddy both failed: that range is lost");
    if (b != old_rank) continue;
    if (h->lay_hi[d] == lo) lo = h->lay_lo[d];
    else if (h->lay_lo[d] == hi) hi = h->lay_hi[d];
    else die("a recovered range is not next to mine");
  }
  double *rod = malloc((size_t)(hi - lo) * sizeof(double) + 1);
  for (int d = 0; d < old_size; d++) {
    int is_me = (d == old_rank);
    if (!is_me && (alive[d] || buddy_of(d, old_size) != old_rank)) continue;
    const Copy *c = find_copy(h, resume, h->lay_lo[d], h->lay_hi[d]);
    if (!c) die("the buddy copy of a failed rank is missing");
    memcpy(rod + (c->lo - lo), c->data, (size_t)(c->hi - c->lo) * sizeof(double));
    if (!is_me) {
      printf("t=%6.3fs  recovered block %d (cells %d..%d) from buddy %d\n", now(h), d, c->lo, c->hi - 1, old_rank);
      fflush(stdout);
    }
  }
  set_range(h, lo, hi);
  memcpy(h->u + 1, rod, (size_t)(hi - lo) * sizeof(double));
  free(rod);
  free(alive);

  MPI_Comm_free(&h->comm);
  h->comm = shrunk;
  forget_copies(h);
  rc = refresh_layout(h);
  if (rc == MPI_SUCCESS) rc = checkpoint(h, resume);
  if (rc != MPI_SUCCESS) die("another failure during the repair (not handled by this demo)");
  if (h->rank == 0) {
    printf("t=%6.3fs  redistributed:", now(h));
    for (int q = 0; q < h->size; q++) printf(" [%d..%d]", h->lay_lo[q], h->lay_hi[q] - 1);
    printf("\n");
    fflush(stdout);
  }
  return resume;
}

/* ---- main ------------------------------------------------------------------------------------------ */

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  Heat h;
  memset(&h, 0, sizeof h);
  h.cells = argc > 1 ? atoi(argv[1]) : 3000;
  h.steps = argc > 2 ? atoi(argv[2]) : 600;
  MPI_Comm_dup(MPI_COMM_WORLD, &h.comm);
  MPI_Comm_set_errhandler(h.comm, MPI_ERRORS_RETURN);
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  MPI_Comm_rank(h.comm, &h.rank);
  MPI_Comm_size(h.comm, &h.size);
  if (h.cells < 4 * h.size || h.steps < 1) die("need at least 4 cells per rank and one step");
  MPI_Barrier(h.comm);
  h.t0 = MPI_Wtime();
  forget_copies(&h);

  int lo = (int)((long)h.cells * h.rank / h.size), hi = (int)((long)h.cells * (h.rank + 1) / h.size);
  set_range(&h, lo, hi);
  for (int i = lo; i < hi; i++) h.u[1 + i - lo] = initial(i, h.cells);
  SAY(&h, "start: %d cells, %d steps, %d ranks, checkpoint every %d steps", h.cells, h.steps, h.size, CKPT_EVERY);
  if (refresh_layout(&h) != MPI_SUCCESS || checkpoint(&h, 0) != MPI_SUCCESS) die("the first checkpoint failed");

  double *rod = NULL;
  int step = 0, recoveries = 0, finished = 0;
  struct timespec pause = {0, 3 * 1000 * 1000}; /* make the run last long enough to watch */
  while (!finished) {
    int rc = MPI_SUCCESS;
    const char *which = "";
    double total = 0.0;
    while (rc == MPI_SUCCESS && step < h.steps) {
      rc = step_once(&h, &total, &which);
      if (rc != MPI_SUCCESS) break;
      step++;
      if (step % 200 == 0) SAY(&h, "step %d, total heat %.6f", step, total);
      if (step % CKPT_EVERY == 0) {
        which = "checkpoint";
        rc = checkpoint(&h, step);
      }
      nanosleep(&pause, NULL);
    }
    if (rc == MPI_SUCCESS) {
      free(rod);
      rod = h.rank == 0 ? malloc((size_t)h.cells * sizeof(double)) : NULL;
      which = "final gather";
      rc = gather(&h, rod);
    }
    /* whoever saw an error revokes, so that nobody stays blocked waiting for it; then everybody agrees on
       whether everybody finished (the AND of the flags; agreement works on a revoked communicator) */
    int eclass = MPI_SUCCESS;
    MPI_Error_class(rc, &eclass);
    if (eclass == MPIX_ERR_PROC_FAILED) {
      printf("t=%6.3fs  world rank %d: %s at step %d reported a process failure; revoking\n", now(&h),
             world_of(h.comm, h.rank), which, step);
      fflush(stdout);
    }
    if (rc != MPI_SUCCESS) MPIX_Comm_revoke(h.comm);
    int ok = (rc == MPI_SUCCESS);
    MPIX_Comm_agree(h.comm, &ok);
    if (ok) {
      finished = 1;
      break;
    }
    if (++recoveries > MAX_RECOVERIES) die("too many recoveries");
    step = recover(&h);
    SAY(&h, "resuming at step %d on %d ranks", step, h.size);
  }
  SAY(&h, "finished %d steps on %d ranks after %d recover%s", h.steps, h.size, recoveries,
      recoveries == 1 ? "y" : "ies");

  if (h.rank == 0) { /* the check: the same run, sequentially */
    double *u = calloc((size_t)h.cells + 2, sizeof(double)), *v = calloc((size_t)h.cells + 2, sizeof(double));
    for (int i = 0; i < h.cells; i++) u[1 + i] = initial(i, h.cells);
    for (int s = 0; s < h.steps; s++) {
      update(u, v, h.cells);
      double *t = u;
      u = v;
      v = t;
    }
    double maxdiff = 0.0;
    for (int i = 0; i < h.cells; i++) {
      double d = rod[i] - u[1 + i];
      if (d < 0) d = -d;
      if (d > maxdiff) maxdiff = d;
    }
    if (maxdiff == 0.0)
      printf("t=%6.3fs  finished: result matches the sequential computation (bit for bit)\nPASS heat_ft\n", now(&h));
    else
      printf("FAIL heat_ft: the result differs from the sequential computation by up to %g\n", maxdiff);
    fflush(stdout);
    free(u);
    free(v);
  }
  free(rod);
  forget_copies(&h);
  free(h.u);
  free(h.tmp);
  free(h.lay_lo);
  free(h.lay_hi);
  MPI_Comm_free(&h.comm);
  MPI_Finalize();
  return 0;
}
