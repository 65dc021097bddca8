// Attribute caching (see attributes.h).
#include "comm/attributes.h"

#include <algorithm>
#include <climits>
#include <utility>

namespace ftmpi::attr {

void* AttributeRegistry::Slot::as(Lang view) const {
  if (view != Lang::c || lang == Lang::c) return value;  // Fortran reads the integer / a C pointer's address
  return lang == Lang::f_int ? const_cast<int*>(&narrow) : static_cast<void*>(const_cast<std::intptr_t*>(&wide));
}

Result<int> AttributeRegistry::create_keyval(ObjectKind kind, CopyFn copy, DeleteFn del, Lang callbacks) {
  if (next_id_ == INT_MAX) return Status(Errc::no_mem, "out of attribute keys");
  const int id = next_id_++;
  Keyval kv{kind, std::move(copy), std::move(del)};
  kv.lang = callbacks;
  keyvals_.emplace(id, std::move(kv));
  return id;
}

Status AttributeRegistry::set_keyval_lang(ObjectKind kind, int keyval, Lang callbacks) {
  Keyval* kv = live(kind, keyval);
  if (!kv) return Status(Errc::keyval, "invalid attribute key");
  kv->lang = callbacks;
  return {};
}

AttributeRegistry::Keyval* AttributeRegistry::live(ObjectKind kind, int keyval) {
  auto it = keyvals_.find(keyval);
  if (it == keyvals_.end() || it->second.freed || it->second.kind != kind) return nullptr;
  return &it->second;
}

const AttributeRegistry::Keyval* AttributeRegistry::live(ObjectKind kind, int keyval) const {
  auto it = keyvals_.find(keyval);
  if (it == keyvals_.end() || it->second.freed || it->second.kind != kind) return nullptr;
  return &it->second;
}

bool AttributeRegistry::valid_keyval(ObjectKind kind, int keyval) const { return live(kind, keyval) != nullptr; }

// A freed keyval lives on while attributes use it (MPI-3.1 §6.7.2: freeing a key in use is not erroneous); an
// object still holding an attribute for it may read or delete that attribute by the old handle value, as
// Open MPI and MPICH allow (MPICH suite attr/fkeyval). Setting a new attribute with it stays an error.
bool AttributeRegistry::usable_on(ObjectKind kind, const void* object, int keyval) const {
  if (live(kind, keyval)) return true;
  auto it = keyvals_.find(keyval);
  if (it == keyvals_.end() || it->second.kind != kind) return false;
  auto o = objects_.find(object);
  return o != objects_.end() && o->second.contains(keyval);
}

Status AttributeRegistry::free_keyval(ObjectKind kind, int keyval) {
  Keyval* kv = live(kind, keyval);
  if (!kv) return Status(Errc::keyval, "invalid attribute key");
  kv->freed = true;
  if (kv->uses == 0) keyvals_.erase(keyval);
  return {};
}

void AttributeRegistry::drop_use(int keyval) {
  auto it = keyvals_.find(keyval);
  if (it == keyvals_.end()) return;
  if (--it->second.uses == 0 && it->second.freed) keyvals_.erase(it);
}

int AttributeRegistry::run_delete(int keyval, const void* object, const Slot& slot) {
  auto it = keyvals_.find(keyval);
  if (it == keyvals_.end() || !it->second.del) return 0;
  DeleteFn del = it->second.del;  // a copy: the callback may create or free keyvals (rehash)
  // A Fortran value seen from C points into `slot`: copy the slot, the callback may replace the attribute.
  const Slot held = slot;
  return del(object, keyval, held.as(it->second.lang));
}

AttrResult AttributeRegistry::set(ObjectKind kind, const void* object, int keyval, void* value, Lang lang) {
  if (!live(kind, keyval)) return {Status(Errc::keyval, "invalid attribute key")};
  auto found = objects_.find(object);
  if (found != objects_.end()) {
    auto a = found->second.find(keyval);
    if (a != found->second.end()) {
      if (int rc = run_delete(keyval, object, a->second); rc != 0)
        return {Status(Errc::other, "the attribute's delete callback failed"), rc};
      // The callback may have touched the registry: look the attribute up again.
      Store& store = objects_[object];
      if (auto again = store.find(keyval); again != store.end()) {
        again->second = Slot{value, again->second.order, lang};  // keeps its place in the deletion order
        return {};
      }
      // The callback deleted the attribute itself: set it anew below.
      if (!live(kind, keyval)) return {Status(Errc::keyval, "the delete callback freed the attribute key")};
    }
  }
  objects_[object].insert_or_assign(keyval, Slot{value, next_order_++, lang});
  ++keyvals_.at(keyval).uses;
  return {};
}

Status AttributeRegistry::relabel(ObjectKind kind, const void* object, int keyval, Lang lang) {
  if (!usable_on(kind, object, keyval)) return Status(Errc::keyval, "invalid attribute key");
  auto o = objects_.find(object);
  if (o == objects_.end() || !o->second.contains(keyval))
    return Status(Errc::keyval, "the object has no attribute for this key");
  Slot& slot = o->second.at(keyval);
  slot = Slot{slot.value, slot.order, lang};
  return {};
}

Status AttributeRegistry::get(ObjectKind kind, const void* object, int keyval, void** value, bool* found,
                              Lang view) const {
  *found = false;
  if (!usable_on(kind, object, keyval)) return Status(Errc::keyval, "invalid attribute key");
  auto o = objects_.find(object);
  if (o == objects_.end()) return {};
  auto a = o->second.find(keyval);
  if (a == o->second.end()) return {};
  *value = a->second.as(view);
  *found = true;
  return {};
}

AttrResult AttributeRegistry::remove(ObjectKind kind, const void* object, int keyval) {
  if (!usable_on(kind, object, keyval)) return {Status(Errc::keyval, "invalid attribute key")};
  auto o = objects_.find(object);
  if (o == objects_.end() || !o->second.contains(keyval))
    return {Status(Errc::keyval, "the object has no attribute for this key")};
  if (int rc = run_delete(keyval, object, o->second.at(keyval)); rc != 0)
    return {Status(Errc::other, "the attribute's delete callback failed"), rc};
  o = objects_.find(object);  // the callback may have changed the map
  if (o != objects_.end() && o->second.erase(keyval) == 1) {
    if (o->second.empty()) objects_.erase(o);
    drop_use(keyval);
  }
  return {};
}

AttrResult AttributeRegistry::copy_all(ObjectKind kind, const void* from, const void* to) {
  auto o = objects_.find(from);
  if (o == objects_.end()) return {};
  // A snapshot (callbacks may modify the registry), in the order the attributes were set on `from`.
  std::vector<std::pair<int, Slot>> snapshot(o->second.begin(), o->second.end());
  std::sort(snapshot.begin(), snapshot.end(),
            [](const auto& a, const auto& b) { return a.second.order < b.second.order; });
  for (const auto& [keyval, slot] : snapshot) {
    auto kv = keyvals_.find(keyval);
    if (kv == keyvals_.end() || kv->second.kind != kind || !kv->second.copy) continue;  // NULL_COPY_FN
    CopyFn copy = kv->second.copy;
    const Lang lang = kv->second.lang;
    void* in = slot.as(lang);  // points into `snapshot` for a Fortran value seen from C
    void* out = nullptr;
    int flag = 0;
    if (int rc = copy(from, keyval, in, &out, &flag); rc != 0) {
      AttrResult undo = delete_all(kind, to);
      (void)undo;  // the copy failure is what the caller reports
      return {Status(Errc::other, "an attribute's copy callback failed"), rc};
    }
    if (!flag) continue;
    // A C copy callback that handed back the pointer it got (MPI_COMM_DUP_FN) on a Fortran value copies
    // the value, not a pointer into the old object's slot.
    if (lang == Lang::c && slot.lang != Lang::c && out == in)
      objects_[to].insert_or_assign(keyval, Slot{slot.value, next_order_++, slot.lang});
    else
      objects_[to].insert_or_assign(keyval, Slot{out, next_order_++, lang});
    ++keyvals_.at(keyval).uses;
  }
  return {};
}

AttrResult AttributeRegistry::delete_all(ObjectKind kind, const void* object) {
  (void)kind;
  for (;;) {
    auto o = objects_.find(object);
    if (o == objects_.end()) return {};
    if (o->second.empty()) {
      objects_.erase(o);
      return {};
    }
    auto last = std::max_element(o->second.begin(), o->second.end(),
                                 [](const auto& a, const auto& b) { return a.second.order < b.second.order; });
    const int keyval = last->first;
    if (int rc = run_delete(keyval, object, last->second); rc != 0)
      return {Status(Errc::other, "an attribute's delete callback failed"), rc};
    o = objects_.find(object);
    if (o != objects_.end() && o->second.erase(keyval) == 1) drop_use(keyval);
  }
}

std::size_t AttributeRegistry::count(const void* object) const {
  auto o = objects_.find(object);
  return o == objects_.end() ? 0 : o->second.size();
}

}  // namespace ftmpi::attr
