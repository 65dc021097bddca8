/* ft_detect: crash-detection latency of mpiexec's fault-tolerant mode (docs/ft-protocol.md).
 *
 * Driver:  ft_detect --mpiexec PATH [--np N] [--runs R]
 *   runs `mpiexec --with-ft ulfm -n N ft_detect --rank` R times. In each job the last rank writes its
 *   CLOCK_REALTIME to stdout and raise(SIGKILL)s itself; every other rank sits in poll(2) on its control
 *   channel (as the library's service thread does) and, when the notice arrives, prints the time it read
 *   it and the notice's time= field. Per run:
 *     all-notified = latest survivor read time - victim's kill time   (what the target measures)
 *     mpiexec-saw  = notice time=                 - victim's kill time   (kernel + mpiexec's reaping)
 *   The driver prints every run and the median, min, max of both (microseconds).
 * All ranks run on one host, so CLOCK_REALTIME is one clock. */
#define _GNU_SOURCE
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static double realtime(void) {
  struct timespec ts;
  clock_gettime(CLOCK_REALTIME, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static int rank_main(void) {
  int rank = atoi(getenv("PMI_RANK") ? getenv("PMI_RANK") : "0");
  int size = atoi(getenv("PMI_SIZE") ? getenv("PMI_SIZE") : "1");
  int ctrl = atoi(getenv("FTMPI_CTRL_FD") ? getenv("FTMPI_CTRL_FD") : "-1");
  if (ctrl < 0) {
    fprintf(stderr, "ft_detect: no control channel (run under mpiexec --with-ft ulfm)\n");
    return 2;
  }
  if (rank == size - 1) {
    usleep(200 * 1000); /* let every survivor reach its poll */
    char line[64];
    int n = snprintf(line, sizeof line, "kill %.6f\n", realtime());
    if (write(1, line, (size_t)n) != n) return 1;
    raise(SIGKILL);
  }
  char buf[512];
  size_t len = 0;
  for (;;) {
    struct pollfd p = {ctrl, POLLIN, 0};
    if (poll(&p, 1, 10000) <= 0) return 3;
    ssize_t n = read(ctrl, buf + len, sizeof buf - 1 - len);
    double t = realtime();
    if (n <= 0) return 4;
    len += (size_t)n;
    buf[len] = '\0';
    if (strchr(buf, '\n')) {
      const char *tf = strstr(buf, "time=");
      printf("recv %.6f notice %s\n", t, tf ? tf + 5 : "0");
      return 0;
    }
  }
}

static int cmp(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return x < y ? -1 : x > y;
}

/* One job; fills the two latencies in seconds. 0 on success. */
static int one_run(const char *mpiexec, const char *self, int np, double *all, double *saw) {
  int fd[2];
  if (pipe(fd) != 0) return -1;
  pid_t pid = fork();
  if (pid == 0) {
    dup2(fd[1], 1);
    int devnull = open("/dev/null", O_WRONLY); /* mpiexec's summary line, once per run */
    if (devnull >= 0) dup2(devnull, 2);
    close(fd[0]);
    close(fd[1]);
    char nps[16];
    snprintf(nps, sizeof nps, "%d", np);
    execl(mpiexec, mpiexec, "--with-ft", "ulfm", "--timeout", "20", "-n", nps, self, "--rank", (char *)NULL);
    _exit(127);
  }
  close(fd[1]);
  FILE *in = fdopen(fd[0], "r");
  char line[512];
  double kill_t = 0, last_recv = 0, notice_t = 0;
  int recvs = 0;
  while (fgets(line, sizeof line, in)) {
    double a, b;
    if (sscanf(line, "kill %lf", &a) == 1) kill_t = a;
    else if (sscanf(line, "recv %lf notice %lf", &a, &b) == 2) {
      if (a > last_recv) last_recv = a;
      notice_t = b;
      ++recvs;
    }
  }
  fclose(in);
  int st = 0;
  waitpid(pid, &st, 0);
  if (!WIFEXITED(st) || WEXITSTATUS(st) != 0 || kill_t == 0 || recvs != np - 1) return -1;
  *all = last_recv - kill_t;
  *saw = notice_t - kill_t;
  return 0;
}

int main(int argc, char **argv) {
  const char *mpiexec = NULL;
  int np = 4, runs = 20;
  for (int i = 1; i < argc; ++i) {
    if (!strcmp(argv[i], "--rank")) return rank_main();
    if (!strcmp(argv[i], "--mpiexec") && i + 1 < argc) mpiexec = argv[++i];
    else if (!strcmp(argv[i], "--np") && i + 1 < argc) np = atoi(argv[++i]);
    else if (!strcmp(argv[i], "--runs") && i + 1 < argc) runs = atoi(argv[++i]);
    else {
      fprintf(stderr, "usage: ft_detect --mpiexec PATH [--np N] [--runs R]\n");
      return 2;
    }
  }
  if (!mpiexec || np < 2 || runs < 1 || runs > 10000) {
    fprintf(stderr, "usage: ft_detect --mpiexec PATH [--np N>=2] [--runs R]\n");
    return 2;
  }
  char self[4096];
  ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
  if (n <= 0) return 2;
  self[n] = '\0';
  double *all = calloc((size_t)runs, sizeof *all), *saw = calloc((size_t)runs, sizeof *saw);
  int ok = 0;
  for (int r = 0; r < runs; ++r) {
    if (one_run(mpiexec, self, np, &all[ok], &saw[ok]) != 0) {
      fprintf(stderr, "run %d failed\n", r);
      continue;
    }
    printf("run %2d: all survivors notified %8.1f us, mpiexec saw the death %8.1f us\n", r, all[ok] * 1e6,
           saw[ok] * 1e6);
    ++ok;
  }
  if (ok == 0) return 1;
  qsort(all, (size_t)ok, sizeof *all, cmp);
  qsort(saw, (size_t)ok, sizeof *saw, cmp);
  printf("ft_detect: %d ranks, %d kills: all survivors notified median %.1f us (min %.1f, max %.1f); "
         "mpiexec saw the death median %.1f us\n",
         np, ok, all[ok / 2] * 1e6, all[0] * 1e6, all[ok - 1] * 1e6, saw[ok / 2] * 1e6);
  free(all);
  free(saw);
  return ok == runs ? 0 : 1;
}
