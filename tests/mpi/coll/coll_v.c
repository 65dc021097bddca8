/* coll_v: MPI_Gatherv, MPI_Scatterv, MPI_Allgatherv against a sequential reference.
 *
 * Irregular counts (some zero) at displacements with gaps, every root, small blocks and large ones (which
 * cross the eager/rendezvous limits), MPI_IN_PLACE where the standard allows it, a non-contiguous derived
 * receive type (and Gather/Scatter with small blocks of a non-contiguous type), on MPI_COMM_WORLD and on a split communicator; then bad input on every rank (invalid root,
 * NULL or negative counts, null datatype, recvbuf = MPI_IN_PLACE) must fail with the right error class
 * and leave the communicator usable.
 * PASS: every element equals the reference, gaps are untouched, every bad call returns its class. */
#include "common/check.h"

static int val(int r, int k) { return r * 1000000 + k; }

/* Counts of rank i on a communicator of `size`, scaled. */
static int vcount(int i, int size, int scale) { return ((i * 7 + size) % 4 == 0) ? 0 : ((i * 3) % 5 + 1) * scale; }

static void run(MPI_Comm comm, int scale) {
  int rank, size;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &size);
  int *counts = malloc(sizeof(int) * size), *displs = malloc(sizeof(int) * size);
  int total = 0;
  for (int i = 0; i < size; i++) {
    counts[i] = vcount(i, size, scale);
    displs[i] = total + 1; /* one-element gap before every block */
    total += counts[i] + 1;
  }
  int *mine = malloc(sizeof(int) * (counts[rank] + 1));
  for (int k = 0; k < counts[rank]; k++) mine[k] = val(rank, k);
  int *all = malloc(sizeof(int) * (total + 1));

  for (int root = 0; root < size; root++) {
    for (int in_place = 0; in_place < 2; in_place++) {
      /* Gatherv */
      for (int i = 0; i < total; i++) all[i] = -1;
      if (in_place && rank == root)
        for (int k = 0; k < counts[rank]; k++) all[displs[rank] + k] = val(rank, k);
      const void *sb = (in_place && rank == root) ? MPI_IN_PLACE : mine;
      CHECK_MPI(MPI_Gatherv(sb, counts[rank], MPI_INT, all, counts, displs, MPI_INT, root, comm));
      if (rank == root) {
        for (int i = 0; i < size; i++) {
          CHECK(all[displs[i] - 1] == -1, "gatherv wrote into a gap");
          for (int k = 0; k < counts[i]; k++)
            CHECK(all[displs[i] + k] == val(i, k), "gatherv root %d block %d elem %d: %d", root, i, k,
                  all[displs[i] + k]);
        }
      }
      /* Scatterv */
      if (rank == root)
        for (int i = 0; i < total; i++) all[i] = 7 * i + root;
      int *got = malloc(sizeof(int) * (counts[rank] + 1));
      for (int k = 0; k <= counts[rank]; k++) got[k] = -1;
      void *rb = (in_place && rank == root) ? MPI_IN_PLACE : got;
      CHECK_MPI(MPI_Scatterv(all, counts, displs, MPI_INT, rb, counts[rank], MPI_INT, root, comm));
      if (!(in_place && rank == root)) {
        for (int k = 0; k < counts[rank]; k++)
          CHECK(got[k] == 7 * (displs[rank] + k) + root, "scatterv root %d elem %d", root, k);
        CHECK(got[counts[rank]] == -1, "scatterv wrote past the block");
      }
      free(got);
    }
  }
  /* Allgatherv, normal and in place */
  for (int in_place = 0; in_place < 2; in_place++) {
    for (int i = 0; i < total; i++) all[i] = -1;
    if (in_place)
      for (int k = 0; k < counts[rank]; k++) all[displs[rank] + k] = val(rank, k);
    CHECK_MPI(MPI_Allgatherv(in_place ? MPI_IN_PLACE : mine, counts[rank], MPI_INT, all, counts, displs, MPI_INT,
                             comm));
    for (int i = 0; i < size; i++) {
      CHECK(all[displs[i] - 1] == -1, "allgatherv wrote into a gap");
      for (int k = 0; k < counts[i]; k++) CHECK(all[displs[i] + k] == val(i, k), "allgatherv block %d", i);
    }
  }
  /* Gatherv into a non-contiguous type: element = ints 0 and 2 of a 4-int slot. */
  MPI_Datatype vec, slot;
  CHECK_MPI(MPI_Type_vector(2, 1, 2, MPI_INT, &vec));
  CHECK_MPI(MPI_Type_create_resized(vec, 0, 4 * sizeof(int), &slot));
  CHECK_MPI(MPI_Type_commit(&slot));
  int *pairs = malloc(sizeof(int) * 2 * (counts[rank] + 1));
  for (int k = 0; k < 2 * counts[rank]; k++) pairs[k] = val(rank, k);
  int *slots = malloc(sizeof(int) * 4 * (total + 1));
  for (int i = 0; i < 4 * total; i++) slots[i] = -1;
  CHECK_MPI(MPI_Gatherv(pairs, 2 * counts[rank], MPI_INT, slots, counts, displs, slot, size - 1, comm));
  if (rank == size - 1) {
    for (int i = 0; i < size; i++)
      for (int k = 0; k < counts[i]; k++) {
        const int *s = slots + 4 * (displs[i] + k);
        CHECK(s[0] == val(i, 2 * k) && s[2] == val(i, 2 * k + 1) && s[1] == -1 && s[3] == -1,
              "derived gatherv block %d elem %d", i, k);
      }
  }
  CHECK_MPI(MPI_Type_free(&slot));
  CHECK_MPI(MPI_Type_free(&vec));
  free(pairs);
  free(slots);
  free(mine);
  free(all);
  free(counts);
  free(displs);
}

