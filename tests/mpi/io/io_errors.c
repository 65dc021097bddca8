#define _GNU_SOURCE
/* io_errors: bad input to MPI-IO calls gets the standard error class (§13.7), never a crash or a hang.
 *
 * >= 1 rank. Files use the default file error handler, MPI_ERRORS_RETURN (checked). Checked classes:
 * MPI_ERR_NO_SUCH_FILE (open of a missing file, delete of a missing file), MPI_ERR_AMODE (RDONLY|CREATE,
 * no access bit, two access bits, RDWR|SEQUENTIAL), MPI_ERR_FILE_EXISTS (CREATE|EXCL on an existing file),
 * MPI_ERR_ACCESS (a directory the process may not search: root drops to uid 65534 for that open),
 * MPI_ERR_READ_ONLY or MPI_ERR_ACCESS (write to a file opened RDONLY: MPICH says READ_ONLY; ftmpi asserts it),
 * MPI_ERR_ACCESS (read from a file opened WRONLY), MPI_ERR_UNSUPPORTED_DATAREP (set_view with "nonsense"),
 * MPI_ERR_BAD_FILE (a path through a regular file), MPI_ERR_ARG (bad whence), MPI_ERR_FILE (a closed file's
 * stale handle; ftmpi only: other MPIs may crash on that). A file error handler (MPI_File_create_errhandler)
 * is called with the file and the code; one set on MPI_FILE_NULL serves MPI_File_open. */
#include <sys/stat.h>

#include "io_common.h"

#ifdef FTMPI
#define EXPECT(call, cls) EXPECT_CLASS(call, cls)
#else
#define EXPECT(call, cls) CHECK((call) != MPI_SUCCESS, "%s succeeded", #call)
#endif

static int calls = 0, last_code = 0;
static MPI_File last_file;
static void handler(MPI_File *f, int *code, ...) {
  calls++;
  last_code = *code;
  last_file = *f;
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  char path[512], dir[600], inner[700], bad[700];
  io_path(MPI_COMM_WORLD, "ftmpi-io-errors", path, sizeof path);
  MPI_File fh;
  MPI_Status st;
  int x = 1;

  EXPECT(MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_RDONLY, MPI_INFO_NULL, &fh), MPI_ERR_NO_SUCH_FILE);
  if (rank == 0) EXPECT(MPI_File_delete(path, MPI_INFO_NULL), MPI_ERR_NO_SUCH_FILE);
  EXPECT(MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_RDONLY | MPI_MODE_CREATE, MPI_INFO_NULL, &fh), MPI_ERR_AMODE);
  EXPECT(MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_CREATE, MPI_INFO_NULL, &fh), MPI_ERR_AMODE);
  EXPECT(MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_RDWR | MPI_MODE_WRONLY | MPI_MODE_CREATE, MPI_INFO_NULL, &fh),
         MPI_ERR_AMODE);
  EXPECT(MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_RDWR | MPI_MODE_SEQUENTIAL | MPI_MODE_CREATE, MPI_INFO_NULL, &fh),
         MPI_ERR_AMODE);

  /* create it, then EXCL fails */
  OK(MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_CREATE | MPI_MODE_WRONLY, MPI_INFO_NULL, &fh));
  OK(MPI_File_write_at_all(fh, rank * 4, &x, 1, MPI_INT, &st));
  EXPECT(MPI_File_read_at(fh, 0, &x, 1, MPI_INT, &st), MPI_ERR_ACCESS);
  OK(MPI_File_close(&fh));
  MPI_Barrier(MPI_COMM_WORLD);
  EXPECT(MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_CREATE | MPI_MODE_EXCL | MPI_MODE_WRONLY, MPI_INFO_NULL, &fh),
         MPI_ERR_FILE_EXISTS);

  /* read-only open: writes fail */
  OK(MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_RDONLY, MPI_INFO_NULL, &fh));
  {
    int rc = MPI_File_write_at(fh, 0, &x, 1, MPI_INT, &st), c = -1;
    MPI_Error_class(rc, &c);
#ifdef FTMPI
    CHECK(c == MPI_ERR_READ_ONLY, "write to RDONLY: class %d", c);
#else
    CHECK(c == MPI_ERR_READ_ONLY || c == MPI_ERR_ACCESS, "write to RDONLY: class %d", c);
#endif
  }
  OK(MPI_File_read_at(fh, 0, &x, 1, MPI_INT, &st));
  EXPECT(MPI_File_set_view(fh, 0, MPI_INT, MPI_INT, "nonsense", MPI_INFO_NULL), MPI_ERR_UNSUPPORTED_DATAREP);
  EXPECT(MPI_File_seek(fh, 0, 12345), MPI_ERR_ARG);

  /* a file error handler */
  MPI_Errhandler eh;
  OK(MPI_File_create_errhandler(handler, &eh));
  OK(MPI_File_set_errhandler(fh, eh));
  MPI_File_write_at(fh, 0, &x, 1, MPI_INT, &st);
  CHECK(calls == 1 && last_file == fh && last_code != MPI_SUCCESS, "file handler: %d calls", calls);
  OK(MPI_File_call_errhandler(fh, MPI_ERR_IO));
  CHECK(calls == 2 && last_code == MPI_ERR_IO, "call_errhandler: %d calls, code %d", calls, last_code);
  OK(MPI_File_set_errhandler(fh, MPI_ERRORS_RETURN));
