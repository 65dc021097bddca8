/* ft_coll_completed — a collective fails only where data from a dead process is missing, and communicator
 * creation is uniform (issue 12 item 2; seed 000 §1.2). 8 ranks, --with-ft ulfm.
 *
 * argv[1] = mode, argv[2] = rounds (default 4). Each round works on base = MPIX_Comm_shrink(MPI_COMM_WORLD)
 * (the survivors so far) and kills its last rank, the victim:
 *  - dup:       the victim dies right after its MPI_Comm_dup(base) returned. PASS: every survivor's dup
 *               returns MPI_SUCCESS with a usable communicator (the victim had contributed everything).
 *  - barrier:   the victim dies right after its MPI_Barrier(base) returned. PASS: every survivor's
 *               Barrier returns MPI_SUCCESS (everyone had entered; nothing the survivors need is missing).
 *  - allreduce: the same with MPI_Allreduce(SUM of ranks): PASS: success and the right sum everywhere.
 *  - random_dup / random_split / random_idup / random_create_group / random_from_group: the victim is killed
 *               by a timer at a random moment (0-3 ms) while every rank loops on MPI_Comm_dup(base) (or
 *               MPI_Comm_split(base, rank % 2), two MPI_Comm_idup(base) waited in reverse order,
 *               MPI_Comm_create_group(base, group of base), MPI_Comm_create_from_group(group of base), or
 *               random_inter: dup / merge / split / create of an intercommunicator evens-odds of base in turn)
 *               until it fails.
 *               PASS: every survivor's loop ends at the same iteration — creation is uniform: every
 *               survivor got the communicator, or every survivor got the error — and the error is
 *               MPI_ERR_PROC_FAILED.
 *  - random_intercreate: the same with MPI_Intercomm_create(evens, odds) in the loop; in even rounds the
 *               victim is its side's leader (it may die during the leaders' exchange), in odd rounds not.
 *  - random_inter_idup: the same with two MPI_Comm_idup of an intercommunicator evens-odds, waited in reverse
 *               order (both outcomes must be the same everywhere).
 *  - random_inter_agree: MPIX_Comm_agree on the intercommunicator in the loop, every rank contributing a flag
 *               with its own bit cleared. PASS: the loop ends at the same iteration everywhere with
 *               MPI_ERR_PROC_FAILED, and the last flag (the AND over both groups) is the same everywhere;
 *               after MPIX_Comm_failure_ack the next agreement succeeds and get_failed names one process.
 *  - random_inter_shrink: MPIX_Comm_shrink on the intercommunicator in the loop until the result has lost the
 *               victim. PASS: that happens at the same iteration everywhere, the result has the survivors of
 *               each side (sizes), and an agreement on it succeeds.
 * Before the fix: survivors got MPI_ERR_PROC_FAILED (and MPI_COMM_NULL) from collectives the dead process had
 * completed, and creations failed at some survivors only. */
#include "ft_check.h" /* first: it sets _POSIX_C_SOURCE */

#include <stdlib.h>
#include <string.h>
#include <sys/time.h>

static void arm_random_death(int seed) {
  srand((unsigned)seed * 7919u + 17u);
  struct itimerval it;
  memset(&it, 0, sizeof it);
  it.it_value.tv_usec = 1 + rand() % 3000;
  signal(SIGALRM, SIG_DFL); /* default action: the process dies (signal 14) */
  setitimer(ITIMER_REAL, &it, NULL);
}

