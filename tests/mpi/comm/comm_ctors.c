/* tests/mpi/comm/comm_ctors.c — Comm_split_type(SHARED), Comm_create_group (concurrent, disjoint groups),
 * Comm_dup_with_info / set_info / get_info, Comm_idup, intercommunicators (Intercomm_create over the even
 * and odd ranks, test_inter, remote size/group, point-to-point by remote rank, Comm_dup of an
 * intercommunicator, Intercomm_merge with both orders), and bad input.
 * PASS: every check holds on every rank (checked against values computed here); rank 0 prints PASS. */
#include "common/check.h"

static int rank, size;

static void test_split_type(void) {
  MPI_Comm shm;
  /* One host: every rank is in the node communicator; key = -rank reverses the order. */
  CHECK_MPI(MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, -rank, MPI_INFO_NULL, &shm));
  int r, n;
  CHECK_MPI(MPI_Comm_rank(shm, &r));
  CHECK_MPI(MPI_Comm_size(shm, &n));
  CHECK(n == size && r == size - 1 - rank, "split_type: rank %d size %d", r, n);
  CHECK_MPI(MPI_Comm_free(&shm));
  CHECK_MPI(MPI_Comm_split_type(MPI_COMM_WORLD, rank % 2 ? MPI_UNDEFINED : MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL,
                                &shm));
  CHECK((rank % 2 == 1) == (shm == MPI_COMM_NULL), "MPI_UNDEFINED gives MPI_COMM_NULL");
  if (shm != MPI_COMM_NULL) {
    CHECK_MPI(MPI_Comm_size(shm, &n));
    CHECK(n == (size + 1) / 2, "even ranks only");
    CHECK_MPI(MPI_Comm_free(&shm));
  }
  CHECK_CLASS(MPI_Comm_split_type(MPI_COMM_WORLD, 12345, 0, MPI_INFO_NULL, &shm), MPI_ERR_ARG);
  /* MPI-4.0 hardware splits: "mpi_shared_memory" is the host (here: everyone, in key order); an unknown
   * resource type, a missing key or MPI_INFO_NULL give MPI_COMM_NULL everywhere; one host has no level below
   * WORLD, so HW_UNGUIDED gives MPI_COMM_NULL and leaves the info alone. */
  MPI_Info info;
  CHECK_MPI(MPI_Info_create(&info));
  CHECK_MPI(MPI_Info_set(info, "mpi_hw_resource_type", "mpi_shared_memory"));
  CHECK_MPI(MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_HW_GUIDED, -rank, info, &shm));
  CHECK(shm != MPI_COMM_NULL, "HW_GUIDED mpi_shared_memory: a communicator");
  if (shm != MPI_COMM_NULL) {
    CHECK_MPI(MPI_Comm_rank(shm, &r));
    CHECK_MPI(MPI_Comm_size(shm, &n));
    CHECK(n == size && r == size - 1 - rank, "HW_GUIDED: rank %d size %d", r, n);
    CHECK_MPI(MPI_Comm_free(&shm));
  }
  CHECK_MPI(MPI_Info_set(info, "mpi_hw_resource_type", "l3cache"));
  CHECK_MPI(MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_HW_GUIDED, 0, info, &shm));
  CHECK(shm == MPI_COMM_NULL, "HW_GUIDED with an unsupported resource type gives MPI_COMM_NULL");
  CHECK_MPI(MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_HW_GUIDED, 0, MPI_INFO_NULL, &shm));
  CHECK(shm == MPI_COMM_NULL, "HW_GUIDED with MPI_INFO_NULL gives MPI_COMM_NULL");
  CHECK_MPI(MPI_Info_free(&info));
  CHECK_MPI(MPI_Info_create(&info));
  CHECK_MPI(MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_HW_UNGUIDED, 0, info, &shm));
  CHECK(shm == MPI_COMM_NULL, "HW_UNGUIDED on one host gives MPI_COMM_NULL");
  int nkeys = -1;
  CHECK_MPI(MPI_Info_get_nkeys(info, &nkeys));
  CHECK(nkeys == 0, "HW_UNGUIDED with no result leaves the info empty (%d keys)", nkeys);
  CHECK_MPI(MPI_Info_free(&info));
}

