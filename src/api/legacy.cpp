// C API: the MPI-1 names removed in MPI-3.0 that both Open MPI 4.1 and MPICH 4.0 still export, so old codes
// link unchanged: MPI_Address, MPI_Type_extent/lb/ub, MPI_Type_hindexed, MPI_Type_struct,
// MPI_Errhandler_create/set/get. (MPI_Type_hvector is in datatype_ctor.cpp, MPI_Keyval_create/free and
// MPI_Attr_* in attr.cpp / local_utils.cpp.)
//
// Each forwards to its MPI-2 replacement, which checks the arguments and reports errors under its own name.
// They do not take the API lock themselves (the callee does; the lock is not recursive).
//
// MPI_Type_struct also accepts the MPI-1 bound markers MPI_LB and MPI_UB (MPI-1 §3.12.3): an MPI_LB entry
// sets the lower bound (the smallest one wins), an MPI_UB entry the upper bound (the largest wins), the
// other entries build the type as MPI_Type_create_struct does, and the result is that type resized to the
// explicit bounds (no alignment padding when a marker is given). Limitation: the markers are not "sticky"
// (a type built from such a type sees its bounds, as after MPI_Type_create_resized, not the markers), and
// MPI_Type_get_envelope reports MPI_COMBINER_RESIZED for a marker struct.
#include <algorithm>
#include <vector>

#include "api/common.h"

using ftmpi::Errc;
using ftmpi::Status;
using ftmpi::api::ret;

extern "C" int PMPI_Address(void* location, MPI_Aint* address) { return PMPI_Get_address(location, address); }
FTMPI_ALIAS(Address)

extern "C" int PMPI_Type_extent(MPI_Datatype datatype, MPI_Aint* extent) {
  MPI_Aint lb = 0;
  if (extent == nullptr) return ret(nullptr, Status(Errc::arg, "extent is NULL"), "MPI_Type_extent");
  return PMPI_Type_get_extent(datatype, &lb, extent);
}
FTMPI_ALIAS(Type_extent)

extern "C" int PMPI_Type_lb(MPI_Datatype datatype, MPI_Aint* displacement) {
  MPI_Aint extent = 0;
  if (displacement == nullptr) return ret(nullptr, Status(Errc::arg, "displacement is NULL"), "MPI_Type_lb");
  return PMPI_Type_get_extent(datatype, displacement, &extent);
}
FTMPI_ALIAS(Type_lb)

extern "C" int PMPI_Type_ub(MPI_Datatype datatype, MPI_Aint* displacement) {
  MPI_Aint lb = 0, extent = 0;
  if (displacement == nullptr) return ret(nullptr, Status(Errc::arg, "displacement is NULL"), "MPI_Type_ub");
  const int rc = PMPI_Type_get_extent(datatype, &lb, &extent);
  if (rc == MPI_SUCCESS) *displacement = lb + extent;
  return rc;
}
FTMPI_ALIAS(Type_ub)

extern "C" int PMPI_Type_hindexed(int count, int array_of_blocklengths[], MPI_Aint array_of_displacements[],
                                  MPI_Datatype oldtype, MPI_Datatype* newtype) {
  return PMPI_Type_create_hindexed(count, array_of_blocklengths, array_of_displacements, oldtype, newtype);
}
FTMPI_ALIAS(Type_hindexed)

extern "C" int PMPI_Type_struct(int count, int array_of_blocklengths[], MPI_Aint array_of_displacements[],
                                MPI_Datatype array_of_types[], MPI_Datatype* newtype) {
  const char* fn = "MPI_Type_struct";
  if (count < 0) return ret(nullptr, Status(Errc::count, "negative count"), fn);
  if (count > 0 && (array_of_blocklengths == nullptr || array_of_displacements == nullptr || array_of_types == nullptr))
    return ret(nullptr, Status(Errc::arg, "an argument array is NULL"), fn);
  bool has_lb = false, has_ub = false;
  MPI_Aint lb = 0, ub = 0;
  std::vector<int> lens;
  std::vector<MPI_Aint> displs;
  std::vector<MPI_Datatype> types;
  for (int i = 0; i < count; ++i) {
    const MPI_Datatype t = array_of_types[i];
    if (t == MPI_LB || t == MPI_UB) {
      if (array_of_blocklengths[i] < 0) return ret(nullptr, Status(Errc::count, "negative block length"), fn);
      const MPI_Aint d = array_of_displacements[i];
      if (t == MPI_LB) lb = has_lb ? std::min(lb, d) : d, has_lb = true;
      else ub = has_ub ? std::max(ub, d) : d, has_ub = true;
      continue;
    }
    lens.push_back(array_of_blocklengths[i]);
    displs.push_back(array_of_displacements[i]);
    types.push_back(t);
  }
  if (!has_lb && !has_ub)
    return PMPI_Type_create_struct(count, array_of_blocklengths, array_of_displacements, array_of_types, newtype);
  if (newtype == nullptr) return ret(nullptr, Status(Errc::arg, "newtype is NULL"), fn);
  MPI_Datatype inner = MPI_DATATYPE_NULL;
  int rc = PMPI_Type_create_struct(static_cast<int>(lens.size()), lens.data(), displs.data(), types.data(), &inner);
  if (rc != MPI_SUCCESS) return rc;
  // The data entries' bounds (with MPI-1's alignment padding, "epsilon"), overridden by the markers; a
  // struct of markers only spans them (a lone marker is an entry at its displacement).
  MPI_Aint ilb = 0, iextent = 0;
  PMPI_Type_get_extent(inner, &ilb, &iextent);
  bool any_data = false;
  for (int len : lens) any_data = any_data || len > 0;
  if (!has_lb) lb = any_data ? ilb : ub;
  if (!has_ub) ub = any_data ? ilb + iextent : lb;
  if (ub < lb) {
    PMPI_Type_free(&inner);
    return ret(nullptr, Status(Errc::arg, "MPI_UB below MPI_LB"), fn);
  }
  rc = PMPI_Type_create_resized(inner, lb, ub - lb, newtype);
  PMPI_Type_free(&inner);
  return rc;
}
FTMPI_ALIAS(Type_struct)

extern "C" int PMPI_Errhandler_create(MPI_Handler_function* function, MPI_Errhandler* errhandler) {
  return PMPI_Comm_create_errhandler(function, errhandler);
}
FTMPI_ALIAS(Errhandler_create)

extern "C" int PMPI_Errhandler_set(MPI_Comm comm, MPI_Errhandler errhandler) {
  return PMPI_Comm_set_errhandler(comm, errhandler);
}
FTMPI_ALIAS(Errhandler_set)

extern "C" int PMPI_Errhandler_get(MPI_Comm comm, MPI_Errhandler* errhandler) {
  return PMPI_Comm_get_errhandler(comm, errhandler);
}
FTMPI_ALIAS(Errhandler_get)
