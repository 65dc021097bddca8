/* tests/mpi/comm/comm_inter_split.c — constructors on intercommunicators (MPI-2.2 §6.4.2):
 * MPI_Comm_split and MPI_Comm_create of an intercommunicator (results are intercommunicators; MPI_UNDEFINED,
 * non-members, and a result with an empty side give MPI_COMM_NULL on both sides), and what a conformance
 * suite does with the results: traffic by remote rank, collectives, Probe/Iprobe, Comm_dup/idup,
 * Comm_compare, names, attributes, Comm_test_inter, Comm_remote_size; bad input.
 * Needs >= 2 ranks (1 rank: SKIP). Portable MPI. */
#include "../common/check.h"

static int rank, size;

/* The base intercommunicator: world split into evens (side A) and odds (side B). */
static MPI_Comm make_inter(MPI_Comm *half) {
  MPI_Comm inter;
  const int even = rank % 2 == 0;
  CHECK_MPI(MPI_Comm_split(MPI_COMM_WORLD, !even, rank, half));
  CHECK_MPI(MPI_Intercomm_create(*half, 0, MPI_COMM_WORLD, even ? 1 : 0, 7, &inter));
  CHECK_MPI(MPI_Comm_set_errhandler(inter, MPI_ERRORS_RETURN));
  return inter;
}

/* World rank of remote rank r of `inter`. */
static int remote_world(MPI_Comm inter, int r) {
  MPI_Group rg, wg;
  int w;
  CHECK_MPI(MPI_Comm_remote_group(inter, &rg));
  CHECK_MPI(MPI_Comm_group(MPI_COMM_WORLD, &wg));
  CHECK_MPI(MPI_Group_translate_ranks(rg, 1, &r, wg, &w));
  CHECK_MPI(MPI_Group_free(&rg));
  CHECK_MPI(MPI_Group_free(&wg));
  return w;
}

/* Traffic and collectives over an intercommunicator: each local rank sends its world rank to remote rank
 * (lr % rs), every remote rank receives from everybody addressed to it; then Allreduce, Bcast, Barrier, a
 * Probe and an Iprobe. */
static void exercise(MPI_Comm c) {
  int flag, lr, ls, rs;
  CHECK_MPI(MPI_Comm_test_inter(c, &flag));
  CHECK(flag, "result is an intercommunicator");
  CHECK_MPI(MPI_Comm_rank(c, &lr));
  CHECK_MPI(MPI_Comm_size(c, &ls));
  CHECK_MPI(MPI_Comm_remote_size(c, &rs));
  CHECK(ls > 0 && rs > 0, "sizes %d %d", ls, rs);
  /* Messages addressed to me: remote ranks r with r % ls == lr. */
  int expect = 0;
  for (int r = 0; r < rs; r++)
    if (r % ls == lr) expect++;
  CHECK_MPI(MPI_Send(&rank, 1, MPI_INT, lr % rs, 11, c));
  for (int i = 0; i < expect; i++) {
    MPI_Status st;
    int got = -1, count = 0;
    CHECK_MPI(MPI_Probe(MPI_ANY_SOURCE, 11, c, &st));
    CHECK_MPI(MPI_Get_count(&st, MPI_INT, &count));
    CHECK(count == 1, "probe count %d", count);
    CHECK_MPI(MPI_Recv(&got, 1, MPI_INT, st.MPI_SOURCE, 11, c, MPI_STATUS_IGNORE));
    CHECK(got == remote_world(c, st.MPI_SOURCE), "message from remote %d: %d", st.MPI_SOURCE, got);
  }
  /* Iprobe: remote rank 0 sends one message to each of my side's ranks. */
  if (lr == 0)
    for (int r = 0; r < rs; r++) CHECK_MPI(MPI_Send(&r, 1, MPI_INT, r, 12, c));
  flag = 0;
  MPI_Status st;
  while (!flag) CHECK_MPI(MPI_Iprobe(0, 12, c, &flag, &st));
  CHECK(st.MPI_SOURCE == 0 && st.MPI_TAG == 12, "iprobe status");
  int got = -1;
  CHECK_MPI(MPI_Recv(&got, 1, MPI_INT, 0, 12, c, MPI_STATUS_IGNORE));
  CHECK(got == lr, "iprobe message %d", got);
  /* Allreduce over an intercommunicator: the sum of the remote side's values. */
  int sum = 0, rsum = 0;
  for (int r = 0; r < rs; r++) rsum += remote_world(c, r);
  CHECK_MPI(MPI_Allreduce(&rank, &sum, 1, MPI_INT, MPI_SUM, c));
  CHECK(sum == rsum, "inter allreduce %d != %d", sum, rsum);
  CHECK_MPI(MPI_Barrier(c));
}