static void test_create_group(void) {
  /* Evens and odds each build their own communicator at the same time, with different tags. */
  MPI_Group world, mine;
  CHECK_MPI(MPI_Comm_group(MPI_COMM_WORLD, &world));
  int n = 0, ranks[64];
  for (int r = rank % 2; r < size; r += 2) ranks[n++] = r;
  CHECK_MPI(MPI_Group_incl(world, n, ranks, &mine));
  MPI_Comm c;
  CHECK_MPI(MPI_Comm_create_group(MPI_COMM_WORLD, mine, 7 + rank % 2, &c));
  int r, s, sum = 0, want = 0;
  CHECK_MPI(MPI_Comm_rank(c, &r));
  CHECK_MPI(MPI_Comm_size(c, &s));
  CHECK(s == n && r == rank / 2, "create_group rank/size");
  CHECK_MPI(MPI_Allreduce(&rank, &sum, 1, MPI_INT, MPI_SUM, c));
  for (int i = 0; i < n; i++) want += ranks[i];
  CHECK(sum == want, "allreduce on the new communicator");
  CHECK_MPI(MPI_Comm_free(&c));
  CHECK_CLASS(MPI_Comm_create_group(MPI_COMM_WORLD, mine, -1, &c), MPI_ERR_TAG);
  CHECK_MPI(MPI_Group_free(&mine));
  CHECK_MPI(MPI_Group_free(&world));
}

static void test_info_and_idup(void) {
  MPI_Info info, used;
  CHECK_MPI(MPI_Info_create(&info));
  CHECK_MPI(MPI_Info_set(info, "mpi_assert_no_any_tag", "true"));
  MPI_Comm d;
  CHECK_MPI(MPI_Comm_dup_with_info(MPI_COMM_WORLD, info, &d));
  CHECK_MPI(MPI_Comm_get_info(d, &used));
  char v[MPI_MAX_INFO_VAL + 1];
  int flag = 0, n = -1;
  CHECK_MPI(MPI_Info_get(used, "mpi_assert_no_any_tag", MPI_MAX_INFO_VAL, v, &flag));
  CHECK(flag && strcmp(v, "true") == 0, "hint kept by dup_with_info");
  CHECK_MPI(MPI_Info_free(&used));
  CHECK_MPI(MPI_Info_free(&info));
  CHECK_MPI(MPI_Info_create(&info));
  CHECK_MPI(MPI_Comm_set_info(d, info));
  CHECK_MPI(MPI_Comm_get_info(d, &used));
  CHECK_MPI(MPI_Info_get_nkeys(used, &n));
  CHECK(n == 0, "set_info replaced the hints");
  CHECK_MPI(MPI_Info_free(&used));
  CHECK_MPI(MPI_Info_free(&info));

  MPI_Comm e;
  MPI_Request req;
  CHECK_MPI(MPI_Comm_idup(d, &e, &req));
  CHECK_MPI(MPI_Wait(&req, MPI_STATUS_IGNORE));
  int sum = 0;
  CHECK_MPI(MPI_Allreduce(&rank, &sum, 1, MPI_INT, MPI_SUM, e));
  CHECK(sum == size * (size - 1) / 2, "allreduce on the idup'ed communicator");
  CHECK_MPI(MPI_Comm_free(&e));
  CHECK_MPI(MPI_Comm_free(&d));
}

/* Traffic by remote rank: local rank l sends to remote rank l % rsize; each process expects one message
 * from every remote rank r with r % lsize == its local rank. */
static void inter_traffic(MPI_Comm inter, int tag) {
  int lr, ls, rs;
  CHECK_MPI(MPI_Comm_rank(inter, &lr));
  CHECK_MPI(MPI_Comm_size(inter, &ls));
  CHECK_MPI(MPI_Comm_remote_size(inter, &rs));
  MPI_Request reqs[65];
  int got[64], nreq = 0, from[64];
  for (int r = 0; r < rs; r++)
    if (r % ls == lr) {
      from[nreq] = r;
      CHECK_MPI(MPI_Irecv(&got[nreq], 1, MPI_INT, r, tag, inter, &reqs[nreq]));
      nreq++;
    }
  int msg = rank * 1000 + lr;
  CHECK_MPI(MPI_Send(&msg, 1, MPI_INT, lr % rs, tag, inter));
  CHECK_MPI(MPI_Waitall(nreq, reqs, MPI_STATUSES_IGNORE));
  MPI_Group rg;
  CHECK_MPI(MPI_Comm_remote_group(inter, &rg));
  MPI_Group wg;
  CHECK_MPI(MPI_Comm_group(MPI_COMM_WORLD, &wg));
  for (int i = 0; i < nreq; i++) {
    int w;
    CHECK_MPI(MPI_Group_translate_ranks(rg, 1, &from[i], wg, &w));
    CHECK(got[i] == w * 1000 + from[i], "message from remote rank %d: %d", from[i], got[i]);
  }
  CHECK_MPI(MPI_Group_free(&rg));
  CHECK_MPI(MPI_Group_free(&wg));
}

