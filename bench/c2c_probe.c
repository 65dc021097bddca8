/* c2c_probe.c — core-to-core cache-line hand-off time, to tell where the VM's two vCPUs sit (issue 13).
 *
 * Two processes, pinned to cores A and B (default 0 and 1), bounce one 64-byte line of shared memory: the
 * first writes an odd value and waits for the next even one, the second answers. One way = elapsed / (2 * n).
 * Printed: "<ns one way, median of the batches>" and, with -v, every batch. On this machine it reads either
 * ~50 ns ("fast placement": the vCPUs share a cache) or ~200-250 ns ("slow placement": the line crosses the
 * host's interconnect); the host moves the vCPUs every few tens of seconds, and every shared-memory
 * latency/rate figure moves with it, so bench/msgrate_rounds.sh brackets each run with this probe.
 * Not MPI: plain C, built with cc. usage: c2c_probe [-a CORE] [-b CORE] [-n ROUNDTRIPS] [-k BATCHES] [-v] */
#define _GNU_SOURCE
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static void pin(int core) {
  cpu_set_t set;
  CPU_ZERO(&set);
  CPU_SET(core, &set);
  if (sched_setaffinity(0, sizeof set, &set) != 0) perror("c2c_probe: sched_setaffinity");
}

static double now_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

static int cmp(const void *a, const void *b) {
  const double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

int main(int argc, char **argv) {
  int core_a = 0, core_b = 1, batches = 5, verbose = 0, c;
  long n = 20000;
  while ((c = getopt(argc, argv, "a:b:n:k:v")) != -1) {
    switch (c) {
      case 'a': core_a = atoi(optarg); break;
      case 'b': core_b = atoi(optarg); break;
      case 'n': n = atol(optarg); break;
      case 'k': batches = atoi(optarg); break;
      case 'v': verbose = 1; break;
      default:
        fprintf(stderr, "usage: c2c_probe [-a CORE] [-b CORE] [-n ROUNDTRIPS] [-k BATCHES] [-v]\n");
        return 2;
    }
  }
  if (n <= 0 || batches <= 0 || batches > 64) return 2;
  _Atomic long *line = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
  if (line == MAP_FAILED) { perror("c2c_probe: mmap"); return 1; }
  atomic_store(line, 0);
  const long total = n * batches;
  const pid_t child = fork();
  if (child < 0) { perror("c2c_probe: fork"); return 1; }
  if (child == 0) { /* the answering side: sees 2k+1, writes 2k+2 */
    pin(core_b);
    for (long k = 0; k < total; k++) {
      const long want = 2 * k + 1;
      while (atomic_load_explicit(line, memory_order_acquire) != want) {}
      atomic_store_explicit(line, want + 1, memory_order_release);
    }
    _exit(0);
  }
  pin(core_a);
  double ns[64];
  long k = 0;
  for (int b = 0; b < batches; b++) {
    const double t0 = now_ns();
    for (long i = 0; i < n; i++, k++) {
      atomic_store_explicit(line, 2 * k + 1, memory_order_release);
      while (atomic_load_explicit(line, memory_order_acquire) != 2 * k + 2) {}
    }
    ns[b] = (now_ns() - t0) / (2.0 * (double)n);
  }
  int status = 0;
  waitpid(child, &status, 0);
  if (verbose) {
    for (int b = 0; b < batches; b++) printf("%s%.1f", b ? " " : "# batches: ", ns[b]);
    printf("\n");
  }
  qsort(ns, (size_t)batches, sizeof ns[0], cmp);
  printf("%.1f\n", ns[batches / 2]);
  return 0;
}
