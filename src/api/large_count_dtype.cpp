// The MPI-4.0 large-count (_c) datatype functions (§5), with full 64-bit counts. Queries answer exactly in
// MPI_Count (sizes, extents, counts of a status, pack sizes). Constructors forward to their int forms when
// every value fits in an int and otherwise build the type with 64-bit counts, recording the call in the
// large form (Type_get_envelope_c / get_contents_c then report num_large_counts > 0). Pack_c / Unpack_c
// work in 64 bits; the external32 forms pass a count beyond INT_MAX as one element of a stand-in type
// (LargeCount). Negative counts reach the int forms as -1 (MPI_ERR_COUNT).
#include <algorithm>
#include <climits>
#include <initializer_list>
#include <span>
#include <vector>

#include "api/datatype_common.h"
#include "api/large_count.h"
#include "datatype/array_types.h"
#include "datatype/contents.h"
#include "datatype/derived.h"

using namespace ftmpi::api;
using ftmpi::Errc;
using ftmpi::Status;

namespace {
namespace dt = ftmpi::dt;
constexpr auto fail = ftmpi::api::fail_type_call;

// Checks of a constructor taking the large path (counts already known to be non-negative where the int
// form would check them): arrays present, a describable old type, newtype not NULL.
int check_large_ctor(bool arrays_ok, MPI_Datatype old, const MPI_Datatype* newtype, const char* fn) {
  if (!arrays_ok) return fail(Errc::arg, "an array argument is NULL", fn);
  if (!describable(old)) return fail(Errc::type, "invalid datatype", fn);
  if (newtype == nullptr) return fail(Errc::arg, "newtype is NULL", fn);
  return MPI_SUCCESS;
}

// Entries of the per-block arrays; a negative count (MPI_ERR_COUNT in the int form) has none.
std::size_t entries(MPI_Count count) { return count > 0 ? static_cast<std::size_t>(count) : 0; }

// The scalars `first` followed by `n` entries of each array: array_of_large_counts in the standard's order.
std::vector<long long> join(std::initializer_list<MPI_Count> first, std::size_t n,
                            std::initializer_list<const MPI_Count*> arrays) {
  std::vector<long long> v(first.begin(), first.end());
  for (const MPI_Count* a : arrays) v.insert(v.end(), a, a + n);
  return v;
}

dt::Contents large_form(dt::Combiner c, std::vector<int> ints, std::vector<long long> large,
                        std::vector<const dt::Datatype*> types) {
  dt::Contents how{c, std::move(ints), {}, std::move(types), std::move(large)};
  return how;
}

int combiner_code(dt::Combiner c) {
  switch (c) {
    case dt::Combiner::contiguous: return MPI_COMBINER_CONTIGUOUS;
    case dt::Combiner::vector: return MPI_COMBINER_VECTOR;
    case dt::Combiner::hvector: return MPI_COMBINER_HVECTOR;
    case dt::Combiner::indexed: return MPI_COMBINER_INDEXED;
    case dt::Combiner::hindexed: return MPI_COMBINER_HINDEXED;
    case dt::Combiner::indexed_block: return MPI_COMBINER_INDEXED_BLOCK;
    case dt::Combiner::hindexed_block: return MPI_COMBINER_HINDEXED_BLOCK;
    case dt::Combiner::struct_: return MPI_COMBINER_STRUCT;
    case dt::Combiner::subarray: return MPI_COMBINER_SUBARRAY;
    case dt::Combiner::darray: return MPI_COMBINER_DARRAY;
    case dt::Combiner::resized: return MPI_COMBINER_RESIZED;
    default: return MPI_COMBINER_NAMED;  // the large form records only the constructors above
  }
}

// A displacement/stride for an int or MPI_Aint parameter: fits when it is in the int range.
bool fits_int(MPI_Count c) { return c >= INT_MIN && c <= INT_MAX; }

std::vector<MPI_Aint> to_aints(const MPI_Count* a, MPI_Count n) {
  std::vector<MPI_Aint> v(static_cast<std::size_t>(n > 0 ? n : 0) + 1);
  for (MPI_Count i = 0; a && i < n; ++i) v[static_cast<std::size_t>(i)] = static_cast<MPI_Aint>(a[i]);
  return v;
}
}  // namespace

