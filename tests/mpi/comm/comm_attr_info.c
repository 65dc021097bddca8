/* tests/mpi/comm/comm_attr_info.c — attributes (keyvals, copy on dup, delete on free, predefined keys,
 * datatype attributes), Info objects (order, limits, dup, MPI_INFO_ENV), user error classes/codes/strings.
 * PASS: every check holds on every rank (all local operations, plus Comm_dup/Type_dup), rank 0 prints PASS. */
#include "common/check.h"

static int copies, deletes;
static int last_deleted_value;

static int copy_plus_one(MPI_Comm oldcomm, int keyval, void *extra, void *in, void *out, int *flag) {
  (void)oldcomm, (void)keyval;
  CHECK(*(int *)extra == 1234, "extra_state passed through");
  copies++;
  *(void **)out = (void *)((intptr_t)in + 1);
  *flag = 1;
  return MPI_SUCCESS;
}
static int count_delete(MPI_Comm comm, int keyval, void *value, void *extra) {
  (void)comm, (void)keyval, (void)extra;
  deletes++;
  last_deleted_value = (int)(intptr_t)value;
  return MPI_SUCCESS;
}
static int failing_delete(MPI_Comm comm, int keyval, void *value, void *extra) {
  (void)comm, (void)keyval, (void)value;
  return *(int *)extra;
}
static int type_deletes;
static int type_delete(MPI_Datatype t, int keyval, void *value, void *extra) {
  (void)t, (void)keyval, (void)value, (void)extra;
  type_deletes++;
  return MPI_SUCCESS;
}

/* MPI_Finalize deletes MPI_COMM_SELF's attributes first, while MPI still works (MPI-3.1 §8.7.1). */
static int self_deleted;
static int self_delete(MPI_Comm comm, int keyval, void *value, void *extra) {
  (void)keyval, (void)extra;
  int fin = 1;
  MPI_Finalized(&fin);
  if (comm == MPI_COMM_SELF && (intptr_t)value == 99 && !fin) self_deleted = 1;
  return MPI_SUCCESS;
}

