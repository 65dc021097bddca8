/* Client/server across two separate mpiexec jobs (MPI-3.1 §10.4): portable MPI (runs with Open MPI and
 * MPICH too, see dpm_jobs_peer.sh). Roles:
 *   server FILE|-  NAME|-   open a port, write it to FILE (atomically) and/or publish it as NAME, accept,
 *                           run the exchange, disconnect, unpublish, close the port
 *   client FILE|-  NAME|-   read the port from FILE (waiting for it) or look NAME up, connect, exchange
 *   hold FILE               server that accepts and then waits in MPI_Recv from the client (it gets killed)
 *   victim FILE             client that connects, then receives from the server's ranks (the server is
 *                           killed meanwhile): must get an error, printed as "ERROR-CLASS <class>"
 *   dead FILE               connect to the port in FILE whose owner is gone: must fail (MPI_ERR_PORT)
 *   missing NAME            MPI_Lookup_name of a name nobody published: must fail (MPI_ERR_NAME)
 *   closed FILE             open a port, close it, write its name to FILE, wait until FILE is removed
 *   noaccept FILE           open a port, write it to FILE, never accept (waits to be killed)
 *   relay_server FILE       (FT mode) the roots alone accept/connect over MPI_COMM_SELF; MPI_Intercomm_create
 *   relay_client FILE       of both WORLDs over that bridge, then merge. The last server rank then waits to
 *                           be SIGKILLed; every client rank must get MPI_ERR_PROC_FAILED from a receive
 *                           from it, every other rank of both jobs must return from an
 *                           intercommunicator barrier (most client ranks never talked to the victim), and
 *                           get MPI_ERR_PROC_FAILED from an agreement over the merged communicator; then
 *                           shrink it and allreduce on what is left.
 *   board_server FILE       (FT mode) the same intercommunicator, nothing else; the last server rank waits to
 *   board_client FILE       be SIGKILLed, the other server ranks stay out of MPI for 8 s; every client rank
 *                           receives from the victim (no client ever talked to it): MPI_ERR_PROC_FAILED,
 *                           printed with its delay (only the failure board can tell them in time).
 * Every check prints "FAIL ..." and exits 1; success prints "PASS <role>" at rank 0. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static int rank, size;

#define CHECK(cond, ...)                                  \
  do {                                                    \
    if (!(cond)) {                                        \
      printf("FAIL rank %d line %d: ", rank, __LINE__);   \
      printf(__VA_ARGS__);                                \
      printf("\n");                                       \
      fflush(stdout);                                     \
      MPI_Abort(MPI_COMM_WORLD, 1);                       \
    }                                                     \
  } while (0)

static double now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

static void write_port(const char* file, const char* port) {
  char tmp[4096];
  snprintf(tmp, sizeof tmp, "%s.tmp", file);
  FILE* f = fopen(tmp, "w");
  CHECK(f != NULL, "cannot write %s", tmp);
  fprintf(f, "%s\n", port);
  fclose(f);
  CHECK(rename(tmp, file) == 0, "cannot rename %s", tmp);
}

static void read_port(const char* file, char* port) {
  double t0 = now();
  for (;;) {
    FILE* f = fopen(file, "r");
    if (f) {
      int ok = fgets(port, MPI_MAX_PORT_NAME, f) != NULL;
      fclose(f);
      if (ok) {
        port[strcspn(port, "\n")] = '\0';
        return;
      }
    }
    CHECK(now() - t0 < 60, "no port in %s after 60 s", file);
    usleep(10000);
  }
}

/* The same exchange on both sides; `is_server` decides the direction and the merge order. */
static void exchange(MPI_Comm inter, int is_server) {
  int rsize, lsize;
  MPI_Comm_remote_size(inter, &rsize);
  MPI_Comm_size(inter, &lsize);
  CHECK(lsize == size, "local size %d, expected %d", lsize, size);
  /* p2p: every local rank exchanges with remote rank (rank % rsize); values name the sender. */
  /* We send to remote rank `peer`, and receive from every remote rank r with r % size == rank. */
  int peer = rank % rsize, out = (is_server ? 1000 : 2000) + rank;
  CHECK(rsize <= 64, "too many remote ranks");
  MPI_Request reqs[64];
  int nreq = 0, expect_from[64], nexp = 0;
  for (int r = 0; r < rsize; ++r)
    if (r % size == rank) expect_from[nexp++] = r;
  int got[64];
  for (int k = 0; k < nexp; ++k) MPI_Irecv(&got[k], 1, MPI_INT, expect_from[k], 7, inter, &reqs[nreq++]);
  MPI_Send(&out, 1, MPI_INT, peer, 7, inter);
  MPI_Waitall(nreq, reqs, MPI_STATUSES_IGNORE);
  for (int k = 0; k < nexp; ++k)
    CHECK(got[k] == (is_server ? 2000 : 1000) + expect_from[k], "p2p got %d from remote %d", got[k], expect_from[k]);
  /* Intercommunicator allreduce: each side gets the sum over the other group. */
  int mine = (is_server ? 1 : 100) * (rank + 1), sum = 0;
  MPI_Allreduce(&mine, &sum, 1, MPI_INT, MPI_SUM, inter);
  int expect = (is_server ? 100 : 1) * rsize * (rsize + 1) / 2;
  CHECK(sum == expect, "intercomm allreduce %d, expected %d", sum, expect);
  /* Intercommunicator bcast from the server's rank 0 to the client group. */
  int b = is_server ? 4242 : -1;
  if (is_server) MPI_Bcast(&b, 1, MPI_INT, rank == 0 ? MPI_ROOT : MPI_PROC_NULL, inter);
  else MPI_Bcast(&b, 1, MPI_INT, 0, inter);
  if (!is_server) CHECK(b == 4242, "intercomm bcast got %d", b);
  /* Merge: server low, client high. */
  MPI_Comm merged;
  MPI_Intercomm_merge(inter, is_server ? 0 : 1, &merged);
  int mrank, msize;
  MPI_Comm_rank(merged, &mrank);
  MPI_Comm_size(merged, &msize);
  CHECK(msize == size + rsize, "merged size %d", msize);
  CHECK(mrank == (is_server ? rank : rsize + rank), "merged rank %d", mrank);
  int total = 0;
  MPI_Allreduce(&mrank, &total, 1, MPI_INT, MPI_SUM, merged);
  CHECK(total == msize * (msize - 1) / 2, "merged allreduce %d", total);
  MPI_Barrier(merged);
  MPI_Comm_free(&merged);
}

