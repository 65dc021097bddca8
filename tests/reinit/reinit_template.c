/* Reinit restarts forked by the respawn template (tools/launch/template_process.h,
 * src/models/reinit/respawn_template.h), with real SIGKILLs: ranks kill themselves (raise(SIGKILL)) and the
 * restarted process must be a fresh process of the program in every way the program can see.
 *
 * Usage: reinit_template MODE
 *   single        rank n-1 dies at step 3 of the first run
 *   twice         rank n-1 dies at step 3 of the first run, and its restarted process dies the same way
 *                 (raise(SIGKILL) in a process the template made kills only that process)
 *   two           ranks 1 and 2 die at step 3 of the first run (two restarts at once: two children)
 *   killtemplate  rank 0 kills the template (SIGKILL) at step 1 of the first run and waits until it is
 *                 gone; then rank n-1 dies at step 3: it is restarted by fork+exec and the job goes on
 *   renewtemplate as killtemplate; after that rollback the launcher starts a new template (once the epoch
 *                 change committed): rank 0 waits at step 1 of the second run until it is there and ready
 *                 (its waiting child exists), then rank n-1 dies again at step 5: the new template forks it
 * Checks, in every entry into the resilient function: every rank's getppid() is the same process (the
 * launcher: Reinit++ programs signal it); a RESTARTED process ran the program's constructor in this very
 * process (its getpid()) and entered main exactly once, with the same argc/argv as the first run; its rank
 * is PMI_RANK's; FTMPI_TEMPLATE_FD and FTMPI_SPARE are not in its environment; fds 0, 1 and 2 are open and
 * PMI_FD names an open descriptor. Each restarted process prints "rank R restarted from the top pid P".
 * PASS (rank 0 prints "PASS reinit_template MODE"): all checks hold and the last run saw the expected number
 * of rollbacks. The test (CMakeLists.txt) also matches mpiexec's "by the respawn template" / "by fork+exec". */
#define _POSIX_C_SOURCE 200809L
#define _DEFAULT_SOURCE 1
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <mpi.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define STEPS 8

static const char *mode;
static int rank, size, g_argc;
static pid_t ctor_pid;
static int main_entries;
static int last_restarts = -1;

__attribute__((constructor)) static void note_ctor(void) { ctor_pid = getpid(); }

static void fail(const char *what) {
  printf("FAIL reinit_template rank %d: %s\n", rank, what);
  fflush(stdout);
  MPI_Abort(MPI_COMM_WORLD, 3);
}

static void nap_ms(long ms) {
  struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};
  while (nanosleep(&ts, &ts) != 0) {
  }
}

/* Process p's parent and process group from /proc/p/stat; 0 if it cannot be read. */
static int parent_and_group(pid_t p, int *ppid, int *pgrp) {
  char path[64];
  snprintf(path, sizeof path, "/proc/%d/stat", (int)p);
  FILE *f = fopen(path, "r");
  if (!f) return 0;
  char st;
  int ok = fscanf(f, "%*d (%*[^)]) %c %d %d", &st, ppid, pgrp) == 3;
  fclose(f);
  return ok;
}

/* The template: a child of our parent whose start-up environment has FTMPI_TEMPLATE_FD and which leads
 * its own process group (its waiting child is in that group too). */
static pid_t find_template(void) {
  DIR *d = opendir("/proc");
  if (!d) return -1;
  pid_t found = -1;
  struct dirent *e;
  while ((e = readdir(d)) && found < 0) {
    pid_t p = (pid_t)atoi(e->d_name);
    if (p <= 0) continue;
    char path[64], buf[8192];
    int ppid = -1, pgrp = -1;
    if (!parent_and_group(p, &ppid, &pgrp) || ppid != (int)getppid() || pgrp != (int)p) continue;
    snprintf(path, sizeof path, "/proc/%d/environ", (int)p);
    int fd = open(path, O_RDONLY);
    if (fd < 0) continue;
    ssize_t n = read(fd, buf, sizeof buf - 1);
    close(fd);
    for (ssize_t i = 0; n > 0 && i < n; i += (ssize_t)strlen(buf + i) + 1) {
      buf[n] = '\0';
      if (strncmp(buf + i, "FTMPI_TEMPLATE_FD=", 18) == 0) found = p;
    }
  }
  closedir(d);
  return found;
}

static pid_t killed_template = -1;

/* The template `t` is ready: its waiting child (the launcher's child too, in t's process group) exists. */
static int template_ready(pid_t t) {
  DIR *d = opendir("/proc");
  if (!d) return 0;
  int ready = 0;
  struct dirent *e;
  while ((e = readdir(d)) && !ready) {
    pid_t p = (pid_t)atoi(e->d_name);
    if (p <= 0 || p == t) continue;
    int ppid = -1, pgrp = -1;
    ready = parent_and_group(p, &ppid, &pgrp) && ppid == (int)getppid() && pgrp == (int)t;
  }
  closedir(d);
  return ready;
}

