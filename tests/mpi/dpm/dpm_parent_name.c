/* MPI-3.1 10.3.2: in a spawned process the intercommunicator returned by MPI_Comm_get_parent has the default
 * name "MPI_COMM_PARENT" (MPICH's spawn1/spawn2/spawninfo1 check it). The parents spawn 2 children of this
 * program; each child reports whether the name is right; a name the child sets afterwards is kept.
 * Portable MPI (runs with Open MPI and MPICH too). */
#include <mpi.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm parent;
  MPI_Comm_get_parent(&parent);
  int fails = 0;
  if (parent == MPI_COMM_NULL) {
    char self[4096];
    if (argv[0][0] == '/') snprintf(self, sizeof self, "%s", argv[0]);
    else { char cwd[2048]; if (!getcwd(cwd, sizeof cwd)) cwd[0] = 0; snprintf(self, sizeof self, "%s/%s", cwd, argv[0]); }
    MPI_Comm inter;
    int codes[2];
    MPI_Comm_spawn(self, MPI_ARGV_NULL, 2, MPI_INFO_NULL, 0, MPI_COMM_WORLD, &inter, codes);
    int rank;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (rank == 0)
      for (int c = 0; c < 2; ++c) {
        int bad = -1;
        MPI_Recv(&bad, 1, MPI_INT, c, 7, inter, MPI_STATUS_IGNORE);
        if (bad) { printf("FAIL: child %d saw a wrong parent name (%d problems)\n", c, bad); fails++; }
      }
    /* The parents' side carries no default name requirement; the parent world is unaffected. */
    char wname[MPI_MAX_OBJECT_NAME];
    int len = 0;
    MPI_Comm_get_name(MPI_COMM_WORLD, wname, &len);
    if (strcmp(wname, "MPI_COMM_WORLD") != 0) { printf("FAIL: MPI_COMM_WORLD is named '%s'\n", wname); fails++; }
    MPI_Comm_disconnect(&inter);
    int all = 0;
    MPI_Allreduce(&fails, &all, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0) printf(all ? "FAIL: %d problems\n" : "PASS\n", all);
    MPI_Finalize();
    return all != 0;
  }
  char name[MPI_MAX_OBJECT_NAME];
  int len = -1, bad = 0;
  name[0] = 0;
  MPI_Comm_get_name(parent, name, &len);
  if (strcmp(name, "MPI_COMM_PARENT") != 0 || len != (int)strlen("MPI_COMM_PARENT")) {
    printf("FAIL: parent intercommunicator named '%s' (length %d), expected MPI_COMM_PARENT\n", name, len);
    bad++;
  }
  MPI_Comm_set_name(parent, "renamed");
  MPI_Comm_get_name(parent, name, &len);
  if (strcmp(name, "renamed") != 0) { printf("FAIL: MPI_Comm_set_name on the parent gave '%s'\n", name); bad++; }
  int rank;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Send(&bad, 1, MPI_INT, 0, 7, parent);
  MPI_Comm_disconnect(&parent);
  MPI_Finalize();
  return 0;
}
