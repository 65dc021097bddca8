/* Dynamic processes from a singleton (a program run without mpiexec): the library starts ftmpi's mpiexec on
 * demand at the first such call (docs/dpm.md "From a singleton"). Run by dpm_singleton.sh, never by mpiexec.
 *
 *   dpm_singleton spawn TOKEN     spawn 2 children (MPI_COMM_SELF) that talk to the parent, print a line each
 *                                 (forwarded by the on-demand mpiexec), merge, allreduce, disconnect
 *   dpm_singleton multiple TOKEN  MPI_Comm_spawn_multiple: 1 + 2 children, MPI_APPNUM and argv checked
 *   dpm_singleton kill TOKEN      spawn 2 children that wait for ever, print "spawned", wait (the script
 *                                 SIGKILLs this process: the children and mpiexec must go)
 *   dpm_singleton abort TOKEN     spawn 2 waiting children, then MPI_Abort(MPI_COMM_WORLD, 3)
 *   dpm_singleton names TOKEN     MPI_Open_port, Publish/Lookup/Unpublish, Close_port (no spawn)
 *   dpm_singleton nompiexec TOKEN run with FTMPI_MPIEXEC naming no program: spawn fails with
 *                                 MPI_ERR_UNSUPPORTED_OPERATION twice, then under MPI_ERRORS_ARE_FATAL (the
 *                                 script finds the reason, naming FTMPI_MPIEXEC, on stderr)
 * The children get argv {child|waiter, TOKEN} so that the script finds every process of the test by TOKEN. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int fails = 0;
#define CHECK(c, ...) do { if (!(c)) { printf("FAIL: " __VA_ARGS__); printf("\n"); fflush(stdout); fails++; } } while (0)

static void self_path(const char* argv0, char* out, size_t n) {
  if (argv0[0] == '/') { snprintf(out, n, "%s", argv0); return; }
  char cwd[2048];
  if (!getcwd(cwd, sizeof cwd)) cwd[0] = 0;
  snprintf(out, n, "%s/%s", cwd, argv0);
}

static int child(MPI_Comm parent, const char* role) {
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (strcmp(role, "waiter") == 0) {  /* waits for a message that never comes */
    int v;
    MPI_Recv(&v, 1, MPI_INT, 0, 99, parent, MPI_STATUS_IGNORE);
    return 0;
  }
  int* app = NULL, flag = 0;
  MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_APPNUM, &app, &flag);
  int v = -1;
  MPI_Recv(&v, 1, MPI_INT, 0, 1, parent, MPI_STATUS_IGNORE);
  printf("child %d of %d (appnum %d, %s) got %d\n", rank, size, flag ? *app : -1, role, v);
  fflush(stdout);
  fprintf(stderr, "child %d of %d on stderr\n", rank, size);
  v += 1;
  MPI_Send(&v, 1, MPI_INT, 0, 2, parent);
  MPI_Comm merged;
  MPI_Intercomm_merge(parent, 1, &merged);
  int one = 1, sum = 0;
  MPI_Allreduce(&one, &sum, 1, MPI_INT, MPI_SUM, merged);
  MPI_Comm_free(&merged);
  MPI_Comm_disconnect(&parent);
  return sum == size + 1 ? 0 : 1;
}

