// Error handler objects. Invocation (what happens to an error code) is the C API's job: api/errors.cpp.
#pragma once
#include <cstdint>

#include "util/magic.h"

typedef void ftmpi_comm_errhandler_fn(struct ftmpi_comm_s **, int *, ...);

struct ftmpi_errhandler_s {
  enum class Kind : std::uint8_t { fatal, return_, abort, user };
  std::uint32_t magic = ftmpi::kMagicErrhandler;
  Kind kind = Kind::fatal;
  ftmpi_comm_errhandler_fn *fn = nullptr;  // for Kind::user
  bool predefined = false;
  int refs = 1;
};
