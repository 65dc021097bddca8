/* hosts_spawn — MPI_Comm_spawn across hosts (tests/hosts/dpm_hosts_test.sh). Portable MPI; the FT cases are
 * ftmpi-only (#ifdef FTMPI: ULFM's MPIX_ calls).
 *   hosts_spawn place N [HOST]  the parents spawn N children of this program (info "host"=HOST when given);
 *                               each child sends its host name to every parent, which prints
 *                               "child C on HOST" (parent rank 0); both sides merge and Allreduce; every
 *                               parent prints "parent R universe U ok".
 *   hosts_spawn missing HOST    a spawn of a program that does not exist on HOST, then one with info host
 *                               naming no host of the job: MPI_ERR_SPAWN at every parent, every errcode
 *                               MPI_ERR_SPAWN; prints "parent R missing ok".
 *   hosts_spawn kill HOST       (FT) 2 children on HOST; child 1 SIGKILLs itself after the spawn; the
 *                               parents' receive from it fails (MPI_ERR_PROC_FAILED), child 0's message
 *                               arrives; prints "parent R kill ok".
 *   hosts_spawn die HOST        (FT) 2 children on HOST that SIGKILL themselves before MPI_Init: the spawn
 *                               fails with MPI_ERR_SPAWN at every parent; prints "parent R die ok". */
#define _GNU_SOURCE
#include <mpi.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define DIE(...) do { fprintf(stderr, "hosts_spawn: " __VA_ARGS__); fputc('\n', stderr); MPI_Abort(MPI_COMM_WORLD, 9); } while (0)

static int child(int argc, char** argv, MPI_Comm parent) {
  int rank, psize;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_remote_size(parent, &psize);
  char host[MPI_MAX_PROCESSOR_NAME] = {0};
  gethostname(host, sizeof host - 1);
  if (argc >= 2 && strcmp(argv[1], "kill") == 0) {
    if (rank == 1) raise(SIGKILL);
    for (int p = 0; p < psize; ++p) MPI_Send(host, MPI_MAX_PROCESSOR_NAME, MPI_CHAR, p, 5, parent);
    MPI_Finalize();
    return 0;
  }
  for (int p = 0; p < psize; ++p) MPI_Send(host, MPI_MAX_PROCESSOR_NAME, MPI_CHAR, p, 5, parent);
  MPI_Comm all;
  MPI_Intercomm_merge(parent, 1, &all);
  int one = 1, sum = 0, size;
  MPI_Comm_size(all, &size);
  MPI_Allreduce(&one, &sum, 1, MPI_INT, MPI_SUM, all);
  if (sum != size) DIE("child %d: merged allreduce %d != %d", rank, sum, size);
  MPI_Comm_free(&all);
  MPI_Comm_disconnect(&parent);
  MPI_Finalize();
  return 0;
}

