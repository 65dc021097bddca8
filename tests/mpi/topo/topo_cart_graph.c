/* tests/mpi/topo/topo_cart_graph.c — process topologies: Dims_create, Cart_create/get/rank/coords/shift/sub/
 * map, Cartdim_get, Graph_create/get/neighbors/map, Graphdims_get, Dist_graph_create(_adjacent)/neighbors,
 * Topo_test, with point-to-point traffic along the computed neighbours, and bad input.
 * Every result is checked against a reference computed here (row-major ranks, wrap in periodic dims).
 * PASS: every check holds on every rank; rank 0 prints PASS. Works for any number of ranks >= 1. */
#include "common/check.h"

/* gcc 12 takes the MPI_UNWEIGHTED / MPI_WEIGHTS_EMPTY markers (small pointer constants, as in every MPI)
 * for arrays of size 0. */
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wstringop-overread"
#endif

static int rank, size;

static void test_dims(void) {
  int d2[2] = {0, 0};
  CHECK_MPI(MPI_Dims_create(6, 2, d2));
  CHECK(d2[0] == 3 && d2[1] == 2, "Dims_create(6,2) = %dx%d", d2[0], d2[1]);
  int d3[3] = {0, 3, 0};
  CHECK_MPI(MPI_Dims_create(6, 3, d3));
  CHECK(d3[0] == 2 && d3[1] == 3 && d3[2] == 1, "Dims_create(6,{0,3,0})");
  int dn[3] = {0, 0, 0};
  CHECK_MPI(MPI_Dims_create(size, 3, dn));
  CHECK(dn[0] * dn[1] * dn[2] == size && dn[0] >= dn[1] && dn[1] >= dn[2], "Dims_create(size,3)");
  { /* errors return (set in main) */
    int bad[3] = {0, 3, 0};
    CHECK_CLASS(MPI_Dims_create(7, 3, bad), MPI_ERR_DIMS);
    CHECK_CLASS(MPI_Dims_create(4, -1, bad), MPI_ERR_DIMS);
  }
}

