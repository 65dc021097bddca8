// The basic kinds of a datatype's packed bytes, for types that mix kinds (MPI_Type_create_struct of
// different types, and what is built on such a struct). External32 conversion needs the kind of every byte,
// MPI_Get_elements the kinds of a partial element.
//
// A KindSeq is a small tree that mirrors how the type was built, so that an array of a million structs costs
// one item, not two million runs: an item is a run of `count` units of one kind, or `count` repeats of the
// constituent type's own sequence (shared, immutable once built).
#pragma once
#include <cstddef>
#include <memory>
#include <vector>

#include "datatype/datatype.h"

namespace ftmpi::dt {

struct KindSeq {
  struct Item {
    Basic kind = Basic::none;                // a run of `count` units of `kind` when nested is null,
    std::size_t count = 0;                   // otherwise `count` repeats of *nested
    std::shared_ptr<const KindSeq> nested;
  };
  std::vector<Item> items;
  std::size_t bytes = 0;     // packed bytes of the whole sequence
  std::size_t elements = 0;  // basic elements in it (MPI_Get_elements: a pair counts 2)
};

// Basic elements in `units` units of kind `b` (2 per pair unit).
inline std::size_t elements_per_unit(Basic b) { return is_pair(b) ? 2 : 1; }

namespace detail {
template <class F>
void walk(const KindSeq& s, F& f) {
  for (const KindSeq::Item& it : s.items) {
    if (!it.nested) {
      f(it.kind, it.count);
      continue;
    }
    for (std::size_t k = 0; k < it.count; ++k) walk(*it.nested, f);
  }
}
}  // namespace detail

// Calls f(kind, units) for runs of basic units that make up `count` packed elements of `t`, in order
// (consecutive runs may have the same kind). Nothing for size-0 types.
template <class F>
void for_each_run(const Datatype* t, std::size_t count, F&& f) {
  if (t->size == 0 || count == 0) return;
  if (t->kinds == nullptr) {
    const std::size_t unit = unit_size(t->basic);
    if (unit != 0) f(t->basic, count * (t->size / unit));
    return;
  }
  for (std::size_t k = 0; k < count; ++k) detail::walk(*t->kinds, f);
}

}  // namespace ftmpi::dt
