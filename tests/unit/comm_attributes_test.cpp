// Attribute caching: keyvals, copy-on-dup rules, delete callbacks, freed keyvals kept alive by use.
#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

#include "comm/attributes.h"

using ftmpi::Errc;
using ftmpi::attr::AttributeRegistry;
using ftmpi::attr::CopyFn;
using ftmpi::attr::DeleteFn;
using ftmpi::attr::ObjectKind;

namespace {
const int kA = 1, kB = 2, kC = 3;  // three objects (addresses as keys)
const void* A = &kA;
const void* B = &kB;
const void* C = &kC;

CopyFn dup_fn() {
  return [](const void*, int, void* in, void** out, int* flag) {
    *out = in;
    *flag = 1;
    return 0;
  };
}
}  // namespace

TEST(Attributes, SetGetDeleteWithoutCallbacks) {
  AttributeRegistry reg;
  auto kv = reg.create_keyval(ObjectKind::comm, nullptr, nullptr);
  ASSERT_TRUE(kv.ok());
  void* v = nullptr;
  bool found = true;
  ASSERT_TRUE(reg.get(ObjectKind::comm, A, *kv, &v, &found).ok());
  EXPECT_FALSE(found);
  int x = 42;
  ASSERT_TRUE(reg.set(ObjectKind::comm, A, *kv, &x).ok());
  ASSERT_TRUE(reg.get(ObjectKind::comm, A, *kv, &v, &found).ok());
  EXPECT_TRUE(found);
  EXPECT_EQ(v, &x);
  ASSERT_TRUE(reg.remove(ObjectKind::comm, A, *kv).ok());
  ASSERT_TRUE(reg.get(ObjectKind::comm, A, *kv, &v, &found).ok());
  EXPECT_FALSE(found);
  EXPECT_EQ(reg.remove(ObjectKind::comm, A, *kv).status.code(), Errc::keyval);
}

TEST(Attributes, WrongKindOrUnknownKeyvalIsKeyvalError) {
  AttributeRegistry reg;
  auto kv = reg.create_keyval(ObjectKind::type, nullptr, nullptr);
  ASSERT_TRUE(kv.ok());
  EXPECT_EQ(reg.set(ObjectKind::comm, A, *kv, nullptr).status.code(), Errc::keyval);
  EXPECT_EQ(reg.set(ObjectKind::type, A, 12345, nullptr).status.code(), Errc::keyval);
  EXPECT_EQ(reg.free_keyval(ObjectKind::comm, *kv).code(), Errc::keyval);
  EXPECT_TRUE(reg.free_keyval(ObjectKind::type, *kv).ok());
  EXPECT_EQ(reg.free_keyval(ObjectKind::type, *kv).code(), Errc::keyval);  // twice
  EXPECT_EQ(reg.keyval_count(), 0u);
}

TEST(Attributes, ReplaceRunsDeleteOnOldValue) {
  AttributeRegistry reg;
  std::vector<void*> deleted;
  auto kv = reg.create_keyval(ObjectKind::comm, nullptr, [&](const void* obj, int, void* val) {
    EXPECT_EQ(obj, A);
    deleted.push_back(val);
    return 0;
  });
  int x = 1, y = 2;
  ASSERT_TRUE(reg.set(ObjectKind::comm, A, *kv, &x).ok());
  ASSERT_TRUE(reg.set(ObjectKind::comm, A, *kv, &y).ok());
  ASSERT_EQ(deleted.size(), 1u);
  EXPECT_EQ(deleted[0], &x);
  ASSERT_TRUE(reg.delete_all(ObjectKind::comm, A).ok());
  ASSERT_EQ(deleted.size(), 2u);
  EXPECT_EQ(deleted[1], &y);
  EXPECT_EQ(reg.count(A), 0u);
}

