/* p2p_part — partitioned point-to-point communication (MPI-4.0 chapter 4). 2 or more ranks; ranks 0 and 1 talk.
 *
 * PASS when, over several rounds of each persistent pair:
 *  - equal partition counts (eager and rendezvous-sized partitions) deliver the data intact, Wait's status
 *    names the source and tag and MPI_Get_count gives the whole count;
 *  - differing partition counts (8 send x 32 receive, 32 send x 4 receive) deliver it intact;
 *  - Pready_range, Pready_list with partitions in reverse/odd-even order, and one Pready per partition work;
 *  - non-contiguous datatypes on either side (a vector on the sender, ints on the receiver) deliver it;
 *  - Parrived turns true for a partition as soon as its data is there: the sender readies only partition 0,
 *    the receiver waits for Parrived(0) (its bytes are right then) while Parrived on the last is false,
 *    and tells the sender with an ordinary message to go on;
 *  - partitioned sends pair with partitioned receives in the order of the init calls per (source, tag,
 *    communicator): three requests with one tag started in another order, and three tags inited in reverse;
 *  - a plain MPI_Irecv(ANY_SOURCE, ANY_TAG) posted during all this receives only the plain message sent
 *    for it (never partitioned traffic), and MPI_Iprobe(ANY_TAG) sees no partitioned traffic;
 *  - a pair freed without ever being started leaves nothing behind (the next pair still matches);
 *  - MPI_PROC_NULL peers and zero partitions complete at once (a PROC_NULL send also without MPI_Pready);
 *  - a pair on an intercommunicator delivers its data (ranks address the remote group).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/check.h"

#define ROUNDS 4

static int rank;

static int val(int i, int round) { return i * 7 + round * 100003 + 1; }

/* One persistent pair: `sp` send partitions of `scount` ints, `rp` receive partitions of `rcount` ints. How the
 * sender readies: 0 = one Pready each, 1 = one Pready_range, 2 = Pready_list reversed, 3 = list odd then even. */
static void pair(int sp, int scount, int rp, int rcount, int how, int tag) {
  const int total = sp * scount;
  CHECK(total == rp * rcount);
  int *buf = calloc((size_t)(total ? total : 1), sizeof(int));
  CHECK(buf != NULL);
  MPI_Request req;
  if (rank == 0) {
    CHECK_MPI(MPI_Psend_init(buf, sp, scount, MPI_INT, 1, tag, MPI_COMM_WORLD, MPI_INFO_NULL, &req));
    int *list = malloc(sizeof(int) * (size_t)(sp ? sp : 1));
    for (int round = 0; round < ROUNDS; round++) {
      CHECK_MPI(MPI_Start(&req));
      for (int i = 0; i < total; i++) buf[i] = val(i, round);
      if (sp == 0) {
        /* nothing to ready */
      } else if (how == 0) {
        for (int p = 0; p < sp; p++) CHECK_MPI(MPI_Pready(p, req));
      } else if (how == 1) {
        CHECK_MPI(MPI_Pready_range(0, sp - 1, req));
      } else if (how == 2) {
        for (int p = 0; p < sp; p++) list[p] = sp - 1 - p;
        CHECK_MPI(MPI_Pready_list(sp, list, req));
      } else {
        int n = 0;
        for (int p = 1; p < sp; p += 2) list[n++] = p;
        CHECK_MPI(MPI_Pready_list(n, list, req));
        n = 0;
        for (int p = 0; p < sp; p += 2) list[n++] = p;
        CHECK_MPI(MPI_Pready_list(n, list, req));
      }
      CHECK_MPI(MPI_Wait(&req, MPI_STATUS_IGNORE));
      CHECK(req != MPI_REQUEST_NULL, "a persistent request keeps its handle");
    }
    free(list);
    CHECK_MPI(MPI_Request_free(&req));
  } else if (rank == 1) {
    CHECK_MPI(MPI_Precv_init(buf, rp, rcount, MPI_INT, 0, tag, MPI_COMM_WORLD, MPI_INFO_NULL, &req));
    for (int round = 0; round < ROUNDS; round++) {
      for (int i = 0; i < total; i++) buf[i] = -1;
      CHECK_MPI(MPI_Start(&req));
      MPI_Status st;
      CHECK_MPI(MPI_Wait(&req, &st));
      CHECK(st.MPI_SOURCE == 0 && st.MPI_TAG == tag, "status %d/%d", st.MPI_SOURCE, st.MPI_TAG);
      int n = -1;
      CHECK_MPI(MPI_Get_count(&st, MPI_INT, &n));
      CHECK(n == total, "count %d, expected %d", n, total);
      for (int i = 0; i < total; i++)
        CHECK(buf[i] == val(i, round), "sp %d rp %d round %d: buf[%d] = %d", sp, rp, round, i, buf[i]);
    }
    CHECK_MPI(MPI_Request_free(&req));
  }
  free(buf);
}