static void test_intercomm(void) {
  if (size < 2) {
    if (rank == 0) printf("SKIP intercommunicators need 2 ranks\n");
    return;
  }
  MPI_Comm half, inter;
  const int even = rank % 2 == 0;
  CHECK_MPI(MPI_Comm_split(MPI_COMM_WORLD, !even, rank, &half));
  /* Leaders: local rank 0 of each half = world ranks 0 and 1. */
  CHECK_MPI(MPI_Intercomm_create(half, 0, MPI_COMM_WORLD, even ? 1 : 0, 99, &inter));
  int flag = 0, rs, ls;
  CHECK_MPI(MPI_Comm_test_inter(inter, &flag));
  CHECK(flag, "test_inter");
  CHECK_MPI(MPI_Comm_test_inter(half, &flag));
  CHECK(!flag, "an intracommunicator is not inter");
  CHECK_MPI(MPI_Comm_size(inter, &ls));
  CHECK_MPI(MPI_Comm_remote_size(inter, &rs));
  const int nodd = size / 2, neven = size - nodd;
  CHECK(ls == (even ? neven : nodd) && rs == (even ? nodd : neven), "local/remote sizes");
  inter_traffic(inter, 3);

  MPI_Comm inter2;
  CHECK_MPI(MPI_Comm_dup(inter, &inter2));
  CHECK_MPI(MPI_Comm_test_inter(inter2, &flag));
  CHECK(flag, "dup of an intercommunicator is inter");
  inter_traffic(inter2, 3);

  /* Merge: evens low, odds high -> evens first. */
  MPI_Comm merged;
  CHECK_MPI(MPI_Intercomm_merge(inter, even ? 0 : 1, &merged));
  int mr, ms, sum = 0;
  CHECK_MPI(MPI_Comm_rank(merged, &mr));
  CHECK_MPI(MPI_Comm_size(merged, &ms));
  CHECK(ms == size && mr == (even ? rank / 2 : neven + rank / 2), "merged rank %d", mr);
  CHECK_MPI(MPI_Allreduce(&rank, &sum, 1, MPI_INT, MPI_SUM, merged));
  CHECK(sum == size * (size - 1) / 2, "allreduce over the merged communicator");
  CHECK_MPI(MPI_Comm_free(&merged));
  /* Reverse order on the duplicate: odds low. */
  CHECK_MPI(MPI_Intercomm_merge(inter2, even ? 1 : 0, &merged));
  CHECK_MPI(MPI_Comm_rank(merged, &mr));
  CHECK(mr == (even ? nodd + rank / 2 : rank / 2), "reverse merged rank %d", mr);
  CHECK_MPI(MPI_Comm_free(&merged));

  CHECK_CLASS(MPI_Intercomm_merge(half, 0, &merged), MPI_ERR_COMM);
  CHECK_CLASS(MPI_Comm_remote_size(half, &rs), MPI_ERR_COMM);
  CHECK_MPI(MPI_Comm_free(&inter2));
  CHECK_MPI(MPI_Comm_free(&inter));
  CHECK_MPI(MPI_Comm_free(&half));
}

int main(int argc, char **argv) {
  CHECK_MPI(MPI_Init(&argc, &argv));
  CHECK_MPI(MPI_Comm_rank(MPI_COMM_WORLD, &rank));
  CHECK_MPI(MPI_Comm_size(MPI_COMM_WORLD, &size));
  CHECK(size <= 64, "at most 64 ranks");
  CHECK_MPI(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
  test_split_type();
  test_create_group();
  test_info_and_idup();
  test_intercomm();
  CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
  check_pass("comm_ctors");
  MPI_Finalize();
  return 0;
}