extern "C" int PMPI_Get_count_c(const MPI_Status* status, MPI_Datatype datatype, MPI_Count* count) {
  static constexpr const char* fn = "MPI_Get_count_c";
  FTMPI_ENTER(fn);
  if (status == MPI_STATUS_IGNORE || count == nullptr) return ret(nullptr, Status(Errc::arg, "status or count is NULL"), fn);
  int probe = 0;  // the int form checks the datatype
  if (int rc = PMPI_Get_count(status, datatype, &probe); rc != MPI_SUCCESS) return rc;
  const MPI_Count bytes = status->ftmpi_count;
  const MPI_Count size = static_cast<MPI_Count>(datatype->size);
  if (size == 0) {
    *count = bytes == 0 ? 0 : MPI_UNDEFINED;
  } else {
    *count = bytes % size != 0 ? MPI_UNDEFINED : bytes / size;
  }
  return MPI_SUCCESS;
}
FTMPI_ALIAS(Get_count_c)

extern "C" int PMPI_Get_elements_c(const MPI_Status* status, MPI_Datatype datatype, MPI_Count* count) {
  return PMPI_Get_elements_x(status, datatype, count);
}
FTMPI_ALIAS(Get_elements_c)

extern "C" int PMPI_Type_size_c(MPI_Datatype datatype, MPI_Count* size) { return PMPI_Type_size_x(datatype, size); }
FTMPI_ALIAS(Type_size_c)

extern "C" int PMPI_Type_get_extent_c(MPI_Datatype datatype, MPI_Count* lb, MPI_Count* extent) {
  return PMPI_Type_get_extent_x(datatype, lb, extent);
}
FTMPI_ALIAS(Type_get_extent_c)

extern "C" int PMPI_Type_get_true_extent_c(MPI_Datatype datatype, MPI_Count* true_lb, MPI_Count* true_extent) {
  return PMPI_Type_get_true_extent_x(datatype, true_lb, true_extent);
}
FTMPI_ALIAS(Type_get_true_extent_c)

// Each constructor forwards to its int form when every count and displacement fits in an int (the type
// then decodes like the int form's), and otherwise builds the type itself with 64-bit counts and records
// the call in MPI-4.0's large form (contents.h).

extern "C" int PMPI_Type_contiguous_c(MPI_Count count, MPI_Datatype oldtype, MPI_Datatype* newtype) {
  static constexpr const char* fn = "MPI_Type_contiguous_c";
  FTMPI_ENTER(fn);
  if (count <= INT_MAX) return PMPI_Type_contiguous(narrow_count(count), oldtype, newtype);
  if (int rc = check_large_ctor(true, oldtype, newtype, fn); rc != MPI_SUCCESS) return rc;
  return finish_new_type(dt::make_contiguous(static_cast<std::size_t>(count), oldtype),
                         large_form(dt::Combiner::contiguous, {}, {count}, {oldtype}), newtype, fn);
}
FTMPI_ALIAS(Type_contiguous_c)

extern "C" int PMPI_Type_vector_c(MPI_Count count, MPI_Count blocklength, MPI_Count stride, MPI_Datatype oldtype,
                                  MPI_Datatype* newtype) {
  static constexpr const char* fn = "MPI_Type_vector_c";
  FTMPI_ENTER(fn);
  if (count <= INT_MAX && blocklength <= INT_MAX && fits_int(stride))
    return PMPI_Type_vector(narrow_count(count), narrow_count(blocklength), static_cast<int>(stride), oldtype,
                            newtype);
  if (count < 0 || blocklength < 0) return fail(Errc::count, "negative count or blocklength", fn);
  if (int rc = check_large_ctor(true, oldtype, newtype, fn); rc != MPI_SUCCESS) return rc;
  return finish_new_type(dt::make_vector(static_cast<std::size_t>(count), static_cast<std::size_t>(blocklength),
                                         static_cast<std::ptrdiff_t>(stride), oldtype),
                         large_form(dt::Combiner::vector, {}, {count, blocklength, stride}, {oldtype}), newtype, fn);
}
FTMPI_ALIAS(Type_vector_c)

