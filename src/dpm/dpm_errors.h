// The error kinds of MPI-3.1 chapter 10 that util/status.h's Errc does not name (MPI_ERR_SPAWN, _PORT, _NAME,
// _SERVICE). They travel as Errc values past the enum's last enumerator (an enum with a fixed underlying
// type holds any int), so util/status.h — included by every file — stays as it is; api/state.cpp maps them
// with mpi_class_of(). Moving them into Errc later changes nothing else.
#pragma once
#include "util/status.h"

namespace ftmpi::dpm {

inline constexpr Errc kErrSpawn = static_cast<Errc>(1001);
inline constexpr Errc kErrPort = static_cast<Errc>(1002);
inline constexpr Errc kErrName = static_cast<Errc>(1003);
inline constexpr Errc kErrService = static_cast<Errc>(1004);

// The MPI error class of a dynamic-process error kind, or 0 for any other Errc.
inline int mpi_class_of(Errc e, int spawn, int port, int name, int service) {
  if (e == kErrSpawn) return spawn;
  if (e == kErrPort) return port;
  if (e == kErrName) return name;
  if (e == kErrService) return service;
  return 0;
}

}  // namespace ftmpi::dpm