#ifdef FTMPI
  MPI_File stale = fh;
#endif
  OK(MPI_File_close(&fh));
#ifdef FTMPI
  EXPECT(MPI_File_get_size(stale, &(MPI_Offset){0}), MPI_ERR_FILE);
  EXPECT(MPI_File_write(stale, &x, 1, MPI_INT, &st), MPI_ERR_FILE);
#endif
  /* the MPI_FILE_NULL handler serves open */
  OK(MPI_File_set_errhandler(MPI_FILE_NULL, eh));
  calls = 0;
  snprintf(bad, sizeof bad, "%s.missing", path);
  MPI_File_open(MPI_COMM_WORLD, bad, MPI_MODE_RDONLY, MPI_INFO_NULL, &fh);
  CHECK(calls == 1 && last_file == MPI_FILE_NULL, "MPI_FILE_NULL handler: %d calls", calls);
  OK(MPI_File_set_errhandler(MPI_FILE_NULL, MPI_ERRORS_RETURN));
  MPI_Errhandler_free(&eh);

  /* a path through a regular file */
  snprintf(bad, sizeof bad, "%s/below", path);
  EXPECT(MPI_File_open(MPI_COMM_WORLD, bad, MPI_MODE_RDWR | MPI_MODE_CREATE, MPI_INFO_NULL, &fh), MPI_ERR_BAD_FILE);

  /* a directory this process may not search */
  snprintf(dir, sizeof dir, "%s.dir", path);
  snprintf(inner, sizeof inner, "%s/f", dir);
  if (rank == 0) {
    CHECK(mkdir(dir, 0700) == 0, "mkdir");
    FILE *f = fopen(inner, "w");
    CHECK(f != NULL, "create inner file");
    fclose(f);
    chmod(dir, 0);
  }
  MPI_Barrier(MPI_COMM_WORLD);
  int root = geteuid() == 0;
  if (root) CHECK(seteuid(65534) == 0, "seteuid");
  int rc = MPI_File_open(MPI_COMM_WORLD, inner, MPI_MODE_RDONLY, MPI_INFO_NULL, &fh), c = -1;
  if (root) CHECK(seteuid(0) == 0, "seteuid back");
  MPI_Error_class(rc, &c);
  CHECK(rc != MPI_SUCCESS && c == MPI_ERR_ACCESS, "unsearchable directory: %s", check_errstr(rc));
  MPI_Barrier(MPI_COMM_WORLD);
  if (rank == 0) {
    chmod(dir, 0700);
    unlink(inner);
    rmdir(dir);
    OK(MPI_File_delete(path, MPI_INFO_NULL));
  }
  MPI_Barrier(MPI_COMM_WORLD);
  if (rank == 0) printf("PASS io_errors\n");
  MPI_Finalize();
  return 0;
}