static void test_cart(int periodic0) {
  int dims[2] = {0, 0}, periods[2] = {periodic0, 0};
  CHECK_MPI(MPI_Dims_create(size, 2, dims));
  MPI_Comm cart;
  CHECK_MPI(MPI_Cart_create(MPI_COMM_WORLD, 2, dims, periods, 1, &cart));
  CHECK(cart != MPI_COMM_NULL, "every rank is in a grid of size ranks");
  int st, nd, cr, cs;
  CHECK_MPI(MPI_Topo_test(cart, &st));
  CHECK(st == MPI_CART, "Topo_test = MPI_CART");
  CHECK_MPI(MPI_Cartdim_get(cart, &nd));
  CHECK(nd == 2, "Cartdim_get");
  CHECK_MPI(MPI_Comm_rank(cart, &cr));
  CHECK_MPI(MPI_Comm_size(cart, &cs));
  CHECK(cs == size, "grid size");
  int gd[2], gp[2], gc[2];
  CHECK_MPI(MPI_Cart_get(cart, 2, gd, gp, gc));
  CHECK(gd[0] == dims[0] && gd[1] == dims[1] && gp[0] == periodic0 && gp[1] == 0, "Cart_get dims/periods");
  CHECK(gc[0] == cr / dims[1] && gc[1] == cr % dims[1], "Cart_get coords are row-major");
  for (int r = 0; r < cs; r++) {
    int c[2], back;
    CHECK_MPI(MPI_Cart_coords(cart, r, 2, c));
    CHECK(c[0] == r / dims[1] && c[1] == r % dims[1], "Cart_coords(%d)", r);
    CHECK_MPI(MPI_Cart_rank(cart, c, &back));
    CHECK(back == r, "Cart_rank(Cart_coords(r)) == r");
  }
  /* Shift along dim 0 (periodic or not) and dim 1 (never periodic); reference computed here. */
  for (int dim = 0; dim < 2; dim++)
    for (int disp = -2; disp <= 2; disp++) {
      int src, dst;
      CHECK_MPI(MPI_Cart_shift(cart, dim, disp, &src, &dst));
      int n = dims[dim], p = dim == 0 ? periodic0 : 0;
      int here = gc[dim];
      int up = here + disp, down = here - disp;
      int c[2] = {gc[0], gc[1]};
      int exp_dst = MPI_PROC_NULL, exp_src = MPI_PROC_NULL;
      if (p || (up >= 0 && up < n)) {
        c[dim] = ((up % n) + n) % n;
        exp_dst = c[0] * dims[1] + c[1];
      }
      if (p || (down >= 0 && down < n)) {
        c[dim] = ((down % n) + n) % n;
        exp_src = c[0] * dims[1] + c[1];
      }
      CHECK(src == exp_src && dst == exp_dst, "Cart_shift(dim %d, disp %d): got %d/%d want %d/%d", dim, disp, src,
            dst, exp_src, exp_dst);
    }
  /* Exchange along dim 0: everybody sends its rank to dst and receives from src. */
  int src, dst, got = -7;
  CHECK_MPI(MPI_Cart_shift(cart, 0, 1, &src, &dst));
  CHECK_MPI(MPI_Sendrecv(&cr, 1, MPI_INT, dst, 5, &got, 1, MPI_INT, src, 5, cart, MPI_STATUS_IGNORE));
  CHECK(got == (src == MPI_PROC_NULL ? -7 : src), "neighbour exchange");
  /* Cart_sub: keep dim 1 -> rows. */
  int remain[2] = {0, 1};
  MPI_Comm row;
  CHECK_MPI(MPI_Cart_sub(cart, remain, &row));
  int rr, rs, rnd;
  CHECK_MPI(MPI_Comm_rank(row, &rr));
  CHECK_MPI(MPI_Comm_size(row, &rs));
  CHECK(rs == dims[1] && rr == gc[1], "Cart_sub row rank/size");
  CHECK_MPI(MPI_Cartdim_get(row, &rnd));
  CHECK(rnd == 1, "sub-grid has one dimension");
  int sum = 0;
  CHECK_MPI(MPI_Allreduce(&cr, &sum, 1, MPI_INT, MPI_SUM, row));
  int want = 0;
  for (int j = 0; j < dims[1]; j++) want += gc[0] * dims[1] + j;
  CHECK(sum == want, "allreduce over the row");
  /* Dup keeps the topology. */
  MPI_Comm dup;
  CHECK_MPI(MPI_Comm_dup(cart, &dup));
  CHECK_MPI(MPI_Topo_test(dup, &st));
  CHECK(st == MPI_CART, "dup keeps the topology");
  { /* errors return (set in main) */
    int c[2] = {dims[0] + (periodic0 ? 0 : 1), dims[1]}, r;
    CHECK_CLASS(MPI_Cart_rank(cart, c, &r), MPI_ERR_RANK);  /* dim 1 is never periodic */
    CHECK_CLASS(MPI_Cart_coords(cart, size, 2, c), MPI_ERR_RANK);
    CHECK_CLASS(MPI_Cart_shift(cart, 2, 1, &src, &dst), MPI_ERR_DIMS);
    CHECK_CLASS(MPI_Cartdim_get(MPI_COMM_WORLD, &nd), MPI_ERR_TOPOLOGY);
    int big[2] = {size + 1, 1};
    MPI_Comm none;
    CHECK_CLASS(MPI_Cart_create(MPI_COMM_WORLD, 2, big, periods, 0, &none), MPI_ERR_ARG);
    int neg[2] = {-1, 1};
    CHECK_CLASS(MPI_Cart_create(MPI_COMM_WORLD, 2, neg, periods, 0, &none), MPI_ERR_DIMS);
  }
  CHECK_MPI(MPI_Comm_free(&dup));
  CHECK_MPI(MPI_Comm_free(&row));
  CHECK_MPI(MPI_Comm_free(&cart));

  /* A smaller grid: ranks outside get MPI_COMM_NULL; Cart_map agrees. */
  int small = size > 1 ? size - 1 : 1, one_d[1] = {small}, per[1] = {1}, mapped;
  CHECK_MPI(MPI_Cart_map(MPI_COMM_WORLD, 1, one_d, per, &mapped));
  CHECK_MPI(MPI_Cart_create(MPI_COMM_WORLD, 1, one_d, per, 0, &cart));
  CHECK((rank < small) == (cart != MPI_COMM_NULL), "members of the smaller grid");
  CHECK(mapped == (rank < small ? rank : MPI_UNDEFINED), "Cart_map");
  if (cart != MPI_COMM_NULL) CHECK_MPI(MPI_Comm_free(&cart));
}