static void test_comm_attributes(void) {
  int extra = 1234, kv_copy = MPI_KEYVAL_INVALID, kv_null = MPI_KEYVAL_INVALID, kv_dup = MPI_KEYVAL_INVALID;
  CHECK_MPI(MPI_Comm_create_keyval(copy_plus_one, count_delete, &kv_copy, &extra));
  CHECK_MPI(MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, count_delete, &kv_null, NULL));
  CHECK_MPI(MPI_Comm_create_keyval(MPI_COMM_DUP_FN, MPI_COMM_NULL_DELETE_FN, &kv_dup, NULL));
  CHECK(kv_copy != kv_null && kv_null != kv_dup, "distinct keyvals");

  MPI_Comm c;
  CHECK_MPI(MPI_Comm_dup(MPI_COMM_WORLD, &c));
  void *v = NULL;
  int flag = 1;
  CHECK_MPI(MPI_Comm_get_attr(c, kv_copy, &v, &flag));
  CHECK(!flag, "no attribute yet");
  CHECK_MPI(MPI_Comm_set_attr(c, kv_copy, (void *)(intptr_t)10));
  CHECK_MPI(MPI_Comm_set_attr(c, kv_null, (void *)(intptr_t)20));
  CHECK_MPI(MPI_Comm_set_attr(c, kv_dup, (void *)(intptr_t)30));
  CHECK_MPI(MPI_Comm_get_attr(c, kv_copy, &v, &flag));
  CHECK(flag && (intptr_t)v == 10, "get what was set");

  /* Replacing runs the delete callback on the old value. */
  deletes = 0;
  CHECK_MPI(MPI_Comm_set_attr(c, kv_copy, (void *)(intptr_t)11));
  CHECK(deletes == 1 && last_deleted_value == 10, "replace deletes the old value");

  /* Dup: copy callback (+1), NULL_COPY (dropped), DUP_FN (same value). */
  MPI_Comm d;
  copies = 0;
  CHECK_MPI(MPI_Comm_dup(c, &d));
  CHECK(copies == 1, "one copy callback ran");
  CHECK_MPI(MPI_Comm_get_attr(d, kv_copy, &v, &flag));
  CHECK(flag && (intptr_t)v == 12, "copied value is in+1, got %ld", (long)(intptr_t)v);
  CHECK_MPI(MPI_Comm_get_attr(d, kv_null, &v, &flag));
  CHECK(!flag, "NULL_COPY_FN attribute is not copied");
  CHECK_MPI(MPI_Comm_get_attr(d, kv_dup, &v, &flag));
  CHECK(flag && (intptr_t)v == 30, "DUP_FN copies the value");

  /* Delete one, then free runs the rest; a freed keyval stays usable by the objects holding it. */
  deletes = 0;
  CHECK_MPI(MPI_Comm_delete_attr(d, kv_copy));
  CHECK(deletes == 1 && last_deleted_value == 12, "delete_attr runs the callback");
  CHECK_MPI(MPI_Comm_get_attr(d, kv_copy, &v, &flag));
  CHECK(!flag, "deleted");
  CHECK_MPI(MPI_Comm_free_keyval(&kv_copy));
  CHECK(kv_copy == MPI_KEYVAL_INVALID, "free_keyval resets the handle");
  deletes = 0;
  CHECK_MPI(MPI_Comm_free(&c));  /* kv_copy (freed keyval) + kv_null delete callbacks */
  CHECK(deletes == 2, "free deletes every attribute, got %d", deletes);
  CHECK_MPI(MPI_Comm_free(&d));

  /* A failing delete callback makes Comm_free fail with its code, and the communicator stays. */
  int code = MPI_ERR_OTHER, kv_fail;
  CHECK_MPI(MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, failing_delete, &kv_fail, &code));
  CHECK_MPI(MPI_Comm_dup(MPI_COMM_WORLD, &c));
  CHECK_MPI(MPI_Comm_set_attr(c, kv_fail, NULL));
  CHECK_MPI(MPI_Comm_set_errhandler(c, MPI_ERRORS_RETURN));
  MPI_Comm keep = c;
  CHECK_CLASS(MPI_Comm_free(&c), MPI_ERR_OTHER);
  CHECK(c == keep, "communicator not freed");
  code = MPI_SUCCESS;
  CHECK_MPI(MPI_Comm_free(&c));
  CHECK_MPI(MPI_Comm_free_keyval(&kv_fail));

  /* Deprecated MPI-1 names. */
  int kv_old;
  CHECK_MPI(MPI_Keyval_create(MPI_NULL_COPY_FN, MPI_NULL_DELETE_FN, &kv_old, NULL));
  CHECK_MPI(MPI_Attr_put(MPI_COMM_SELF, kv_old, (void *)(intptr_t)5));
  CHECK_MPI(MPI_Attr_get(MPI_COMM_SELF, kv_old, &v, &flag));
  CHECK(flag && (intptr_t)v == 5, "Attr_get");
  CHECK_MPI(MPI_Attr_delete(MPI_COMM_SELF, kv_old));
  CHECK_MPI(MPI_Keyval_free(&kv_old));

  /* Predefined attributes still answer; they are read-only. Bad keyvals are MPI_ERR_KEYVAL. */
  int *ip = NULL;
  CHECK_MPI(MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_TAG_UB, &ip, &flag));
  CHECK(flag && *ip >= 32767, "MPI_TAG_UB");
  CHECK_MPI(MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_WTIME_IS_GLOBAL, &ip, &flag));
  CHECK(flag && (*ip == 0 || *ip == 1), "MPI_WTIME_IS_GLOBAL");
  WITH_ERRORS_RETURN(MPI_COMM_WORLD, {
    CHECK_CLASS(MPI_Comm_set_attr(MPI_COMM_WORLD, MPI_TAG_UB, NULL), MPI_ERR_KEYVAL);
    CHECK_CLASS(MPI_Comm_free_keyval(&kv_dup) == MPI_SUCCESS ? MPI_Comm_set_attr(MPI_COMM_WORLD, kv_dup, NULL)
                                                             : MPI_ERR_OTHER,
                MPI_ERR_KEYVAL);
    int bogus = 0x12345;
    CHECK_CLASS(MPI_Comm_get_attr(MPI_COMM_WORLD, bogus, &v, &flag), MPI_ERR_KEYVAL);
    CHECK_CLASS(MPI_Comm_free_keyval(&bogus), MPI_ERR_KEYVAL);
  });
  CHECK_MPI(MPI_Comm_free_keyval(&kv_null));
}

