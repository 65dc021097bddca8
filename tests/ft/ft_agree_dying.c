/* ft_agree_dying <victims> — agreement while processes die inside it (seed 000 §1.3.2: uniform agreement
 * among the survivors, whoever coordinates). 8 ranks, --with-ft ulfm.
 *
 * victims: comma-separated world ranks (e.g. "0,3,5": rank 0 is the root of any tree-shaped agreement).
 * Every rank starts MPIX_Comm_iagree on MPI_COMM_WORLD; a victim lets it progress for a moment (a few Test
 * calls, so its messages are partly out) and then calls raise(SIGKILL); the others complete it with Wait.
 * Flags: a survivor s contributes all bits but bit s; a victim v contributes all bits but bit 8+v.
 *
 * PASS when, on every survivor: Wait returns MPI_SUCCESS or MPI_ERR_PROC_FAILED (never hangs); the flag has
 * every survivor's bit cleared, every bit at or above 16 set; the survivors' flags are identical (compared by
 * an Allgather on the communicator shrunk afterwards, which must hold exactly the survivors); then a second
 * MPIX_Comm_agree after failure_ack returns MPI_SUCCESS with the AND of the survivors only. */
#include "ft_check.h"

int main(int argc, char **argv) {
  int rank, size;
  ft_init(&argc, &argv, &rank, &size);
  CHECK(argc == 2, "usage: ft_agree_dying <victim,victim,...>");
  CHECK(size <= 8, "at most 8 ranks");
  int is_victim[8] = {0}, nvictims = 0;
  for (char *p = argv[1]; *p;) {
    int v = (int)strtol(p, &p, 10);
    CHECK(v >= 0 && v < size, "bad victim %d", v);
    is_victim[v] = 1;
    nvictims++;
    if (*p == ',') p++;
  }
  ft_barrier_before_death(MPI_COMM_WORLD);

  int flag = is_victim[rank] ? ~(1 << (8 + rank)) : ~(1 << rank);
  MPI_Request req;
  CHECK_MPI(MPIX_Comm_iagree(MPI_COMM_WORLD, &flag, &req));
  if (is_victim[rank]) {
    int done = 0;
    for (int i = 0; i < 3 + rank && !done; i++) MPI_Test(&req, &done, MPI_STATUS_IGNORE);
    ft_die();
  }
  CHECK_CLASS2(MPI_Wait(&req, MPI_STATUS_IGNORE), MPI_SUCCESS, MPI_ERR_PROC_FAILED);
  for (int r = 0; r < size; r++)
    if (!is_victim[r]) CHECK(!(flag & (1 << r)), "survivor %d's zero bit is missing from %#x", r, flag);
  CHECK((flag & ~0xffff) == ~0xffff, "bits that everybody set are cleared: %#x", flag);

  /* everybody decided the same: compare on the shrunk communicator */
  MPI_Comm s;
  CHECK_MPI(MPIX_Comm_shrink(MPI_COMM_WORLD, &s));
  CHECK_MPI(MPI_Comm_set_errhandler(s, MPI_ERRORS_RETURN));
  int ssize = 0;
  MPI_Comm_size(s, &ssize);
  CHECK(ssize == size - nvictims, "shrunk to %d ranks, expected %d", ssize, size - nvictims);
  int flags[8];
  CHECK_MPI(MPI_Allgather(&flag, 1, MPI_INT, flags, 1, MPI_INT, s));
  for (int i = 0; i < ssize; i++) CHECK(flags[i] == flag, "survivor %d decided %#x, I decided %#x", i, flags[i], flag);

  CHECK_MPI(MPIX_Comm_failure_ack(MPI_COMM_WORLD));
  flag = ~(1 << rank);
  CHECK_MPI(MPIX_Comm_agree(MPI_COMM_WORLD, &flag));
  int want = ~0;
  for (int r = 0; r < size; r++)
    if (!is_victim[r]) want &= ~(1 << r);
  CHECK(flag == want, "second agree: %#x, expected %#x", flag, want);
  CHECK_MPI(MPI_Comm_free(&s));

  ft_pass(MPI_COMM_WORLD, "ft_agree_dying");
  MPI_Finalize();
  return 0;
}
