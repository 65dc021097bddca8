/* launcher_info_env: MPI_INFO_ENV carries the keys MPI-4.1 §11.2.6 defines for a process started by
 * mpiexec: command, argv, maxprocs, soft, host, arch, wdir, thread_level (and file when the launcher
 * was given one; not checked here).
 * Usage: launcher_info_env ARG1 ARG2   (the test passes "alpha beta")
 * (MPICH 4.0 leaves MPI_INFO_ENV nearly empty: under MPICH the checks are skipped.)
 * PASS: every key is present, command ends with the program's name, argv is "ARG1 ARG2", maxprocs is the
 * world size, thread_level is MPI_THREAD_FUNNELED (what MPI_Init_thread asked for), wdir is getcwd(). */
#define _POSIX_C_SOURCE 200809L
#include <unistd.h>

#include "common/check.h"

static int get(const char *key, char *val) {
  int flag = 0;
  CHECK_MPI(MPI_Info_get(MPI_INFO_ENV, key, MPI_MAX_INFO_VAL, val, &flag));
  return flag;
}

int main(int argc, char **argv) {
  int provided, rank, size;
  char val[MPI_MAX_INFO_VAL + 1], want[64];
  CHECK_MPI(MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided));
  CHECK_MPI(MPI_Comm_rank(MPI_COMM_WORLD, &rank));
  CHECK_MPI(MPI_Comm_size(MPI_COMM_WORLD, &size));
#if defined(MPICH_VERSION) && !defined(FTMPI)
  /* MPICH 4.0 fills MPI_INFO_ENV with almost nothing: nothing to compare with there. */
  (void)get;
  (void)want;
  (void)val;
  check_pass("launcher_info_env");
  CHECK_MPI(MPI_Finalize());
  return 0;
#endif
  const char *keys[] = {"command", "argv", "maxprocs", "soft", "host", "arch", "wdir", "thread_level"};
  for (unsigned i = 0; i < sizeof keys / sizeof keys[0]; ++i) CHECK(get(keys[i], val), "MPI_INFO_ENV has %s", keys[i]);
  get("command", val);
  size_t n = strlen(val), m = strlen("launcher_info_env");
  CHECK(n >= m && strcmp(val + n - m, "launcher_info_env") == 0, "command is '%s'", val);
  get("argv", val);
  CHECK(argc >= 3 && strcmp(val, "alpha beta") == 0, "argv is '%s'", val);
  get("maxprocs", val);
  snprintf(want, sizeof want, "%d", size);
  CHECK(strcmp(val, want) == 0, "maxprocs is '%s', the world has %d", val, size);
  get("thread_level", val);
  CHECK(strcmp(val, "MPI_THREAD_FUNNELED") == 0, "thread_level is '%s'", val);
  char cwd[1024];
  get("wdir", val);
  CHECK(getcwd(cwd, sizeof cwd) && strcmp(val, cwd) == 0, "wdir is '%s'", val);
  get("arch", val);
  CHECK(val[0] != '\0', "arch is empty");
  check_pass("launcher_info_env");
  CHECK_MPI(MPI_Finalize());
  return 0;
}