static void test_graph(void) {
  /* A ring with a chord: node i -> {i+1, i-1} (mod size), plus 0 -> size/2. */
  int *index = malloc(sizeof(int) * (size_t)size), *edges = malloc(sizeof(int) * (size_t)(3 * size));
  int ne = 0;
  for (int i = 0; i < size; i++) {
    if (size > 1) {
      edges[ne++] = (i + 1) % size;
      edges[ne++] = (i + size - 1) % size;
    }
    if (i == 0 && size > 2) edges[ne++] = size / 2;
    index[i] = ne;
  }
  MPI_Comm g;
  CHECK_MPI(MPI_Graph_create(MPI_COMM_WORLD, size, index, edges, 0, &g));
  int st, nn, nedges, cnt;
  CHECK_MPI(MPI_Topo_test(g, &st));
  CHECK(st == MPI_GRAPH, "Topo_test = MPI_GRAPH");
  CHECK_MPI(MPI_Graphdims_get(g, &nn, &nedges));
  CHECK(nn == size && nedges == ne, "Graphdims_get");
  int *gi = malloc(sizeof(int) * (size_t)size), *ge = malloc(sizeof(int) * (size_t)(ne + 1));
  CHECK_MPI(MPI_Graph_get(g, size, ne, gi, ge));
  CHECK(memcmp(gi, index, sizeof(int) * (size_t)size) == 0 && memcmp(ge, edges, sizeof(int) * (size_t)ne) == 0,
        "Graph_get");
  CHECK_MPI(MPI_Graph_neighbors_count(g, rank, &cnt));
  int first = rank == 0 ? 0 : index[rank - 1];
  CHECK(cnt == index[rank] - first, "Graph_neighbors_count");
  int nb[3];
  CHECK_MPI(MPI_Graph_neighbors(g, rank, 3, nb));
  for (int i = 0; i < cnt; i++) CHECK(nb[i] == edges[first + i], "Graph_neighbors");
  int mapped;
  CHECK_MPI(MPI_Graph_map(MPI_COMM_WORLD, size, index, edges, &mapped));
  CHECK(mapped == rank, "Graph_map");
  { /* errors return (set in main) */
    CHECK_CLASS(MPI_Graph_neighbors_count(g, size, &cnt), MPI_ERR_RANK);
    int bad_edges[1] = {size};
    int bad_index[1] = {1};
    MPI_Comm none;
    CHECK_CLASS(MPI_Graph_create(MPI_COMM_WORLD, 1, bad_index, bad_edges, 0, &none), MPI_ERR_ARG);
  }
  CHECK_MPI(MPI_Comm_free(&g));
  free(gi), free(ge), free(index), free(edges);
}

