/* comm_attr_finalize — attribute caching as libraries use it (issue 14 items 3 and 4, "attrself"):
 *  - MPI_COMM_SELF's attributes are deleted at the START of MPI_Finalize, last set first (MPI-3.1 §8.7.1),
 *    even when their keyvals were freed before; the delete callbacks may still call MPI (MPI_Finalized
 *    says 0, MPI_Comm_rank works);
 *  - a keyval freed while attributes use it stays usable by those attributes (delete on free of the
 *    communicator runs its callback, and a dup still copies it);
 *  - keyvals made with the predefined callbacks: MPI_COMM_NULL_COPY_FN / MPI_COMM_DUP_FN /
 *    MPI_COMM_NULL_DELETE_FN, the MPI-1 names MPI_NULL_COPY_FN / MPI_DUP_FN / MPI_NULL_DELETE_FN with
 *    MPI_Keyval_create / MPI_Attr_put / MPI_Attr_get / MPI_Attr_delete / MPI_Keyval_free, and the type
 *    variants MPI_TYPE_NULL_COPY_FN / MPI_TYPE_DUP_FN / MPI_TYPE_NULL_DELETE_FN.
 * Any rank count. Rank 0 prints PASS after MPI_Finalize returned and the callbacks were counted. */
#include "common/check.h"

#define NKEYS 5
static int key[NKEYS];
static int order[NKEYS] = {3, 2, 0, 1, 4}; /* key[order[0]] set first */
static int ncall = 0, errs = 0, in_finalize = 0;

static int self_delete(MPI_Comm comm, int keyval, void *value, void *extra) {
  (void)extra;
  (void)value;
  int fin = 1, rank = -1;
  if (comm != MPI_COMM_SELF) errs++;
  if (!in_finalize) errs++; /* only MPI_Finalize deletes these */
  if (ncall >= NKEYS || keyval != key[order[NKEYS - 1 - ncall]]) {
    printf("FAIL: delete callback %d got keyval %d, expected key %d\n", ncall, keyval,
           ncall < NKEYS ? order[NKEYS - 1 - ncall] : -1);
    errs++;
  }
  MPI_Finalized(&fin);
  if (fin) errs++; /* MPI is still usable while COMM_SELF's attributes go */
  if (MPI_Comm_rank(MPI_COMM_WORLD, &rank) != MPI_SUCCESS || rank < 0) errs++;
  ncall++;
  return MPI_SUCCESS;
}

static int dup_deletes = 0;
static int count_delete(MPI_Comm comm, int keyval, void *value, void *extra) {
  (void)comm;
  (void)keyval;
  (void)value;
  (void)extra;
  dup_deletes++;
  return MPI_SUCCESS;
}