extern "C" int PMPI_Type_create_hvector_c(MPI_Count count, MPI_Count blocklength, MPI_Count stride,
                                          MPI_Datatype oldtype, MPI_Datatype* newtype) {
  static constexpr const char* fn = "MPI_Type_create_hvector_c";
  FTMPI_ENTER(fn);
  if (count <= INT_MAX && blocklength <= INT_MAX)
    return PMPI_Type_create_hvector(narrow_count(count), narrow_count(blocklength), static_cast<MPI_Aint>(stride),
                                    oldtype, newtype);
  if (count < 0 || blocklength < 0) return fail(Errc::count, "negative count or blocklength", fn);
  if (int rc = check_large_ctor(true, oldtype, newtype, fn); rc != MPI_SUCCESS) return rc;
  return finish_new_type(dt::make_hvector(static_cast<std::size_t>(count), static_cast<std::size_t>(blocklength),
                                          static_cast<std::ptrdiff_t>(stride), oldtype),
                         large_form(dt::Combiner::hvector, {}, {count, blocklength, stride}, {oldtype}), newtype, fn);
}
FTMPI_ALIAS(Type_create_hvector_c)

extern "C" int PMPI_Type_indexed_c(MPI_Count count, const MPI_Count array_of_blocklengths[],
                                   const MPI_Count array_of_displacements[], MPI_Datatype oldtype,
                                   MPI_Datatype* newtype) {
  static constexpr const char* fn = "MPI_Type_indexed_c";
  FTMPI_ENTER(fn);
  const std::size_t n = entries(count);
  IntArray b = narrow_array(array_of_blocklengths, n, count <= INT_MAX, true);
  IntArray d = narrow_array(array_of_displacements, n, count <= INT_MAX, false);
  if (count <= INT_MAX && b.fits && d.fits) return PMPI_Type_indexed(narrow_count(count), b.get(), d.get(), oldtype, newtype);
  if (int rc = check_large_ctor(array_of_blocklengths && array_of_displacements, oldtype, newtype, fn);
      rc != MPI_SUCCESS)
    return rc;
  return finish_new_type(dt::make_indexed(n, array_of_blocklengths, array_of_displacements, oldtype),
                         large_form(dt::Combiner::indexed, {}, join({count}, n, {array_of_blocklengths, array_of_displacements}),
                                    {oldtype}),
                         newtype, fn);
}
FTMPI_ALIAS(Type_indexed_c)

extern "C" int PMPI_Type_create_hindexed_c(MPI_Count count, const MPI_Count array_of_blocklengths[],
                                           const MPI_Count array_of_displacements[], MPI_Datatype oldtype,
                                           MPI_Datatype* newtype) {
  static constexpr const char* fn = "MPI_Type_create_hindexed_c";
  FTMPI_ENTER(fn);
  const std::size_t n = entries(count);
  IntArray b = narrow_array(array_of_blocklengths, n, count <= INT_MAX, true);
  if (count <= INT_MAX && b.fits) {
    std::vector<MPI_Aint> d = to_aints(array_of_displacements, count);
    return PMPI_Type_create_hindexed(narrow_count(count), b.get(), array_of_displacements ? d.data() : nullptr,
                                     oldtype, newtype);
  }
  if (int rc = check_large_ctor(array_of_blocklengths && array_of_displacements, oldtype, newtype, fn);
      rc != MPI_SUCCESS)
    return rc;
  const std::vector<std::ptrdiff_t> d(array_of_displacements, array_of_displacements + n);
  return finish_new_type(dt::make_hindexed(n, array_of_blocklengths, d.data(), oldtype),
                         large_form(dt::Combiner::hindexed, {}, join({count}, n, {array_of_blocklengths, array_of_displacements}),
                                    {oldtype}),
                         newtype, fn);
}
FTMPI_ALIAS(Type_create_hindexed_c)