int main(int argc, char** argv) {
  if (argc >= 2 && strcmp(argv[1], "die-child") == 0) raise(SIGKILL); /* a child dying before MPI_Init */
  MPI_Init(&argc, &argv);
  MPI_Comm parent;
  MPI_Comm_get_parent(&parent);
  if (parent != MPI_COMM_NULL) return child(argc, argv, parent);
  if (argc < 3) DIE("usage: hosts_spawn place|missing|kill|die N|HOST [HOST]");
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  const char* mode = argv[1];
  MPI_Info info;
  MPI_Info_create(&info);
  MPI_Comm inter = MPI_COMM_NULL;
  int codes[64];
  if (strcmp(mode, "place") == 0) {
    int n = atoi(argv[2]);
    if (n < 1 || n > 64) DIE("bad N");
    if (argc >= 4) MPI_Info_set(info, "host", argv[3]);
    int flag = 0, *usize = NULL;
    MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_UNIVERSE_SIZE, &usize, &flag);
    char* args[] = {"child", NULL};
    double t0 = MPI_Wtime();
    int rc = MPI_Comm_spawn(argv[0], args, n, info, 0, MPI_COMM_WORLD, &inter, codes);
    double t1 = MPI_Wtime();
    if (rc != MPI_SUCCESS) DIE("parent %d: spawn returned %d", rank, rc);
    for (int i = 0; i < n; ++i)
      if (codes[i] != MPI_SUCCESS) DIE("parent %d: errcode[%d] = %d", rank, i, codes[i]);
    for (int c = 0; c < n; ++c) {
      char host[MPI_MAX_PROCESSOR_NAME];
      MPI_Recv(host, MPI_MAX_PROCESSOR_NAME, MPI_CHAR, c, 5, inter, MPI_STATUS_IGNORE);
      if (rank == 0) printf("child %d on %s\n", c, host);
    }
    MPI_Comm all;
    MPI_Intercomm_merge(inter, 0, &all);
    int one = 1, sum = 0, msize;
    MPI_Comm_size(all, &msize);
    MPI_Allreduce(&one, &sum, 1, MPI_INT, MPI_SUM, all);
    if (sum != size + n || msize != size + n) DIE("parent %d: merged allreduce %d, size %d", rank, sum, msize);
    MPI_Comm_free(&all);
    MPI_Comm_disconnect(&inter);
    printf("parent %d universe %d ok (spawn %.3f s)\n", rank, flag ? *usize : -1, t1 - t0);
  } else if (strcmp(mode, "missing") == 0) {
    MPI_Info_set(info, "host", argv[2]);
    for (int i = 0; i < 2; ++i) codes[i] = -1;
    int rc = MPI_Comm_spawn("./no-such-program-ftmpi", MPI_ARGV_NULL, 2, info, 0, MPI_COMM_WORLD, &inter, codes);
    int cls = -1;
    MPI_Error_class(rc, &cls);
    if (cls != MPI_ERR_SPAWN) DIE("parent %d: missing program gave class %d", rank, cls);
    for (int i = 0; i < 2; ++i)
      if (codes[i] != MPI_ERR_SPAWN) DIE("parent %d: errcode[%d] = %d", rank, i, codes[i]);
    MPI_Info_set(info, "host", "no-such-host-of-this-job");
    rc = MPI_Comm_spawn(argv[0], MPI_ARGV_NULL, 1, info, 0, MPI_COMM_WORLD, &inter, codes);
    MPI_Error_class(rc, &cls);
    if (cls != MPI_ERR_SPAWN) DIE("parent %d: unknown host gave class %d", rank, cls);
    printf("parent %d missing ok\n", rank);
#ifdef FTMPI
  } else if (strcmp(mode, "kill") == 0) {
    MPI_Info_set(info, "host", argv[2]);
    char* args[] = {"kill", NULL};
    int rc = MPI_Comm_spawn(argv[0], args, 2, info, 0, MPI_COMM_WORLD, &inter, codes);
    if (rc != MPI_SUCCESS) DIE("parent %d: spawn returned %d", rank, rc);
    MPI_Comm_set_errhandler(inter, MPI_ERRORS_RETURN);
    char host[MPI_MAX_PROCESSOR_NAME];
    rc = MPI_Recv(host, MPI_MAX_PROCESSOR_NAME, MPI_CHAR, 0, 5, inter, MPI_STATUS_IGNORE);
    if (rc != MPI_SUCCESS) DIE("parent %d: receive from the live child returned %d", rank, rc);
    if (strcmp(host, argv[2]) != 0) DIE("parent %d: child 0 on %s, not %s", rank, host, argv[2]);
    rc = MPI_Recv(host, MPI_MAX_PROCESSOR_NAME, MPI_CHAR, 1, 5, inter, MPI_STATUS_IGNORE);
    int cls = -1;
    MPI_Error_class(rc, &cls);
    if (cls != MPI_ERR_PROC_FAILED) DIE("parent %d: receive from the killed child gave class %d", rank, cls);
    MPI_Comm_free(&inter);
    printf("parent %d kill ok\n", rank);
  } else if (strcmp(mode, "die") == 0) {
    MPI_Info_set(info, "host", argv[2]);
    char* args[] = {"die-child", NULL};
    int rc = MPI_Comm_spawn(argv[0], args, 2, info, 0, MPI_COMM_WORLD, &inter, codes);
    int cls = -1;
    MPI_Error_class(rc, &cls);
    if (cls != MPI_ERR_SPAWN) DIE("parent %d: children dying at start gave class %d", rank, cls);
    printf("parent %d die ok\n", rank);
#endif
  } else {
    DIE("unknown mode %s", mode);
  }
  MPI_Info_free(&info);
  MPI_Finalize();
  return 0;
}
