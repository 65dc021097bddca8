// C API: decoding datatypes and finding predefined ones by size (MPI-3.1 §4.1.13, §17.1.9):
// MPI_Type_get_envelope, MPI_Type_get_contents, MPI_Type_match_size.
//
// Every derived type remembers the call that made it (datatype/contents.h, recorded by finish_new_type).
// get_contents hands out the constituent types: predefined ones as they are, derived ones as new handles
// the caller frees, equal to the constituent (same type map, committed state and recorded call, so decoding
// can recurse) even if the user freed the original meanwhile.
#include <algorithm>
#include <vector>

#include "api/common.h"
#include "api/datatype_common.h"
#include "datatype/builtin_types.h"
#include "datatype/contents.h"
#include "datatype/derived.h"

namespace {
using ftmpi::Errc;
namespace dt = ftmpi::dt;
constexpr auto fail = ftmpi::api::fail_type_call;

int mpi_combiner(dt::Combiner c) {
  switch (c) {
    case dt::Combiner::named: return MPI_COMBINER_NAMED;
    case dt::Combiner::dup: return MPI_COMBINER_DUP;
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
    case dt::Combiner::f90_integer: return MPI_COMBINER_F90_INTEGER;
    case dt::Combiner::f90_real: return MPI_COMBINER_F90_REAL;
    case dt::Combiner::f90_complex: return MPI_COMBINER_F90_COMPLEX;
  }
  return MPI_COMBINER_NAMED;
}

template <class T>
int count_of(const std::vector<T>& v) {
  return static_cast<int>(v.size());
}
}  // namespace

extern "C" int PMPI_Type_get_envelope(MPI_Datatype datatype, int* num_integers, int* num_addresses,
                                      int* num_datatypes, int* combiner) {
  FTMPI_ENTER("MPI_Type_get_envelope");
  const char* fn = "MPI_Type_get_envelope";
  if (!dt::live(datatype)) return fail(Errc::type, "invalid datatype", fn);
  if (num_integers == nullptr || num_addresses == nullptr || num_datatypes == nullptr || combiner == nullptr)
    return fail(Errc::arg, "an output argument is NULL", fn);
  const dt::Combiner c = dt::combiner_of(datatype);
  *combiner = mpi_combiner(c);
  if (c == dt::Combiner::named) {
    *num_integers = *num_addresses = *num_datatypes = 0;
    return MPI_SUCCESS;
  }
  const dt::Contents& how = *datatype->contents;
  if (!how.large.empty())
    return fail(Errc::type, "the type was made by a large-count constructor with counts beyond the int range: "
                            "decode it with MPI_Type_get_envelope_c / MPI_Type_get_contents_c", fn);
  *num_integers = count_of(how.ints);
  *num_addresses = count_of(how.aints);
  *num_datatypes = count_of(how.types);
  return MPI_SUCCESS;
}
FTMPI_ALIAS(Type_get_envelope)

extern "C" int PMPI_Type_get_contents(MPI_Datatype datatype, int max_integers, int max_addresses,
                                      int max_datatypes, int array_of_integers[], MPI_Aint array_of_addresses[],
                                      MPI_Datatype array_of_datatypes[]) {
  FTMPI_ENTER("MPI_Type_get_contents");
  const char* fn = "MPI_Type_get_contents";
  if (!dt::live(datatype)) return fail(Errc::type, "invalid datatype", fn);
  if (dt::combiner_of(datatype) == dt::Combiner::named)
    return fail(Errc::type, "a predefined datatype has no contents (its combiner is MPI_COMBINER_NAMED)", fn);
  const dt::Contents& how = *datatype->contents;
  if (!how.large.empty())
    return fail(Errc::type, "the type was made by a large-count constructor with counts beyond the int range: "
                            "decode it with MPI_Type_get_contents_c", fn);
  if (max_integers < count_of(how.ints) || max_addresses < count_of(how.aints) ||
      max_datatypes < count_of(how.types))
    return fail(Errc::arg, "max_integers, max_addresses or max_datatypes is smaller than MPI_Type_get_envelope's "
                           "count", fn);
  if ((!how.ints.empty() && array_of_integers == nullptr) || (!how.aints.empty() && array_of_addresses == nullptr) ||
      (!how.types.empty() && array_of_datatypes == nullptr))
    return fail(Errc::arg, "an output array is NULL", fn);
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
      return ftmpi::api::ret(nullptr, copy.status(), fn);
    }
    types.push_back(copy.value());
  }
  std::copy(how.ints.begin(), how.ints.end(), array_of_integers);
  std::copy(how.aints.begin(), how.aints.end(), array_of_addresses);
  std::copy(types.begin(), types.end(), array_of_datatypes);
  return MPI_SUCCESS;
}
FTMPI_ALIAS(Type_get_contents)

extern "C" int PMPI_Type_match_size(int typeclass, int size, MPI_Datatype* datatype) {
  FTMPI_ENTER("MPI_Type_match_size");
  const char* fn = "MPI_Type_match_size";
  if (datatype == nullptr) return fail(Errc::arg, "datatype is NULL", fn);
  dt::TypeClass c;
  switch (typeclass) {
    case MPI_TYPECLASS_REAL: c = dt::TypeClass::real; break;
    case MPI_TYPECLASS_INTEGER: c = dt::TypeClass::integer; break;
    case MPI_TYPECLASS_COMPLEX: c = dt::TypeClass::complex; break;
    default: return fail(Errc::arg, "typeclass must be MPI_TYPECLASS_REAL, _INTEGER or _COMPLEX", fn);
  }
  const dt::Datatype* t = size > 0 ? dt::builtin_of_size(c, static_cast<std::size_t>(size)) : nullptr;
  if (t == nullptr) return fail(Errc::arg, "no predefined type of that class has that size", fn);
  *datatype = const_cast<MPI_Datatype>(t);
  return MPI_SUCCESS;
}
FTMPI_ALIAS(Type_match_size)
