/* soak.c — one job of the fault-tolerance soak (bench/ft/soak.sh drives many). ULFM (mpi-ext.h) only.
 *
 * usage: soak ROUNDS AGREES SEED LOGDIR SELFKILL_PER_MILLE
 *
 * Works on w = dup(MPI_COMM_WORLD). Each round:
 *  1. AGREES agreements on w with random contributions (a rank may kill itself before any of them with
 *     probability SELFKILL_PER_MILLE / 1000); each decision is logged as "A <gen> <round> <k> <flag>";
 *  2. churn: d = dup(w); agree on w whether every dup succeeded; if so an agreement on d, revoke d,
 *     s = shrink(d), Barrier(s), free s and d;
 *  3. Barrier(w), then agree on w whether it succeeded everywhere; if not: ack the failures,
 *     w' = shrink(w), free w, gen++ (every survivor does the same, the decision being agreed).
 * Every call's error class is checked against what ULFM allows for it; anything else is logged as
 * "WRONG <call> <class>" and counted by the driver. Survivors log "DONE <gen> <size>" at the end.
 * Logs go to LOGDIR/r<world rank>.log, line-buffered, so a rank's lines up to its death are kept. */
#define _POSIX_C_SOURCE 200809L
#include <mpi.h>
#include <mpi-ext.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

static FILE *logf_;
static int wrank;

static int cls_of(int rc) {
  int c = rc;
  if (rc != MPI_SUCCESS) MPI_Error_class(rc, &c);
  return c;
}

/* Log a WRONG line unless the class is one of the allowed ones (-1 ends the list). */
static int expect(const char *what, int rc, int a, int b, int c) {
  int k = cls_of(rc);
  if (k != a && k != b && k != c) fprintf(logf_, "WRONG %s %d\n", what, k);
  return k;
}

static void maybe_die(int per_mille) {
  if (per_mille > 0 && rand() % 1000 < per_mille) {
    fprintf(logf_, "SELFKILL\n");
    fflush(logf_);
    raise(SIGKILL);
  }
}

int main(int argc, char **argv) {
  if (argc < 6) {
    fprintf(stderr, "usage: soak ROUNDS AGREES SEED LOGDIR SELFKILL_PER_MILLE\n");
    return 2;
  }
  int rounds = atoi(argv[1]), agrees = atoi(argv[2]), seed = atoi(argv[3]), kill_pm = atoi(argv[5]);
  MPI_Init(&argc, &argv);
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  MPI_Comm_rank(MPI_COMM_WORLD, &wrank);
  char path[4096];
  snprintf(path, sizeof path, "%s/r%d.log", argv[4], wrank);
  logf_ = fopen(path, "w");
  if (!logf_) return 3;
  setvbuf(logf_, NULL, _IOLBF, 0);
  srand((unsigned)(seed * 7919 + wrank));
  MPI_Comm w;
  int rc = MPI_Comm_dup(MPI_COMM_WORLD, &w);
  if (expect("dup_world", rc, MPI_SUCCESS, MPI_ERR_PROC_FAILED, -1) != MPI_SUCCESS) {
    fprintf(logf_, "NOSTART\n"); /* a failure before we even started: item 2 (uniform creation) territory */
    MPI_Finalize();
    return 0;
  }
  MPI_Comm_set_errhandler(w, MPI_ERRORS_RETURN);
  int gen = 0;
  for (int round = 0; round < rounds; round++) {
    for (int k = 0; k < agrees; k++) {
      maybe_die(kill_pm);
      int flag = rand() | (rand() & 1 ? 0x7fff0000 : 0);
      rc = MPIX_Comm_agree(w, &flag);
      expect("agree", rc, MPI_SUCCESS, MPI_ERR_PROC_FAILED, -1);
      fprintf(logf_, "A %d %d %d %d\n", gen, round, k, flag);
    }
    /* churn: dup / agree / revoke / shrink / free */
    MPI_Comm d = MPI_COMM_NULL;
    rc = MPI_Comm_dup(w, &d);
    int ok = expect("dup", rc, MPI_SUCCESS, MPI_ERR_PROC_FAILED, MPI_ERR_REVOKED) == MPI_SUCCESS;
    int all_ok = ok;
    rc = MPIX_Comm_agree(w, &all_ok);
    expect("agree_dup", rc, MPI_SUCCESS, MPI_ERR_PROC_FAILED, -1);
    fprintf(logf_, "D %d %d %d\n", gen, round, all_ok);
    if (all_ok) {
      MPI_Comm_set_errhandler(d, MPI_ERRORS_RETURN);
      int f = 1;
      rc = MPIX_Comm_agree(d, &f);
      expect("agree_d", rc, MPI_SUCCESS, MPI_ERR_PROC_FAILED, -1);
      fprintf(logf_, "E %d %d %d\n", gen, round, f);
      MPIX_Comm_revoke(d);
      MPI_Comm s = MPI_COMM_NULL;
      rc = MPIX_Comm_shrink(d, &s);
      if (expect("shrink_d", rc, MPI_SUCCESS, MPI_ERR_PROC_FAILED, -1) == MPI_SUCCESS) {
        MPI_Comm_set_errhandler(s, MPI_ERRORS_RETURN);
        rc = MPI_Barrier(s);
        expect("barrier_s", rc, MPI_SUCCESS, MPI_ERR_PROC_FAILED, MPI_ERR_REVOKED);
        MPI_Comm_free(&s);
      }
    }
    if (d != MPI_COMM_NULL) MPI_Comm_free(&d);
    /* failure check and repair of w, uniformly decided */
    rc = MPI_Barrier(w);
    int bar_ok = expect("barrier_w", rc, MPI_SUCCESS, MPI_ERR_PROC_FAILED, MPI_ERR_REVOKED) == MPI_SUCCESS;
    rc = MPIX_Comm_agree(w, &bar_ok);
    expect("agree_w", rc, MPI_SUCCESS, MPI_ERR_PROC_FAILED, -1);
    fprintf(logf_, "B %d %d %d\n", gen, round, bar_ok);
    if (!bar_ok) {
      MPIX_Comm_failure_ack(w);
      MPI_Comm nw = MPI_COMM_NULL;
      rc = MPIX_Comm_shrink(w, &nw);
      if (expect("shrink_w", rc, MPI_SUCCESS, MPI_ERR_PROC_FAILED, -1) != MPI_SUCCESS) {
        fprintf(logf_, "ABANDON %d %d\n", gen, round);
        break;
      }
      MPI_Comm_free(&w);
      w = nw;
      MPI_Comm_set_errhandler(w, MPI_ERRORS_RETURN);
      gen++;
    }
  }
  int n = 0;
  MPI_Comm_size(w, &n);
  fprintf(logf_, "DONE %d %d\n", gen, n);
  MPI_Comm_free(&w);
  MPI_Finalize();
  fclose(logf_);
  return 0;
}