/* After the first rollback: a new template (not the one killed) appears and gets ready. */
static void wait_new_template(void) {
  for (int i = 0; i < 3000; ++i) {  /* 30 s */
    pid_t t = find_template();
    if (t > 0 && t != killed_template && template_ready(t)) {
      nap_ms(100);  /* its "ready" datagram follows the waiting child's creation */
      printf("a new respawn template pid %d\n", (int)t);
      fflush(stdout);
      return;
    }
    nap_ms(10);
  }
  fail("no new respawn template after the rollback");
}

static void kill_template(void) {
  pid_t t = -1;
  for (int i = 0; i < 200 && t < 0; ++i) {  /* it may still be starting */
    t = find_template();
    if (t < 0) nap_ms(10);
  }
  if (t < 0) fail("no respawn template found among the launcher's children");
  kill(t, SIGKILL);
  killed_template = t;
  for (int i = 0; i < 500; ++i) {  /* until the launcher reaped it */
    if (kill(t, 0) != 0 && errno == ESRCH) {
      printf("killed the respawn template pid %d\n", (int)t);
      fflush(stdout);
      return;
    }
    nap_ms(10);
  }
  fail("the killed template was not reaped");
}

static void check_identity(int state) {
  long pp = (long)getppid(), lo = 0, hi = 0;
  MPI_Allreduce(&pp, &lo, 1, MPI_LONG, MPI_MIN, MPI_COMM_WORLD);
  MPI_Allreduce(&pp, &hi, 1, MPI_LONG, MPI_MAX, MPI_COMM_WORLD);
  if (lo != hi) fail("the ranks do not all have the launcher as their parent");
  if (state != MPIX_REINIT_RESTARTED) return;
  if (ctor_pid != getpid()) fail("the program's constructor did not run in this process");
  if (main_entries != 1) fail("main was not entered exactly once");
  if (g_argc != 2) fail("argc differs from the first run's");
  const char *pr = getenv("PMI_RANK");
  if (!pr || atoi(pr) != rank) fail("PMI_RANK is not this rank");
  if (getenv("FTMPI_TEMPLATE_FD")) fail("FTMPI_TEMPLATE_FD leaked into the rank");
  if (getenv("FTMPI_SPARE")) fail("FTMPI_SPARE set in a restarted rank");
  for (int fd = 0; fd < 3; ++fd)
    if (fcntl(fd, F_GETFD) < 0) fail("fd 0, 1 or 2 is not open");
  const char *pf = getenv("PMI_FD");
  if (pf && fcntl(atoi(pf), F_GETFD) < 0) fail("PMI_FD does not name an open descriptor");
  printf("rank %d restarted from the top pid %d\n", rank, (int)getpid());
  fflush(stdout);
}

static int dies(int restarts, int step) {
  if (!strcmp(mode, "renewtemplate")) return rank == size - 1 && ((restarts == 0 && step == 3) || (restarts == 1 && step == 5));
  if (step != 3) return 0;
  if (!strcmp(mode, "single") || !strcmp(mode, "killtemplate")) return restarts == 0 && rank == size - 1;
  if (!strcmp(mode, "twice")) return restarts < 2 && rank == size - 1;
  if (!strcmp(mode, "two")) return restarts == 0 && (rank == 1 || rank == 2);
  return 0;
}

static int renew_mode(void) { return !strcmp(mode, "renewtemplate"); }

static void resilient(void *arg) {
  (void)arg;
  int state = 0, restarts = 0;
  MPIX_Reinit_state(&state, &restarts);
  last_restarts = restarts;
  check_identity(state);
  for (int step = 0; step < STEPS; ++step) {
    if (step == 1 && restarts == 0 && rank == 0 && (!strcmp(mode, "killtemplate") || renew_mode())) kill_template();
    if (step == 1 && restarts == 1 && rank == 0 && renew_mode()) wait_new_template();
    if (dies(restarts, step)) raise(SIGKILL);
    int one = 1, sum = 0;
    MPI_Allreduce(&one, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (sum != size) fail("wrong Allreduce result");
    nap_ms(2);
  }
}

int main(int argc, char **argv) {
  ++main_entries;
  g_argc = argc;
  if (argc != 2) {
    fprintf(stderr, "usage: reinit_template single|twice|two|killtemplate|renewtemplate\n");
    return 2;
  }
  mode = argv[1];
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_REINIT_ASYNC);
  MPI_Reinit(resilient, NULL);
  /* two at once: one epoch change, or two when the second death is seen after the first change began */
  int expect = !strcmp(mode, "twice") || renew_mode() ? 2 : 1;
  if (last_restarts != expect && !(!strcmp(mode, "two") && last_restarts == 2)) {
    printf("FAIL reinit_template rank %d: %d rollback(s), expected %d\n", rank, last_restarts, expect);
    fflush(stdout);
    MPI_Abort(MPI_COMM_WORLD, 3);
  }
  MPI_Barrier(MPI_COMM_WORLD);
  if (rank == 0) printf("PASS reinit_template %s\n", mode);
  MPI_Finalize();
  return 0;
}
