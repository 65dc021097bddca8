// The MPI-4.0 large-count (_c) datatype functions (§5). Queries answer exactly in MPI_Count (sizes,
// extents, counts of a status, pack sizes). Constructors and (un)packing forward to their int forms once
// every count and displacement fits in an int, and refuse larger ones with MPI_ERR_UNSUPPORTED_OPERATION
// (types keep int-sized contents in ftmpi: Type_get_envelope_c reports num_large_counts = 0 and
// Type_get_contents_c the int form's arrays). Negative counts reach the int forms as -1 (MPI_ERR_COUNT).
#include <climits>
#include <vector>

#include "api/large_count.h"

using namespace ftmpi::api;
using ftmpi::Errc;
using ftmpi::Status;

namespace {
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

extern "C" int PMPI_Type_contiguous_c(MPI_Count count, MPI_Datatype oldtype, MPI_Datatype* newtype) {
  static constexpr const char* fn = "MPI_Type_contiguous_c";
  FTMPI_ENTER(fn);
  const int c = narrow_count(count);
  if (c == kTooLarge) return too_large(nullptr, fn);
  return PMPI_Type_contiguous(c, oldtype, newtype);
}
FTMPI_ALIAS(Type_contiguous_c)

extern "C" int PMPI_Type_vector_c(MPI_Count count, MPI_Count blocklength, MPI_Count stride, MPI_Datatype oldtype,
                                  MPI_Datatype* newtype) {
  static constexpr const char* fn = "MPI_Type_vector_c";
  FTMPI_ENTER(fn);
  const int c = narrow_count(count), b = narrow_count(blocklength);
  if (c == kTooLarge || b == kTooLarge || !fits_int(stride)) return too_large(nullptr, fn);
  return PMPI_Type_vector(c, b, static_cast<int>(stride), oldtype, newtype);
}
FTMPI_ALIAS(Type_vector_c)

extern "C" int PMPI_Type_create_hvector_c(MPI_Count count, MPI_Count blocklength, MPI_Count stride,
                                          MPI_Datatype oldtype, MPI_Datatype* newtype) {
  static constexpr const char* fn = "MPI_Type_create_hvector_c";
  FTMPI_ENTER(fn);
  const int c = narrow_count(count), b = narrow_count(blocklength);
  if (c == kTooLarge || b == kTooLarge) return too_large(nullptr, fn);
  return PMPI_Type_create_hvector(c, b, static_cast<MPI_Aint>(stride), oldtype, newtype);
}
FTMPI_ALIAS(Type_create_hvector_c)

extern "C" int PMPI_Type_indexed_c(MPI_Count count, const MPI_Count array_of_blocklengths[],
                                   const MPI_Count array_of_displacements[], MPI_Datatype oldtype,
                                   MPI_Datatype* newtype) {
  static constexpr const char* fn = "MPI_Type_indexed_c";
  FTMPI_ENTER(fn);
  const int c = narrow_count(count);
  if (c == kTooLarge) return too_large(nullptr, fn);
  const std::size_t n = c > 0 ? static_cast<std::size_t>(c) : 0;
  IntArray b = narrow_array(array_of_blocklengths, n, true, true);
  IntArray d = narrow_array(array_of_displacements, n, true, false);
  if (!b.fits || !d.fits) return too_large(nullptr, fn);
  return PMPI_Type_indexed(c, b.get(), d.get(), oldtype, newtype);
}
FTMPI_ALIAS(Type_indexed_c)

extern "C" int PMPI_Type_create_hindexed_c(MPI_Count count, const MPI_Count array_of_blocklengths[],
                                           const MPI_Count array_of_displacements[], MPI_Datatype oldtype,
                                           MPI_Datatype* newtype) {
  static constexpr const char* fn = "MPI_Type_create_hindexed_c";
  FTMPI_ENTER(fn);
  const int c = narrow_count(count);
  if (c == kTooLarge) return too_large(nullptr, fn);
  const std::size_t n = c > 0 ? static_cast<std::size_t>(c) : 0;
  IntArray b = narrow_array(array_of_blocklengths, n, true, true);
  if (!b.fits) return too_large(nullptr, fn);
  std::vector<MPI_Aint> d = to_aints(array_of_displacements, c);
  return PMPI_Type_create_hindexed(c, b.get(), array_of_displacements ? d.data() : nullptr, oldtype, newtype);
}
FTMPI_ALIAS(Type_create_hindexed_c)

extern "C" int PMPI_Type_create_indexed_block_c(MPI_Count count, MPI_Count blocklength,
                                                const MPI_Count array_of_displacements[], MPI_Datatype oldtype,
                                                MPI_Datatype* newtype) {
  static constexpr const char* fn = "MPI_Type_create_indexed_block_c";
  FTMPI_ENTER(fn);
  const int c = narrow_count(count), b = narrow_count(blocklength);
  if (c == kTooLarge || b == kTooLarge) return too_large(nullptr, fn);
  IntArray d = narrow_array(array_of_displacements, c > 0 ? static_cast<std::size_t>(c) : 0, true, false);
  if (!d.fits) return too_large(nullptr, fn);
  return PMPI_Type_create_indexed_block(c, b, d.get(), oldtype, newtype);
}
FTMPI_ALIAS(Type_create_indexed_block_c)

extern "C" int PMPI_Type_create_hindexed_block_c(MPI_Count count, MPI_Count blocklength,
                                                 const MPI_Count array_of_displacements[], MPI_Datatype oldtype,
                                                 MPI_Datatype* newtype) {
  static constexpr const char* fn = "MPI_Type_create_hindexed_block_c";
  FTMPI_ENTER(fn);
  const int c = narrow_count(count), b = narrow_count(blocklength);
  if (c == kTooLarge || b == kTooLarge) return too_large(nullptr, fn);
  std::vector<MPI_Aint> d = to_aints(array_of_displacements, c);
  return PMPI_Type_create_hindexed_block(c, b, array_of_displacements ? d.data() : nullptr, oldtype, newtype);
}
FTMPI_ALIAS(Type_create_hindexed_block_c)

extern "C" int PMPI_Type_create_struct_c(MPI_Count count, const MPI_Count array_of_blocklengths[],
                                         const MPI_Count array_of_displacements[], const MPI_Datatype array_of_types[],
                                         MPI_Datatype* newtype) {
  static constexpr const char* fn = "MPI_Type_create_struct_c";
  FTMPI_ENTER(fn);
  const int c = narrow_count(count);
  if (c == kTooLarge) return too_large(nullptr, fn);
  IntArray b = narrow_array(array_of_blocklengths, c > 0 ? static_cast<std::size_t>(c) : 0, true, true);
  if (!b.fits) return too_large(nullptr, fn);
  std::vector<MPI_Aint> d = to_aints(array_of_displacements, c);
  return PMPI_Type_create_struct(c, b.get(), array_of_displacements ? d.data() : nullptr, array_of_types, newtype);
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
  if (!s.fits || !u.fits || !t.fits) return too_large(nullptr, fn);
  return PMPI_Type_create_subarray(ndims, s.get(), u.get(), t.get(), order, oldtype, newtype);
}
FTMPI_ALIAS(Type_create_subarray_c)

extern "C" int PMPI_Type_create_darray_c(int size, int rank, int ndims, const MPI_Count array_of_gsizes[],
                                         const int array_of_distribs[], const int array_of_dargs[],
                                         const int array_of_psizes[], int order, MPI_Datatype oldtype,
                                         MPI_Datatype* newtype) {
  static constexpr const char* fn = "MPI_Type_create_darray_c";
  FTMPI_ENTER(fn);
  IntArray g = narrow_array(array_of_gsizes, ndims > 0 ? static_cast<std::size_t>(ndims) : 0, true, true);
  if (!g.fits) return too_large(nullptr, fn);
  return PMPI_Type_create_darray(size, rank, ndims, g.get(), array_of_distribs, array_of_dargs, array_of_psizes, order,
                                 oldtype, newtype);
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
  int ni = 0, na = 0, nd = 0;
  if (int rc = PMPI_Type_get_envelope(datatype, &ni, &na, &nd, combiner); rc != MPI_SUCCESS) return rc;
  *num_integers = ni;
  *num_addresses = na;
  *num_large_counts = 0;  // ftmpi keeps int-sized contents (constructors beyond INT_MAX are refused)
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
  return PMPI_Type_get_contents(datatype, clamp(max_integers), clamp(max_addresses), clamp(max_datatypes),
                                array_of_integers, array_of_addresses, array_of_datatypes);
}
FTMPI_ALIAS(Type_get_contents_c)

extern "C" int PMPI_Pack_c(const void* inbuf, MPI_Count incount, MPI_Datatype datatype, void* outbuf,
                           MPI_Count outsize, MPI_Count* position, MPI_Comm comm) {
  static constexpr const char* fn = "MPI_Pack_c";
  FTMPI_ENTER(fn);
  if (!position) return ret(nullptr, Status(Errc::arg, "position is NULL"), fn);
  const int c = narrow_count(incount), o = narrow_count(outsize), p = narrow_count(*position);
  if (c == kTooLarge || o == kTooLarge || p == kTooLarge) return too_large(comm, fn);
  int pos = p;
  const int rc = PMPI_Pack(inbuf, c, datatype, outbuf, o, &pos, comm);
  if (rc == MPI_SUCCESS) *position = pos;
  return rc;
}
FTMPI_ALIAS(Pack_c)

extern "C" int PMPI_Unpack_c(const void* inbuf, MPI_Count insize, MPI_Count* position, void* outbuf,
                             MPI_Count outcount, MPI_Datatype datatype, MPI_Comm comm) {
  static constexpr const char* fn = "MPI_Unpack_c";
  FTMPI_ENTER(fn);
  if (!position) return ret(nullptr, Status(Errc::arg, "position is NULL"), fn);
  const int i = narrow_count(insize), c = narrow_count(outcount), p = narrow_count(*position);
  if (i == kTooLarge || c == kTooLarge || p == kTooLarge) return too_large(comm, fn);
  int pos = p;
  const int rc = PMPI_Unpack(inbuf, i, &pos, outbuf, c, datatype, comm);
  if (rc == MPI_SUCCESS) *position = pos;
  return rc;
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
  const int c = narrow_count(incount);
  if (c == kTooLarge) return too_large(nullptr, fn);
  MPI_Aint pos = static_cast<MPI_Aint>(*position);
  const int rc = PMPI_Pack_external(datarep, inbuf, c, datatype, outbuf, static_cast<MPI_Aint>(outsize), &pos);
  if (rc == MPI_SUCCESS) *position = pos;
  return rc;
}
FTMPI_ALIAS(Pack_external_c)

extern "C" int PMPI_Unpack_external_c(const char datarep[], const void* inbuf, MPI_Count insize, MPI_Count* position,
                                      void* outbuf, MPI_Count outcount, MPI_Datatype datatype) {
  static constexpr const char* fn = "MPI_Unpack_external_c";
  FTMPI_ENTER(fn);
  if (!position) return ret(nullptr, Status(Errc::arg, "position is NULL"), fn);
  const int c = narrow_count(outcount);
  if (c == kTooLarge) return too_large(nullptr, fn);
  MPI_Aint pos = static_cast<MPI_Aint>(*position);
  const int rc = PMPI_Unpack_external(datarep, inbuf, static_cast<MPI_Aint>(insize), &pos, outbuf, c, datatype);
  if (rc == MPI_SUCCESS) *position = pos;
  return rc;
}
FTMPI_ALIAS(Unpack_external_c)

extern "C" int PMPI_Pack_external_size_c(const char datarep[], MPI_Count incount, MPI_Datatype datatype,
                                         MPI_Count* size) {
  static constexpr const char* fn = "MPI_Pack_external_size_c";
  FTMPI_ENTER(fn);
  if (!size) return ret(nullptr, Status(Errc::arg, "size is NULL"), fn);
  const int c = narrow_count(incount);
  if (c == kTooLarge) return too_large(nullptr, fn);
  MPI_Aint s = 0;
  const int rc = PMPI_Pack_external_size(datarep, c, datatype, &s);
  if (rc == MPI_SUCCESS) *size = s;
  return rc;
}
FTMPI_ALIAS(Pack_external_size_c)
