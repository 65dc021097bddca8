// Error handler objects. Invocation (what happens to an error code) is the C API's job: api/errors.cpp.
#pragma once
#include <cstdint>

#include "util/magic.h"

typedef void ftmpi_comm_errhandler_fn(struct ftmpi_comm_s **, int *, ...);

struct ftmpi_errhandler_s {
  // reinit_async / reinit_sync: seed 003 §1.4 (MPI_ERRORS_REINIT_ASYNC/SYNC, only on MPI_COMM_WORLD).
  enum class Kind : std::uint8_t { fatal, return_, abort, user, reinit_async, reinit_sync };
  std::uint32_t magic = ftmpi::kMagicErrhandler;
  Kind kind = Kind::fatal;
  ftmpi_comm_errhandler_fn *fn = nullptr;  // for Kind::user
  bool predefined = false;
  int refs = 1;
};
