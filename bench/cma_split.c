/* cma_split.c — can two cores move one message faster than the receiver's single copy? (issue 13 target 3)
 *
 * Not MPI: plain C, built with cc. Two processes, the sender pinned to core A (default 0) and the receiver to
 * core B (default 1); each has its own private buffers (allocated after the fork, touched once). Messages of
 * one size go one way in windows of 64, acknowledged per window, as bench/bandwidth.c does; the sender's
 * source and the receiver's destination are the same buffers for every message (as in bandwidth.c). Ways:
 *   a  single copy: the sender announces each message (a counter on a shared line), the receiver reads it
 *      whole with one process_vm_readv — what ftmpi, Open MPI and MPICH do at these sizes;
 *   b  split: per message the receiver announces "clear to send" (its buffer is ready), then reads the first
 *      part (fraction -f, default 1/2) with process_vm_readv while the sender writes the rest into the
 *      receiver's buffer with process_vm_writev and then announces "my part done"; the message is complete
 *      when both parts are. The receiver waits for the sender's part of message i before its clear-to-send
 *      of message i+L (-L, default 0: message by message; a larger L lets the sender's part lag behind);
 *   d  shared chunks: both claim chunks of -c bytes (default 64 KiB) in turn from a shared counter, the
 *      receiver reading them with process_vm_readv, the sender writing them with process_vm_writev;
 *   c  ring pipeline: -k cells of -s bytes (default 8 x 8 KiB) in shared memory; the sender copies into cell
 *      k+1 while the receiver copies out of cell k (what ftmpi's ring way does; two copies, both cores).
 * With -t the receiver also reads every cache line of its buffer after each message (a consumer of the data:
 * the part the sender wrote lands in the sender's cache and must cross back). With -p the sender writes every
 * cache line of its source before each message, once the receiver has the previous one (a producer: the
 * source is then in the sender's cache, not shared). bandwidth.c does neither.
 *
 * Every size runs each way -r times (default 5) in rotation, each time for about -T seconds (default 0.02),
 * so a change of placement during the run hits all ways alike; printed per size and way: the median in
 * MB/s (10^6 bytes per second) and the spread (min-max). Run it bracketed by c2c_probe, under `chrt -f`.
 *
 * usage: cma_split [-a CORE] [-b CORE] [-m MIN] [-M MAX] [-w WAYS] [-f FRAC] [-L LAG] [-c CHUNK]
 *                  [-k CELLS] [-s CELLSIZE] [-r REPS] [-T SECONDS] [-t] [-p]
 * sizes accept k/m suffixes; ways is a string of the letters above (default "abdc"). */
#define _GNU_SOURCE
#include <sched.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

enum { WINDOW = 64, MAXCELLS = 64, MAXREPS = 64 };

/* One counter per cache line. */
struct line {
  _Atomic long v;
  char pad[64 - sizeof(long)];
};

/* Shared control area (MAP_SHARED before the fork). */
struct ctl {
  struct line cmd;       /* parent -> both: the step number; a step = (way, size, iterations) */
  struct line ready[2];  /* child/parent reached step */
  struct line posted;    /* sender: messages announced (way a) */
  struct line cts;       /* receiver: clear to send of message i (ways b, d) */
  struct line sdone;     /* sender: its part of message i done (way b, d) */
  struct line claim;     /* way d: next chunk to take, message-relative: (i << 20) | chunk */
  struct line ack;       /* receiver: windows acknowledged */
  struct line taken;     /* receiver: messages complete (-p) */
  struct line cell_seq[MAXCELLS]; /* way c: sequence number written into each cell */
  struct line cell_free[MAXCELLS]; /* way c: sequence number the receiver emptied */
  struct line go;        /* step parameters follow */
  char way;
  long bytes, iters;
  uintptr_t src, dst;    /* the sender's source, the receiver's destination (addresses in their processes) */
  pid_t pid[2];          /* sender, receiver */
  char cells[];          /* way c: the ring */
};

static struct ctl *C;
static long frac_num = 1, frac_den = 2, lag = 0, chunk = 64 << 10, ncells = 8, cellsz = 8 << 10;
static int touch = 0, produce = 0;