TEST(Attributes, CopyAllFollowsEachKeyvalsCopyRule) {
  AttributeRegistry reg;
  auto null_copy = reg.create_keyval(ObjectKind::comm, nullptr, nullptr);  // MPI_COMM_NULL_COPY_FN
  auto dup = reg.create_keyval(ObjectKind::comm, dup_fn(), nullptr);     // MPI_COMM_DUP_FN
  auto plus_one = reg.create_keyval(
      ObjectKind::comm,
      [](const void* old, int, void* in, void** out, int* flag) {
        EXPECT_EQ(old, A);
        *out = static_cast<char*>(in) + 1;
        *flag = 1;
        return 0;
      },
      nullptr);
  auto declines = reg.create_keyval(
      ObjectKind::comm, [](const void*, int, void*, void**, int* flag) { *flag = 0; return 0; }, nullptr);
  char buf[4];
  ASSERT_TRUE(reg.set(ObjectKind::comm, A, *null_copy, buf).ok());
  ASSERT_TRUE(reg.set(ObjectKind::comm, A, *dup, buf).ok());
  ASSERT_TRUE(reg.set(ObjectKind::comm, A, *plus_one, buf).ok());
  ASSERT_TRUE(reg.set(ObjectKind::comm, A, *declines, buf).ok());
  ASSERT_TRUE(reg.copy_all(ObjectKind::comm, A, B).ok());
  EXPECT_EQ(reg.count(B), 2u);
  void* v = nullptr;
  bool found = false;
  ASSERT_TRUE(reg.get(ObjectKind::comm, B, *null_copy, &v, &found).ok());
  EXPECT_FALSE(found);
  ASSERT_TRUE(reg.get(ObjectKind::comm, B, *dup, &v, &found).ok());
  EXPECT_TRUE(found);
  EXPECT_EQ(v, buf);
  ASSERT_TRUE(reg.get(ObjectKind::comm, B, *plus_one, &v, &found).ok());
  EXPECT_EQ(v, buf + 1);
  ASSERT_TRUE(reg.get(ObjectKind::comm, B, *declines, &v, &found).ok());
  EXPECT_FALSE(found);
  EXPECT_EQ(reg.count(A), 4u);  // the original is untouched
}

TEST(Attributes, FailingCopyUndoesPartialCopy) {
  AttributeRegistry reg;
  int deletes = 0;
  auto ok = reg.create_keyval(ObjectKind::comm, dup_fn(), [&](const void*, int, void*) { ++deletes; return 0; });
  auto bad = reg.create_keyval(
      ObjectKind::comm, [](const void*, int, void*, void**, int*) { return 77; }, nullptr);
  ASSERT_TRUE(reg.set(ObjectKind::comm, A, *ok, nullptr).ok());
  ASSERT_TRUE(reg.set(ObjectKind::comm, A, *bad, nullptr).ok());
  auto r = reg.copy_all(ObjectKind::comm, A, B);
  EXPECT_FALSE(r.ok());
  EXPECT_EQ(r.callback_code, 77);
  EXPECT_EQ(reg.count(B), 0u);
  EXPECT_EQ(deletes, 1);  // the copied attribute was deleted again
}

TEST(Attributes, FailingDeleteKeepsAttribute) {
  AttributeRegistry reg;
  int rc = 5;
  auto kv = reg.create_keyval(ObjectKind::comm, nullptr, [&](const void*, int, void*) { return rc; });
  ASSERT_TRUE(reg.set(ObjectKind::comm, A, *kv, nullptr).ok());
  auto r = reg.remove(ObjectKind::comm, A, *kv);
  EXPECT_EQ(r.callback_code, 5);
  EXPECT_EQ(reg.count(A), 1u);
  r = reg.delete_all(ObjectKind::comm, A);
  EXPECT_EQ(r.callback_code, 5);
  EXPECT_EQ(reg.count(A), 1u);
  rc = 0;
  EXPECT_TRUE(reg.delete_all(ObjectKind::comm, A).ok());
  EXPECT_EQ(reg.count(A), 0u);
}

