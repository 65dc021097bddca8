// What the two halves of the MPI tool information interface share: api/mpit.cpp (events, sources,
// MPI_T_init_thread / MPI_T_finalize) and api/mpit_vars.cpp (control and performance variables,
// categories, enumerations).
#pragma once
#include <algorithm>
#include <atomic>
#include <cstring>

#include "mpi.h"

namespace ftmpi::api::mpit {

inline std::atomic<int> g_t_init{0};  // MPI_T_init_thread minus MPI_T_finalize calls

inline bool t_ready() { return g_t_init.load() > 0; }

// MPI_T string rule: with a NULL buffer or *len == 0 only the length (with the NUL) is returned; otherwise
// at most *len - 1 characters and a NUL are written and *len is what was written, NUL included. A negative
// *len is the caller's error: nothing is written (the functions check bad_len first and return MPI_ERR_ARG).
inline bool bad_len(const int* len) { return len != nullptr && *len < 0; }
inline void put_string(const char* s, char* buf, int* len) {
  if (!len || *len < 0) return;
  const int need = static_cast<int>(std::strlen(s)) + 1;
  if (!buf || *len == 0) {
    *len = need;
    return;
  }
  const int n = std::min(need, *len);
  std::memcpy(buf, s, static_cast<std::size_t>(n - 1));
  buf[n - 1] = '\0';
  *len = n;
}

// The number of MPI_T events (api/mpit.cpp), all in the fault-tolerance category.
int event_count();

}  // namespace ftmpi::api::mpit

#define FTMPI_T_CHECK() \
  if (!::ftmpi::api::mpit::t_ready()) return MPI_T_ERR_NOT_INITIALIZED