extern "C" int PMPI_Type_create_indexed_block_c(MPI_Count count, MPI_Count blocklength,
                                                const MPI_Count array_of_displacements[], MPI_Datatype oldtype,
                                                MPI_Datatype* newtype) {
  static constexpr const char* fn = "MPI_Type_create_indexed_block_c";
  FTMPI_ENTER(fn);
  const std::size_t n = entries(count);
  IntArray d = narrow_array(array_of_displacements, n, count <= INT_MAX, false);
  if (count <= INT_MAX && blocklength <= INT_MAX && d.fits)
    return PMPI_Type_create_indexed_block(narrow_count(count), narrow_count(blocklength), d.get(), oldtype, newtype);
  if (blocklength < 0) return fail(Errc::count, "negative blocklength", fn);
  if (int rc = check_large_ctor(array_of_displacements != nullptr, oldtype, newtype, fn); rc != MPI_SUCCESS)
    return rc;
  return finish_new_type(
      dt::make_indexed_block(n, static_cast<std::size_t>(blocklength), array_of_displacements, oldtype),
      large_form(dt::Combiner::indexed_block, {}, join({count, blocklength}, n, {array_of_displacements}), {oldtype}),
      newtype, fn);
}
FTMPI_ALIAS(Type_create_indexed_block_c)

extern "C" int PMPI_Type_create_hindexed_block_c(MPI_Count count, MPI_Count blocklength,
                                                 const MPI_Count array_of_displacements[], MPI_Datatype oldtype,
                                                 MPI_Datatype* newtype) {
  static constexpr const char* fn = "MPI_Type_create_hindexed_block_c";
  FTMPI_ENTER(fn);
  const std::size_t n = entries(count);
  if (count <= INT_MAX && blocklength <= INT_MAX) {
    std::vector<MPI_Aint> d = to_aints(array_of_displacements, count);
    return PMPI_Type_create_hindexed_block(narrow_count(count), narrow_count(blocklength),
                                           array_of_displacements ? d.data() : nullptr, oldtype, newtype);
  }
  if (blocklength < 0) return fail(Errc::count, "negative blocklength", fn);
  if (int rc = check_large_ctor(array_of_displacements != nullptr, oldtype, newtype, fn); rc != MPI_SUCCESS)
    return rc;
  const std::vector<std::ptrdiff_t> d(array_of_displacements, array_of_displacements + n);
  return finish_new_type(
      dt::make_hindexed_block(n, static_cast<std::size_t>(blocklength), d.data(), oldtype),
      large_form(dt::Combiner::hindexed_block, {}, join({count, blocklength}, n, {array_of_displacements}), {oldtype}),
      newtype, fn);
}
FTMPI_ALIAS(Type_create_hindexed_block_c)

extern "C" int PMPI_Type_create_struct_c(MPI_Count count, const MPI_Count array_of_blocklengths[],
                                         const MPI_Count array_of_displacements[], const MPI_Datatype array_of_types[],
                                         MPI_Datatype* newtype) {
  static constexpr const char* fn = "MPI_Type_create_struct_c";
  FTMPI_ENTER(fn);
  const std::size_t n = entries(count);
  IntArray b = narrow_array(array_of_blocklengths, n, count <= INT_MAX, true);
  if (count <= INT_MAX && b.fits) {
    std::vector<MPI_Aint> d = to_aints(array_of_displacements, count);
    return PMPI_Type_create_struct(narrow_count(count), b.get(), array_of_displacements ? d.data() : nullptr,
                                   array_of_types, newtype);
  }
  if (int rc = check_large_ctor(array_of_blocklengths && array_of_displacements && array_of_types, &ftmpi_dt_byte,
                                newtype, fn);
      rc != MPI_SUCCESS)
    return rc;
  const std::vector<std::ptrdiff_t> d(array_of_displacements, array_of_displacements + n);
  std::vector<const dt::Datatype*> types(array_of_types, array_of_types + n);
  return finish_new_type(dt::make_struct(n, array_of_blocklengths, d.data(), types.data()),
                         large_form(dt::Combiner::struct_, {}, join({count}, n, {array_of_blocklengths, array_of_displacements}),
                                    types),
                         newtype, fn);
}
FTMPI_ALIAS(Type_create_struct_c)

