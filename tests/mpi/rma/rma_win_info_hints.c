/* Window info hints (MPI-3.1 11.2.7): MPI_Win_get_info returns the hints "actually used by the system", so a
 * key that is no window hint, given with MPI_Win_set_info, is ignored and not returned (MPICH and Open MPI
 * behave so; MPICH's rma/win_info checks it). Every window flavour is tried. Portable MPI; the ftmpi-only part
 * checks that unknown keys given at creation are ignored too and the standard keys keep the user's value. */
#include <mpi.h>
#include <stdio.h>
#include <string.h>

static int fails = 0;
#define CHECK(c, ...) do { if (!(c)) { printf("FAIL: " __VA_ARGS__); printf("\n"); fails++; } } while (0)

static int has_key(MPI_Win win, const char* key, char* val) {
  MPI_Info used;
  int flag = 0;
  MPI_Win_get_info(win, &used);
  MPI_Info_get(used, key, MPI_MAX_INFO_VAL, val, &flag);
  MPI_Info_free(&used);
  return flag;
}

static void check_window(MPI_Win win, const char* what) {
  char val[MPI_MAX_INFO_VAL + 1];
#ifdef FTMPI
  /* Open MPI 4.1 keeps unknown keys given at creation (it ignores them only at MPI_Win_set_info). */
  CHECK(!has_key(win, "no_such_window_hint", val), "%s: an unknown key given at creation is returned", what);
#endif
  MPI_Info later;
  MPI_Info_create(&later);
  MPI_Info_set(later, "another_unknown_key", "1");
  MPI_Info_set(later, "accumulate_ordering", "none");
  MPI_Win_set_info(win, later);
  MPI_Info_free(&later);
  CHECK(!has_key(win, "another_unknown_key", val), "%s: an unknown key given to MPI_Win_set_info is returned", what);
#ifdef FTMPI
  CHECK(!has_key(win, "no_such_window_hint", val), "%s: the creation-time unknown key reappeared", what);
  CHECK(has_key(win, "accumulate_ordering", val) && strcmp(val, "none") == 0,
        "%s: accumulate_ordering set with MPI_Win_set_info not reported", what);
  CHECK(has_key(win, "same_size", val) && strcmp(val, "true") == 0, "%s: same_size given at creation not reported",
        what);
#endif
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Info info;
  MPI_Info_create(&info);
  MPI_Info_set(info, "no_such_window_hint", "true");
  MPI_Info_set(info, "same_size", "true");
  int buf[4];
  MPI_Win win;
  void* base;

  MPI_Win_create(buf, sizeof buf, sizeof(int), info, MPI_COMM_WORLD, &win);
  check_window(win, "MPI_Win_create");
  MPI_Win_free(&win);

  MPI_Win_allocate(sizeof buf, sizeof(int), info, MPI_COMM_WORLD, &base, &win);
  check_window(win, "MPI_Win_allocate");
  MPI_Win_free(&win);

  MPI_Win_create_dynamic(info, MPI_COMM_WORLD, &win);
  check_window(win, "MPI_Win_create_dynamic");
  MPI_Win_free(&win);

  MPI_Comm node;
  MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node);
  MPI_Win_allocate_shared(sizeof buf, sizeof(int), info, node, &base, &win);
  check_window(win, "MPI_Win_allocate_shared");
  MPI_Win_free(&win);
  MPI_Comm_free(&node);

  MPI_Info_free(&info);
  int all = 0;
  MPI_Allreduce(&fails, &all, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  if (rank == 0) printf(all ? "FAIL: %d problems\n" : "PASS\n", all);
  MPI_Finalize();
  return all != 0;
}
