/* tests/mpi/env/info_anytime.c — MPI-4.0 §9 / §11.2.1: the Info functions work before MPI_Init and after
 * MPI_Finalize; MPI_Info_create_env (MPI-4.0 §11.2.2) too. An info object made before MPI_Init is used by
 * MPI_Comm_dup_with_info inside, and one made inside is still usable after MPI_Finalize.
 * Any number of ranks. MPI-4 parts need an MPI-4 library (MPICH >= 4.0, ftmpi); with an MPI-3 one they are
 * skipped (SKIP printed). */
#include "../common/check.h"

#if MPI_VERSION >= 4 || defined(FTMPI)
static void exercise(MPI_Info info, const char *key, const char *value) {
  char v[MPI_MAX_INFO_VAL];
  int flag = 0, n = -1;
  CHECK_MPI(MPI_Info_set(info, key, value));
  CHECK_MPI(MPI_Info_get(info, key, MPI_MAX_INFO_VAL - 1, v, &flag));
  CHECK(flag && strcmp(v, value) == 0, "get %s", key);
  int len = 0;
  CHECK_MPI(MPI_Info_get_valuelen(info, key, &len, &flag));
  CHECK(flag && len == (int)strlen(value), "valuelen");
  CHECK_MPI(MPI_Info_get_nkeys(info, &n));
  CHECK(n >= 1, "nkeys %d", n);
  char k[MPI_MAX_INFO_KEY];
  CHECK_MPI(MPI_Info_get_nthkey(info, 0, k));
  MPI_Info d;
  CHECK_MPI(MPI_Info_dup(info, &d));
  CHECK_MPI(MPI_Info_get(d, key, MPI_MAX_INFO_VAL - 1, v, &flag));
  CHECK(flag && strcmp(v, value) == 0, "dup keeps %s", key);
  CHECK_MPI(MPI_Info_delete(d, key));
  CHECK_MPI(MPI_Info_get(d, key, MPI_MAX_INFO_VAL - 1, v, &flag));
  CHECK(!flag, "deleted");
  CHECK_MPI(MPI_Info_free(&d));
  CHECK(d == MPI_INFO_NULL, "free resets the handle");
}

static void env_info(int argc, char **argv) {
  MPI_Info e;
  CHECK_MPI(MPI_Info_create_env(argc, argv, &e));
  int n = -1;
  CHECK_MPI(MPI_Info_get_nkeys(e, &n));
  CHECK(n >= 0, "env info keys");
#ifdef FTMPI
  char v[MPI_MAX_INFO_VAL];
  int flag = 0;
  CHECK_MPI(MPI_Info_get(e, "command", MPI_MAX_INFO_VAL - 1, v, &flag));
  CHECK(flag && strcmp(v, argv[0]) == 0, "command key is argv[0]");
#endif
  CHECK_MPI(MPI_Info_free(&e));
}
#endif

int main(int argc, char **argv) {
#if MPI_VERSION >= 4 || defined(FTMPI)
  /* Before MPI_Init. */
  MPI_Info before;
  CHECK_MPI(MPI_Info_create(&before));
  exercise(before, "pre_init_key", "1");
  env_info(argc, argv);
#ifdef FTMPI
  /* Bad input before MPI_Init returns the error class (no MPI_COMM_WORLD handler exists yet). */
  MPI_Info bad = MPI_INFO_NULL;
  CHECK(MPI_Info_set(bad, "k", "v") == MPI_ERR_INFO, "Info_set(MPI_INFO_NULL) before Init");
  CHECK(MPI_Info_create(NULL) == MPI_ERR_ARG, "Info_create(NULL) before Init");
  CHECK(MPI_Info_set(before, "", "v") == MPI_ERR_INFO_KEY, "empty key before Init");
#endif
#endif
  CHECK_MPI(MPI_Init(&argc, &argv));
  int rank;
  CHECK_MPI(MPI_Comm_rank(MPI_COMM_WORLD, &rank));
#if MPI_VERSION >= 4 || defined(FTMPI)
  /* The pre-Init object works inside. */
  MPI_Comm d;
  CHECK_MPI(MPI_Comm_dup_with_info(MPI_COMM_WORLD, before, &d));
  CHECK_MPI(MPI_Comm_free(&d));
  MPI_Info inside;
  CHECK_MPI(MPI_Info_create(&inside));
  exercise(inside, "in_init_key", "2");
  CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
  CHECK_MPI(MPI_Finalize());
  /* After MPI_Finalize. */
  exercise(inside, "post_finalize_key", "3");
  exercise(before, "pre_init_key", "4");
  env_info(argc, argv);
  CHECK_MPI(MPI_Info_free(&inside));
  CHECK_MPI(MPI_Info_free(&before));
  if (rank == 0) printf("PASS info_anytime\n");
#else
  if (rank == 0) printf("SKIP Info before MPI_Init needs MPI-4\nPASS info_anytime\n");
  MPI_Finalize();
#endif
  return 0;
}