static void test_dist_graph(void) {
  /* Adjacent: in from rank-1, out to rank+1 (ring), weights = sender rank + 1. */
  int left = (rank + size - 1) % size, right = (rank + 1) % size;
  int sw = left + 1, dw = rank + 1;
  MPI_Comm d;
  CHECK_MPI(MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, 1, &left, &sw, 1, &right, &dw, MPI_INFO_NULL, 0, &d));
  int st, in, out, weighted;
  CHECK_MPI(MPI_Topo_test(d, &st));
  CHECK(st == MPI_DIST_GRAPH, "Topo_test = MPI_DIST_GRAPH");
  CHECK_MPI(MPI_Dist_graph_neighbors_count(d, &in, &out, &weighted));
  CHECK(in == 1 && out == 1 && weighted, "Dist_graph_neighbors_count");
  int s, sws, t, tws;
  CHECK_MPI(MPI_Dist_graph_neighbors(d, 1, &s, &sws, 1, &t, &tws));
  CHECK(s == left && sws == left + 1 && t == right && tws == rank + 1, "Dist_graph_neighbors");
  /* Traffic along the graph. */
  int got = -1;
  CHECK_MPI(MPI_Sendrecv(&rank, 1, MPI_INT, t, 9, &got, 1, MPI_INT, s, 9, d, MPI_STATUS_IGNORE));
  CHECK(got == left, "message from the in-neighbour");
  CHECK_MPI(MPI_Comm_free(&d));

  /* General form: rank 0 declares every edge i -> (i+2) % size, unweighted; the others declare nothing. */
  int n = rank == 0 ? size : 0;
  int *srcs = malloc(sizeof(int) * (size_t)(size + 1)), *degs = malloc(sizeof(int) * (size_t)(size + 1)),
      *dsts = malloc(sizeof(int) * (size_t)(size + 1));
  for (int i = 0; i < n; i++) srcs[i] = i, degs[i] = 1, dsts[i] = (i + 2) % size;
  CHECK_MPI(MPI_Dist_graph_create(MPI_COMM_WORLD, n, srcs, degs, dsts, MPI_UNWEIGHTED, MPI_INFO_NULL, 0, &d));
  CHECK_MPI(MPI_Dist_graph_neighbors_count(d, &in, &out, &weighted));
  CHECK(in == 1 && out == 1 && !weighted, "Dist_graph_create degrees: %d %d %d", in, out, weighted);
  CHECK_MPI(MPI_Dist_graph_neighbors(d, 1, &s, MPI_UNWEIGHTED, 1, &t, MPI_UNWEIGHTED));
  CHECK(s == (rank - 2 % size + 2 * size) % size && t == (rank + 2) % size, "Dist_graph_create neighbours");
  CHECK_MPI(MPI_Comm_free(&d));
  free(srcs), free(degs), free(dsts);
  { /* errors return (set in main) */
    int bad = size;
    CHECK_CLASS(MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, 1, &bad, MPI_UNWEIGHTED, 0, NULL, MPI_UNWEIGHTED,
                                               MPI_INFO_NULL, 0, &d),
                MPI_ERR_RANK);
    CHECK_CLASS(MPI_Dist_graph_neighbors_count(MPI_COMM_WORLD, &in, &out, &weighted), MPI_ERR_TOPOLOGY);
  }
}

int main(int argc, char **argv) {
  CHECK_MPI(MPI_Init(&argc, &argv));
  CHECK_MPI(MPI_Comm_rank(MPI_COMM_WORLD, &rank));
  CHECK_MPI(MPI_Comm_size(MPI_COMM_WORLD, &size));
  /* Errors return everywhere (new communicators inherit it); CHECK_MPI checks every call. */
  CHECK_MPI(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
  int st;
  CHECK_MPI(MPI_Topo_test(MPI_COMM_WORLD, &st));
  CHECK(st == MPI_UNDEFINED, "MPI_COMM_WORLD has no topology");
  test_dims();
  test_cart(1);
  test_cart(0);
  test_graph();
  test_dist_graph();
  CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
  check_pass("topo_cart_graph");
  MPI_Finalize();
  return 0;
}
