/* notice_clock: a non-MPI rank for bench/hosts/run.sh. It speaks the FT control channel
 * (FTMPI_CTRL_FD: heartbeats every FTMPI_DETECTOR_PERIOD_MS) and, on each failure notice, prints
 * "rank R notice-at T" with T the CLOCK_REALTIME of receipt (seconds, microsecond precision). It exits 0
 * after WANT notices, 3 after 30 s. Usage: notice_clock WANT */
#define _GNU_SOURCE
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static double clock_s(clockid_t c) {
  struct timespec ts;
  clock_gettime(c, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

int main(int argc, char **argv) {
  int want = argc > 1 ? atoi(argv[1]) : 1;
  const char *c = getenv("FTMPI_CTRL_FD"), *p = getenv("FTMPI_DETECTOR_PERIOD_MS"), *r = getenv("PMI_RANK");
  if (!c) return 2;
  int ctrl = atoi(c), period = p ? atoi(p) : 100, rank = r ? atoi(r) : -1, got = 0;
  double start = clock_s(CLOCK_MONOTONIC), next_hb = start;
  char buf[4096];
  size_t len = 0;
  while (clock_s(CLOCK_MONOTONIC) - start < 30) {
    double t = clock_s(CLOCK_MONOTONIC);
    if (t >= next_hb) {
      if (write(ctrl, "cmd=hb\n", 7) != 7) return 4;
      next_hb = t + period * 1e-3;
    }
    struct pollfd pf = {ctrl, POLLIN, 0};
    if (poll(&pf, 1, (int)((next_hb - clock_s(CLOCK_MONOTONIC)) * 1e3) + 1) <= 0) continue;
    ssize_t n = read(ctrl, buf + len, sizeof buf - 1 - len);
    if (n <= 0) return 4;
    double at = clock_s(CLOCK_REALTIME);
    len += (size_t)n;
    buf[len] = '\0';
    char *nl;
    while ((nl = strchr(buf, '\n')) != NULL) {
      printf("rank %d notice-at %.6f\n", rank, at);
      fflush(stdout);
      ++got;
      len -= (size_t)(nl + 1 - buf);
      memmove(buf, nl + 1, len + 1);
    }
    if (got >= want) return 0;
  }
  return 3;
}
