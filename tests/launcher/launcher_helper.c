/* launcher_helper: a non-MPI program for mpiexec's tests. It learns its rank from PMI_RANK only.
 *
 *   launcher_helper exit R CODE [TOKEN]   rank R exits with CODE at once, the others sleep 30 s
 *   launcher_helper kill R [TOKEN]        rank R raise(SIGKILL)s, the others sleep 30 s
 *   launcher_helper sleep SECS [TOKEN]    every rank sleeps
 *   launcher_helper lines N [TOKEN]       every rank prints N long lines, in several write() pieces each
 *   launcher_helper env VAR [TOKEN]       every rank prints "rank R VAR=value"
 *   launcher_helper ok [TOKEN]            every rank prints "rank R ok" to stdout and "rank R err" to stderr
 *   launcher_helper lastwords [TOKEN]     every rank printf()s "rank R last words\n" (stdio, no fflush),
 *                                         then raise(SIGKILL)s: the line survives only if stdout is
 *                                         line-buffered (a terminal), as under Open MPI's mpirun
 *   launcher_helper tty [TOKEN]           every rank prints "rank R stdout tty=1|0" and raw bytes "a\nb\n"
 * TOKEN is ignored (tests use it to find leftover processes with pgrep -f).
 * PASS is decided by the test script (tests/launcher/launcher_test.sh). */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int my_rank(void) {
  const char *r = getenv("PMI_RANK");
  return r ? atoi(r) : 0;
}

static void sleep_seconds(int s) {
  for (int i = 0; i < s * 10; ++i) usleep(100000);
}

int main(int argc, char **argv) {
  if (argc < 2) return 64;
  int rank = my_rank();
  const char *mode = argv[1];
  if (!strcmp(mode, "exit") && argc >= 4) {
    if (rank == atoi(argv[2])) return atoi(argv[3]);
    sleep_seconds(30);
    return 0;
  }
  if (!strcmp(mode, "kill") && argc >= 3) {
    if (rank == atoi(argv[2])) raise(SIGKILL);
    sleep_seconds(30);
    return 0;
  }
  if (!strcmp(mode, "sleep") && argc >= 3) {
    sleep_seconds(atoi(argv[2]));
    return 0;
  }
  if (!strcmp(mode, "lines") && argc >= 3) {
    int n = atoi(argv[2]);
    char body[300];
    memset(body, 'a' + rank % 26, sizeof body);
    for (int i = 0; i < n; ++i) {
      /* one line in three separate writes, so that lines of different ranks would mix if mpiexec
         forwarded bytes instead of lines */
      char head[64];
      int h = snprintf(head, sizeof head, "rank %d line %d ", rank, i);
      if (write(1, head, (size_t)h) < 0) return 1;
      if (write(1, body, sizeof body) < 0) return 1;
      if (write(1, " end\n", 5) < 0) return 1;
    }
    return 0;
  }
  if (!strcmp(mode, "env") && argc >= 3) {
    const char *v = getenv(argv[2]);
    printf("rank %d %s=%s\n", rank, argv[2], v ? v : "(unset)");
    return 0;
  }
  if (!strcmp(mode, "lastwords")) {
    printf("rank %d last words\n", rank);
    raise(SIGKILL);
    return 1;
  }
  if (!strcmp(mode, "tty")) {
    printf("rank %d stdout tty=%d\n", rank, isatty(1));
    fflush(stdout);
    if (write(1, "a\nb\n", 4) != 4) return 1;
    return 0;
  }
  if (!strcmp(mode, "ok")) {
    printf("rank %d ok\n", rank);
    fflush(stdout);
    fprintf(stderr, "rank %d err\n", rank);
    return 0;
  }
  return 64;
}