static void pin(int core) {
  cpu_set_t set;
  CPU_ZERO(&set);
  CPU_SET(core, &set);
  if (sched_setaffinity(0, sizeof set, &set) != 0) perror("cma_split: sched_setaffinity");
}
static double now_s(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}
static long ld(_Atomic long *p) { return atomic_load_explicit(p, memory_order_acquire); }
static void st(_Atomic long *p, long v) { atomic_store_explicit(p, v, memory_order_release); }
static void spin_until_ge(_Atomic long *p, long v) {
  while (ld(p) < v) __builtin_ia32_pause();
}
static long parse_size(const char *s) {
  char *end;
  long v = strtol(s, &end, 10);
  if (*end == 'k' || *end == 'K') v <<= 10;
  if (*end == 'm' || *end == 'M') v <<= 20;
  return v;
}
static void must(ssize_t got, long want, const char *what) {
  if (got != want) {
    perror(what);
    fprintf(stderr, "cma_split: %s moved %zd of %ld bytes\n", what, got, want);
    _exit(1);
  }
}
static ssize_t readv_from(pid_t pid, char *local, uintptr_t remote, long n) {
  struct iovec l = {local, (size_t)n}, r = {(void *)remote, (size_t)n};
  return process_vm_readv(pid, &l, 1, &r, 1, 0);
}
static ssize_t writev_to(pid_t pid, uintptr_t remote, const char *local, long n) {
  struct iovec l = {(void *)local, (size_t)n}, r = {(void *)remote, (size_t)n};
  return process_vm_writev(pid, &l, 1, &r, 1, 0);
}
static volatile long sink;
static void consume(const char *buf, long n) {
  long s = 0;
  for (long i = 0; i < n; i += 64) s += buf[i];
  sink = s;
}

/* -p: the sender rewrites its source for message i only once the receiver has taken message i-1 (as a
 * producer reusing its buffer after MPI_Wait would). */
static void wait_consumed(long i);

/* Sender side of one step: `msgs` messages. */
static void send_step(char way, const char *src, long n, long msgs) {
  const pid_t peer = C->pid[1];
  const long head = n * frac_num / frac_den;
  for (long i = 1; i <= msgs; i++) {
    if (produce) {
      wait_consumed(i - 1);
      for (long o = 0; o < n; o += 64) ((volatile char *)src)[o] = (char)i;
    }
    switch (way) {
      case 'a':
        st(&C->posted.v, i);
        break;
      case 'b':
        spin_until_ge(&C->cts.v, i);
        if (n > head) must(writev_to(peer, C->dst + (uintptr_t)head, src + head, n - head), n - head, "process_vm_writev");
        st(&C->sdone.v, i);
        break;
      case 'd': {
        spin_until_ge(&C->cts.v, i);
        const long nchunks = (n + chunk - 1) / chunk;
        for (;;) {
          const long k = atomic_fetch_add(&C->claim.v, 1) - (i << 20);
          if (k >= nchunks) break;
          const long off = k * chunk, len = off + chunk <= n ? chunk : n - off;
          must(writev_to(peer, C->dst + (uintptr_t)off, src + off, len), len, "process_vm_writev");
        }
        st(&C->sdone.v, i);
        break;
      }
      case 'c': {
        static long seq = 0; /* cells filled so far, over all steps (cell = seq % ncells) */
        for (long off = 0; off < n; off += cellsz) {
          const long k = seq % ncells, len = off + cellsz <= n ? cellsz : n - off;
          spin_until_ge(&C->cell_free[k].v, seq - ncells + 1); /* the receiver emptied its previous use */
          memcpy(C->cells + k * cellsz, src + off, (size_t)len);
          st(&C->cell_seq[k].v, seq + 1);
          seq++;
        }
        break;
      }
    }
    if (i % WINDOW == 0) spin_until_ge(&C->ack.v, i / WINDOW);
  }
}

