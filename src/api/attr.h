// The C API's attribute registry (comm/attributes.h) and the hooks object constructors/destructors call:
// copy on MPI_Comm_dup / MPI_Type_dup, delete on MPI_Comm_free / MPI_Type_free / MPI_Finalize.
#pragma once
#include "comm/attributes.h"

namespace ftmpi::api {

// Process-wide (keyvals outlive communicators; the C API needs one table, like its predefined handles).
attr::AttributeRegistry& attributes();

// Copy `from`'s attributes to the new object `to`: MPI_SUCCESS, or the failing callback's error code
// (then `to` has no attributes).
int copy_attributes(attr::ObjectKind kind, const void* from, const void* to);
// Delete every attribute of `object`: MPI_SUCCESS, or the failing callback's error code.
int delete_attributes(attr::ObjectKind kind, const void* object);

}  // namespace ftmpi::api