/* The parent's side of "spawn" and "multiple": each child gets 10*i+7 and answers 10*i+8. */
static void talk(MPI_Comm inter, int n) {
  int rsize = 0;
  MPI_Comm_remote_size(inter, &rsize);
  CHECK(rsize == n, "remote size %d, expected %d", rsize, n);
  for (int i = 0; i < rsize; ++i) {
    int v = 10 * i + 7;
    MPI_Send(&v, 1, MPI_INT, i, 1, inter);
  }
  for (int i = 0; i < rsize; ++i) {
    int v = -1;
    MPI_Recv(&v, 1, MPI_INT, i, 2, inter, MPI_STATUS_IGNORE);
    CHECK(v == 10 * i + 8, "child %d answered %d", i, v);
  }
  MPI_Comm merged;
  MPI_Intercomm_merge(inter, 0, &merged);
  int one = 1, sum = 0, msize = 0;
  MPI_Allreduce(&one, &sum, 1, MPI_INT, MPI_SUM, merged);
  MPI_Comm_size(merged, &msize);
  CHECK(sum == n + 1 && msize == n + 1, "merged: size %d, sum %d", msize, sum);
  MPI_Comm_free(&merged);
  MPI_Comm_disconnect(&inter);
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm parent;
  MPI_Comm_get_parent(&parent);
  if (parent != MPI_COMM_NULL) {
    int rc = child(parent, argc > 1 ? argv[1] : "?");
    MPI_Finalize();
    return rc;
  }
  if (argc < 3) {
    printf("FAIL: usage: dpm_singleton spawn|multiple|kill|abort|names|nompiexec TOKEN\n");
    MPI_Finalize();
    return 2;
  }
  const char* mode = argv[1];
  char* token = argv[2];
  int size = 0;
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  CHECK(size == 1, "a singleton's MPI_COMM_WORLD has %d processes", size);
  char self[4096];
  self_path(argv[0], self, sizeof self);
  MPI_Comm inter = MPI_COMM_NULL;
  int codes[3] = {-1, -1, -1};

  if (strcmp(mode, "spawn") == 0) {
    char* cargv[] = {"child", token, NULL};
    int rc = MPI_Comm_spawn(self, cargv, 2, MPI_INFO_NULL, 0, MPI_COMM_SELF, &inter, codes);
    CHECK(rc == MPI_SUCCESS && codes[0] == MPI_SUCCESS && codes[1] == MPI_SUCCESS, "spawn: rc %d, codes %d %d", rc,
          codes[0], codes[1]);
    if (rc == MPI_SUCCESS) talk(inter, 2);
  } else if (strcmp(mode, "multiple") == 0) {
    char* cmds[2] = {self, self};
    char* a0[] = {"childA", token, NULL};
    char* a1[] = {"childB", token, NULL};
    char** argvs[2] = {a0, a1};
    int np[2] = {1, 2};
    MPI_Info infos[2] = {MPI_INFO_NULL, MPI_INFO_NULL};
    int rc = MPI_Comm_spawn_multiple(2, cmds, argvs, np, infos, 0, MPI_COMM_SELF, &inter, codes);
    CHECK(rc == MPI_SUCCESS, "spawn_multiple: rc %d", rc);
    for (int i = 0; i < 3; ++i) CHECK(codes[i] == MPI_SUCCESS, "errcode[%d] = %d", i, codes[i]);
    if (rc == MPI_SUCCESS) talk(inter, 3);
  } else if (strcmp(mode, "kill") == 0 || strcmp(mode, "abort") == 0) {
    char* cargv[] = {"waiter", token, NULL};
    int rc = MPI_Comm_spawn(self, cargv, 2, MPI_INFO_NULL, 0, MPI_COMM_SELF, &inter, codes);
    CHECK(rc == MPI_SUCCESS, "spawn: rc %d", rc);
    printf("spawned %d\n", (int)getpid());
    fflush(stdout);
    if (strcmp(mode, "abort") == 0) {
      sleep(1);  /* the children are inside their MPI_Recv */
      MPI_Abort(MPI_COMM_WORLD, 3);
    }
    sleep(120);  /* the script kills this process */
    printf("FAIL: not killed\n");
    return 1;
  } else if (strcmp(mode, "names") == 0) {
    char port[MPI_MAX_PORT_NAME], found[MPI_MAX_PORT_NAME];
    int rc = MPI_Open_port(MPI_INFO_NULL, port);
    CHECK(rc == MPI_SUCCESS, "MPI_Open_port: rc %d", rc);
    char service[64];
    snprintf(service, sizeof service, "svc-%s", token);
    rc = MPI_Publish_name(service, MPI_INFO_NULL, port);
    CHECK(rc == MPI_SUCCESS, "MPI_Publish_name: rc %d", rc);
    rc = MPI_Lookup_name(service, MPI_INFO_NULL, found);
    CHECK(rc == MPI_SUCCESS && strcmp(found, port) == 0, "MPI_Lookup_name: rc %d, '%s' for '%s'", rc, found, port);
    rc = MPI_Unpublish_name(service, MPI_INFO_NULL, port);
    CHECK(rc == MPI_SUCCESS, "MPI_Unpublish_name: rc %d", rc);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    rc = MPI_Lookup_name(service, MPI_INFO_NULL, found);
    int cls = 0;
    MPI_Error_class(rc, &cls);
    CHECK(cls == MPI_ERR_NAME, "lookup of an unpublished name: class %d", cls);
    rc = MPI_Close_port(port);
    CHECK(rc == MPI_SUCCESS, "MPI_Close_port: rc %d", rc);
  } else if (strcmp(mode, "nompiexec") == 0) {
    MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN);
    char* cargv[] = {"child", token, NULL};
    for (int attempt = 0; attempt < 2; ++attempt) {
      int rc = MPI_Comm_spawn(self, cargv, 1, MPI_INFO_NULL, 0, MPI_COMM_SELF, &inter, codes);
      int cls = 0, len = 0;
      char msg[MPI_MAX_ERROR_STRING] = "";
      MPI_Error_class(rc, &cls);
      MPI_Error_string(rc, msg, &len);
      CHECK(cls == MPI_ERR_UNSUPPORTED_OPERATION, "attempt %d: error class %d (%s)", attempt, cls, msg);
      CHECK(inter == MPI_COMM_NULL, "attempt %d: an intercommunicator after a failed spawn", attempt);
    }
    /* The reason (MPI_ERRORS_RETURN keeps only the class) is printed by the fatal handler: the script reads it. */
    printf("singleton nompiexec %s\n", fails ? "FAIL" : "returned");
    fflush(stdout);
    MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_ARE_FATAL);
    MPI_Comm_spawn(self, cargv, 1, MPI_INFO_NULL, 0, MPI_COMM_SELF, &inter, codes);
    printf("FAIL: a fatal spawn error returned\n");
  } else {
    CHECK(0, "unknown mode %s", mode);
  }
  printf("singleton %s %s\n", mode, fails ? "FAIL" : "ok");
  fflush(stdout);
  MPI_Finalize();
  return fails ? 1 : 0;
}
