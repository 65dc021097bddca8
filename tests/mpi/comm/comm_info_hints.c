/* Info hints of communicators and files (MPI-4.0 §7.4.4, §14.2.8): MPI_Comm_get_info and MPI_File_get_info
 * return the hints actually used, so a key the user made up is not returned, whether it was given with
 * MPI_Comm_set_info, MPI_Comm_dup_with_info, MPI_Comm_idup_with_info or MPI_Comm_create_from_group (MPICH's
 * comm/comm_info checks the first), or with MPI_File_open / MPI_File_set_info. The MPI-4.0 assertion
 * mpi_assert_no_any_tag is a hint ftmpi keeps; MPI_Comm_dup copies the hints. */
#include <mpi.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

static int fails = 0;
#define CHECK(c, ...) do { if (!(c)) { printf("FAIL: " __VA_ARGS__); printf("\n"); fails++; } } while (0)

static int comm_has(MPI_Comm c, const char* key, char* val) {
  MPI_Info used;
  int flag = 0;
  MPI_Comm_get_info(c, &used);
  MPI_Info_get(used, key, MPI_MAX_INFO_VAL, val, &flag);
  MPI_Info_free(&used);
  return flag;
}

static void check_comm(MPI_Comm c, const char* what) {
  char val[MPI_MAX_INFO_VAL + 1];
  CHECK(!comm_has(c, "invalid_test_key", val), "%s: a made-up key is returned", what);
  CHECK(comm_has(c, "mpi_assert_no_any_tag", val) && strcmp(val, "true") == 0,
        "%s: mpi_assert_no_any_tag=true is not returned", what);
  CHECK(!comm_has(c, "mpi_assert_exact_length", val), "%s: mpi_assert_exact_length with a bad value is returned",
        what);
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Info hints;
  MPI_Info_create(&hints);
  MPI_Info_set(hints, "invalid_test_key", "true");
  MPI_Info_set(hints, "mpi_assert_no_any_tag", "true");
  MPI_Info_set(hints, "mpi_assert_exact_length", "maybe");

  MPI_Comm a, b, c, d;
  MPI_Comm_dup(MPI_COMM_WORLD, &a);
  MPI_Comm_set_info(a, hints);
  check_comm(a, "MPI_Comm_set_info");
  MPI_Comm_dup(a, &b);
  check_comm(b, "MPI_Comm_dup of a communicator with hints");
  MPI_Comm_dup_with_info(MPI_COMM_WORLD, hints, &c);
  check_comm(c, "MPI_Comm_dup_with_info");
  MPI_Request req;
  MPI_Comm_idup_with_info(MPI_COMM_WORLD, hints, &d, &req);
  MPI_Wait(&req, MPI_STATUS_IGNORE);
  check_comm(d, "MPI_Comm_idup_with_info");
  MPI_Comm_free(&a);
  MPI_Comm_free(&b);
  MPI_Comm_free(&c);
  MPI_Comm_free(&d);

  MPI_Session s;
  MPI_Group g;
  MPI_Comm e;
  MPI_Session_init(MPI_INFO_NULL, MPI_ERRORS_RETURN, &s);
  MPI_Group_from_session_pset(s, "mpi://WORLD", &g);
  MPI_Comm_create_from_group(g, "ftmpi.test.comm_info_hints", hints, MPI_ERRORS_RETURN, &e);
  check_comm(e, "MPI_Comm_create_from_group");
  MPI_Comm_free(&e);
  MPI_Group_free(&g);
  MPI_Session_finalize(&s);

  /* files: the hints ftmpi uses (cb_buffer_size ...) are returned, made-up ones are not */
  char path[256], val[MPI_MAX_INFO_VAL + 1];
  snprintf(path, sizeof path, "/tmp/ftmpi_comm_info_hints_%d", (int)getpid());
  MPI_Bcast(path, (int)sizeof path, MPI_CHAR, 0, MPI_COMM_WORLD);
  MPI_Info fi;
  MPI_Info_create(&fi);
  MPI_Info_set(fi, "invalid_file_key", "1");
  MPI_Info_set(fi, "cb_buffer_size", "65536");
  MPI_File fh;
  CHECK(MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_CREATE | MPI_MODE_RDWR | MPI_MODE_DELETE_ON_CLOSE, fi, &fh) ==
            MPI_SUCCESS, "MPI_File_open");
  MPI_Info used;
  int flag = 0;
  MPI_File_get_info(fh, &used);
  MPI_Info_get(used, "invalid_file_key", MPI_MAX_INFO_VAL, val, &flag);
  CHECK(!flag, "MPI_File_open: a made-up key is returned");
  MPI_Info_get(used, "cb_buffer_size", MPI_MAX_INFO_VAL, val, &flag);
  CHECK(flag && strcmp(val, "65536") == 0, "MPI_File_open: cb_buffer_size not returned as given");
  MPI_Info_free(&used);
  MPI_Info_set(fi, "another_file_key", "2");
  MPI_File_set_info(fh, fi);
  MPI_File_get_info(fh, &used);
  MPI_Info_get(used, "another_file_key", MPI_MAX_INFO_VAL, val, &flag);
  CHECK(!flag, "MPI_File_set_info: a made-up key is returned");
  MPI_Info_free(&used);
  MPI_File_close(&fh);
  MPI_Info_free(&fi);
  MPI_Info_free(&hints);

  int all = 0;
  MPI_Reduce(&fails, &all, 1, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD);
  if (rank == 0) printf(all ? "FAIL: %d problems\n" : "PASS\n", all);
  MPI_Finalize();
  return all != 0;
}