static void test_split(MPI_Comm inter) {
  const int even = rank % 2 == 0;
  int lr, ls, rs;
  CHECK_MPI(MPI_Comm_rank(inter, &lr));
  CHECK_MPI(MPI_Comm_size(inter, &ls));
  CHECK_MPI(MPI_Comm_remote_size(inter, &rs));
  /* Two colors by local rank parity, keys reversing the order. */
  MPI_Comm s;
  const int color = lr % 2;
  CHECK_MPI(MPI_Comm_split(inter, color, -lr, &s));
  /* Remote members with my color: remote ranks with that parity. */
  int rcount = 0, lcount = 0;
  for (int r = 0; r < rs; r++) rcount += r % 2 == color;
  for (int r = 0; r < ls; r++) lcount += r % 2 == color;
  if (rcount == 0) {
    CHECK(s == MPI_COMM_NULL, "color %d has nobody on the remote side: MPI_COMM_NULL", color);
  } else {
    CHECK(s != MPI_COMM_NULL, "split result");
    int sr, ss, srs;
    CHECK_MPI(MPI_Comm_rank(s, &sr));
    CHECK_MPI(MPI_Comm_size(s, &ss));
    CHECK_MPI(MPI_Comm_remote_size(s, &srs));
    CHECK(ss == lcount && srs == rcount, "split sizes %d/%d, want %d/%d", ss, srs, lcount, rcount);
    /* key = -lr: the highest old rank first. */
    int before = 0;
    for (int r = lr + 1; r < ls; r++) before += r % 2 == color;
    CHECK(sr == before, "split rank %d, want %d", sr, before);
    /* The remote order follows the remote keys: remote rank 0 of s is the highest remote rank of the color. */
    int top = rs - 1;
    while (top % 2 != color) top--;
    CHECK(remote_world(s, 0) == remote_world(inter, top), "remote order by key");
    exercise(s);
    CHECK_MPI(MPI_Comm_free(&s));
  }
  /* Everybody MPI_UNDEFINED. */
  CHECK_MPI(MPI_Comm_split(inter, MPI_UNDEFINED, 0, &s));
  CHECK(s == MPI_COMM_NULL, "MPI_UNDEFINED gives MPI_COMM_NULL");
  /* One side entirely undefined: MPI_COMM_NULL on both sides. */
  CHECK_MPI(MPI_Comm_split(inter, even ? 3 : MPI_UNDEFINED, 0, &s));
  CHECK(s == MPI_COMM_NULL, "empty remote side gives MPI_COMM_NULL");
  /* Different colors on the two sides: no color has both sides. */
  CHECK_MPI(MPI_Comm_split(inter, even ? 1 : 2, 0, &s));
  CHECK(s == MPI_COMM_NULL, "disjoint colors give MPI_COMM_NULL");
  /* One color for all: same groups as inter, congruent. */
  CHECK_MPI(MPI_Comm_split(inter, 5, lr, &s));
  int result;
  CHECK_MPI(MPI_Comm_compare(inter, s, &result));
  CHECK(result == MPI_CONGRUENT, "split with one color is congruent (%d)", result);
  exercise(s);
  CHECK_MPI(MPI_Comm_free(&s));
}

static void test_create(MPI_Comm inter) {
  int lr, ls, rs;
  CHECK_MPI(MPI_Comm_rank(inter, &lr));
  CHECK_MPI(MPI_Comm_size(inter, &ls));
  CHECK_MPI(MPI_Comm_remote_size(inter, &rs));
  MPI_Group lg, sub;
  CHECK_MPI(MPI_Comm_group(inter, &lg));
  /* The first (size+1)/2 local ranks. */
  int n = (ls + 1) / 2, range[1][3] = {{0, n - 1, 1}};
  CHECK_MPI(MPI_Group_range_incl(lg, 1, range, &sub));
  MPI_Comm c;
  CHECK_MPI(MPI_Comm_create(inter, sub, &c));
  if (lr >= n) {
    CHECK(c == MPI_COMM_NULL, "non-member gets MPI_COMM_NULL");
  } else {
    CHECK(c != MPI_COMM_NULL, "member gets a communicator");
    int cs, crs, cr;
    CHECK_MPI(MPI_Comm_size(c, &cs));
    CHECK_MPI(MPI_Comm_rank(c, &cr));
    CHECK_MPI(MPI_Comm_remote_size(c, &crs));
    CHECK(cs == n && cr == lr && crs == (rs + 1) / 2, "create sizes %d %d %d", cs, cr, crs);
    exercise(c);
    CHECK_MPI(MPI_Comm_free(&c));
  }
  CHECK_MPI(MPI_Group_free(&sub));
  /* The whole local group: congruent to inter. */
  CHECK_MPI(MPI_Comm_create(inter, lg, &c));
  int result;
  CHECK_MPI(MPI_Comm_compare(inter, c, &result));
  CHECK(result == MPI_CONGRUENT, "create with the local group is congruent (%d)", result);
  CHECK_MPI(MPI_Comm_free(&c));
  /* One side passes MPI_GROUP_EMPTY: MPI_COMM_NULL everywhere. */
  CHECK_MPI(MPI_Comm_create(inter, rank % 2 == 0 ? MPI_GROUP_EMPTY : lg, &c));
  CHECK(c == MPI_COMM_NULL, "an empty side gives MPI_COMM_NULL");
  CHECK_MPI(MPI_Group_free(&lg));
}