/* relay_server / relay_client (see the header). */
/* board_server / board_client (see the header): the intercommunicator only, no traffic to the victim. */
static void board(const char* file, int is_server) {
  char port[MPI_MAX_PORT_NAME] = "";
  MPI_Comm bridge = MPI_COMM_NULL, inter;
  if (rank == 0) {
    if (is_server) {
      MPI_Open_port(MPI_INFO_NULL, port);
      write_port(file, port);
      MPI_Comm_accept(port, MPI_INFO_NULL, 0, MPI_COMM_SELF, &bridge);
    } else {
      read_port(file, port);
      MPI_Comm_connect(port, MPI_INFO_NULL, 0, MPI_COMM_SELF, &bridge);
    }
  }
  MPI_Intercomm_create(MPI_COMM_WORLD, 0, bridge, 0, 43, &inter);
  MPI_Comm_set_errhandler(inter, MPI_ERRORS_RETURN);
  int rsize;
  MPI_Comm_remote_size(inter, &rsize);
  printf("READY %s %d pid=%d\n", is_server ? "server" : "client", rank, (int)getpid());
  fflush(stdout);
  if (is_server) {
    /* The victim waits to be killed; the survivors stay out of MPI for 8 s, so that what they know
     * cannot reach the clients through MPI meanwhile. */
    if (rank == size - 1)
      for (;;) sleep(1);
    sleep(8);
    return;
  }
  double t0 = now();
  int x;
  int rc = MPI_Recv(&x, 1, MPI_INT, rsize - 1, 5, inter, MPI_STATUS_IGNORE), cls;
  MPI_Error_class(rc, &cls);
  printf("RECV %d after %.2f s (client rank %d)\n", cls, now() - t0, rank);
  fflush(stdout);
  CHECK(cls == MPI_ERR_PROC_FAILED, "receive from the killed process: class %d, expected MPI_ERR_PROC_FAILED", cls);
}

