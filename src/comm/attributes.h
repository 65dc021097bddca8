// Attribute caching (MPI-3.1 §6.7): keyvals with copy and delete callbacks, and the attributes each object
// (communicator, datatype, window) carries.
//
// The core knows no MPI handle types: an object is an opaque `const void*` key, and the C API wraps the
// user's callbacks (with their extra_state) into CopyFn / DeleteFn closures that cast the object back to
// its handle type. Callbacks return an MPI error code (0 = success); the registry passes it through as
// the `code` of a failed AttrResult so that the C API can return exactly what the user's callback said.
//
// Lifetimes (MPI-3.1 §6.7.2-3):
//  * A keyval lives until it is freed AND no attribute uses it any more (free only marks it; later
//    set/get/delete with the freed id fail, but deleting the objects that still hold it runs its
//    delete callback).
//  * Copy on duplication: for each attribute of the old object, the copy callback decides (flag) whether
//    the new object gets an attribute and with which value; an empty CopyFn is MPI_*_NULL_COPY_FN.
//  * Replacing or deleting an attribute, and freeing the object, run the delete callback on the value.
//
// Not thread-safe: callers hold the API lock. Callbacks may call back into the registry (a delete callback
// may set attributes of other objects): the registry never holds an iterator across a callback.
#pragma once
#include <cstdint>
#include <functional>
#include <map>
#include <unordered_map>
#include <vector>

#include "util/status.h"

namespace ftmpi::attr {

enum class ObjectKind : std::uint8_t { comm, type, win };

// The language an attribute value was set from (MPI-3.1 §17.2.7): C stores a pointer; Fortran stores an
// integer, INTEGER(KIND=MPI_ADDRESS_KIND) (MPI_Comm_set_attr ...) or a default INTEGER (MPI_Attr_put). The
// registry keeps the integer in the attribute's slot, so a C get of a Fortran value returns a pointer to
// MPI_Aint (int for f_int) holding it, and a Fortran get of a C value returns the pointer as an integer.
// A keyval has a language too (that of its callbacks): they get the value in their view, and a copy
// callback's output is an attribute of the keyval's language.
enum class Lang : std::uint8_t { c, f_aint, f_int };

// (old object, keyval, value in, value out, keep flag) -> MPI error code.
using CopyFn = std::function<int(const void* old_object, int keyval, void* in, void** out, int* flag)>;
// (object, keyval, value) -> MPI error code.
using DeleteFn = std::function<int(const void* object, int keyval, void* value)>;

// Outcome of an operation that may run user callbacks: Status (what went wrong) and, when a callback
// failed, the error code it returned.
struct AttrResult {
  Status status;
  int callback_code = 0;  // non-zero: the user callback's own return value
  bool ok() const { return status.ok(); }
};

class AttributeRegistry {
 public:
  // First id handed out; keeps user keyvals apart from the predefined keys of mpi.h (0x644000xx) and
  // from MPI_KEYVAL_INVALID.
  static constexpr int kFirstKeyval = 0x51000001;

  // New keyval for objects of `kind`. Never fails except when ids run out (Errc::no_mem).
  Result<int> create_keyval(ObjectKind kind, CopyFn copy, DeleteFn del, Lang callbacks = Lang::c);
  // The Fortran layer marks the keyvals it wraps Fortran callbacks into (Errc::keyval for a bad id).
  Status set_keyval_lang(ObjectKind kind, int keyval, Lang callbacks);
  // Mark `keyval` freed. Errc::keyval for an unknown/freed id or one of another kind.
  Status free_keyval(ObjectKind kind, int keyval);
  // True when `keyval` is a live (not freed) keyval of `kind`.
  bool valid_keyval(ObjectKind kind, int keyval) const;
  // A live keyval, or a freed one that `object` still holds an attribute for (get and delete accept it).
  bool usable_on(ObjectKind kind, const void* object, int keyval) const;

  // Set (replacing: the delete callback runs on the old value first; if it fails nothing changes).
  // `value` is a pointer (Lang::c) or the Fortran integer cast to void* (the other languages).
  AttrResult set(ObjectKind kind, const void* object, int keyval, void* value, Lang lang = Lang::c);
  // Mark the attribute just set as a Fortran integer of language `lang` (the Fortran layer sets through the
  // C API, which checks the object and runs the delete callback of a replaced value, then relabels).
  Status relabel(ObjectKind kind, const void* object, int keyval, Lang lang);
  // Value of `keyval` on `object` as seen from `view`: C gets a Fortran value as a pointer to the slot's
  // MPI_Aint (int for Lang::f_int), valid while the attribute lives; Fortran gets the integer (a C pointer
  // as its address). *found false when absent. Errc::keyval for a bad keyval.
  Status get(ObjectKind kind, const void* object, int keyval, void** value, bool* found,
             Lang view = Lang::c) const;
  // Delete one attribute (delete callback runs; when it fails the attribute stays). Absent attribute:
  // Errc::keyval (MPI leaves this erroneous; we report it).
  AttrResult remove(ObjectKind kind, const void* object, int keyval);

  // Duplication: run every copy callback of `from`'s attributes and attach the kept values to `to`
  // (which must have none yet). On a callback failure the attributes already copied to `to` are deleted
  // again (their delete callbacks run) and the failure is returned.
  AttrResult copy_all(ObjectKind kind, const void* from, const void* to);
  // Object freed: run the delete callback of every attribute, last set first (MPI-3.1 §8.7.1 requires this
  // LIFO order for MPI_COMM_SELF at MPI_Finalize; MPICH does the same for every object). Replacing a value
  // keeps the attribute's place. On a failure the remaining attributes stay attached and the failure is
  // returned (MPI_Comm_free then fails).
  AttrResult delete_all(ObjectKind kind, const void* object);

  // Number of attributes on `object` (tests and diagnostics).
  std::size_t count(const void* object) const;
  // Number of keyvals still stored (live, or freed but referenced).
  std::size_t keyval_count() const { return keyvals_.size(); }

 private:
  struct Keyval {
    ObjectKind kind;
    CopyFn copy;
    DeleteFn del;
    bool freed = false;
    int uses = 0;  // attributes holding this keyval
    Lang lang = Lang::c;  // language of the callbacks
  };
  struct Slot {
    void* value;
    std::uint64_t order;  // when the attribute was first set (delete_all runs the largest first)
    Lang lang = Lang::c;
    // A Fortran value as C reads it (MPI-3.1 §17.2.7): set from `value` when lang != c.
    std::intptr_t wide = 0;
    int narrow = 0;
    Slot(void* v, std::uint64_t o, Lang l)
        : value(v), order(o), lang(l), wide(reinterpret_cast<std::intptr_t>(v)), narrow(static_cast<int>(wide)) {}
    // The value in the view of `view` (C: a pointer, possibly to wide/narrow; Fortran: the integer).
    void* as(Lang view) const;
  };
  using Store = std::map<int, Slot>;  // keyval -> value (ordered: deterministic callback order)

  Keyval* live(ObjectKind kind, int keyval);
  const Keyval* live(ObjectKind kind, int keyval) const;
  void drop_use(int keyval);  // one attribute fewer; forget a freed keyval nobody uses
  // Run `kv`'s delete callback (if any) on the slot's value (in the keyval's view).
  int run_delete(int keyval, const void* object, const Slot& slot);

  int next_id_ = kFirstKeyval;
  std::uint64_t next_order_ = 0;
  std::unordered_map<int, Keyval> keyvals_;
  std::unordered_map<const void*, Store> objects_;
};

}  // namespace ftmpi::attr