/* Receiver side of one step. */
static void recv_step(char way, char *dst, long n, long msgs) {
  const pid_t peer = C->pid[0];
  const long head = n * frac_num / frac_den;
  static long seq = 0;
  for (long i = 1; i <= msgs; i++) {
    switch (way) {
      case 'a':
        spin_until_ge(&C->posted.v, i);
        must(readv_from(peer, dst, C->src, n), n, "process_vm_readv");
        break;
      case 'b':
        if (i - lag >= 1) spin_until_ge(&C->sdone.v, i - lag - 1); /* the sender's part of i-L-1 is in */
        st(&C->cts.v, i);
        if (head > 0) must(readv_from(peer, dst, C->src, head), head, "process_vm_readv");
        if (lag == 0) spin_until_ge(&C->sdone.v, i);
        break;
      case 'd': {
        const long nchunks = (n + chunk - 1) / chunk;
        st(&C->claim.v, i << 20);
        st(&C->cts.v, i);
        for (;;) {
          const long k = atomic_fetch_add(&C->claim.v, 1) - (i << 20);
          if (k >= nchunks) break;
          const long off = k * chunk, len = off + chunk <= n ? chunk : n - off;
          must(readv_from(peer, dst + off, C->src + (uintptr_t)off, len), len, "process_vm_readv");
        }
        spin_until_ge(&C->sdone.v, i);
        break;
      }
      case 'c':
        for (long off = 0; off < n; off += cellsz) {
          const long k = seq % ncells, len = off + cellsz <= n ? cellsz : n - off;
          spin_until_ge(&C->cell_seq[k].v, seq + 1);
          memcpy(dst + off, C->cells + k * cellsz, (size_t)len);
          st(&C->cell_free[k].v, seq + 1);
          seq++;
        }
        break;
    }
    if (touch) consume(dst, n);
    st(&C->taken.v, i);
    if (i % WINDOW == 0) {
      if (way == 'b') spin_until_ge(&C->sdone.v, i);
      st(&C->ack.v, i / WINDOW);
    }
  }
}

static void reset_counters(void) {
  st(&C->posted.v, 0);
  st(&C->cts.v, 0);
  st(&C->sdone.v, 0);
  st(&C->claim.v, 0);
  st(&C->ack.v, 0);
  st(&C->taken.v, 0);
}
static void wait_consumed(long i) { spin_until_ge(&C->taken.v, i); }

/* Both processes: run steps as the parent (receiver) announces them; step parameters in C. */
static void serve(int me, char *buf) {
  for (long step = 1;; step++) {
    spin_until_ge(&C->go.v, step);
    if (C->way == 'q') return;
    st(&C->ready[me].v, step);
    if (me == 0) send_step(C->way, buf, C->bytes, C->iters);
    else recv_step(C->way, buf, C->bytes, C->iters);
    st(&C->ready[me].v, -step); /* done */
    while (ld(&C->ready[me].v) == -step && ld(&C->go.v) == step) __builtin_ia32_pause();
  }
}

