// Counting basic elements in packed data (MPI_Get_elements, MPI_Status_set_elements).
//
// Every type we build today is made of one basic kind, so its packed bytes are a sequence of basic units:
// values of that kind, or for pair kinds alternating (value, int) with no padding.
#include "datatype/datatype.h"

namespace ftmpi::dt {
namespace {

// Basic elements in `bytes` (< one type element) of packed data of kind `b`.
std::size_t partial_units(Basic b, std::size_t bytes) {
  const std::size_t unit = unit_size(b);
  if (unit == 0) return 0;
  if (!is_pair(b)) return bytes / unit;
  const std::size_t value = unit - sizeof(int);
  const std::size_t pairs = bytes / unit;
  return 2 * pairs + (bytes % unit >= value ? 1 : 0);
}

}  // namespace

std::size_t elements_in(const Datatype* t, std::size_t bytes) {
  if (t->size == 0) return 0;
  return (bytes / t->size) * t->basic_count + partial_units(t->basic, bytes % t->size);
}

std::size_t bytes_for_elements(const Datatype* t, std::size_t elements) {
  if (t->basic_count == 0) return 0;
  const std::size_t whole = elements / t->basic_count;
  std::size_t rest = elements % t->basic_count;
  std::size_t bytes = whole * t->size;
  const std::size_t unit = unit_size(t->basic);
  if (rest == 0 || unit == 0) return bytes;
  if (!is_pair(t->basic)) return bytes + rest * unit;
  bytes += (rest / 2) * unit;
  if (rest % 2) bytes += unit - sizeof(int);  // a lone value without its index
  return bytes;
}

}  // namespace ftmpi::dt
