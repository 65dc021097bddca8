/* ft_helper: a non-MPI program for mpiexec's fault-tolerant-mode tests. It speaks the control channel
 * (FTMPI_CTRL_FD, docs/ft-protocol.md) and, for the barrier case, raw PMI-1 on PMI_FD itself, so the
 * launcher is tested without the MPI library.
 *
 *   ft_helper notices N VICTIM DELAY_MS [TOKEN]
 *       every rank heartbeats every FTMPI_DETECTOR_PERIOD_MS; rank VICTIM (-1: none) raise(SIGKILL)s after
 *       DELAY_MS; every other rank waits for N failure notices, prints each as
 *       "rank R notice <line> after <ms since start>", then exits 0 (exit 3 if 20 s pass first).
 *   ft_helper suspect S [TOKEN]
 *       like "notices 1 -1 0", and rank 0 sends "cmd=suspect rank=S" after 300 ms.
 *   ft_helper bye [TOKEN]
 *       heartbeats for 300 ms, sends cmd=bye, stays silent for 1.5 s, exits 0.
 *   ft_helper barrier VICTIM EXITRANK EXITCODE [TOKEN]
 *       PMI init; rank VICTIM raise(SIGKILL)s 300 ms later; the others enter a PMI barrier, print
 *       "rank R released" when it completes, finalize, and exit 0 (EXITRANK exits EXITCODE).
 * With FTMPI_TEST_PRINT_HB set, "notices" prints "rank R hb at <CLOCK_REALTIME s>" after each heartbeat it
 * sent (case ft_hang: mpiexec must not declare a rank before a silence of the detector timeout).
 * TOKEN is ignored (tests use it to find leftover processes with pgrep -f). PASS is decided by
 * tests/launcher/launcher_test.sh. */
#define _GNU_SOURCE
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static double now_ms(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec * 1e-6;
}

static int env_int(const char *name, int dflt) {
  const char *v = getenv(name);
  return v ? atoi(v) : dflt;
}

static void send_str(int fd, const char *s) {
  size_t len = strlen(s);
  while (len > 0) {
    ssize_t n = write(fd, s, len);
    if (n <= 0) return;
    s += n;
    len -= (size_t)n;
  }
}

/* Read one '\n'-terminated line from fd into buf (blocking, with a deadline). 0 on success. */
static int read_line(int fd, char *buf, size_t cap, double deadline) {
  size_t len = 0;
  while (len + 1 < cap) {
    double left = deadline - now_ms();
    if (left <= 0) return -1;
    struct pollfd p = {fd, POLLIN, 0};
    if (poll(&p, 1, (int)left + 1) <= 0) continue;
    char c;
    if (read(fd, &c, 1) != 1) return -1;
    if (c == '\n') break;
    buf[len++] = c;
  }
  buf[len] = '\0';
  return 0;
}

/* Heartbeat and wait for `want` notices (the victim kills itself after delay_ms; rank 0 sends a suspect
   for `suspect` after 300 ms when suspect >= 0). */
static int notices(int rank, int want, int victim, int delay_ms, int suspect, int bye) {
  int ctrl = env_int("FTMPI_CTRL_FD", -1);
  int period = env_int("FTMPI_DETECTOR_PERIOD_MS", 100);
  if (ctrl < 0) {
    printf("rank %d: no control channel\n", rank);
    return 2;
  }
  double start = now_ms(), next_hb = start;
  int got = 0, suspect_sent = 0, print_hb = getenv("FTMPI_TEST_PRINT_HB") != NULL;
  char buf[4096];
  size_t len = 0;
  for (;;) {
    double t = now_ms();
    if (bye && t - start >= 300) {
      send_str(ctrl, "cmd=bye\n");
      usleep(1500 * 1000);
      return 0;
    }
    if (t - start > 20000) return 3;
    if (rank == victim && t - start >= delay_ms) raise(SIGKILL);
    if (rank == 0 && suspect >= 0 && !suspect_sent && t - start >= 300) {
      char line[64];
      snprintf(line, sizeof line, "cmd=suspect rank=%d\n", suspect);
      send_str(ctrl, line);
      suspect_sent = 1;
    }
    if (t >= next_hb) {
      send_str(ctrl, "cmd=hb\n");
      next_hb = t + period;
      if (print_hb) {
        struct timespec rt;
        clock_gettime(CLOCK_REALTIME, &rt);
        printf("rank %d hb at %ld.%06ld\n", rank, (long)rt.tv_sec, rt.tv_nsec / 1000);
        fflush(stdout);
      }
    }
    struct pollfd p = {ctrl, POLLIN, 0};
    int timeout = (int)(next_hb - now_ms()) + 1;
    if (rank == victim && delay_ms - (t - start) < timeout) timeout = (int)(delay_ms - (t - start)) + 1;
    if (poll(&p, 1, timeout < 0 ? 0 : timeout) <= 0) continue;
    ssize_t n = read(ctrl, buf + len, sizeof buf - 1 - len);
    if (n <= 0) {
      printf("rank %d: control channel closed\n", rank);
      return 4;
    }
    len += (size_t)n;
    buf[len] = '\0';
    char *nl;
    while ((nl = strchr(buf, '\n')) != NULL) {
      *nl = '\0';
      printf("rank %d notice %s after %.0f\n", rank, buf, now_ms() - start);
      fflush(stdout);
      ++got;
      len -= (size_t)(nl + 1 - buf);
      memmove(buf, nl + 1, len + 1);
    }
    if (got >= want && rank != victim && want > 0) return 0;
  }
}

static int pmi_barrier(int rank, int victim, int exit_rank, int exit_code) {
  int fd = env_int("PMI_FD", -1);
  char line[1024];
  double deadline = now_ms() + 20000;
  send_str(fd, "cmd=init pmi_version=1 pmi_subversion=1\n");
  if (read_line(fd, line, sizeof line, deadline) != 0 || !strstr(line, "rc=0")) return 5;
  if (rank == victim) {
    usleep(300 * 1000);
    raise(SIGKILL);
  }
  send_str(fd, "cmd=barrier_in\n");
  if (read_line(fd, line, sizeof line, deadline) != 0 || !strstr(line, "cmd=barrier_out")) return 6;
  printf("rank %d released\n", rank);
  fflush(stdout);
  send_str(fd, "cmd=finalize\n");
  if (read_line(fd, line, sizeof line, deadline) != 0 || !strstr(line, "cmd=finalize_ack")) return 7;
  return rank == exit_rank ? exit_code : 0;
}

int main(int argc, char **argv) {
  if (argc < 2) return 64;
  int rank = env_int("PMI_RANK", 0);
  const char *mode = argv[1];
  if (!strcmp(mode, "notices") && argc >= 5) return notices(rank, atoi(argv[2]), atoi(argv[3]), atoi(argv[4]), -1, 0);
  if (!strcmp(mode, "suspect") && argc >= 3) return notices(rank, 1, -1, 0, atoi(argv[2]), 0);
  if (!strcmp(mode, "bye")) return notices(rank, 0, -1, 0, -1, 1);
  if (!strcmp(mode, "barrier") && argc >= 5) return pmi_barrier(rank, atoi(argv[2]), atoi(argv[3]), atoi(argv[4]));
  return 64;
}
