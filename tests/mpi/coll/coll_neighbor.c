/* coll_neighbor: MPI_Neighbor_allgather(v), MPI_Neighbor_alltoall(v,w) and their I* forms against a
 * sequential reference.
 *
 * Topologies: a periodic ring (Cartesian, 1 dim: on 1 and 2 ranks both neighbours are the same process, so
 * the -1/+1 order is checked), a 2-D grid periodic in dim 0 only (MPI_PROC_NULL neighbours: their receive
 * slots stay untouched), a graph ring (>= 3 ranks) and a distributed graph with in-neighbours r-1, r-2 and
 * out-neighbours r+1, r+2 (duplicates on 1-2 ranks). Every value names its sender and the sender's slot.
 * Bad input fails with its class and leaves the communicator usable: no topology (MPI_ERR_TOPOLOGY),
 * negative count, null datatype, NULL request, NULL count arrays.
 * PASS: every element equals the reference, gaps and PROC_NULL slots are untouched, rank 0 prints PASS. */
#include "common/check.h"

#define MAXN 16
#define NE 3 /* ints per block */

typedef struct {
  int in, out;
  int src[MAXN], dst[MAXN];
  int sslot[MAXN]; /* for receive slot i: the slot of src[i]'s destination list that holds me */
} nbrs;

static int val(int from, int slot, int k) { return 1 + from * 10000 + slot * 100 + k; }
static int vcnt(int from, int slot) { return (from + 2 * slot) % 3; } /* ints along one edge (some 0) */