TEST(Attributes, FreedKeyvalLivesWhileUsedAndStillDeletes) {
  AttributeRegistry reg;
  int deletes = 0;
  auto kv = reg.create_keyval(ObjectKind::comm, dup_fn(), [&](const void*, int, void*) { ++deletes; return 0; });
  ASSERT_TRUE(reg.set(ObjectKind::comm, A, *kv, nullptr).ok());
  ASSERT_TRUE(reg.set(ObjectKind::comm, C, *kv, nullptr).ok());
  ASSERT_TRUE(reg.free_keyval(ObjectKind::comm, *kv).ok());
  EXPECT_FALSE(reg.valid_keyval(ObjectKind::comm, *kv));
  void* v = nullptr;
  bool found = false;
  // An object that still holds the attribute reads it by the old handle (Open MPI and MPICH allow it; MPICH
  // suite attr/fkeyval deletes it so); one that holds none, or a new set, gets Errc::keyval.
  EXPECT_TRUE(reg.get(ObjectKind::comm, A, *kv, &v, &found).ok());
  EXPECT_TRUE(found);
  EXPECT_EQ(reg.get(ObjectKind::comm, B, *kv, &v, &found).code(), Errc::keyval);
  EXPECT_EQ(reg.set(ObjectKind::comm, B, *kv, nullptr).status.code(), Errc::keyval);
  // Duplicating an object still copies the attribute of a freed keyval (MPI-3.1 §6.7.2).
  ASSERT_TRUE(reg.copy_all(ObjectKind::comm, A, B).ok());
  EXPECT_EQ(reg.count(B), 1u);
  EXPECT_EQ(reg.keyval_count(), 1u);
  ASSERT_TRUE(reg.delete_all(ObjectKind::comm, A).ok());
  ASSERT_TRUE(reg.delete_all(ObjectKind::comm, B).ok());
  EXPECT_EQ(reg.keyval_count(), 1u);
  ASSERT_TRUE(reg.delete_all(ObjectKind::comm, C).ok());
  EXPECT_EQ(deletes, 3);
  EXPECT_EQ(reg.keyval_count(), 0u);  // last use gone: forgotten
}

TEST(Attributes, DeleteCallbackMayTouchTheRegistry) {
  AttributeRegistry reg;
  int inner_deletes = 0;
  auto inner = reg.create_keyval(ObjectKind::comm, nullptr, [&](const void*, int, void*) { ++inner_deletes; return 0; });
  auto outer = reg.create_keyval(ObjectKind::comm, nullptr, [&](const void*, int, void*) {
    // Like a library freeing its own hidden state from inside a delete callback.
    EXPECT_TRUE(reg.remove(ObjectKind::comm, C, *inner).ok());
    EXPECT_TRUE(reg.free_keyval(ObjectKind::comm, *inner).ok());
    return 0;
  });
  ASSERT_TRUE(reg.set(ObjectKind::comm, C, *inner, nullptr).ok());
  ASSERT_TRUE(reg.set(ObjectKind::comm, A, *outer, nullptr).ok());
  ASSERT_TRUE(reg.delete_all(ObjectKind::comm, A).ok());
  EXPECT_EQ(inner_deletes, 1);
  EXPECT_EQ(reg.count(C), 0u);
}

// MPI-3.1 §8.7.1 (MPI_COMM_SELF at MPI_Finalize; MPICH's attrself test): delete callbacks run last set first,
// whatever the keyval creation order; replacing a value keeps the attribute's place; freed keyvals still
// delete.
TEST(Attributes, DeleteAllRunsLastSetFirst) {
  AttributeRegistry reg;
  std::vector<int> seen;
  DeleteFn record = [&seen](const void*, int keyval, void*) {
    seen.push_back(keyval);
    return 0;
  };
  int keys[5];
  for (int& k : keys) k = *reg.create_keyval(ObjectKind::comm, nullptr, record);
  int v = 0;
  const int order[5] = {3, 2, 0, 1, 4};
  for (int i : order) ASSERT_TRUE(reg.set(ObjectKind::comm, A, keys[i], &v).ok());
  ASSERT_TRUE(reg.set(ObjectKind::comm, A, keys[2], &v).ok());  // replace: runs delete on the old value
  ASSERT_EQ(seen.size(), 1u);
  seen.clear();
  for (int k : keys) ASSERT_TRUE(reg.free_keyval(ObjectKind::comm, k).ok());
  ASSERT_TRUE(reg.delete_all(ObjectKind::comm, A).ok());
  const std::vector<int> want = {keys[4], keys[1], keys[0], keys[2], keys[3]};
  EXPECT_EQ(seen, want);
  EXPECT_EQ(reg.keyval_count(), 0u);  // the freed keyvals went with their last attribute
}

