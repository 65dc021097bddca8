/* hosts_mpi — MPI across several hosts (tests/hosts/daemons_test.sh). Portable MPI; the FT mode is
 * ftmpi-only (#ifdef FTMPI: ULFM's MPIX_ calls).
 *   hosts_mpi work     ring pass of every rank's number, an 8 MiB exchange around the ring (checked byte
 *                      patterns), Allreduce, Bcast, Alltoall, Barrier. Each rank prints "rank R on HOST ok".
 *   hosts_mpi ft SECS  FT: for SECS seconds, a ring exchange and an Allreduce per step on a communicator
 *                      with errors returned; on a failure: revoke, shrink, go on. At the end every survivor
 *                      checks an Allreduce over the final communicator and prints
 *                      "rank R survivor: N of SIZE ranks left"; exit 0. Before the loop, after a Barrier:
 *                      "rank R looping". */
#define _GNU_SOURCE
#include <mpi.h>
#ifdef FTMPI
#include <mpi-ext.h>
#endif
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define DIE(...) do { fprintf(stderr, "hosts_mpi: " __VA_ARGS__); fputc('\n', stderr); MPI_Abort(MPI_COMM_WORLD, 9); } while (0)

static int work(int rank, int size, const char *host) {
  int next = (rank + 1) % size, prev = (rank + size - 1) % size, token = rank, got = -1;
  MPI_Sendrecv(&token, 1, MPI_INT, next, 1, &got, 1, MPI_INT, prev, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  if (got != prev) DIE("rank %d: ring got %d, expected %d", rank, got, prev);
  const size_t n = 8u << 20;
  unsigned char *out = malloc(n), *in = malloc(n);
  if (!out || !in) DIE("no memory");
  for (size_t i = 0; i < n; i++) out[i] = (unsigned char)(i * 7 + (size_t)rank);
  MPI_Sendrecv(out, (int)n, MPI_BYTE, next, 2, in, (int)n, MPI_BYTE, prev, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  for (size_t i = 0; i < n; i++)
    if (in[i] != (unsigned char)(i * 7 + (size_t)prev)) DIE("rank %d: 8 MiB exchange corrupt at %zu", rank, i);
  free(out);
  free(in);
  long v = rank + 1, sum = 0;
  MPI_Allreduce(&v, &sum, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
  if (sum != (long)size * (size + 1) / 2) DIE("rank %d: allreduce %ld", rank, sum);
  int b = rank == 0 ? 4242 : 0;
  MPI_Bcast(&b, 1, MPI_INT, 0, MPI_COMM_WORLD);
  if (b != 4242) DIE("rank %d: bcast %d", rank, b);
  int *s = malloc(sizeof(int) * (size_t)size), *r = malloc(sizeof(int) * (size_t)size);
  for (int i = 0; i < size; i++) s[i] = rank * 1000 + i;
  MPI_Alltoall(s, 1, MPI_INT, r, 1, MPI_INT, MPI_COMM_WORLD);
  for (int i = 0; i < size; i++)
    if (r[i] != i * 1000 + rank) DIE("rank %d: alltoall from %d got %d", rank, i, r[i]);
  free(s);
  free(r);
  MPI_Barrier(MPI_COMM_WORLD);
  printf("rank %d on %s ok\n", rank, host);
  return 0;
}

#ifdef FTMPI
static int ft(int rank, int size, double secs) {
  MPI_Comm c;
  MPI_Comm_dup(MPI_COMM_WORLD, &c);
  MPI_Comm_set_errhandler(c, MPI_ERRORS_RETURN);
  /* Every rank is past MPI_Init and connected: tests act on the processes only after the 6 lines. */
  if (MPI_Barrier(c) == MPI_SUCCESS) printf("rank %d looping\n", rank);
  double end = MPI_Wtime() + secs;
  int shrinks = 0;
  /* HOSTS_MPI_EXIT=R:S: world rank R ends (exit 3, no MPI_Finalize) S seconds into the loop — a death that is
   * not a signal (Hydra kills every rank of a host when one of them dies by a signal). */
  int exit_rank = -1;
  double exit_at = 0;
  if (getenv("HOSTS_MPI_EXIT")) sscanf(getenv("HOSTS_MPI_EXIT"), "%d:%lf", &exit_rank, &exit_at);
  exit_at += MPI_Wtime();
  for (;;) {
    if (rank == exit_rank && MPI_Wtime() >= exit_at) _exit(3);
    int done = MPI_Wtime() >= end, all_done = 0;
    int cr, cs;
    MPI_Comm_rank(c, &cr);
    MPI_Comm_size(c, &cs);
    int token = rank, got = -1;
    int rc = cs > 1 ? MPI_Sendrecv(&token, 1, MPI_INT, (cr + 1) % cs, 1, &got, 1, MPI_INT, (cr + cs - 1) % cs, 1, c,
                                   MPI_STATUS_IGNORE)
                    : MPI_SUCCESS;
    if (rc == MPI_SUCCESS) rc = MPI_Allreduce(&done, &all_done, 1, MPI_INT, MPI_LAND, c);
    /* Every survivor takes the same decision (the ULFM idiom): a survivor whose step failed revokes, which
     * interrupts the others' pending operations (one may wait in the Allreduce for a result the failed
     * survivor will never send); then all agree on (step succeeded here, all done) and shrink together.
     * A survivor that shrank alone while another waits in the agreement would deadlock (agree is not
     * interrupted by a revoke). */
    if (rc != MPI_SUCCESS) MPIX_Comm_revoke(c);
    int flag = (rc == MPI_SUCCESS ? 1 : 0) | (rc == MPI_SUCCESS && all_done ? 2 : 0);
    int arc = MPIX_Comm_agree(c, &flag);
    if (arc == MPI_SUCCESS && (flag & 3) == 3) break;
    if (arc != MPI_SUCCESS || !(flag & 1)) {
      MPI_Comm s;
      MPIX_Comm_revoke(c);
      if (MPIX_Comm_shrink(c, &s) != MPI_SUCCESS) DIE("rank %d: shrink failed", rank);
      MPI_Comm_free(&c);
      c = s;
      MPI_Comm_set_errhandler(c, MPI_ERRORS_RETURN);
      shrinks++;
    }
    usleep(20000);
  }
  int cs, v = 1, sum = 0;
  MPI_Comm_size(c, &cs);
  if (MPI_Allreduce(&v, &sum, 1, MPI_INT, MPI_SUM, c) != MPI_SUCCESS || sum != cs)
    DIE("rank %d: final allreduce %d of %d", rank, sum, cs);
  printf("rank %d survivor: %d of %d ranks left (%d shrinks)\n", rank, cs, size, shrinks);
  MPI_Comm_free(&c);
  return 0;
}
#endif

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  char host[256] = "?";
  gethostname(host, sizeof host - 1);
  setvbuf(stdout, NULL, _IOLBF, 0);
  int rc = 2;
  if (argc > 1 && strcmp(argv[1], "work") == 0) rc = work(rank, size, host);
#ifdef FTMPI
  else if (argc > 2 && strcmp(argv[1], "ft") == 0) rc = ft(rank, size, atof(argv[2]));
#endif
  else DIE("usage: hosts_mpi work | ft SECONDS");
  MPI_Finalize();
  return rc;
}