static void test_type_attributes(void) {
  int kv;
  CHECK_MPI(MPI_Type_create_keyval(MPI_TYPE_DUP_FN, type_delete, &kv, NULL));
  MPI_Datatype t, u;
  CHECK_MPI(MPI_Type_contiguous(3, MPI_INT, &t));
  CHECK_MPI(MPI_Type_set_attr(t, kv, (void *)(intptr_t)77));
  CHECK_MPI(MPI_Type_dup(t, &u));
  void *v = NULL;
  int flag = 0;
  CHECK_MPI(MPI_Type_get_attr(u, kv, &v, &flag));
  CHECK(flag && (intptr_t)v == 77, "type attribute copied by Type_dup");
  type_deletes = 0;
  CHECK_MPI(MPI_Type_free(&t));
  CHECK_MPI(MPI_Type_delete_attr(u, kv));
  CHECK(type_deletes == 2, "type delete callbacks, got %d", type_deletes);
  CHECK_MPI(MPI_Type_free(&u));
  CHECK_MPI(MPI_Type_free_keyval(&kv));
}

static void test_info(void) {
  MPI_Info info, copy;
  CHECK_MPI(MPI_Info_create(&info));
  CHECK_MPI(MPI_Info_set(info, "b", "one"));
  CHECK_MPI(MPI_Info_set(info, "a", "two"));
  CHECK_MPI(MPI_Info_set(info, "b", "three"));
  int n = -1, flag = 0, len = 0;
  CHECK_MPI(MPI_Info_get_nkeys(info, &n));
  CHECK(n == 2, "two keys");
  char key[MPI_MAX_INFO_KEY + 1], val[MPI_MAX_INFO_VAL + 1];
  CHECK_MPI(MPI_Info_get_nthkey(info, 0, key));
  CHECK(strcmp(key, "b") == 0, "first key keeps its place");
  CHECK_MPI(MPI_Info_get_nthkey(info, 1, key));
  CHECK(strcmp(key, "a") == 0, "second key");
  CHECK_MPI(MPI_Info_get(info, "b", MPI_MAX_INFO_VAL, val, &flag));
  CHECK(flag && strcmp(val, "three") == 0, "value replaced");
  CHECK_MPI(MPI_Info_get_valuelen(info, "b", &len, &flag));
  CHECK(flag && len == 5, "valuelen");
  CHECK_MPI(MPI_Info_get(info, "b", 2, val, &flag));
  CHECK(flag && strcmp(val, "th") == 0, "truncated to valuelen characters");
  CHECK_MPI(MPI_Info_get(info, "zz", MPI_MAX_INFO_VAL, val, &flag));
  CHECK(!flag, "absent key");
  /* MPI-4 Info_get_string: buflen in = buffer size, out = length + 1; 0 asks for the length only. */
  int buflen = 0;
  CHECK_MPI(MPI_Info_get_string(info, "b", &buflen, NULL, &flag));
  CHECK(flag && buflen == 6, "get_string length query");
  buflen = (int)sizeof val;
  CHECK_MPI(MPI_Info_get_string(info, "b", &buflen, val, &flag));
  CHECK(flag && buflen == 6 && strcmp(val, "three") == 0, "get_string whole value");
  buflen = 3;
  CHECK_MPI(MPI_Info_get_string(info, "b", &buflen, val, &flag));
  CHECK(flag && buflen == 6 && strcmp(val, "th") == 0, "get_string truncates to buflen - 1 characters");
  buflen = 7;
  strcpy(val, "keep");
  CHECK_MPI(MPI_Info_get_string(info, "zz", &buflen, val, &flag));
  CHECK(!flag && buflen == 7 && strcmp(val, "keep") == 0, "get_string miss leaves buflen and value");
  WITH_ERRORS_RETURN(MPI_COMM_WORLD, {
    buflen = 4;
    CHECK_CLASS(MPI_Info_get_string(info, "b", &buflen, NULL, &flag), MPI_ERR_ARG);
    CHECK_CLASS(MPI_Info_get_string(info, "b", NULL, val, &flag), MPI_ERR_ARG);
    CHECK_CLASS(MPI_Info_get_string(MPI_INFO_NULL, "b", &buflen, val, &flag), MPI_ERR_INFO);
  });
  CHECK_MPI(MPI_Info_dup(info, &copy));
  CHECK_MPI(MPI_Info_delete(info, "b"));
  CHECK_MPI(MPI_Info_get_nkeys(info, &n));
  CHECK(n == 1, "deleted");
  CHECK_MPI(MPI_Info_get_nkeys(copy, &n));
  CHECK(n == 2, "dup is independent");
  WITH_ERRORS_RETURN(MPI_COMM_WORLD, {
    CHECK_CLASS(MPI_Info_delete(info, "b"), MPI_ERR_INFO_NOKEY);
    CHECK_CLASS(MPI_Info_get_nthkey(info, 5, key), MPI_ERR_ARG);
    char big[MPI_MAX_INFO_KEY + 2];
    memset(big, 'k', sizeof big - 1);
    big[sizeof big - 1] = 0;
    CHECK_CLASS(MPI_Info_set(info, big, "v"), MPI_ERR_INFO_KEY);
    CHECK_CLASS(MPI_Info_set(info, "", "v"), MPI_ERR_INFO_KEY);
    CHECK_CLASS(MPI_Info_set(MPI_INFO_NULL, "k", "v"), MPI_ERR_INFO);
    CHECK_CLASS(MPI_Info_free(&copy) == MPI_SUCCESS ? MPI_Info_set(copy, "k", "v") : MPI_ERR_OTHER, MPI_ERR_INFO);
  });
  CHECK(copy == MPI_INFO_NULL, "Info_free resets the handle");
  CHECK_MPI(MPI_Info_free(&info));
  /* MPI_INFO_ENV keeps answering. */
  CHECK_MPI(MPI_Info_get(MPI_INFO_ENV, "host", MPI_MAX_INFO_VAL, val, &flag));
  CHECK(flag && val[0], "MPI_INFO_ENV host");
  CHECK_MPI(MPI_Info_get_nkeys(MPI_INFO_ENV, &n));
  CHECK(n >= 1, "MPI_INFO_ENV has keys");
}