static int cmp(const void *a, const void *b) {
  const double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

int main(int argc, char **argv) {
  int core_a = 0, core_b = 1, reps = 5, c;
  long min = 32 << 10, max = 1 << 20;
  double seconds = 0.02;
  const char *ways = "abdc";
  while ((c = getopt(argc, argv, "a:b:m:M:w:f:L:c:k:s:r:T:tp")) != -1) {
    switch (c) {
      case 'a': core_a = atoi(optarg); break;
      case 'b': core_b = atoi(optarg); break;
      case 'm': min = parse_size(optarg); break;
      case 'M': max = parse_size(optarg); break;
      case 'w': ways = optarg; break;
      case 'f': if (sscanf(optarg, "%ld/%ld", &frac_num, &frac_den) != 2) return 2; break;
      case 'L': lag = atol(optarg); break;
      case 'c': chunk = parse_size(optarg); break;
      case 'k': ncells = atol(optarg); break;
      case 's': cellsz = parse_size(optarg); break;
      case 'r': reps = atoi(optarg); break;
      case 'T': seconds = atof(optarg); break;
      case 't': touch = 1; break;
      case 'p': produce = 1; break;
      default:
        fprintf(stderr, "usage: cma_split [-a CORE] [-b CORE] [-m MIN] [-M MAX] [-w WAYS] [-f NUM/DEN] [-L LAG]\n"
                        "                 [-c CHUNK] [-k CELLS] [-s CELLSIZE] [-r REPS] [-T SECONDS] [-t] [-p]\n");
        return 2;
    }
  }
  if (min < 1 || max < min || reps < 1 || reps > MAXREPS || ncells < 2 || ncells > MAXCELLS || chunk < 4096 ||
      frac_den <= 0 || frac_num < 0 || frac_num > frac_den || lag < 0 || lag >= WINDOW)
    return 2;
  const size_t ctl_bytes = sizeof(struct ctl) + (size_t)(ncells * cellsz);
  C = mmap(NULL, ctl_bytes, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
  if (C == MAP_FAILED) { perror("cma_split: mmap"); return 1; }
  memset(C, 0, ctl_bytes);
  C->pid[1] = getpid();
  const pid_t child = fork();
  if (child < 0) { perror("cma_split: fork"); return 1; }
  char *buf = aligned_alloc(4096, (size_t)max);
  if (!buf) return 1;
  memset(buf, child == 0 ? 's' : 'r', (size_t)max);
  if (child == 0) { /* the sender */
    pin(core_a);
    C->src = (uintptr_t)buf;
    st(&C->ready[0].v, -1000000); /* address published */
    serve(0, buf);
    _exit(0);
  }
  C->pid[0] = child;
  pin(core_b);
  C->dst = (uintptr_t)buf;
  spin_until_ge(&C->ready[0].v, -1000000);
  while (ld(&C->ready[0].v) != -1000000) {}

  printf("# cma_split: sender core %d, receiver core %d, window %d, split %ld/%ld lag %ld, chunk %ld, ring %ld x %ld%s%s\n",
         core_a, core_b, WINDOW, frac_num, frac_den, lag, chunk, ncells, cellsz, touch ? ", receiver reads its data" : "",
         produce ? ", sender rewrites its source per message" : "");
  printf("# size_bytes");
  for (const char *w = ways; *w; w++) printf(" %c_MBps(min-max)", *w);
  printf("\n");
  long step = 0;
  for (long n = min; n <= max; n *= 2) {
    const int nw = (int)strlen(ways);
    double mbps[8][MAXREPS];
    for (int r = 0; r < reps; r++) {
      for (int wi = 0; wi < nw; wi++) {
        const char way = ways[(wi + r) % nw];
        /* messages per step: about `seconds` at 10 GB/s, whole windows, at least 2 */
        long msgs = (long)(seconds * 1e10 / (double)n) / WINDOW * WINDOW;
        if (msgs < 2 * WINDOW) msgs = 2 * WINDOW;
        double t = 0;
        for (int pass = 0; pass < 2; pass++) { /* pass 0 warms up (a tenth of the messages) */
          const long m = pass == 0 ? (msgs / 10 / WINDOW + 1) * WINDOW : msgs;
          reset_counters();
          C->way = way;
          C->bytes = n;
          C->iters = m;
          st(&C->ready[1].v, 0);
          ++step;
          st(&C->go.v, step);
          spin_until_ge(&C->ready[0].v, step);
          const double t0 = now_s();
          recv_step(way, buf, n, m);
          while (ld(&C->ready[0].v) != -step) __builtin_ia32_pause();
          t = now_s() - t0;
        }
        mbps[(wi + r) % nw][r] = (double)n * (double)msgs / t / 1e6;
      }
    }
    printf("%ld", n);
    for (int wi = 0; wi < nw; wi++) {
      double v[MAXREPS];
      for (int r = 0; r < reps; r++) v[r] = mbps[wi][r];
      qsort(v, (size_t)reps, sizeof v[0], cmp);
      printf(" %.0f(%.0f-%.0f)", v[reps / 2], v[0], v[reps - 1]);
    }
    printf("\n");
    fflush(stdout);
  }
  C->way = 'q';
  st(&C->go.v, ++step);
  int status = 0;
  waitpid(child, &status, 0);
  return 0;
}