static void relay(const char* file, int is_server) {
  char port[MPI_MAX_PORT_NAME] = "";
  MPI_Comm bridge = MPI_COMM_NULL, inter, merged;
  if (rank == 0) {
    if (is_server) {
      MPI_Open_port(MPI_INFO_NULL, port);
      write_port(file, port);
      MPI_Comm_accept(port, MPI_INFO_NULL, 0, MPI_COMM_SELF, &bridge);
    } else {
      read_port(file, port);
      MPI_Comm_connect(port, MPI_INFO_NULL, 0, MPI_COMM_SELF, &bridge);
    }
  }
  MPI_Intercomm_create(MPI_COMM_WORLD, 0, bridge, 0, 42, &inter);
  MPI_Intercomm_merge(inter, is_server ? 0 : 1, &merged);
  int rsize, msize;
  MPI_Comm_remote_size(inter, &rsize);
  MPI_Comm_size(merged, &msize);
  CHECK(msize == size + rsize, "merged size %d", msize);
  MPI_Comm_set_errhandler(inter, MPI_ERRORS_RETURN);
  MPI_Comm_set_errhandler(merged, MPI_ERRORS_RETURN);
  printf("READY %s %d pid=%d\n", is_server ? "server" : "client", rank, (int)getpid());
  fflush(stdout);
  if (is_server && rank == size - 1) {
    for (;;) sleep(1); /* the test SIGKILLs this process now */
  }
  /* ULFM: a collective with a failed member may fail at some members and succeed at others; it must
   * return everywhere. Then the usual pattern makes the outcome uniform: revoke, agree, shrink. */
  double t0 = now();
  int rc, cls = MPI_SUCCESS;
  if (!is_server) {
    /* A receive from the victim: only a failure notice can end it at a rank that never dialed it. */
    int x;
    rc = MPI_Recv(&x, 1, MPI_INT, rsize - 1, 5, inter, MPI_STATUS_IGNORE);
    MPI_Error_class(rc, &cls);
    printf("RECV %d after %.2f s (client rank %d)\n", cls, now() - t0, rank);
    fflush(stdout);
    CHECK(cls == MPI_ERR_PROC_FAILED, "receive from the killed process: class %d, expected MPI_ERR_PROC_FAILED", cls);
    /* Only now may the server ranks talk to us (what they say could carry their own knowledge). */
    if (rank < rsize - 1) MPI_Send(&rank, 1, MPI_INT, rank, 6, inter);
    t0 = now();
  } else if (rank < rsize) {
    int x;
    rc = MPI_Recv(&x, 1, MPI_INT, rank, 6, inter, MPI_STATUS_IGNORE);
    CHECK(rc == MPI_SUCCESS && x == rank, "server: receive from client rank %d: rc %d", rank, rc);
  }
  rc = MPI_Barrier(inter);
  MPI_Error_class(rc, &cls);
  printf("BARRIER %d after %.2f s (%s rank %d)\n", cls, now() - t0, is_server ? "server" : "client", rank);
  fflush(stdout);
  CHECK(rc == MPI_SUCCESS || cls == MPI_ERR_PROC_FAILED || cls == MPI_ERR_REVOKED, "barrier: class %d", cls);
#ifdef MPIX_ERR_REVOKED
  if (rc != MPI_SUCCESS) MPIX_Comm_revoke(merged);
  int flag = 1;
  rc = MPIX_Comm_agree(merged, &flag);
  MPI_Error_class(rc, &cls);
  /* The failure is not acknowledged: agree reports it at every survivor (uniformly). */
  printf("AGREE %d (%s rank %d)\n", cls, is_server ? "server" : "client", rank);
  fflush(stdout);
  CHECK(cls == MPI_ERR_PROC_FAILED, "agree on the merged communicator: class %d, expected MPI_ERR_PROC_FAILED", cls);
  MPI_Comm shrunk;
  rc = MPIX_Comm_shrink(merged, &shrunk);
  CHECK(rc == MPI_SUCCESS, "shrink failed (%d)", rc);
  int ssize;
  MPI_Comm_size(shrunk, &ssize);
  CHECK(ssize == msize - 1, "shrunk size %d, expected %d", ssize, msize - 1);
  MPI_Comm_set_errhandler(shrunk, MPI_ERRORS_RETURN);
  flag = 1;
  rc = MPIX_Comm_agree(shrunk, &flag);
  CHECK(rc == MPI_SUCCESS && flag == 1, "agree on the shrunk communicator: rc %d flag %d", rc, flag);
  int one = 1, total = 0;
  rc = MPI_Allreduce(&one, &total, 1, MPI_INT, MPI_SUM, shrunk);
  CHECK(rc == MPI_SUCCESS && total == ssize, "allreduce on the shrunk communicator: rc %d total %d", rc, total);
  printf("SHRUNK %d (%s rank %d)\n", ssize, is_server ? "server" : "client", rank);
  fflush(stdout);
  MPI_Comm_free(&shrunk);
#endif
  /* The communicators holding the dead process are left as they are (no disconnect with it). */
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  CHECK(argc >= 3, "usage: %s ROLE ARG [ARG]", argv[0]);
  const char* role = argv[1];
  char port[MPI_MAX_PORT_NAME] = "";
  MPI_Comm inter = MPI_COMM_NULL;

  if (!strcmp(role, "server") || !strcmp(role, "hold")) {
    const char* file = argv[2];
    const char* name = argc > 3 ? argv[3] : "-";
    if (rank == 0) {
      MPI_Open_port(MPI_INFO_NULL, port);
      if (strcmp(name, "-")) MPI_Publish_name(name, MPI_INFO_NULL, port);
      if (strcmp(file, "-")) write_port(file, port);
    }
    MPI_Comm_accept(port, MPI_INFO_NULL, 0, MPI_COMM_WORLD, &inter);
    if (!strcmp(role, "hold")) {
      int x;  /* the test kills this job now */
      MPI_Recv(&x, 1, MPI_INT, 0, 99, inter, MPI_STATUS_IGNORE);
      CHECK(0, "hold: the client sent something");
    }
    exchange(inter, 1);
    MPI_Comm_disconnect(&inter);
    CHECK(inter == MPI_COMM_NULL, "disconnect left the handle");
    if (rank == 0) {
      if (strcmp(name, "-")) MPI_Unpublish_name(name, MPI_INFO_NULL, port);
      MPI_Close_port(port);
    }
  } else if (!strcmp(role, "client") || !strcmp(role, "victim")) {
    const char* file = argv[2];
    const char* name = argc > 3 ? argv[3] : "-";
    if (rank == 0) {
      if (strcmp(name, "-")) {
        /* The server may not have published yet: look up until it has (bounded). */
        double t0 = now();
        MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
        while (MPI_Lookup_name(name, MPI_INFO_NULL, port) != MPI_SUCCESS) {
          CHECK(now() - t0 < 60, "name %s not published after 60 s", name);
          usleep(20000);
        }
        MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
      } else {
        read_port(file, port);
      }
    }
    MPI_Comm_connect(port, MPI_INFO_NULL, 0, MPI_COMM_WORLD, &inter);
    if (!strcmp(role, "victim")) {
      MPI_Comm_set_errhandler(inter, MPI_ERRORS_RETURN);
      int x, rsize;
      MPI_Comm_remote_size(inter, &rsize);
      if (rank == 0) {
        printf("CONNECTED\n");
        fflush(stdout);
      }
      double t0 = now();
      int rc = MPI_Recv(&x, 1, MPI_INT, rank % rsize, 99, inter, MPI_STATUS_IGNORE);
      int cls;
      MPI_Error_class(rc, &cls);
      CHECK(rc != MPI_SUCCESS, "receive from a killed server succeeded");
      printf("ERROR-CLASS %d after %.2f s (rank %d)\n", cls, now() - t0, rank);
      fflush(stdout);
      /* The intercommunicator is broken: leave without disconnecting from the dead job. */
      MPI_Finalize();
      return 0;
    }
    exchange(inter, 0);
    MPI_Comm_disconnect(&inter);
    CHECK(inter == MPI_COMM_NULL, "disconnect left the handle");
  } else if (!strcmp(role, "dead")) {
    if (rank == 0) read_port(argv[2], port);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    double t0 = now();
    int rc = MPI_Comm_connect(port, MPI_INFO_NULL, 0, MPI_COMM_WORLD, &inter);
    int cls;
    MPI_Error_class(rc, &cls);
    CHECK(rc != MPI_SUCCESS, "connect to a dead port succeeded");
    CHECK(cls == MPI_ERR_PORT, "connect to a dead port: class %d, expected MPI_ERR_PORT (%d)", cls, MPI_ERR_PORT);
    CHECK(now() - t0 < 30, "connect to a dead port took %.1f s", now() - t0);
  } else if (!strcmp(role, "closed") || !strcmp(role, "noaccept")) {
    if (rank == 0) {
      MPI_Open_port(MPI_INFO_NULL, port);
      if (!strcmp(role, "closed")) MPI_Close_port(port);
      write_port(argv[2], port);
      double t0 = now();
      while (access(argv[2], F_OK) == 0) {
        CHECK(now() - t0 < 60, "%s not removed after 60 s", argv[2]);
        usleep(20000);
      }
    }
    MPI_Barrier(MPI_COMM_WORLD);
  } else if (!strcmp(role, "relay_server") || !strcmp(role, "relay_client")) {
    relay(argv[2], !strcmp(role, "relay_server"));
  } else if (!strcmp(role, "board_server") || !strcmp(role, "board_client")) {
    board(argv[2], !strcmp(role, "board_server"));
  } else if (!strcmp(role, "missing")) {
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    int rc = MPI_Lookup_name(argv[2], MPI_INFO_NULL, port);
    int cls;
    MPI_Error_class(rc, &cls);
    CHECK(cls == MPI_ERR_NAME, "lookup of an unpublished name: class %d, expected MPI_ERR_NAME (%d)", cls, MPI_ERR_NAME);
  } else {
    CHECK(0, "unknown role %s", role);
  }
  if (rank == 0) {
    printf("PASS %s\n", role);
    fflush(stdout);
  }
  MPI_Finalize();
  return 0;
}