// MPI-3.1 §17.2.7: a Fortran value reads in C through a pointer to it (int for INTEGER, MPI_Aint-wide for
// address-kind), a C pointer reads in Fortran as its address.
TEST(Attributes, LanguageViews) {
  using ftmpi::attr::Lang;
  AttributeRegistry reg;
  auto kv = reg.create_keyval(ObjectKind::comm, nullptr, nullptr);
  ASSERT_TRUE(kv.ok());
  const std::intptr_t big = std::intptr_t{1} << 40;
  ASSERT_TRUE(reg.set(ObjectKind::comm, A, *kv, reinterpret_cast<void*>(big), Lang::f_aint).ok());
  void* v = nullptr;
  bool found = false;
  ASSERT_TRUE(reg.get(ObjectKind::comm, A, *kv, &v, &found).ok());
  ASSERT_TRUE(found);
  EXPECT_EQ(*static_cast<std::intptr_t*>(v), big);
  ASSERT_TRUE(reg.get(ObjectKind::comm, A, *kv, &v, &found, Lang::f_aint).ok());
  EXPECT_EQ(reinterpret_cast<std::intptr_t>(v), big);
  // set as C then relabelled as an INTEGER (what MPI_Attr_put does): C reads an int, also a negative one
  ASSERT_TRUE(reg.set(ObjectKind::comm, B, *kv, reinterpret_cast<void*>(std::intptr_t{-7})).ok());
  ASSERT_TRUE(reg.relabel(ObjectKind::comm, B, *kv, Lang::f_int).ok());
  ASSERT_TRUE(reg.get(ObjectKind::comm, B, *kv, &v, &found).ok());
  EXPECT_EQ(*static_cast<int*>(v), -7);
  ASSERT_TRUE(reg.get(ObjectKind::comm, B, *kv, &v, &found, Lang::f_int).ok());
  EXPECT_EQ(reinterpret_cast<std::intptr_t>(v), -7);
  int x = 3;
  ASSERT_TRUE(reg.set(ObjectKind::comm, C, *kv, &x).ok());
  ASSERT_TRUE(reg.get(ObjectKind::comm, C, *kv, &v, &found, Lang::f_aint).ok());
  EXPECT_EQ(v, &x);
}

// Callbacks get the value in their keyval's language; a C dup callback on a Fortran value copies the value
// (the copy outlives the original object); a Fortran copy callback's output is a Fortran value.
TEST(Attributes, CopyAndDeleteInTheKeyvalsLanguage) {
  using ftmpi::attr::Lang;
  AttributeRegistry reg;
  auto ckv = reg.create_keyval(ObjectKind::comm, dup_fn(), nullptr);
  std::vector<void*> fortran_deleted;
  auto fkv = reg.create_keyval(
      ObjectKind::comm,
      [](const void*, int, void* in, void** out, int* flag) {
        *out = reinterpret_cast<void*>(reinterpret_cast<std::intptr_t>(in) + 1);
        *flag = 1;
        return 0;
      },
      [&fortran_deleted](const void*, int, void* v) {
        fortran_deleted.push_back(v);
        return 0;
      },
      Lang::f_aint);
  ASSERT_TRUE(ckv.ok() && fkv.ok());
  ASSERT_TRUE(reg.set(ObjectKind::comm, A, *ckv, reinterpret_cast<void*>(std::intptr_t{55}), Lang::f_aint).ok());
  int x = 9;
  ASSERT_TRUE(reg.set(ObjectKind::comm, A, *fkv, &x).ok());  // a C pointer under a Fortran keyval
  ASSERT_TRUE(reg.copy_all(ObjectKind::comm, A, B).ok());
  ASSERT_TRUE(reg.delete_all(ObjectKind::comm, A).ok());
  ASSERT_EQ(fortran_deleted.size(), 1u);
  EXPECT_EQ(fortran_deleted[0], &x);  // the Fortran view of a C pointer: its address
  void* v = nullptr;
  bool found = false;
  ASSERT_TRUE(reg.get(ObjectKind::comm, B, *ckv, &v, &found).ok());
  ASSERT_TRUE(found);
  EXPECT_EQ(*static_cast<std::intptr_t*>(v), 55);
  ASSERT_TRUE(reg.get(ObjectKind::comm, B, *fkv, &v, &found).ok());
  EXPECT_EQ(*static_cast<std::intptr_t*>(v), reinterpret_cast<std::intptr_t>(&x) + 1);  // a Fortran value
  ASSERT_TRUE(reg.delete_all(ObjectKind::comm, B).ok());
}