static void run(MPI_Comm comm, const nbrs *nb, int nonblocking) {
  int rank;
  MPI_Comm_rank(comm, &rank);
  int sb[MAXN * NE], rb[MAXN * (NE + 1) + 1];
  MPI_Request req;
#define GO(blocking_call, nb_call)        \
  do {                                    \
    if (nonblocking) {                    \
      CHECK_MPI(nb_call);                 \
      CHECK_MPI(MPI_Wait(&req, MPI_STATUS_IGNORE)); \
    } else {                              \
      CHECK_MPI(blocking_call);           \
    }                                     \
  } while (0)

  /* allgather */
  for (int k = 0; k < NE; k++) sb[k] = val(rank, 0, k);
  for (int i = 0; i < MAXN * (NE + 1) + 1; i++) rb[i] = -1;
  GO(MPI_Neighbor_allgather(sb, NE, MPI_INT, rb, NE, MPI_INT, comm),
     MPI_Ineighbor_allgather(sb, NE, MPI_INT, rb, NE, MPI_INT, comm, &req));
  for (int i = 0; i < nb->in; i++)
    for (int k = 0; k < NE; k++)
      CHECK(rb[i * NE + k] == (nb->src[i] == MPI_PROC_NULL ? -1 : val(nb->src[i], 0, k)),
            "allgather slot %d elem %d: %d", i, k, rb[i * NE + k]);

  /* allgatherv: rank s sends s % 3 + 1 ints; slot i at displacement i * (NE + 1) + 1 (gaps) */
  int rc[MAXN], rd[MAXN], sc[MAXN], sd[MAXN];
  for (int i = 0; i < nb->in; i++) {
    rc[i] = nb->src[i] == MPI_PROC_NULL ? 0 : nb->src[i] % 3 + 1;
    rd[i] = i * (NE + 1) + 1;
  }
  for (int i = 0; i < MAXN * (NE + 1) + 1; i++) rb[i] = -1;
  GO(MPI_Neighbor_allgatherv(sb, rank % 3 + 1, MPI_INT, rb, rc, rd, MPI_INT, comm),
     MPI_Ineighbor_allgatherv(sb, rank % 3 + 1, MPI_INT, rb, rc, rd, MPI_INT, comm, &req));
  for (int i = 0; i < nb->in; i++)
    for (int k = 0; k < NE + 1; k++) {
      int want = k < rc[i] ? val(nb->src[i], 0, k) : -1;
      CHECK(rb[rd[i] + k] == want, "allgatherv slot %d elem %d: %d want %d", i, k, rb[rd[i] + k], want);
    }
  CHECK(rb[0] == -1, "allgatherv wrote into a gap");

  /* alltoall */
  for (int j = 0; j < nb->out; j++)
    for (int k = 0; k < NE; k++) sb[j * NE + k] = val(rank, j, k);
  for (int i = 0; i < MAXN * (NE + 1) + 1; i++) rb[i] = -1;
  GO(MPI_Neighbor_alltoall(sb, NE, MPI_INT, rb, NE, MPI_INT, comm),
     MPI_Ineighbor_alltoall(sb, NE, MPI_INT, rb, NE, MPI_INT, comm, &req));
  for (int i = 0; i < nb->in; i++)
    for (int k = 0; k < NE; k++) {
      int want = nb->src[i] == MPI_PROC_NULL ? -1 : val(nb->src[i], nb->sslot[i], k);
      CHECK(rb[i * NE + k] == want, "alltoall slot %d elem %d: %d want %d", i, k, rb[i * NE + k], want);
    }

  /* alltoallv: irregular counts (some zero), gaps on the receive side */
  for (int j = 0; j < nb->out; j++) {
    sc[j] = vcnt(rank, j);
    sd[j] = j * NE;
  }
  for (int i = 0; i < nb->in; i++) {
    rc[i] = nb->src[i] == MPI_PROC_NULL ? 0 : vcnt(nb->src[i], nb->sslot[i]);
    rd[i] = (nb->in - 1 - i) * (NE + 1) + 1; /* reversed order */
  }
  for (int i = 0; i < MAXN * (NE + 1) + 1; i++) rb[i] = -1;
  GO(MPI_Neighbor_alltoallv(sb, sc, sd, MPI_INT, rb, rc, rd, MPI_INT, comm),
     MPI_Ineighbor_alltoallv(sb, sc, sd, MPI_INT, rb, rc, rd, MPI_INT, comm, &req));
  for (int i = 0; i < nb->in; i++)
    for (int k = 0; k < NE + 1; k++) {
      int want = k < rc[i] ? val(nb->src[i], nb->sslot[i], k) : -1;
      CHECK(rb[rd[i] + k] == want, "alltoallv slot %d elem %d: %d want %d", i, k, rb[rd[i] + k], want);
    }

  /* alltoallw: byte displacements, odd receive slots through a derived type (1 int as a struct) */
  MPI_Datatype one;
  CHECK_MPI(MPI_Type_contiguous(1, MPI_INT, &one));
  CHECK_MPI(MPI_Type_commit(&one));
  MPI_Aint swd[MAXN], rwd[MAXN];
  MPI_Datatype st[MAXN], rt[MAXN];
  for (int j = 0; j < nb->out; j++) {
    swd[j] = (MPI_Aint)(sd[j] * sizeof(int));
    st[j] = MPI_INT;
  }
  for (int i = 0; i < nb->in; i++) {
    rwd[i] = (MPI_Aint)(rd[i] * sizeof(int));
    rt[i] = i % 2 ? one : MPI_INT;
  }
  for (int i = 0; i < MAXN * (NE + 1) + 1; i++) rb[i] = -1;
  GO(MPI_Neighbor_alltoallw(sb, sc, swd, st, rb, rc, rwd, rt, comm),
     MPI_Ineighbor_alltoallw(sb, sc, swd, st, rb, rc, rwd, rt, comm, &req));
  for (int i = 0; i < nb->in; i++)
    for (int k = 0; k < NE + 1; k++) {
      int want = k < rc[i] ? val(nb->src[i], nb->sslot[i], k) : -1;
      CHECK(rb[rd[i] + k] == want, "alltoallw slot %d elem %d: %d want %d", i, k, rb[rd[i] + k], want);
    }
  CHECK_MPI(MPI_Type_free(&one));
#undef GO
}

static void test_all(MPI_Comm comm, const nbrs *nb) {
  run(comm, nb, 0);
  run(comm, nb, 1);
}

static void cart_nbrs(MPI_Comm comm, int ndims, nbrs *nb) {
  nb->in = nb->out = 2 * ndims;
  for (int d = 0; d < ndims; d++) {
    CHECK_MPI(MPI_Cart_shift(comm, d, 1, &nb->src[2 * d], &nb->src[2 * d + 1]));
    nb->dst[2 * d] = nb->src[2 * d];
    nb->dst[2 * d + 1] = nb->src[2 * d + 1];
    nb->sslot[2 * d] = 2 * d + 1; /* my -1 neighbour reaches me as its +1 neighbour */
    nb->sslot[2 * d + 1] = 2 * d;
  }
}

