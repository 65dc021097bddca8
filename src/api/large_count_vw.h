// The tail of the large-count v/w collectives (MPI_Gatherv_c ... MPI_Neighbor_alltoallw_init_c, generated
// into api/large_count_coll.cpp): their MPI_Count count and MPI_Aint displacement arrays go to the same
// prepare functions as the int forms' arrays (coll::IndexArray carries either), so an entry may exceed
// INT_MAX; a scalar count beyond INT_MAX goes on as a stand-in element (LargeCount, api/large_count.h).
// The arrays reach the plan as copies (KeptArray) taken at the call: a persistent request rebuilds its plan
// at every MPI_Start from them, the caller may reuse its own at once.
#pragma once
#include <utility>

#include "api/coll_inter.h"
#include "api/coll_persistent.h"
#include "api/coll_prepare.h"
#include "api/large_count.h"

namespace ftmpi::api {

// Which of the three forms of a collective the C function is.
struct CollForm {
  enum Kind { blocking, nonblocking, persistent };
  Kind kind;
  const char* fn;
  MPI_Request* request = nullptr;  // nonblocking, persistent
  MPI_Info info = MPI_INFO_NULL;   // persistent
};

// Run, start or set up (persistent) the plan `make()` builds, as the form asks.
template <class Make>
int finish_collective(const CollForm& f, MPI_Comm comm, Make make) {
  switch (f.kind) {
    case CollForm::blocking:
      return run_collective(comm, make(), f.fn);
    case CollForm::nonblocking:
      if (!f.request) return ret(comm, Status(Errc::arg, "request is NULL"), f.fn);
      return start_collective(comm, make(), f.request, f.fn);
    case CollForm::persistent:
      return init_collective(comm, f.info, std::move(make), f.request, f.fn);
  }
  return ret(comm, Status(Errc::intern, "unknown collective form"), f.fn);
}

// The intracommunicator plan `intra()` or, on an intercommunicator, `inter()`.
template <class Intra, class Inter>
int finish_collective(const CollForm& f, MPI_Comm comm, Intra intra, Inter inter) {
  if (comm->is_inter()) return finish_collective(f, comm, std::move(inter));
  return finish_collective(f, comm, std::move(intra));
}

}  // namespace ftmpi::api
