// The object behind an MPI_Info handle (MPI-3.1 §9): an ftmpi::Info (util/info.h) with a magic number.
// MPI_INFO_ENV is the predefined, read-only one (filled on first use from the process environment).
#pragma once
#include <cstdint>

#include "util/info.h"
#include "util/magic.h"

struct ftmpi_info_s {
  std::uint32_t magic = ftmpi::kMagicInfo;
  ftmpi::Info info;
  bool predefined = false;
};

namespace ftmpi::api {
// A live info object (MPI_INFO_ENV included).
bool valid_info(const ftmpi_info_s* i);
// A new user-visible info object holding a copy of `from` (never null).
ftmpi_info_s* new_info(const Info& from);
// MPI_Init_thread's `required` (MPI_Init: MPI_THREAD_SINGLE), for MPI_INFO_ENV's "thread_level".
void note_requested_thread_level(int required);
}  // namespace ftmpi::api