extern "C" int PMPI_Type_create_subarray_c(int ndims, const MPI_Count array_of_sizes[],
                                           const MPI_Count array_of_subsizes[], const MPI_Count array_of_starts[],
                                           int order, MPI_Datatype oldtype, MPI_Datatype* newtype) {
  static constexpr const char* fn = "MPI_Type_create_subarray_c";
  FTMPI_ENTER(fn);
  const std::size_t n = ndims > 0 ? static_cast<std::size_t>(ndims) : 0;
  IntArray s = narrow_array(array_of_sizes, n, true, true), u = narrow_array(array_of_subsizes, n, true, true),
           t = narrow_array(array_of_starts, n, true, true);
  if (ndims < 1 || !array_of_sizes || !array_of_subsizes || !array_of_starts || (s.fits && u.fits && t.fits))
    return PMPI_Type_create_subarray(ndims, s.get(), u.get(), t.get(), order, oldtype, newtype);
  if (order != MPI_ORDER_C && order != MPI_ORDER_FORTRAN)
    return fail(Errc::arg, "order must be MPI_ORDER_C or MPI_ORDER_FORTRAN", fn);
  if (int rc = check_large_ctor(true, oldtype, newtype, fn); rc != MPI_SUCCESS) return rc;
  return finish_new_type(
      dt::make_subarray(std::span(array_of_sizes, n), std::span(array_of_subsizes, n), std::span(array_of_starts, n),
                        order == MPI_ORDER_C ? dt::Order::c : dt::Order::fortran, oldtype),
      large_form(dt::Combiner::subarray, {ndims, order}, join({}, n, {array_of_sizes, array_of_subsizes, array_of_starts}),
                 {oldtype}),
      newtype, fn);
}
FTMPI_ALIAS(Type_create_subarray_c)

extern "C" int PMPI_Type_create_darray_c(int size, int rank, int ndims, const MPI_Count array_of_gsizes[],
                                         const int array_of_distribs[], const int array_of_dargs[],
                                         const int array_of_psizes[], int order, MPI_Datatype oldtype,
                                         MPI_Datatype* newtype) {
  static constexpr const char* fn = "MPI_Type_create_darray_c";
  FTMPI_ENTER(fn);
  IntArray g = narrow_array(array_of_gsizes, ndims > 0 ? static_cast<std::size_t>(ndims) : 0, true, true);
  if (g.fits)
    return PMPI_Type_create_darray(size, rank, ndims, g.get(), array_of_distribs, array_of_dargs, array_of_psizes,
                                   order, oldtype, newtype);
  return create_darray(size, rank, ndims, array_of_gsizes, array_of_distribs, array_of_dargs, array_of_psizes, order,
                       oldtype, newtype, true, fn);
}
FTMPI_ALIAS(Type_create_darray_c)

extern "C" int PMPI_Type_create_resized_c(MPI_Datatype oldtype, MPI_Count lb, MPI_Count extent,
                                          MPI_Datatype* newtype) {
  return PMPI_Type_create_resized(oldtype, static_cast<MPI_Aint>(lb), static_cast<MPI_Aint>(extent), newtype);
}
FTMPI_ALIAS(Type_create_resized_c)

extern "C" int PMPI_Type_get_envelope_c(MPI_Datatype datatype, MPI_Count* num_integers, MPI_Count* num_addresses,
                                        MPI_Count* num_large_counts, MPI_Count* num_datatypes, int* combiner) {
  static constexpr const char* fn = "MPI_Type_get_envelope_c";
  FTMPI_ENTER(fn);
  if (!num_integers || !num_addresses || !num_large_counts || !num_datatypes || !combiner)
    return ret(nullptr, Status(Errc::arg, "an output argument is NULL"), fn);
  if (dt::live(datatype) && datatype->contents && !datatype->contents->large.empty()) {  // large form
    const dt::Contents& how = *datatype->contents;
    *combiner = combiner_code(how.combiner);
    *num_integers = static_cast<MPI_Count>(how.ints.size());
    *num_addresses = 0;
    *num_large_counts = static_cast<MPI_Count>(how.large.size());
    *num_datatypes = static_cast<MPI_Count>(how.types.size());
    return MPI_SUCCESS;
  }
  int ni = 0, na = 0, nd = 0;
  if (int rc = PMPI_Type_get_envelope(datatype, &ni, &na, &nd, combiner); rc != MPI_SUCCESS) return rc;
  *num_integers = ni;
  *num_addresses = na;
  *num_large_counts = 0;  // made by an int constructor, or by a _c one whose values all fit in an int
  *num_datatypes = nd;
  return MPI_SUCCESS;
}
FTMPI_ALIAS(Type_get_envelope_c)