int main(int argc, char **argv) {
  int rank, size;
  ft_init(&argc, &argv, &rank, &size);
  CHECK(size == 8, "needs 8 ranks");
  const char *mode = argc > 1 ? argv[1] : "dup";
  const int rounds = argc > 2 ? atoi(argv[2]) : 4;
  const int random_mode = strncmp(mode, "random_", 7) == 0;

  for (int round = 0; round < rounds; round++) {
    MPI_Comm base;
    CHECK_MPI(MPIX_Comm_shrink(MPI_COMM_WORLD, &base));
    CHECK_MPI(MPI_Comm_set_errhandler(base, MPI_ERRORS_RETURN));
    int br, bn;
    MPI_Comm_rank(base, &br);
    MPI_Comm_size(base, &bn);
    CHECK(bn == size - round, "round %d: %d survivors", round, bn);
    CHECK(ft_sync_all(base) == MPI_SUCCESS);
    const int victim = bn - 1;

    if (strcmp(mode, "dup") == 0) {
      MPI_Comm d = MPI_COMM_NULL;
      int rc = MPI_Comm_dup(base, &d);
      if (br == victim) ft_die();
      CHECK(rc == MPI_SUCCESS && d != MPI_COMM_NULL, "round %d: dup completed by the dead rank failed here: %s",
            round, ft_class_name(rc));
      CHECK_MPI(MPI_Comm_set_errhandler(d, MPI_ERRORS_RETURN));
      CHECK_MPI(MPI_Comm_free(&d));
    } else if (strcmp(mode, "barrier") == 0) {
      int rc = MPI_Barrier(base);
      if (br == victim) ft_die();
      CHECK(rc == MPI_SUCCESS, "round %d: a barrier everyone entered failed here: %s", round, ft_class_name(rc));
    } else if (strcmp(mode, "allreduce") == 0) {
      int sum = 0;
      int rc = MPI_Allreduce(&br, &sum, 1, MPI_INT, MPI_SUM, base);
      if (br == victim) ft_die();
      CHECK(rc == MPI_SUCCESS, "round %d: an allreduce the dead rank completed failed here: %s", round,
            ft_class_name(rc));
      CHECK(sum == bn * (bn - 1) / 2, "round %d: sum %d", round, sum);
    } else if (random_mode) {
      const int split = strcmp(mode, "random_split") == 0;
      const int idup = strcmp(mode, "random_idup") == 0;
      const int cgroup = strcmp(mode, "random_create_group") == 0;
      const int fgroup = strcmp(mode, "random_from_group") == 0;
      const int intercreate = strcmp(mode, "random_intercreate") == 0;
      const int inter_idup = strcmp(mode, "random_inter_idup") == 0;
      const int inter_agree = strcmp(mode, "random_inter_agree") == 0;
      const int inter_shrink = strcmp(mode, "random_inter_shrink") == 0;
      const int inter = strcmp(mode, "random_inter") == 0 || inter_idup || inter_agree || inter_shrink;
      const int even_leader = victim % 2 == 0 && round % 2 == 0 ? victim : 0; /* base ranks of the leaders */
      const int odd_leader = victim % 2 == 1 && round % 2 == 0 ? victim : 1;
      int agreed_flag = 0;
      MPI_Group bg;
      CHECK_MPI(MPI_Comm_group(base, &bg));
      MPI_Comm half = MPI_COMM_NULL, ic = MPI_COMM_NULL;
      MPI_Group ig = MPI_GROUP_NULL;
      if (intercreate) CHECK_MPI(MPI_Comm_split(base, br % 2, br, &half));
      if (inter) { /* evens and odds of base */
        CHECK_MPI(MPI_Comm_split(base, br % 2, br, &half));
        CHECK_MPI(MPI_Intercomm_create(half, 0, base, br % 2 ? 0 : 1, 9, &ic));
        CHECK_MPI(MPI_Comm_set_errhandler(ic, MPI_ERRORS_RETURN));
        CHECK_MPI(MPI_Comm_group(ic, &ig));
        /* Everybody has finished Intercomm_create before the victim's timer can fire (a collective started
         * after a member is known to have failed fails at once, and a slow survivor could still be in it). A
         * Barrier everyone entered completes everywhere even if the victim dies right after it. */
        CHECK_MPI(MPI_Barrier(base));
      }
      if (br == victim) arm_random_death(round * 131 + (int)(ft_now() * 1e6) % 1000);
      int iterations = 0, rc = MPI_SUCCESS, outcome = 0;
      for (;;) {
        MPI_Comm d = MPI_COMM_NULL;
        if (intercreate) {
          const int mine = br % 2 ? odd_leader : even_leader, theirs = br % 2 ? even_leader : odd_leader;
          rc = MPI_Intercomm_create(half, mine / 2, base, theirs, 11, &d);
          if (rc == MPI_SUCCESS) {
            int rs = 0;
            MPI_Comm_remote_size(d, &rs);
            CHECK(rs == (br % 2 ? (bn + 1) / 2 : bn / 2), "remote size %d", rs);
          }
        } else if (inter_agree) {
          int flag = ~(1 << (br % 30));
          rc = MPIX_Comm_agree(ic, &flag);
          agreed_flag = flag;
          if (rc == MPI_SUCCESS) {
            int expect = ~0;
            for (int r = 0; r < bn; r++) expect &= ~(1 << (r % 30));
            CHECK(flag == expect, "agreed flag %x, expected %x", flag, expect);
          }
          if (rc == MPI_SUCCESS) {
            iterations++;
            CHECK(iterations < 1000000, "the victim never died");
            continue;
          }
        } else if (inter_shrink) {
          rc = MPIX_Comm_shrink(ic, &d);
          CHECK(rc == MPI_SUCCESS && d != MPI_COMM_NULL, "shrink of the intercommunicator failed: %s", ft_class_name(rc));
          int ls = 0, rs = 0;
          MPI_Comm_size(d, &ls);
          MPI_Comm_remote_size(d, &rs);
          if (ls + rs < bn) { /* the victim is gone: check the result and stop */
            const int v_even = victim % 2 == 0;
            CHECK(ls == (br % 2 ? bn / 2 - !v_even : (bn + 1) / 2 - v_even), "shrunk local size %d", ls);
            CHECK(rs + ls == bn - 1, "shrunk sizes %d + %d", ls, rs);
            CHECK_MPI(MPI_Comm_set_errhandler(d, MPI_ERRORS_RETURN));
            int flag = 1;
            CHECK_MPI(MPIX_Comm_agree(d, &flag));
            CHECK(flag == 1);
            MPI_Comm_free(&d);
            rc = MPI_ERR_PROC_FAILED; /* the loop's end, for the checks below */
            break;
          }
        } else if (idup || inter_idup) { /* two outstanding idups, waited in reverse order */
          MPI_Comm d2 = MPI_COMM_NULL;
          MPI_Request r[2];
          CHECK_MPI(MPI_Comm_idup(inter_idup ? ic : base, &d, &r[0]));
          CHECK_MPI(MPI_Comm_idup(inter_idup ? ic : base, &d2, &r[1]));
          int rc2 = MPI_Wait(&r[1], MPI_STATUS_IGNORE);
          rc = MPI_Wait(&r[0], MPI_STATUS_IGNORE);
          /* Each is uniform on its own (either may be the one that fails): the pair of outcomes must be the
           * same at every survivor. */
          outcome = (rc == MPI_SUCCESS) + 2 * (rc2 == MPI_SUCCESS);
          CHECK((rc2 == MPI_SUCCESS) == (d2 != MPI_COMM_NULL), "idup result and handle disagree");
          if (rc2 == MPI_SUCCESS) MPI_Comm_free(&d2);
          if (rc == MPI_SUCCESS && rc2 != MPI_SUCCESS) {
            MPI_Comm_free(&d);
            rc = rc2;
          }
        } else if (inter) { /* the intercommunicator constructors in turn */
          switch (iterations % 4) {
            case 0: rc = MPI_Comm_dup(ic, &d); break;
            case 1: rc = MPI_Intercomm_merge(ic, br % 2, &d); break;
            case 2: rc = MPI_Comm_split(ic, 0, br, &d); break;
            default: rc = MPI_Comm_create(ic, ig, &d); break;
          }
        } else if (cgroup) {
          rc = MPI_Comm_create_group(base, bg, 7, &d);
#if MPI_VERSION >= 4 || defined(FTMPI)
        } else if (fgroup) {
          rc = MPI_Comm_create_from_group(bg, "ft.random", MPI_INFO_NULL, MPI_ERRORS_RETURN, &d);
#endif
        } else {
          rc = split ? MPI_Comm_split(base, br % 2, br, &d) : MPI_Comm_dup(base, &d);
        }
        if (rc != MPI_SUCCESS) {
          CHECK(d == MPI_COMM_NULL, "a failed creation returned a communicator");
          break;
        }
        CHECK(d != MPI_COMM_NULL);
        MPI_Comm_free(&d);
        iterations++;
        CHECK(iterations < 100000, "the victim never died");
      }
      CHECK(br != victim, "the victim survived its timer");
      CHECK(check_class_of(rc) == MPI_ERR_PROC_FAILED, "round %d: creation failed with %s (%s)", round,
            ft_class_name(rc), check_errstr(rc));
      if (inter_agree) { /* after acknowledging, the next agreement succeeds everywhere; get_failed names the victim */
        CHECK_MPI(MPIX_Comm_failure_ack(ic));
        int f = 1;
        CHECK_MPI(MPIX_Comm_agree(ic, &f));
        CHECK(f == 1, "flag %d after the acknowledged failure", f);
        CHECK(ft_num_failed(ic) == 1, "get_failed on the intercommunicator: %d failed", ft_num_failed(ic));
      }
      MPI_Group_free(&bg);
      if (inter) {
        MPI_Group_free(&ig);
        MPI_Comm_free(&ic);
      }
      if (half != MPI_COMM_NULL) MPI_Comm_free(&half);
      MPI_Comm s;
      CHECK_MPI(MPIX_Comm_shrink(base, &s));
      int lo = 0, hi = 0;
      CHECK_MPI(MPI_Allreduce(&iterations, &lo, 1, MPI_INT, MPI_MIN, s));
      CHECK_MPI(MPI_Allreduce(&iterations, &hi, 1, MPI_INT, MPI_MAX, s));
      CHECK(lo == hi, "round %d: creation not uniform: survivors failed after %d and %d creations", round, lo, hi);
      CHECK_MPI(MPI_Allreduce(&outcome, &lo, 1, MPI_INT, MPI_MIN, s));
      CHECK_MPI(MPI_Allreduce(&outcome, &hi, 1, MPI_INT, MPI_MAX, s));
      CHECK(lo == hi, "round %d: idup outcomes not uniform (%d and %d)", round, lo, hi);
      CHECK_MPI(MPI_Allreduce(&agreed_flag, &lo, 1, MPI_INT, MPI_MIN, s));
      CHECK_MPI(MPI_Allreduce(&agreed_flag, &hi, 1, MPI_INT, MPI_MAX, s));
      CHECK(lo == hi, "round %d: agreed flags differ (%x and %x)", round, lo, hi);
      MPI_Comm_free(&s);
    } else {
      CHECK(0, "unknown mode %s", mode);
    }
    MPI_Comm_free(&base);
  }
  ft_pass(MPI_COMM_WORLD, "ft_coll_completed");
  MPI_Finalize();
  return 0;
}