static void test_error_classes(void) {
  int cls, code, code2, last_before, *lastp, flag;
  CHECK_MPI(MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_LASTUSEDCODE, &lastp, &flag));
  CHECK(flag && *lastp >= MPI_ERR_LASTCODE, "MPI_LASTUSEDCODE");
  last_before = *lastp;
  CHECK_MPI(MPI_Add_error_class(&cls));
  CHECK(cls > last_before, "class above the last used code");
  CHECK_MPI(MPI_Add_error_code(cls, &code));
  CHECK_MPI(MPI_Add_error_code(MPI_ERR_ARG, &code2));
  CHECK(code != cls && code2 != code, "fresh codes");
  CHECK_MPI(MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_LASTUSEDCODE, &lastp, &flag));
  CHECK(*lastp >= code2 && *lastp >= code, "MPI_LASTUSEDCODE follows");
  int c = -1;
  CHECK_MPI(MPI_Error_class(code, &c));
  CHECK(c == cls, "class of a user code");
  CHECK_MPI(MPI_Error_class(code2, &c));
  CHECK(c == MPI_ERR_ARG, "user code of a predefined class");
  CHECK_MPI(MPI_Add_error_string(code, "my special failure"));
  char s[MPI_MAX_ERROR_STRING];
  int len;
  CHECK_MPI(MPI_Error_string(code, s, &len));
  CHECK(strcmp(s, "my special failure") == 0 && len == 18, "user error string, got '%s'", s);
  WITH_ERRORS_RETURN(MPI_COMM_WORLD, {
    CHECK_CLASS(MPI_Add_error_string(MPI_ERR_ARG, "no"), MPI_ERR_ARG);
    CHECK_CLASS(MPI_Add_error_code(code, &c), MPI_ERR_ARG);
  });
  /* A user code through a user error handler... through MPI_ERRORS_RETURN: the call returns it. */
  MPI_Comm d;
  CHECK_MPI(MPI_Comm_dup(MPI_COMM_WORLD, &d));
  CHECK_MPI(MPI_Comm_set_errhandler(d, MPI_ERRORS_RETURN));
  CHECK(MPI_Comm_call_errhandler(d, code) == MPI_SUCCESS, "call_errhandler");
  CHECK_MPI(MPI_Comm_free(&d));
}

int main(int argc, char **argv) {
  CHECK_MPI(MPI_Init(&argc, &argv));
  test_comm_attributes();
  test_type_attributes();
  test_info();
  test_error_classes();
  int kv_self;
  CHECK_MPI(MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, self_delete, &kv_self, NULL));
  CHECK_MPI(MPI_Comm_set_attr(MPI_COMM_SELF, kv_self, (void *)(intptr_t)99));
  CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
  check_pass("comm_attr_info");
  MPI_Finalize();
  if (!self_deleted) {
    printf("FAIL: MPI_COMM_SELF's attribute was not deleted by MPI_Finalize\n");
    return 1;
  }
  return 0;
}