static void predefined_callbacks(void) {
  MPI_Comm dup;
  int k_null, k_dup, k_old_null, k_old_dup, flag = 0;
  int v1 = 1, v2 = 2, v3 = 3, v4 = 4;
  void *got = NULL;
  CHECK_MPI(MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, MPI_COMM_NULL_DELETE_FN, &k_null, NULL));
  CHECK_MPI(MPI_Comm_create_keyval(MPI_COMM_DUP_FN, MPI_COMM_NULL_DELETE_FN, &k_dup, NULL));
  CHECK_MPI(MPI_Keyval_create(MPI_NULL_COPY_FN, MPI_NULL_DELETE_FN, &k_old_null, NULL));
  CHECK_MPI(MPI_Keyval_create(MPI_DUP_FN, MPI_NULL_DELETE_FN, &k_old_dup, NULL));
  CHECK_MPI(MPI_Comm_set_attr(MPI_COMM_WORLD, k_null, &v1));
  CHECK_MPI(MPI_Comm_set_attr(MPI_COMM_WORLD, k_dup, &v2));
  CHECK_MPI(MPI_Attr_put(MPI_COMM_WORLD, k_old_null, &v3));
  CHECK_MPI(MPI_Attr_put(MPI_COMM_WORLD, k_old_dup, &v4));
  CHECK_MPI(MPI_Attr_get(MPI_COMM_WORLD, k_old_dup, &got, &flag));
  CHECK(flag && got == &v4);
  CHECK_MPI(MPI_Comm_dup(MPI_COMM_WORLD, &dup));
  CHECK_MPI(MPI_Comm_get_attr(dup, k_null, &got, &flag));
  CHECK(!flag, "NULL_COPY_FN must not copy");
  CHECK_MPI(MPI_Comm_get_attr(dup, k_dup, &got, &flag));
  CHECK(flag && got == &v2, "DUP_FN copies the value");
  CHECK_MPI(MPI_Attr_get(dup, k_old_null, &got, &flag));
  CHECK(!flag, "MPI_NULL_COPY_FN must not copy");
  CHECK_MPI(MPI_Attr_get(dup, k_old_dup, &got, &flag));
  CHECK(flag && got == &v4, "MPI_DUP_FN copies the value");
  CHECK_MPI(MPI_Attr_delete(dup, k_old_dup));
  CHECK_MPI(MPI_Attr_get(dup, k_old_dup, &got, &flag));
  CHECK(!flag);
  CHECK_MPI(MPI_Comm_free(&dup));
  CHECK_MPI(MPI_Comm_delete_attr(MPI_COMM_WORLD, k_null));
  CHECK_MPI(MPI_Comm_delete_attr(MPI_COMM_WORLD, k_dup));
  CHECK_MPI(MPI_Attr_delete(MPI_COMM_WORLD, k_old_null));
  CHECK_MPI(MPI_Attr_delete(MPI_COMM_WORLD, k_old_dup));
  CHECK_MPI(MPI_Comm_free_keyval(&k_null));
  CHECK_MPI(MPI_Comm_free_keyval(&k_dup));
  CHECK_MPI(MPI_Keyval_free(&k_old_null));
  CHECK_MPI(MPI_Keyval_free(&k_old_dup));
  CHECK(k_old_dup == MPI_KEYVAL_INVALID);

  /* datatype variants */
  MPI_Datatype t, t2;
  int kt_null, kt_dup;
  CHECK_MPI(MPI_Type_contiguous(2, MPI_INT, &t));
  CHECK_MPI(MPI_Type_create_keyval(MPI_TYPE_NULL_COPY_FN, MPI_TYPE_NULL_DELETE_FN, &kt_null, NULL));
  CHECK_MPI(MPI_Type_create_keyval(MPI_TYPE_DUP_FN, MPI_TYPE_NULL_DELETE_FN, &kt_dup, NULL));
  CHECK_MPI(MPI_Type_set_attr(t, kt_null, &v1));
  CHECK_MPI(MPI_Type_set_attr(t, kt_dup, &v2));
  CHECK_MPI(MPI_Type_dup(t, &t2));
  CHECK_MPI(MPI_Type_get_attr(t2, kt_null, &got, &flag));
  CHECK(!flag);
  CHECK_MPI(MPI_Type_get_attr(t2, kt_dup, &got, &flag));
  CHECK(flag && got == &v2);
  CHECK_MPI(MPI_Type_free(&t2));
  CHECK_MPI(MPI_Type_free(&t));
  CHECK_MPI(MPI_Type_free_keyval(&kt_null));
  CHECK_MPI(MPI_Type_free_keyval(&kt_dup));
}

/* A keyval freed while attributes use it: the attributes keep working until the last one goes. */
static void freed_keyval_in_use(void) {
  MPI_Comm a, b;
  int k, copy, v = 7, flag = 0;
  void *got = NULL;
  CHECK_MPI(MPI_Comm_dup(MPI_COMM_WORLD, &a));
  CHECK_MPI(MPI_Comm_create_keyval(MPI_COMM_DUP_FN, count_delete, &k, NULL));
  copy = k;
  CHECK_MPI(MPI_Comm_set_attr(a, k, &v));
  CHECK_MPI(MPI_Comm_free_keyval(&k));
  CHECK(k == MPI_KEYVAL_INVALID);
  /* the attribute is still there and still copies and deletes with the keyval's callbacks */
  CHECK_MPI(MPI_Comm_dup(a, &b));
  CHECK(dup_deletes == 0);
  CHECK_MPI(MPI_Comm_free(&b));
  CHECK(dup_deletes == 1, "the freed keyval's delete callback ran %d times on the dup", dup_deletes);
  CHECK_MPI(MPI_Comm_free(&a));
  CHECK(dup_deletes == 2, "the freed keyval's delete callback ran %d times", dup_deletes);
  (void)copy; /* using the id again now would be erroneous (MPICH even accepts a second free) */
  (void)got;
  (void)flag;
}

int main(int argc, char **argv) {
  int rank, vals[NKEYS], i;
  CHECK_MPI(MPI_Init(&argc, &argv));
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  predefined_callbacks();
  freed_keyval_in_use();

  for (i = 0; i < NKEYS; i++) CHECK_MPI(MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, self_delete, &key[i], NULL));
  for (i = 0; i < NKEYS; i++) {
    vals[order[i]] = order[i];
    CHECK_MPI(MPI_Comm_set_attr(MPI_COMM_SELF, key[order[i]], &vals[order[i]]));
  }
  /* replacing a value runs the delete callback now (outside Finalize: counted as an error by the
   * callback), so do not; but free every keyval: the attributes keep them alive */
  for (i = 0; i < NKEYS; i++) {
    int k = key[i];
    CHECK_MPI(MPI_Comm_free_keyval(&k));
  }
  CHECK(ncall == 0);
  in_finalize = 1;
  CHECK_MPI(MPI_Finalize());
  if (ncall != NKEYS || errs != 0) {
    printf("FAIL rank %d: %d of %d MPI_COMM_SELF delete callbacks ran at MPI_Finalize, %d errors\n", rank, ncall,
           NKEYS, errs);
    return 1;
  }
  if (rank == 0) printf("PASS comm_attr_finalize\n");
  return 0;
}