static int delete_calls;
static int count_delete(MPI_Comm c, int k, void *v, void *x) {
  (void)c, (void)k, (void)v, (void)x;
  delete_calls++;
  return MPI_SUCCESS;
}

/* What the rest of a conformance suite does with an intercommunicator. */
static void test_misc(MPI_Comm inter) {
  MPI_Comm d, id;
  MPI_Request req;
  int result;
  CHECK_MPI(MPI_Comm_set_name(inter, "the-inter"));
  char name[MPI_MAX_OBJECT_NAME];
  int len;
  CHECK_MPI(MPI_Comm_get_name(inter, name, &len));
  CHECK(strcmp(name, "the-inter") == 0 && len == 9, "name '%s'", name);
  int key, *val, flag;
  static int value = 42;
  CHECK_MPI(MPI_Comm_create_keyval(MPI_COMM_DUP_FN, count_delete, &key, NULL));
  CHECK_MPI(MPI_Comm_set_attr(inter, key, &value));
  CHECK_MPI(MPI_Comm_dup(inter, &d));
  CHECK_MPI(MPI_Comm_get_attr(d, key, &val, &flag));
  CHECK(flag && val == &value, "attribute copied by dup of an intercommunicator");
  CHECK_MPI(MPI_Comm_compare(inter, d, &result));
  CHECK(result == MPI_CONGRUENT, "dup congruent (%d)", result);
  CHECK_MPI(MPI_Comm_idup(inter, &id, &req));
  CHECK_MPI(MPI_Wait(&req, MPI_STATUS_IGNORE));
  CHECK_MPI(MPI_Comm_get_attr(id, key, &val, &flag));
  CHECK(flag && val == &value, "attribute copied by idup of an intercommunicator");
  exercise(id);
  exercise(d);
  CHECK_MPI(MPI_Comm_compare(inter, MPI_COMM_WORLD, &result));
  CHECK(result == MPI_UNEQUAL, "inter vs world unequal (%d)", result);
  CHECK_MPI(MPI_Comm_free(&id));
  CHECK_MPI(MPI_Comm_free(&d));
  CHECK(delete_calls == 2, "delete callbacks %d", delete_calls);
  CHECK_MPI(MPI_Comm_delete_attr(inter, key));
  CHECK_MPI(MPI_Comm_free_keyval(&key));
}

static void test_bad_input(MPI_Comm inter) {
  MPI_Comm c = MPI_COMM_NULL;
  int rc;
#ifdef FTMPI /* MPICH 4.0 does not check the color */
  rc = MPI_Comm_split(inter, -5, 0, &c);
  CHECK(rc != MPI_SUCCESS && c == MPI_COMM_NULL, "negative color refused");
  CHECK(check_class_of(rc) == MPI_ERR_ARG, "negative color: MPI_ERR_ARG, got %s", check_errstr(rc));
#endif
  rc = MPI_Comm_create(inter, MPI_GROUP_NULL, &c);
  CHECK(rc != MPI_SUCCESS, "MPI_GROUP_NULL refused");
#ifdef FTMPI
  CHECK(check_class_of(rc) == MPI_ERR_GROUP, "MPI_GROUP_NULL: MPI_ERR_GROUP, got %s", check_errstr(rc));
  /* A group that is not a subgroup of the local group (the remote group). */
  MPI_Group rg;
  CHECK_MPI(MPI_Comm_remote_group(inter, &rg));
  CHECK_CLASS(MPI_Comm_create(inter, rg, &c), MPI_ERR_GROUP);
  CHECK_MPI(MPI_Group_free(&rg));
  /* A freed intercommunicator. */
  MPI_Comm d, freed;
  CHECK_MPI(MPI_Comm_dup(inter, &d));
  freed = d;
  CHECK_MPI(MPI_Comm_free(&d));
  CHECK_CLASS(MPI_Comm_split(freed, 0, 0, &c), MPI_ERR_COMM);
  CHECK_CLASS(MPI_Comm_create(freed, MPI_GROUP_EMPTY, &c), MPI_ERR_COMM);
  CHECK_CLASS(MPI_Comm_split(MPI_COMM_NULL, 0, 0, &c), MPI_ERR_COMM);
#endif
}

int main(int argc, char **argv) {
  CHECK_MPI(MPI_Init(&argc, &argv));
  CHECK_MPI(MPI_Comm_rank(MPI_COMM_WORLD, &rank));
  CHECK_MPI(MPI_Comm_size(MPI_COMM_WORLD, &size));
  CHECK_MPI(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
  if (size < 2) {
    if (rank == 0) printf("SKIP intercommunicators need 2 ranks\nPASS comm_inter_split\n");
    MPI_Finalize();
    return 0;
  }
  MPI_Comm half, inter = make_inter(&half);
  for (int iter = 0; iter < 3; iter++) {
    test_split(inter);
    test_create(inter);
  }
  test_misc(inter);
  test_bad_input(inter);
  CHECK_MPI(MPI_Comm_free(&inter));
  CHECK_MPI(MPI_Comm_free(&half));
  CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
  if (rank == 0) printf("PASS comm_inter_split\n");
  CHECK_MPI(MPI_Finalize());
  return 0;
}
