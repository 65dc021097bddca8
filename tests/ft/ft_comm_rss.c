/* ft_comm_rss — memory and descriptors stay flat over many communicator life cycles (issue 12, item 8).
 * Any number of ranks, --with-ft ulfm. Arguments: CYCLES AGREEMENTS_PER_CYCLE MAX_GROWTH_KB.
 *
 * Each cycle: c = dup(MPI_COMM_WORLD); AGREEMENTS MPIX_Comm_agree on c; an Isend/Irecv ring on c; a Barrier on
 * MPI_COMM_WORLD; rank (cycle % size) revokes c; s = MPIX_Comm_shrink(c); an Allreduce on s; free c and s. Every rank reads
 * its resident set size from /proc/self/statm and counts /proc/self/fd after a warm-up of CYCLES/10
 * cycles and at the end.
 *
 * PASS when every call succeeds, the resident set grew by at most MAX_GROWTH_KB between the warm-up and
 * the end on every rank, and the number of open descriptors is the same. Before the fix each freed
 * communicator kept its FT state (every agreement record), its object and its group until MPI_Finalize:
 * ~640 KB per cycle with 1,000 agreements, ~12 KB per cycle with 20 (so 1,000 cycles grew by ~11 MB). */
#include "ft_check.h"

#include <dirent.h>
#include <stdlib.h>

static long rss_kb(void) {
  FILE *f = fopen("/proc/self/statm", "r");
  long pages = 0, resident = 0;
  CHECK(f != NULL, "cannot open /proc/self/statm");
  CHECK(fscanf(f, "%ld %ld", &pages, &resident) == 2);
  fclose(f);
  return resident * (sysconf(_SC_PAGESIZE) / 1024);
}

static int open_fds(void) {
  DIR *d = opendir("/proc/self/fd");
  int n = 0;
  CHECK(d != NULL);
  while (readdir(d) != NULL) n++;
  closedir(d);
  return n;
}

int main(int argc, char **argv) {
  int rank, size;
  ft_init(&argc, &argv, &rank, &size);
  long cycles = argc > 1 ? atol(argv[1]) : 1000;
  int agreements = argc > 2 ? atoi(argv[2]) : 20;
  long max_growth_kb = argc > 3 ? atol(argv[3]) : 1024;
  long warm = cycles / 10, rss0 = 0;
  int fd0 = 0;
  double t0 = ft_now();
  for (long i = 0; i < cycles; i++) {
    if (i == warm) {
      rss0 = rss_kb();
      fd0 = open_fds();
    }
    MPI_Comm c, s;
    CHECK_MPI(MPI_Comm_dup(MPI_COMM_WORLD, &c));
    CHECK_MPI(MPI_Comm_set_errhandler(c, MPI_ERRORS_RETURN));
    for (int k = 0; k < agreements; k++) {
      int flag = 1;
      CHECK_MPI(MPIX_Comm_agree(c, &flag));
      CHECK(flag == 1, "cycle %ld: agreement %d gave %d", i, k, flag);
    }
    int token = rank, got = -1;
    MPI_Request rq[2];
    CHECK_MPI(MPI_Irecv(&got, 1, MPI_INT, (rank + size - 1) % size, 5, c, &rq[0]));
    CHECK_MPI(MPI_Isend(&token, 1, MPI_INT, (rank + 1) % size, 5, c, &rq[1]));
    CHECK_MPI(MPI_Waitall(2, rq, MPI_STATUSES_IGNORE));
    CHECK(got == (rank + size - 1) % size);
    CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD)); /* the ring is done everywhere before the revoke */
    if (rank == (int)(i % size)) CHECK_MPI(MPIX_Comm_revoke(c));
    CHECK_MPI(MPIX_Comm_shrink(c, &s));
    CHECK_MPI(MPI_Comm_set_errhandler(s, MPI_ERRORS_RETURN));
    int one = 1, n = 0;
    CHECK_MPI(MPI_Allreduce(&one, &n, 1, MPI_INT, MPI_SUM, s));
    CHECK(n == size, "cycle %ld: shrunk communicator counts %d", i, n);
    CHECK_MPI(MPI_Comm_free(&s));
    CHECK_MPI(MPI_Comm_free(&c));
  }
  long rss1 = rss_kb();
  int fd1 = open_fds();
  printf("rank %d: %ld cycles (%d agreements each) in %.2f s; RSS %ld -> %ld kB (+%ld), fds %d -> %d\n", rank,
         cycles, agreements, ft_now() - t0, rss0, rss1, rss1 - rss0, fd0, fd1);
  CHECK(rss1 - rss0 <= max_growth_kb, "RSS grew by %ld kB over %ld cycles (bound %ld kB)", rss1 - rss0,
        cycles - warm, max_growth_kb);
  CHECK(fd1 == fd0, "open descriptors went from %d to %d", fd0, fd1);
  CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
  ft_pass(MPI_COMM_WORLD, "ft_comm_rss");
  MPI_Finalize();
  return 0;
}
