/* comm_groups: communicators and groups.
 *
 * Covers MPI_Comm_rank/size, MPI_Comm_dup (separate matching context, inherits the error handler),
 * MPI_Comm_split (colors, key order, MPI_UNDEFINED), MPI_Comm_create (members get a communicator, others
 * MPI_COMM_NULL), MPI_Comm_free, MPI_Comm_group, MPI_Group_incl, MPI_Group_excl, MPI_Group_size,
 * MPI_Group_rank (MPI_UNDEFINED for non-members), MPI_Group_translate_ranks (incl. MPI_PROC_NULL) and
 * MPI_Group_free, with p2p and collectives on each new communicator.  Works with any number of ranks >= 1.
 * PASS: every rank, size, translation and message is what the definitions say. */
#include "common/check.h"

static int sum_world_ranks(MPI_Comm comm) {
  int wr, s = -1;
  MPI_Comm_rank(MPI_COMM_WORLD, &wr);
  CHECK_MPI(MPI_Allreduce(&wr, &s, 1, MPI_INT, MPI_SUM, comm));
  return s;
}

int main(int argc, char **argv) {
  int rank, size;
  CHECK_MPI(MPI_Init(&argc, &argv));
  CHECK_MPI(MPI_Comm_rank(MPI_COMM_WORLD, &rank));
  CHECK_MPI(MPI_Comm_size(MPI_COMM_WORLD, &size));

  /* ---- Comm_dup: same group, different context ---- */
  MPI_Comm dup;
  CHECK_MPI(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
  CHECK_MPI(MPI_Comm_dup(MPI_COMM_WORLD, &dup));
  CHECK_MPI(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL));
  {
    int r = -1, s = -1, cmp = -1;
    CHECK_MPI(MPI_Comm_rank(dup, &r));
    CHECK_MPI(MPI_Comm_size(dup, &s));
    CHECK(r == rank && s == size, "dup rank %d size %d", r, s);
    CHECK_MPI(MPI_Comm_compare(dup, MPI_COMM_WORLD, &cmp));
    CHECK(cmp == MPI_CONGRUENT, "Comm_compare(dup, world) = %d, expected MPI_CONGRUENT", cmp);
    MPI_Errhandler eh;
    CHECK_MPI(MPI_Comm_get_errhandler(dup, &eh));
    CHECK(eh == MPI_ERRORS_RETURN, "Comm_dup must copy the error handler");
    CHECK_MPI(MPI_Errhandler_free(&eh));
    /* a message on dup is not received by a receive on world with the same source and tag */
    int right = (rank + 1) % size, left = (rank + size - 1) % size;
    int a = 100 + rank, b = 200 + rank, got1 = -1, got2 = -1;
    MPI_Request rq[2];
    CHECK_MPI(MPI_Isend(&a, 1, MPI_INT, right, 5, dup, &rq[0]));
    CHECK_MPI(MPI_Isend(&b, 1, MPI_INT, right, 5, MPI_COMM_WORLD, &rq[1]));
    CHECK_MPI(MPI_Recv(&got1, 1, MPI_INT, left, 5, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
    CHECK_MPI(MPI_Recv(&got2, 1, MPI_INT, left, 5, dup, MPI_STATUS_IGNORE));
    CHECK_MPI(MPI_Waitall(2, rq, MPI_STATUSES_IGNORE));
    CHECK(got1 == 200 + left && got2 == 100 + left, "contexts mixed: world got %d, dup got %d", got1, got2);
    CHECK(sum_world_ranks(dup) == size * (size - 1) / 2, "allreduce on dup");
  }

  /* ---- Comm_split: even/odd colors, key reverses the order; rank 0 opts out when size > 2 ---- */
  {
    MPI_Comm split;
    int color = (size > 2 && rank == 0) ? MPI_UNDEFINED : rank % 2;
    CHECK_MPI(MPI_Comm_split(MPI_COMM_WORLD, color, size - rank, &split));
    if (color == MPI_UNDEFINED) {
      CHECK(split == MPI_COMM_NULL, "MPI_UNDEFINED color must give MPI_COMM_NULL");
    } else {
      int members = 0, pos = 0;
      for (int r = 0; r < size; r++) {
        int c = (size > 2 && r == 0) ? MPI_UNDEFINED : r % 2;
        if (c != color) continue;
        members++;
        if (r > rank) pos++; /* higher world rank = smaller key = earlier */
      }
      int sr = -1, ss = -1;
      CHECK_MPI(MPI_Comm_rank(split, &sr));
      CHECK_MPI(MPI_Comm_size(split, &ss));
      CHECK(ss == members && sr == pos, "split: rank %d size %d, expected %d of %d", sr, ss, pos, members);
      int expect = 0;
      for (int r = 0; r < size; r++)
        if (!(size > 2 && r == 0) && r % 2 == color) expect += r;
      CHECK(sum_world_ranks(split) == expect, "allreduce on split");
      /* ring on the split communicator */
      int right = (sr + 1) % ss, left = (sr + ss - 1) % ss, got = -1;
      CHECK_MPI(MPI_Sendrecv(&rank, 1, MPI_INT, right, 9, &got, 1, MPI_INT, left, 9, split, MPI_STATUS_IGNORE));
      CHECK(got != rank || ss == 1, "split ring");
      CHECK_MPI(MPI_Barrier(split));
      CHECK_MPI(MPI_Comm_free(&split));
      CHECK(split == MPI_COMM_NULL, "Comm_free must set the handle to MPI_COMM_NULL");
    }
  }

  /* ---- groups ---- */
  MPI_Group world_group, evens, odds_excl;
  CHECK_MPI(MPI_Comm_group(MPI_COMM_WORLD, &world_group));
  {
    int gs = -1, gr = -1;
    CHECK_MPI(MPI_Group_size(world_group, &gs));
    CHECK_MPI(MPI_Group_rank(world_group, &gr));
    CHECK(gs == size && gr == rank, "world group size %d rank %d", gs, gr);
  }
  int neven = (size + 1) / 2;
  int *even_ranks = malloc(sizeof(int) * neven), *odd_ranks = malloc(sizeof(int) * (size / 2 + 1));
  for (int i = 0; i < neven; i++) even_ranks[i] = 2 * i;
  for (int i = 0; i < size / 2; i++) odd_ranks[i] = 2 * i + 1;
  CHECK_MPI(MPI_Group_incl(world_group, neven, even_ranks, &evens));
  CHECK_MPI(MPI_Group_excl(world_group, size / 2, odd_ranks, &odds_excl)); /* also the evens */
  {
    int gs = -1, gr = -1, cmp = -1;
    CHECK_MPI(MPI_Group_size(evens, &gs));
    CHECK_MPI(MPI_Group_rank(evens, &gr));
    CHECK(gs == neven, "incl size %d", gs);
    CHECK(gr == (rank % 2 == 0 ? rank / 2 : MPI_UNDEFINED), "incl rank %d", gr);
    CHECK_MPI(MPI_Group_compare(evens, odds_excl, &cmp));
    CHECK(cmp == MPI_IDENT, "incl(evens) vs excl(odds): %d", cmp);
    /* translate every world rank (and PROC_NULL) into the evens group */
    int *in = malloc(sizeof(int) * (size + 1)), *out = malloc(sizeof(int) * (size + 1));
    for (int i = 0; i < size; i++) in[i] = i;
    in[size] = MPI_PROC_NULL;
    CHECK_MPI(MPI_Group_translate_ranks(world_group, size + 1, in, evens, out));
    for (int i = 0; i < size; i++)
      CHECK(out[i] == (i % 2 == 0 ? i / 2 : MPI_UNDEFINED), "translate %d -> %d", i, out[i]);
    CHECK(out[size] == MPI_PROC_NULL, "translate PROC_NULL -> %d", out[size]);
    /* and back */
    for (int i = 0; i < neven; i++) in[i] = neven - 1 - i;
    CHECK_MPI(MPI_Group_translate_ranks(evens, neven, in, world_group, out));
    for (int i = 0; i < neven; i++) CHECK(out[i] == 2 * (neven - 1 - i), "translate back %d -> %d", in[i], out[i]);
    free(in);
    free(out);
    /* a reordered subgroup */
    MPI_Group rev;
    int *order = malloc(sizeof(int) * size);
    for (int i = 0; i < size; i++) order[i] = size - 1 - i;
    CHECK_MPI(MPI_Group_incl(world_group, size, order, &rev));
    CHECK_MPI(MPI_Group_rank(rev, &gr));
    CHECK(gr == size - 1 - rank, "reversed group rank %d", gr);
    CHECK_MPI(MPI_Group_compare(rev, world_group, &cmp));
    CHECK(cmp == (size == 1 ? MPI_IDENT : MPI_SIMILAR), "reversed vs world compare %d", cmp);
    CHECK_MPI(MPI_Group_free(&rev));
    CHECK(rev == MPI_GROUP_NULL, "Group_free must set MPI_GROUP_NULL");
    free(order);
  }

  /* ---- Comm_create from the evens group ---- */
  {
    MPI_Comm ec;
    CHECK_MPI(MPI_Comm_create(MPI_COMM_WORLD, evens, &ec));
    if (rank % 2 == 0) {
      CHECK(ec != MPI_COMM_NULL, "member of the group got MPI_COMM_NULL");
      int r = -1, s = -1;
      CHECK_MPI(MPI_Comm_rank(ec, &r));
      CHECK_MPI(MPI_Comm_size(ec, &s));
      CHECK(r == rank / 2 && s == neven, "Comm_create rank %d size %d", r, s);
      int expect = 0;
      for (int i = 0; i < neven; i++) expect += 2 * i;
      CHECK(sum_world_ranks(ec) == expect, "allreduce on created comm");
      int v = rank == 0 ? 4711 : -1;
      CHECK_MPI(MPI_Bcast(&v, 1, MPI_INT, 0, ec));
      CHECK(v == 4711, "bcast on created comm gave %d", v);
      /* a dup of a derived communicator */
      MPI_Comm ec2;
      CHECK_MPI(MPI_Comm_dup(ec, &ec2));
      CHECK(sum_world_ranks(ec2) == expect, "allreduce on dup of created comm");
      CHECK_MPI(MPI_Comm_free(&ec2));
      CHECK_MPI(MPI_Comm_free(&ec));
    } else {
      CHECK(ec == MPI_COMM_NULL, "non-member got a communicator");
    }
  }
  CHECK_MPI(MPI_Group_free(&evens));
  CHECK_MPI(MPI_Group_free(&odds_excl));
  CHECK_MPI(MPI_Group_free(&world_group));
  free(even_ranks);
  free(odd_ranks);

  /* ---- many dup/free cycles: context ids are recycled ---- */
  for (int i = 0; i < 200; i++) {
    MPI_Comm c;
    CHECK_MPI(MPI_Comm_dup(MPI_COMM_WORLD, &c));
    if (i % 50 == 0) CHECK(sum_world_ranks(c) == size * (size - 1) / 2, "dup %d", i);
    CHECK_MPI(MPI_Comm_free(&c));
  }

  /* ---- MPI_COMM_SELF: group of one, dup of self ---- */
  {
    MPI_Comm sd;
    MPI_Group sg;
    int gs = -1, in0 = 0, out0 = -1;
    CHECK_MPI(MPI_Comm_dup(MPI_COMM_SELF, &sd));
    CHECK_MPI(MPI_Comm_group(sd, &sg));
    CHECK_MPI(MPI_Group_size(sg, &gs));
    CHECK(gs == 1, "self group size %d", gs);
    MPI_Group wg;
    CHECK_MPI(MPI_Comm_group(MPI_COMM_WORLD, &wg));
    CHECK_MPI(MPI_Group_translate_ranks(sg, 1, &in0, wg, &out0));
    CHECK(out0 == rank, "self rank 0 is world rank %d, expected %d", out0, rank);
    CHECK_MPI(MPI_Group_free(&wg));
    CHECK_MPI(MPI_Group_free(&sg));
    CHECK_MPI(MPI_Comm_free(&sd));
  }

  CHECK_MPI(MPI_Comm_free(&dup));
  CHECK(dup == MPI_COMM_NULL);
  check_pass("comm_groups");
  CHECK_MPI(MPI_Finalize());
  return 0;
}