/* Gather and Scatter with small blocks (binomial trees over packed data) and a non-contiguous type at the
 * root: element = ints 0 and 2 of a 4-int slot; every root, in place too. */
static void derived_gather_scatter(MPI_Comm comm) {
  int rank, size;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &size);
  MPI_Datatype vec, slot;
  CHECK_MPI(MPI_Type_vector(2, 1, 2, MPI_INT, &vec));
  CHECK_MPI(MPI_Type_create_resized(vec, 0, 4 * sizeof(int), &slot));
  CHECK_MPI(MPI_Type_commit(&slot));
  enum { E = 3 }; /* elements of `slot` per rank = 6 ints */
  int mine[2 * E], *slots = malloc(sizeof(int) * 4 * E * size), got[2 * E];
  for (int k = 0; k < 2 * E; k++) mine[k] = val(rank, k);
  for (int root = 0; root < size; root++) {
    for (int in_place = 0; in_place < 2; in_place++) {
      for (int i = 0; i < 4 * E * size; i++) slots[i] = -1;
      if (in_place && rank == root)
        for (int k = 0; k < E; k++) slots[4 * (E * rank + k)] = mine[2 * k], slots[4 * (E * rank + k) + 2] = mine[2 * k + 1];
      CHECK_MPI(MPI_Gather((in_place && rank == root) ? MPI_IN_PLACE : mine, 2 * E, MPI_INT, slots, E, slot, root,
                           comm));
      if (rank == root)
        for (int i = 0; i < size; i++)
          for (int k = 0; k < E; k++) {
            const int *q = slots + 4 * (E * i + k);
            CHECK(q[0] == val(i, 2 * k) && q[2] == val(i, 2 * k + 1) && q[1] == -1 && q[3] == -1,
                  "derived gather root %d block %d elem %d", root, i, k);
          }
      /* scatter the slots back: everyone gets its own pairs */
      for (int k = 0; k < 2 * E; k++) got[k] = -1;
      CHECK_MPI(MPI_Scatter(slots, E, slot, (in_place && rank == root) ? MPI_IN_PLACE : got, 2 * E, MPI_INT, root,
                            comm));
      if (!(in_place && rank == root))
        for (int k = 0; k < 2 * E; k++) CHECK(got[k] == val(rank, k), "derived scatter root %d elem %d", root, k);
    }
  }
  free(slots);
  CHECK_MPI(MPI_Type_free(&slot));
  CHECK_MPI(MPI_Type_free(&vec));
}

static void bad_input(MPI_Comm comm) {
  int rank, size;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &size);
  int *counts = calloc(size, sizeof(int)), *displs = calloc(size, sizeof(int));
  int buf[4] = {0}, out[64];
  CHECK_MPI(MPI_Comm_set_errhandler(comm, MPI_ERRORS_RETURN));
  CHECK_CLASS(MPI_Gatherv(buf, 0, MPI_INT, out, counts, displs, MPI_INT, size, comm), MPI_ERR_ROOT);
  CHECK_CLASS(MPI_Scatterv(buf, counts, displs, MPI_INT, out, 0, MPI_INT, -1, comm), MPI_ERR_ROOT);
  CHECK_CLASS(MPI_Allgatherv(buf, 0, MPI_INT, out, NULL, displs, MPI_INT, comm), MPI_ERR_ARG);
  counts[size - 1] = -1;
  CHECK_CLASS(MPI_Allgatherv(buf, 0, MPI_INT, out, counts, displs, MPI_INT, comm), MPI_ERR_COUNT);
  counts[size - 1] = 0;
  CHECK_CLASS(MPI_Allgatherv(buf, 0, MPI_INT, out, counts, displs, MPI_DATATYPE_NULL, comm), MPI_ERR_TYPE);
  CHECK_CLASS(MPI_Allgatherv(buf, 0, MPI_INT, MPI_IN_PLACE, counts, displs, MPI_INT, comm), MPI_ERR_BUFFER);
  CHECK_CLASS(MPI_Allgatherv(buf, -2, MPI_INT, out, counts, displs, MPI_INT, comm), MPI_ERR_COUNT);
  /* still usable */
  for (int i = 0; i < size; i++) counts[i] = 1, displs[i] = i;
  buf[0] = rank;
  CHECK_MPI(MPI_Allgatherv(buf, 1, MPI_INT, out, counts, displs, MPI_INT, comm));
  for (int i = 0; i < size; i++) CHECK(out[i] == i);
  CHECK_MPI(MPI_Comm_set_errhandler(comm, MPI_ERRORS_ARE_FATAL));
  free(counts);
  free(displs);
}

int main(int argc, char **argv) {
  CHECK_MPI(MPI_Init(&argc, &argv));
  int rank;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  run(MPI_COMM_WORLD, 1);
  run(MPI_COMM_WORLD, 3000);
  MPI_Comm half;
  CHECK_MPI(MPI_Comm_split(MPI_COMM_WORLD, rank % 2, -rank, &half));
  run(half, 1);
  run(half, 700);
  derived_gather_scatter(MPI_COMM_WORLD);
  derived_gather_scatter(half);
  if (check_world_rank() >= 0) bad_input(MPI_COMM_WORLD);
  bad_input(half);
  CHECK_MPI(MPI_Comm_free(&half));
  check_pass("coll_v");
  MPI_Finalize();
  return 0;
}
