// C API: MPI_Type_create_subarray and MPI_Type_create_darray (MPI-3.1 §4.1.3, §4.1.4). The type maps are
// built by datatype/array_types.*; this file checks the handles and arrays and maps the MPI constants.
#include <optional>
#include <span>
#include <vector>

#include "api/common.h"
#include "api/datatype_common.h"
#include "datatype/array_types.h"

namespace {
using ftmpi::Errc;
namespace dt = ftmpi::dt;
using ftmpi::api::describable;
using ftmpi::api::finish_new_type;
using ftmpi::api::int_args;
constexpr auto fail = ftmpi::api::fail_type_call;

// The storage order, or nullopt for a value that is neither MPI_ORDER_C nor MPI_ORDER_FORTRAN.
std::optional<dt::Order> order_of(int order) {
  if (order == MPI_ORDER_C) return dt::Order::c;
  if (order == MPI_ORDER_FORTRAN) return dt::Order::fortran;
  return std::nullopt;
}

std::optional<dt::Distribution> distribution_of(int d) {
  switch (d) {
    case MPI_DISTRIBUTE_BLOCK: return dt::Distribution::block;
    case MPI_DISTRIBUTE_CYCLIC: return dt::Distribution::cyclic;
    case MPI_DISTRIBUTE_NONE: return dt::Distribution::none;
    default: return std::nullopt;
  }
}
}  // namespace

extern "C" int PMPI_Type_create_subarray(int ndims, const int array_of_sizes[], const int array_of_subsizes[],
                                         const int array_of_starts[], int order, MPI_Datatype oldtype,
                                         MPI_Datatype* newtype) {
  FTMPI_ENTER("MPI_Type_create_subarray");
  const char* fn = "MPI_Type_create_subarray";
  if (ndims < 1) return fail(Errc::count, "ndims must be positive", fn);
  if (array_of_sizes == nullptr || array_of_subsizes == nullptr || array_of_starts == nullptr)
    return fail(Errc::arg, "an array argument is NULL", fn);
  const std::optional<dt::Order> o = order_of(order);
  if (!o) return fail(Errc::arg, "order must be MPI_ORDER_C or MPI_ORDER_FORTRAN", fn);
  if (!describable(oldtype)) return fail(Errc::type, "invalid datatype", fn);
  if (newtype == nullptr) return fail(Errc::arg, "newtype is NULL", fn);
  const auto n = static_cast<std::size_t>(ndims);
  return finish_new_type(dt::make_subarray(std::span(array_of_sizes, n), std::span(array_of_subsizes, n),
                                           std::span(array_of_starts, n), *o, oldtype),
                         {dt::Combiner::subarray,
                          int_args({ndims}, ndims, {array_of_sizes, array_of_subsizes, array_of_starts}, {order}),
                          {},
                          {oldtype}},
                         newtype, fn);
}
FTMPI_ALIAS(Type_create_subarray)

namespace ftmpi::api {
// MPI_Type_create_darray with int (MPI-3.1) or MPI_Count (MPI-4.0 _c) global sizes; `large` records the
// call in the large form (contents.h).
template <class G>
int create_darray(int size, int rank, int ndims, const G* array_of_gsizes, const int* array_of_distribs,
                  const int* array_of_dargs, const int* array_of_psizes, int order, MPI_Datatype oldtype,
                  MPI_Datatype* newtype, bool large, const char* fn) {
  if (ndims < 1) return fail(Errc::count, "ndims must be positive", fn);
  if (array_of_gsizes == nullptr || array_of_distribs == nullptr || array_of_dargs == nullptr ||
      array_of_psizes == nullptr)
    return fail(Errc::arg, "an array argument is NULL", fn);
  const std::optional<dt::Order> o = order_of(order);
  if (!o) return fail(Errc::arg, "order must be MPI_ORDER_C or MPI_ORDER_FORTRAN", fn);
  if (!describable(oldtype)) return fail(Errc::type, "invalid datatype", fn);
  if (newtype == nullptr) return fail(Errc::arg, "newtype is NULL", fn);
  std::vector<dt::DarrayDim> dims(static_cast<std::size_t>(ndims));
  for (int i = 0; i < ndims; ++i) {
    const std::optional<dt::Distribution> d = distribution_of(array_of_distribs[i]);
    if (!d)
      return fail(Errc::arg, "array_of_distribs entries must be MPI_DISTRIBUTE_BLOCK, _CYCLIC or _NONE", fn);
    dims[i].gsize = array_of_gsizes[i];
    dims[i].distribution = *d;
    if (array_of_dargs[i] != MPI_DISTRIBUTE_DFLT_DARG) dims[i].darg = array_of_dargs[i];
    dims[i].psize = array_of_psizes[i];
  }
  const auto n = static_cast<std::size_t>(ndims);
  dt::Contents how{dt::Combiner::darray, {size, rank, ndims}, {}, {oldtype}};
  if (large) {
    how.large.assign(array_of_gsizes, array_of_gsizes + n);
  } else {
    how.ints.insert(how.ints.end(), array_of_gsizes, array_of_gsizes + n);
  }
  for (const int* a : {array_of_distribs, array_of_dargs, array_of_psizes}) how.ints.insert(how.ints.end(), a, a + n);
  how.ints.push_back(order);
  return finish_new_type(dt::make_darray(size, rank, dims, *o, oldtype), std::move(how), newtype, fn);
}
template int create_darray(int, int, int, const int*, const int*, const int*, const int*, int, MPI_Datatype,
                           MPI_Datatype*, bool, const char*);
template int create_darray(int, int, int, const long long*, const int*, const int*, const int*, int, MPI_Datatype,
                           MPI_Datatype*, bool, const char*);
}  // namespace ftmpi::api

extern "C" int PMPI_Type_create_darray(int size, int rank, int ndims, const int array_of_gsizes[],
                                       const int array_of_distribs[], const int array_of_dargs[],
                                       const int array_of_psizes[], int order, MPI_Datatype oldtype,
                                       MPI_Datatype* newtype) {
  FTMPI_ENTER("MPI_Type_create_darray");
  return ftmpi::api::create_darray(size, rank, ndims, array_of_gsizes, array_of_distribs, array_of_dargs,
                                   array_of_psizes, order, oldtype, newtype, false, "MPI_Type_create_darray");
}
FTMPI_ALIAS(Type_create_darray)
