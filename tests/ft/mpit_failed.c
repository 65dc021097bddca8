/* mpit_failed — a tool reads failures through MPI_T performance variables (docs/api.md "MPI_T").
 * `mpiexec --with-ft ulfm`, 4 ranks; the last rank dies (SIGKILL) after a barrier.
 * PASS when every survivor reads ftmpi_ft_mode = 1 ("ulfm") and ftmpi_failed_processes = 0 before the kill,
 * and ftmpi_failed_processes = 1 once MPIX_Comm_get_failed names the dead rank (within 10 s), read through a
 * handle allocated before the failure (a continuous counter: no start needed). */
#include "ft_check.h"

int main(int argc, char **argv) {
  int provided, rank, size, idx, count;
  CHECK_MPI(MPI_T_init_thread(MPI_THREAD_SINGLE, &provided));
  MPI_Init(&argc, &argv);
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  CHECK(size >= 3, "needs 3 ranks or more");

  int mode = -1;
  MPI_T_cvar_handle ch;
  CHECK_MPI(MPI_T_cvar_get_index("ftmpi_ft_mode", &idx));
  CHECK_MPI(MPI_T_cvar_handle_alloc(idx, NULL, &ch, &count));
  CHECK_MPI(MPI_T_cvar_read(ch, &mode));
  CHECK(mode == 1, "ftmpi_ft_mode reads %d under --with-ft ulfm", mode);
  CHECK_MPI(MPI_T_cvar_handle_free(&ch));

  MPI_T_pvar_session s;
  MPI_T_pvar_handle h;
  unsigned long long failed = 99;
  CHECK_MPI(MPI_T_pvar_session_create(&s));
  CHECK_MPI(MPI_T_pvar_get_index("ftmpi_failed_processes", MPI_T_PVAR_CLASS_COUNTER, &idx));
  CHECK_MPI(MPI_T_pvar_handle_alloc(s, idx, NULL, &h, &count));
  CHECK_MPI(MPI_T_pvar_read(s, h, &failed));
  CHECK(failed == 0, "ftmpi_failed_processes reads %llu before any failure", failed);

  ft_barrier_before_death(MPI_COMM_WORLD);
  if (rank == size - 1) ft_die();

  ft_wait_failed(MPI_COMM_WORLD, 1, 10.0);
  CHECK_MPI(MPI_T_pvar_read(s, h, &failed));
  CHECK(failed == 1, "ftmpi_failed_processes reads %llu after one failure", failed);
  CHECK_MPI(MPI_T_pvar_session_free(&s));
  CHECK_MPI(MPI_T_finalize());
  ft_pass(MPI_COMM_WORLD, "mpit_failed");
  MPI_Finalize();
  return 0;
}
