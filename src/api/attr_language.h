/* The language of attribute values (MPI-3.1 §17.2.7), for the Fortran bindings (src/fortran), which set and
 * read attributes through the C API and then use these calls of libmpi (comm/attributes.h holds the model).
 *
 * kind: FTMPI_ATTR_COMM / _TYPE / _WIN, object: the C handle. lang: FTMPI_ATTR_LANG_C (a pointer),
 * FTMPI_ATTR_LANG_AINT (a Fortran INTEGER(KIND=MPI_ADDRESS_KIND): MPI_Comm_set_attr ...),
 * FTMPI_ATTR_LANG_INT (a Fortran INTEGER: MPI_Attr_put, MPI_Keyval_create). Each returns an MPI error code. */
#ifndef FTMPI_API_ATTR_LANGUAGE_H
#define FTMPI_API_ATTR_LANGUAGE_H

#include "mpi.h"

#define FTMPI_ATTR_COMM 0
#define FTMPI_ATTR_TYPE 1
#define FTMPI_ATTR_WIN 2
#define FTMPI_ATTR_LANG_C 0
#define FTMPI_ATTR_LANG_AINT 1
#define FTMPI_ATTR_LANG_INT 2

#ifdef __cplusplus
extern "C" {
#endif

/* The callbacks of `keyval` (just created through MPI_X_create_keyval with C wrappers of Fortran
 * procedures) are Fortran ones of language `lang`: they get values as integers, and what a copy callback
 * returns is a Fortran value. */
__attribute__((visibility("default"))) int ftmpi_attr_keyval_language(int kind, int keyval, int lang);
/* Sets attribute `keyval` of `object` to the Fortran integer `value` of language `lang` (through
 * MPI_X_set_attr: errors go to the object's error handler as there). */
__attribute__((visibility("default"))) int ftmpi_attr_set_fortran(int kind, void *object, int keyval, MPI_Aint value,
                                                                  int lang);
/* Reads an attribute as Fortran sees it (through MPI_X_get_attr, which checks and reports errors): *value the
 * integer (a value set from C, or a predefined key C gives as a pointer: the pointer's address), *flag 0 when
 * absent. Predefined keys whose Fortran value is the pointed-to integer (MPI_TAG_UB ...) are the caller's. */
__attribute__((visibility("default"))) int ftmpi_attr_get_fortran(int kind, void *object, int keyval, MPI_Aint *value,
                                                                  int *flag);

#ifdef __cplusplus
}
#endif

#endif