static void bad_input(MPI_Comm comm, int size) {
  int sb[MAXN * NE] = {0}, rb[MAXN * NE] = {0}, c[MAXN] = {0}, d[MAXN] = {0};
  MPI_Request req;
  CHECK_MPI(MPI_Comm_set_errhandler(comm, MPI_ERRORS_RETURN));
  CHECK_MPI(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
  CHECK_CLASS(MPI_Neighbor_allgather(sb, 1, MPI_INT, rb, 1, MPI_INT, MPI_COMM_WORLD), MPI_ERR_TOPOLOGY);
  CHECK_CLASS(MPI_Ineighbor_alltoall(sb, 1, MPI_INT, rb, 1, MPI_INT, MPI_COMM_WORLD, &req), MPI_ERR_TOPOLOGY);
  CHECK_CLASS(MPI_Neighbor_alltoall(sb, -1, MPI_INT, rb, 1, MPI_INT, comm), MPI_ERR_COUNT);
  CHECK_CLASS(MPI_Neighbor_allgather(sb, 1, MPI_DATATYPE_NULL, rb, 1, MPI_INT, comm), MPI_ERR_TYPE);
  CHECK_CLASS(MPI_Ineighbor_allgather(sb, 1, MPI_INT, rb, 1, MPI_INT, comm, NULL), MPI_ERR_ARG);
  CHECK_CLASS(MPI_Neighbor_alltoallv(sb, NULL, d, MPI_INT, rb, c, d, MPI_INT, comm), MPI_ERR_ARG);
  CHECK_CLASS(MPI_Neighbor_allgather(MPI_IN_PLACE, 1, MPI_INT, rb, 1, MPI_INT, comm), MPI_ERR_BUFFER);
  CHECK_MPI(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL));
  (void)size;
  /* still usable */
  CHECK_MPI(MPI_Neighbor_allgather(sb, 1, MPI_INT, rb, 1, MPI_INT, comm));
}

int main(int argc, char **argv) {
  int rank, size;
  CHECK_MPI(MPI_Init(&argc, &argv));
  CHECK_MPI(MPI_Comm_rank(MPI_COMM_WORLD, &rank));
  CHECK_MPI(MPI_Comm_size(MPI_COMM_WORLD, &size));
  CHECK(size <= 8, "at most 8 ranks");
  nbrs nb;
  MPI_Comm c;

  /* periodic ring */
  int dims1[1] = {size}, per1[1] = {1};
  CHECK_MPI(MPI_Cart_create(MPI_COMM_WORLD, 1, dims1, per1, 0, &c));
  cart_nbrs(c, 1, &nb);
  test_all(c, &nb);
  bad_input(c, size);
  CHECK_MPI(MPI_Comm_free(&c));

  /* 2-D grid, periodic in dim 0 only */
  int dims2[2] = {0, 0}, per2[2] = {1, 0};
  CHECK_MPI(MPI_Dims_create(size, 2, dims2));
  CHECK_MPI(MPI_Cart_create(MPI_COMM_WORLD, 2, dims2, per2, 0, &c));
  cart_nbrs(c, 2, &nb);
  test_all(c, &nb);
  CHECK_MPI(MPI_Comm_free(&c));

  /* graph ring */
  if (size >= 3) {
    int index[8], edges[16];
    for (int r = 0; r < size; r++) {
      index[r] = 2 * (r + 1);
      edges[2 * r] = (r + size - 1) % size;
      edges[2 * r + 1] = (r + 1) % size;
    }
    CHECK_MPI(MPI_Graph_create(MPI_COMM_WORLD, size, index, edges, 0, &c));
    nb.in = nb.out = 2;
    CHECK_MPI(MPI_Graph_neighbors(c, rank, 2, nb.src));
    for (int i = 0; i < 2; i++) {
      nb.dst[i] = nb.src[i];
      int s = nb.src[i];
      nb.sslot[i] = edges[2 * s] == rank ? 0 : 1;
    }
    test_all(c, &nb);
    CHECK_MPI(MPI_Comm_free(&c));
  }

  /* distributed graph: in r-1, r-2; out r+1, r+2 (slot i of my in-list is slot i of its sender) */
  nb.in = nb.out = 2;
  for (int i = 0; i < 2; i++) {
    nb.src[i] = (rank + 2 * size - (i + 1)) % size;
    nb.dst[i] = (rank + i + 1) % size;
    nb.sslot[i] = i;
  }
  int w[2] = {1, 1}; /* weighted: gcc 12 misreads the MPI_UNWEIGHTED sentinel as an empty array */
  CHECK_MPI(MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, 2, nb.src, w, 2, nb.dst, w, MPI_INFO_NULL, 0, &c));
  test_all(c, &nb);
  CHECK_MPI(MPI_Comm_free(&c));

  CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
  if (rank == 0) printf("PASS coll_neighbor\n");
  CHECK_MPI(MPI_Finalize());
  return 0;
}
