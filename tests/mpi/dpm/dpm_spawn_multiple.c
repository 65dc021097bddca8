/* MPI_Comm_spawn_multiple: two commands (this program with different arguments, 2 and 1 processes);
 * children check MPI_APPNUM and their argument, and the info key "wdir". Portable MPI. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int fails = 0;
#define CHECK(c, ...) do { if (!(c)) { printf("FAIL: " __VA_ARGS__); printf("\n"); fails++; } } while (0)

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm parent;
  MPI_Comm_get_parent(&parent);
  const int is_child = parent != MPI_COMM_NULL;
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (parent == MPI_COMM_NULL) {
    char self[4096];
    if (argv[0][0] == '/') snprintf(self, sizeof self, "%s", argv[0]);
    else { char cwd[2048]; if (!getcwd(cwd, sizeof cwd)) cwd[0] = 0; snprintf(self, sizeof self, "%s/%s", cwd, argv[0]); }
    char* cmds[2] = {self, self};
    char* a0[] = {"first", NULL};
    char* a1[] = {"second", "x y", NULL};
    char** argvs[2] = {a0, a1};
    int np[2] = {2, 1};
    MPI_Info infos[2];
    MPI_Info_create(&infos[0]);
    MPI_Info_create(&infos[1]);
    MPI_Info_set(infos[1], "wdir", "/tmp");
    MPI_Comm inter;
    int codes[3];
    int rc = MPI_Comm_spawn_multiple(2, cmds, argvs, np, infos, 0, MPI_COMM_WORLD, &inter, codes);
    CHECK(rc == MPI_SUCCESS, "MPI_Comm_spawn_multiple returned %d", rc);
    for (int i = 0; i < 3; ++i) CHECK(codes[i] == MPI_SUCCESS, "errcode[%d] = %d", i, codes[i]);
    MPI_Info_free(&infos[0]);
    MPI_Info_free(&infos[1]);
    int rsize = 0;
    MPI_Comm_remote_size(inter, &rsize);
    CHECK(rsize == 3, "remote size %d", rsize);
    if (rank == 0)
      for (int c = 0; c < 3; ++c) {
        int got[2];
        MPI_Recv(got, 2, MPI_INT, c, 1, inter, MPI_STATUS_IGNORE);
        int want_app = c < 2 ? 0 : 1;
        CHECK(got[0] == want_app, "child %d reports appnum %d, expected %d", c, got[0], want_app);
        CHECK(got[1] == 0, "child %d found %d problems", c, got[1]);
      }
    MPI_Comm_disconnect(&inter);
  } else {
    int* app = NULL;
    int flag = 0;
    MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_APPNUM, &app, &flag);
    int appnum = flag ? *app : -1;
    int bad = 0;
    if (size != 3) bad++;
    if (appnum == 0 && (argc != 2 || strcmp(argv[1], "first") != 0)) bad++;
    if (appnum == 1) {
      char cwd[4096];
      if (argc != 3 || strcmp(argv[1], "second") != 0 || strcmp(argv[2], "x y") != 0) bad++;
      if (!getcwd(cwd, sizeof cwd) || strcmp(cwd, "/tmp") != 0) bad++;
    }
    int out[2] = {appnum, bad};
    if (parent != MPI_COMM_NULL) MPI_Send(out, 2, MPI_INT, 0, 1, parent);
    MPI_Comm_disconnect(&parent);
  }
  if (!is_child && rank == 0) printf("%s\n", fails ? "FAIL" : "ok");
  MPI_Finalize();
  return fails ? 1 : 0;
}