extern "C" int PMPI_Type_get_contents_c(MPI_Datatype datatype, MPI_Count max_integers, MPI_Count max_addresses,
                                        MPI_Count max_large_counts, MPI_Count max_datatypes, int array_of_integers[],
                                        MPI_Aint array_of_addresses[], MPI_Count array_of_large_counts[],
                                        MPI_Datatype array_of_datatypes[]) {
  static constexpr const char* fn = "MPI_Type_get_contents_c";
  FTMPI_ENTER(fn);
  auto clamp = [](MPI_Count c) { return c < 0 ? -1 : (c > INT_MAX ? INT_MAX : static_cast<int>(c)); };
  if (!(dt::live(datatype) && datatype->contents && !datatype->contents->large.empty()))
    return PMPI_Type_get_contents(datatype, clamp(max_integers), clamp(max_addresses), clamp(max_datatypes),
                                  array_of_integers, array_of_addresses, array_of_datatypes);
  const dt::Contents& how = *datatype->contents;
  if (max_integers < static_cast<MPI_Count>(how.ints.size()) ||
      max_large_counts < static_cast<MPI_Count>(how.large.size()) ||
      max_datatypes < static_cast<MPI_Count>(how.types.size()))
    return fail(Errc::arg, "max_integers, max_large_counts or max_datatypes is smaller than MPI_Type_get_envelope_c's "
                           "count", fn);
  if ((!how.ints.empty() && !array_of_integers) || !array_of_large_counts ||
      (!how.types.empty() && !array_of_datatypes))
    return fail(Errc::arg, "an output array is NULL", fn);
  // The constituent types as MPI_Type_get_contents hands them out: derived ones as new handles.
  std::vector<MPI_Datatype> types;
  for (const dt::Datatype* t : how.types) {
    if (t->predefined) {
      types.push_back(const_cast<MPI_Datatype>(t));
      continue;
    }
    ftmpi::Result<dt::Datatype*> copy = dt::make_dup(t);
    if (!copy.ok()) {
      for (MPI_Datatype made : types)
        if (!made->predefined) (void)dt::retire(made);
      return ret(nullptr, copy.status(), fn);
    }
    types.push_back(copy.value());
  }
  std::copy(how.ints.begin(), how.ints.end(), array_of_integers);
  std::copy(how.large.begin(), how.large.end(), array_of_large_counts);
  std::copy(types.begin(), types.end(), array_of_datatypes);
  (void)array_of_addresses;  // the large form has no address arguments
  return MPI_SUCCESS;
}
FTMPI_ALIAS(Type_get_contents_c)

extern "C" int PMPI_Pack_c(const void* inbuf, MPI_Count incount, MPI_Datatype datatype, void* outbuf,
                           MPI_Count outsize, MPI_Count* position, MPI_Comm comm) {
  static constexpr const char* fn = "MPI_Pack_c";
  FTMPI_ENTER(fn);
  FTMPI_CHECK_COMM(comm, fn);
  if (incount < 0) return fail(Errc::count, "negative incount", fn);
  if (!valid_type(datatype)) return fail(Errc::type, "invalid or uncommitted datatype", fn);
  if (position == nullptr) return fail(Errc::arg, "position is NULL", fn);
  const std::size_t bytes = dt::packed_size(datatype, static_cast<std::size_t>(incount));
  if (!buffer_fits(*position, bytes, outsize)) return ret(comm, Status(Errc::truncate, "outbuf too small for the packed data"), fn);
  if (bytes > 0) dt::pack(inbuf, static_cast<std::size_t>(incount), datatype, static_cast<char*>(outbuf) + *position);
  *position += static_cast<MPI_Count>(bytes);
  return MPI_SUCCESS;
}
FTMPI_ALIAS(Pack_c)