/* Sender uses a vector type (every other int of a 2x buffer), receiver plain ints, differing partitions. */
static void noncontig(void) {
  const int sp = 4, scount = 16, rp = 8, rcount = 8, total = sp * scount;
  MPI_Datatype vec;
  CHECK_MPI(MPI_Type_vector(scount, 1, 2, MPI_INT, &vec));
  CHECK_MPI(MPI_Type_create_resized(vec, 0, (MPI_Aint)(2 * scount * sizeof(int)), &vec));
  CHECK_MPI(MPI_Type_commit(&vec));
  MPI_Request req;
  if (rank == 0) {
    int *buf = calloc((size_t)(2 * total), sizeof(int));
    CHECK_MPI(MPI_Psend_init(buf, sp, 1, vec, 1, 40, MPI_COMM_WORLD, MPI_INFO_NULL, &req));
    for (int round = 0; round < ROUNDS; round++) {
      CHECK_MPI(MPI_Start(&req));
      for (int i = 0; i < total; i++) {
        buf[2 * i] = val(i, round);
        buf[2 * i + 1] = -7;
      }
      for (int p = sp - 1; p >= 0; p--) CHECK_MPI(MPI_Pready(p, req));
      CHECK_MPI(MPI_Wait(&req, MPI_STATUS_IGNORE));
    }
    CHECK_MPI(MPI_Request_free(&req));
    free(buf);
  } else if (rank == 1) {
    /* receive with a vector too: every third int */
    MPI_Datatype rvec;
    CHECK_MPI(MPI_Type_vector(rcount, 1, 3, MPI_INT, &rvec));
    CHECK_MPI(MPI_Type_create_resized(rvec, 0, (MPI_Aint)(3 * rcount * sizeof(int)), &rvec));
    CHECK_MPI(MPI_Type_commit(&rvec));
    int *buf = malloc(sizeof(int) * 3 * total);
    CHECK_MPI(MPI_Precv_init(buf, rp, 1, rvec, 0, 40, MPI_COMM_WORLD, MPI_INFO_NULL, &req));
    for (int round = 0; round < ROUNDS; round++) {
      for (int i = 0; i < 3 * total; i++) buf[i] = -1;
      CHECK_MPI(MPI_Start(&req));
      /* every partition arrives, each one intact when Parrived says so */
      int done = 0;
      char *seen = calloc((size_t)rp, 1);
      while (done < rp) {
        for (int p = 0; p < rp; p++) {
          int flag = 0;
          if (seen[p]) continue;
          CHECK_MPI(MPI_Parrived(req, p, &flag));
          if (!flag) continue;
          seen[p] = 1;
          done++;
          for (int k = 0; k < rcount; k++) {
            int i = p * rcount + k;
            CHECK(buf[3 * i] == val(i, round), "noncontig round %d: element %d = %d", round, i, buf[3 * i]);
            CHECK(buf[3 * i + 1] == -1 && buf[3 * i + 2] == -1, "gap written");
          }
        }
      }
      free(seen);
      CHECK_MPI(MPI_Wait(&req, MPI_STATUS_IGNORE));
    }
    CHECK_MPI(MPI_Request_free(&req));
    CHECK_MPI(MPI_Type_free(&rvec));
    free(buf);
  }
  CHECK_MPI(MPI_Type_free(&vec));
}

