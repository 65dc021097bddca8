// C API: the MPI-1 names removed in MPI-3.0 that both Open MPI 4.1 and MPICH 4.0 still export, so old codes
// link unchanged: MPI_Address, MPI_Type_extent/lb/ub, MPI_Type_hindexed, MPI_Type_struct,
// MPI_Errhandler_create/set/get. (MPI_Type_hvector is in datatype_ctor.cpp, MPI_Keyval_create/free and
// MPI_Attr_* in attr.cpp / local_utils.cpp.)
//
// Each forwards to its MPI-2 replacement, which checks the arguments and reports errors under its own name.
// They do not take the API lock themselves (the callee does; the lock is not recursive).
//
// MPI_Type_struct's MPI-1 bound markers MPI_LB and MPI_UB are honoured by MPI_Type_create_struct itself
// (dt::make_struct), so MPI_Type_get_envelope reports MPI_COMBINER_STRUCT with the markers among the types.
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
  return PMPI_Type_create_struct(count, array_of_blocklengths, array_of_displacements, array_of_types, newtype);
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