extern "C" int PMPI_Unpack_c(const void* inbuf, MPI_Count insize, MPI_Count* position, void* outbuf,
                             MPI_Count outcount, MPI_Datatype datatype, MPI_Comm comm) {
  static constexpr const char* fn = "MPI_Unpack_c";
  FTMPI_ENTER(fn);
  FTMPI_CHECK_COMM(comm, fn);
  if (outcount < 0) return fail(Errc::count, "negative outcount", fn);
  if (!valid_type(datatype)) return fail(Errc::type, "invalid or uncommitted datatype", fn);
  if (position == nullptr) return fail(Errc::arg, "position is NULL", fn);
  const std::size_t bytes = dt::packed_size(datatype, static_cast<std::size_t>(outcount));
  if (!buffer_fits(*position, bytes, insize))
    return ret(comm, Status(Errc::truncate, "inbuf holds less than outcount elements"), fn);
  if (bytes > 0) dt::unpack(static_cast<const char*>(inbuf) + *position, bytes, datatype, outbuf);
  *position += static_cast<MPI_Count>(bytes);
  return MPI_SUCCESS;
}
FTMPI_ALIAS(Unpack_c)

extern "C" int PMPI_Pack_size_c(MPI_Count incount, MPI_Datatype datatype, MPI_Comm comm, MPI_Count* size) {
  static constexpr const char* fn = "MPI_Pack_size_c";
  FTMPI_ENTER(fn);
  FTMPI_CHECK_COMM(comm, fn);
  if (incount < 0) return ret(comm, Status(Errc::count, "negative incount"), fn);
  if (!size) return ret(comm, Status(Errc::arg, "size is NULL"), fn);
  int probe = 0;  // the int form checks the datatype
  if (int rc = PMPI_Pack_size(0, datatype, comm, &probe); rc != MPI_SUCCESS) return rc;
  *size = incount * static_cast<MPI_Count>(datatype->size);  // the homogeneous packed format: no header
  return MPI_SUCCESS;
}
FTMPI_ALIAS(Pack_size_c)

extern "C" int PMPI_Pack_external_c(const char datarep[], const void* inbuf, MPI_Count incount, MPI_Datatype datatype,
                                    void* outbuf, MPI_Count outsize, MPI_Count* position) {
  static constexpr const char* fn = "MPI_Pack_external_c";
  FTMPI_ENTER(fn);
  if (!position) return ret(nullptr, Status(Errc::arg, "position is NULL"), fn);
  LargeCount c(incount, datatype);
  if (!c.status.ok()) return ret(nullptr, c.status, fn);
  MPI_Aint pos = static_cast<MPI_Aint>(*position);
  const int rc = PMPI_Pack_external(datarep, inbuf, c.count, c.type, outbuf, static_cast<MPI_Aint>(outsize), &pos);
  if (rc == MPI_SUCCESS) *position = pos;
  return rc;
}
FTMPI_ALIAS(Pack_external_c)

extern "C" int PMPI_Unpack_external_c(const char datarep[], const void* inbuf, MPI_Count insize, MPI_Count* position,
                                      void* outbuf, MPI_Count outcount, MPI_Datatype datatype) {
  static constexpr const char* fn = "MPI_Unpack_external_c";
  FTMPI_ENTER(fn);
  if (!position) return ret(nullptr, Status(Errc::arg, "position is NULL"), fn);
  LargeCount c(outcount, datatype);
  if (!c.status.ok()) return ret(nullptr, c.status, fn);
  MPI_Aint pos = static_cast<MPI_Aint>(*position);
  const int rc = PMPI_Unpack_external(datarep, inbuf, static_cast<MPI_Aint>(insize), &pos, outbuf, c.count, c.type);
  if (rc == MPI_SUCCESS) *position = pos;
  return rc;
}
FTMPI_ALIAS(Unpack_external_c)

extern "C" int PMPI_Pack_external_size_c(const char datarep[], MPI_Count incount, MPI_Datatype datatype,
                                         MPI_Count* size) {
  static constexpr const char* fn = "MPI_Pack_external_size_c";
  FTMPI_ENTER(fn);
  if (!size) return ret(nullptr, Status(Errc::arg, "size is NULL"), fn);
  if (incount > INT_MAX && !describable(datatype)) return fail(Errc::type, "invalid datatype", fn);
  // external32 sizes are per element: the size of one element times the count, computed in 64 bits.
  MPI_Aint s = 0;
  const int rc = PMPI_Pack_external_size(datarep, incount > INT_MAX ? 1 : narrow_count(incount), datatype, &s);
  if (rc == MPI_SUCCESS) *size = incount > INT_MAX ? static_cast<MPI_Count>(s) * incount : s;
  return rc;
}
FTMPI_ALIAS(Pack_external_size_c)