/* Parrived is true for partition 0 while the sender holds back the others. */
static void early_arrival(int count) {
  const int parts = 4;
  int *buf = calloc((size_t)(parts * count), sizeof(int));
  MPI_Request req;
  int go = 0;
  if (rank == 0) {
    CHECK_MPI(MPI_Psend_init(buf, parts, count, MPI_INT, 1, 41, MPI_COMM_WORLD, MPI_INFO_NULL, &req));
    for (int round = 0; round < 2; round++) {
      CHECK_MPI(MPI_Start(&req));
      for (int i = 0; i < parts * count; i++) buf[i] = val(i, round);
      CHECK_MPI(MPI_Pready(0, req));
      CHECK_MPI(MPI_Recv(&go, 1, MPI_INT, 1, 42, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
      CHECK_MPI(MPI_Pready_range(1, parts - 1, req));
      CHECK_MPI(MPI_Wait(&req, MPI_STATUS_IGNORE));
    }
    CHECK_MPI(MPI_Request_free(&req));
  } else if (rank == 1) {
    CHECK_MPI(MPI_Precv_init(buf, parts, count, MPI_INT, 0, 41, MPI_COMM_WORLD, MPI_INFO_NULL, &req));
    for (int round = 0; round < 2; round++) {
      for (int i = 0; i < parts * count; i++) buf[i] = -1;
      CHECK_MPI(MPI_Start(&req));
      int flag = 0;
      while (!flag) CHECK_MPI(MPI_Parrived(req, 0, &flag));
      for (int i = 0; i < count; i++) CHECK(buf[i] == val(i, round), "early partition 0: buf[%d] = %d", i, buf[i]);
      CHECK_MPI(MPI_Parrived(req, parts - 1, &flag));
      CHECK(!flag, "the last partition cannot have arrived: the sender has not readied it");
      int t = 0;
      CHECK_MPI(MPI_Test(&req, &t, MPI_STATUS_IGNORE));
      CHECK(!t, "the receive cannot be complete yet");
      CHECK_MPI(MPI_Send(&go, 1, MPI_INT, 0, 42, MPI_COMM_WORLD));
      CHECK_MPI(MPI_Wait(&req, MPI_STATUS_IGNORE));
      for (int i = 0; i < parts * count; i++) CHECK(buf[i] == val(i, round));
    }
    CHECK_MPI(MPI_Request_free(&req));
  }
  free(buf);
}

/* Pairing in init order: same tag, started in another order; and three tags inited in reverse. */
static void ordering(void) {
  enum { P = 4, C = 16, T = P * C };
  static int b[3][T];
  MPI_Request r[3];
  if (rank == 0) {
    for (int k = 0; k < 3; k++)
      CHECK_MPI(MPI_Psend_init(b[k], P, C, MPI_INT, 1, 50, MPI_COMM_WORLD, MPI_INFO_NULL, &r[k]));
    int order[3] = {2, 0, 1};
    for (int n = 0; n < 3; n++) {
      int k = order[n];
      CHECK_MPI(MPI_Start(&r[k]));
      for (int i = 0; i < T; i++) b[k][i] = k * 1000 + i;
      CHECK_MPI(MPI_Pready_range(0, P - 1, r[k]));
    }
    CHECK_MPI(MPI_Waitall(3, r, MPI_STATUSES_IGNORE));
    for (int k = 0; k < 3; k++) CHECK_MPI(MPI_Request_free(&r[k]));
    /* tags 62, 61, 60 inited in that order */
    for (int k = 2; k >= 0; k--)
      CHECK_MPI(MPI_Psend_init(b[k], P, C, MPI_INT, 1, 60 + k, MPI_COMM_WORLD, MPI_INFO_NULL, &r[k]));
    CHECK_MPI(MPI_Startall(3, r));
    for (int k = 0; k < 3; k++) {
      for (int i = 0; i < T; i++) b[k][i] = 5000 + k * 1000 + i;
      CHECK_MPI(MPI_Pready_range(0, P - 1, r[k]));
    }
    CHECK_MPI(MPI_Waitall(3, r, MPI_STATUSES_IGNORE));
    for (int k = 0; k < 3; k++) CHECK_MPI(MPI_Request_free(&r[k]));
  } else if (rank == 1) {
    for (int k = 0; k < 3; k++)
      CHECK_MPI(MPI_Precv_init(b[k], P, C, MPI_INT, 0, 50, MPI_COMM_WORLD, MPI_INFO_NULL, &r[k]));
    CHECK_MPI(MPI_Startall(3, r));
    CHECK_MPI(MPI_Waitall(3, r, MPI_STATUSES_IGNORE));
    for (int k = 0; k < 3; k++)
      for (int i = 0; i < T; i++) CHECK(b[k][i] == k * 1000 + i, "same tag: request %d got %d at %d", k, b[k][i], i);
    for (int k = 0; k < 3; k++) CHECK_MPI(MPI_Request_free(&r[k]));
    for (int k = 0; k < 3; k++)
      CHECK_MPI(MPI_Precv_init(b[k], P, C, MPI_INT, 0, 60 + k, MPI_COMM_WORLD, MPI_INFO_NULL, &r[k]));
    MPI_Status st[3];
    CHECK_MPI(MPI_Startall(3, r));
    CHECK_MPI(MPI_Waitall(3, r, st));
    for (int k = 0; k < 3; k++) {
      CHECK(st[k].MPI_TAG == 60 + k);
      for (int i = 0; i < T; i++) CHECK(b[k][i] == 5000 + k * 1000 + i, "tag %d got %d at %d", 60 + k, b[k][i], i);
    }
    for (int k = 0; k < 3; k++) CHECK_MPI(MPI_Request_free(&r[k]));
  }
}

static void never_started(void) {
  int a[4];
  MPI_Request r;
  if (rank == 0) {
    CHECK_MPI(MPI_Psend_init(a, 2, 2, MPI_INT, 1, 70, MPI_COMM_WORLD, MPI_INFO_NULL, &r));
    CHECK_MPI(MPI_Request_free(&r));
  } else if (rank == 1) {
    CHECK_MPI(MPI_Precv_init(a, 2, 2, MPI_INT, 0, 70, MPI_COMM_WORLD, MPI_INFO_NULL, &r));
    CHECK_MPI(MPI_Request_free(&r));
  }
  pair(2, 2, 2, 2, 1, 70); /* the next pair with the same tag pairs with its own init */
}

/* Test a started request until it completes (bounded: 10 s), no MPI_Pready called. */
static void flag_ok_without_pready(MPI_Request *r) {
  int done = 0;
  const double t0 = MPI_Wtime();
  while (!done && MPI_Wtime() - t0 < 10) CHECK_MPI(MPI_Test(r, &done, MPI_STATUS_IGNORE));
  CHECK(done, "a partitioned send to MPI_PROC_NULL did not complete without MPI_Pready");
}

static void proc_null_and_empty(void) {
  int a[4] = {1, 2, 3, 4};
  MPI_Request r;
  CHECK_MPI(MPI_Psend_init(a, 2, 2, MPI_INT, MPI_PROC_NULL, 1, MPI_COMM_WORLD, MPI_INFO_NULL, &r));
  CHECK_MPI(MPI_Start(&r));
  CHECK_MPI(MPI_Pready_range(0, 1, r));
  CHECK_MPI(MPI_Wait(&r, MPI_STATUS_IGNORE));
  /* A PROC_NULL send completes without any MPI_Pready, as its receive counterpart does. */
  CHECK_MPI(MPI_Start(&r));
  flag_ok_without_pready(&r);
  CHECK_MPI(MPI_Request_free(&r));
  CHECK_MPI(MPI_Precv_init(a, 2, 2, MPI_INT, MPI_PROC_NULL, 1, MPI_COMM_WORLD, MPI_INFO_NULL, &r));
  CHECK_MPI(MPI_Start(&r));
  int flag = 0;
  CHECK_MPI(MPI_Parrived(r, 1, &flag));
  CHECK(flag, "nothing to wait for from MPI_PROC_NULL");
  CHECK_MPI(MPI_Wait(&r, MPI_STATUS_IGNORE));
  CHECK_MPI(MPI_Request_free(&r));
  CHECK(a[0] == 1 && a[3] == 4, "a PROC_NULL receive writes nothing");
  pair(0, 5, 0, 7, 1, 80); /* zero partitions: nothing to ready, completes at once */
}

/* Over an intercommunicator: even world ranks form one group, odd ones the other; world 0 (rank 0 of the even
 * group) sends to world 1 (rank 0 of the odd group). */
static void intercomm(void) {
  MPI_Comm half, inter;
  CHECK_MPI(MPI_Comm_split(MPI_COMM_WORLD, rank % 2, rank, &half));
  CHECK_MPI(MPI_Intercomm_create(half, 0, MPI_COMM_WORLD, rank % 2 == 0 ? 1 : 0, 90, &inter));
  int data[12];
  MPI_Request r;
  if (rank == 0) {
    CHECK_MPI(MPI_Psend_init(data, 3, 4, MPI_INT, 0, 91, inter, MPI_INFO_NULL, &r));
    for (int round = 0; round < 3; round++) {
      CHECK_MPI(MPI_Start(&r));
      for (int i = 0; i < 12; i++) data[i] = val(i, round);
      CHECK_MPI(MPI_Pready_range(0, 2, r));
      CHECK_MPI(MPI_Wait(&r, MPI_STATUS_IGNORE));
    }
    CHECK_MPI(MPI_Request_free(&r));
  } else if (rank == 1) {
    CHECK_MPI(MPI_Precv_init(data, 2, 6, MPI_INT, 0, 91, inter, MPI_INFO_NULL, &r));
    for (int round = 0; round < 3; round++) {
      for (int i = 0; i < 12; i++) data[i] = -1;
      CHECK_MPI(MPI_Start(&r));
      MPI_Status st;
      CHECK_MPI(MPI_Wait(&r, &st));
      CHECK(st.MPI_SOURCE == 0 && st.MPI_TAG == 91);
      for (int i = 0; i < 12; i++) CHECK(data[i] == val(i, round), "intercomm round %d: data[%d] = %d", round, i, data[i]);
    }
    CHECK_MPI(MPI_Request_free(&r));
  }
  CHECK_MPI(MPI_Comm_free(&inter));
  CHECK_MPI(MPI_Comm_free(&half));
}

int main(int argc, char **argv) {
  int size;
  CHECK_MPI(MPI_Init(&argc, &argv));
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  CHECK(size >= 2, "needs 2 ranks");

  /* a plain receive posted all along must not see partitioned traffic */
  MPI_Request plain = MPI_REQUEST_NULL;
  int plain_in = -1;
  if (rank == 1) CHECK_MPI(MPI_Irecv(&plain_in, 1, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &plain));

  pair(1, 64, 1, 64, 0, 1);
  pair(8, 8, 8, 8, 0, 2);
  pair(8, 4, 32, 1, 1, 3);       /* 8 send x 32 receive */
  pair(32, 4, 4, 32, 2, 4);      /* 32 send x 4 receive */
  pair(16, 32, 32, 16, 3, 5);    /* odd then even */
  pair(4, 64 * 1024, 8, 32 * 1024, 1, 6); /* rendezvous-sized partitions */
  pair(64, 1000, 10, 6400, 2, 7);
  noncontig();
  early_arrival(16);
  early_arrival(100000);
  ordering();
  never_started();
  proc_null_and_empty();

  if (rank == 1) {
    int flag = 0;
    MPI_Status st;
    CHECK_MPI(MPI_Test(&plain, &flag, &st));
    CHECK(!flag, "a plain ANY_TAG receive matched partitioned traffic (tag %d)", st.MPI_TAG);
    CHECK_MPI(MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &flag, &st));
    CHECK(!flag, "Iprobe(ANY_TAG) saw partitioned traffic");
    int checked = 1;
    CHECK_MPI(MPI_Send(&checked, 1, MPI_INT, 0, 98, MPI_COMM_WORLD));
  }
  if (rank == 0) {
    int x = 4242, checked = 0;
    CHECK_MPI(MPI_Recv(&checked, 1, MPI_INT, 1, 98, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
    CHECK_MPI(MPI_Send(&x, 1, MPI_INT, 1, 99, MPI_COMM_WORLD));
  }
  if (rank == 1) {
    CHECK_MPI(MPI_Wait(&plain, MPI_STATUS_IGNORE));
    CHECK(plain_in == 4242);
  }
  intercomm(); /* after the plain ANY_TAG receive: Intercomm_create's leaders talk on MPI_COMM_WORLD */
  check_pass("p2p_part");
  MPI_Finalize();
  return 0;
}
