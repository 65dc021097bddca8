// Counting basic elements in packed data (MPI_Get_elements, MPI_Status_set_elements).
//
// A type's packed element is a sequence of basic units: values of its kind, or for pair kinds (value, int)
// with no padding; a type that mixes kinds lists them in its KindSeq (datatype/kinds.h). A partial element
// is measured by walking that sequence, skipping whole nested repeats by their recorded sizes.
#include "datatype/datatype.h"
#include "datatype/kinds.h"

namespace ftmpi::dt {
namespace {

// Basic elements in `bytes` (less than `units` whole units) of packed data of kind `b`.
std::size_t partial_units(Basic b, std::size_t bytes) {
  const std::size_t unit = unit_size(b);
  if (unit == 0) return 0;
  if (!is_pair(b)) return bytes / unit;
  const std::size_t value = unit - pair_index_size(b);
  return 2 * (bytes / unit) + (bytes % unit >= value ? 1 : 0);
}

// Packed bytes holding `elements` basic elements of kind `b` (a lone trailing pair value: the value only).
std::size_t bytes_of_units(Basic b, std::size_t elements) {
  const std::size_t unit = unit_size(b);
  if (!is_pair(b)) return elements * unit;
  return (elements / 2) * unit + (elements % 2 ? unit - pair_index_size(b) : 0);
}

// Basic elements in the first `bytes` packed bytes of `s` (bytes < s.bytes).
std::size_t elements_in_prefix(const KindSeq& s, std::size_t bytes) {
  std::size_t n = 0;
  for (const KindSeq::Item& it : s.items) {
    const std::size_t item_bytes = it.nested ? it.count * it.nested->bytes : it.count * unit_size(it.kind);
    if (bytes >= item_bytes) {
      n += it.nested ? it.count * it.nested->elements : it.count * elements_per_unit(it.kind);
      bytes -= item_bytes;
      continue;
    }
    if (!it.nested) return n + partial_units(it.kind, bytes);
    const std::size_t whole = bytes / it.nested->bytes;
    return n + whole * it.nested->elements + elements_in_prefix(*it.nested, bytes % it.nested->bytes);
  }
  return n;
}

// Packed bytes of the first `elements` basic elements of `s` (elements < s.elements).
std::size_t bytes_of_prefix(const KindSeq& s, std::size_t elements) {
  std::size_t bytes = 0;
  for (const KindSeq::Item& it : s.items) {
    const std::size_t item_elems = it.nested ? it.count * it.nested->elements : it.count * elements_per_unit(it.kind);
    if (elements >= item_elems) {
      bytes += it.nested ? it.count * it.nested->bytes : it.count * unit_size(it.kind);
      elements -= item_elems;
      continue;
    }
    if (!it.nested) return bytes + bytes_of_units(it.kind, elements);
    const std::size_t whole = elements / it.nested->elements;
    return bytes + whole * it.nested->bytes + bytes_of_prefix(*it.nested, elements % it.nested->elements);
  }
  return bytes;
}

}  // namespace

std::size_t elements_in(const Datatype* t, std::size_t bytes) {
  if (t->size == 0) return 0;
  const std::size_t whole = (bytes / t->size) * t->basic_count, rest = bytes % t->size;
  if (rest == 0) return whole;
  if (t->kinds != nullptr) return whole + elements_in_prefix(*t->kinds, rest);
  return whole + partial_units(t->basic, rest);
}

std::size_t bytes_for_elements(const Datatype* t, std::size_t elements) {
  if (t->basic_count == 0) return 0;
  const std::size_t bytes = (elements / t->basic_count) * t->size, rest = elements % t->basic_count;
  if (rest == 0) return bytes;
  if (t->kinds != nullptr) return bytes + bytes_of_prefix(*t->kinds, rest);
  if (unit_size(t->basic) == 0) return bytes;
  return bytes + bytes_of_units(t->basic, rest);
}

}  // namespace ftmpi::dt
