// Communicators. An intracommunicator is a group plus two context ids (point-to-point and collective
// traffic never match each other) plus per-communicator state (error handler, name, later: revoked flag,
// acknowledged failures, topology, attributes).
#pragma once
#include <atomic>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "comm/errhandler.h"
#include "comm/group.h"
#include "util/magic.h"

namespace ftmpi::ft {
struct CommFt;
}
namespace ftmpi::topo {
struct Topology;
}
namespace ftmpi {
class Info;
}
namespace ftmpi::coll {
class ShmArea;
struct TagChannel;
}

struct ftmpi_comm_s {
  std::uint32_t magic = 0;          // kMagicComm once initialised (predefined ones at MPI_Init)
  ftmpi_group_s *group = nullptr;   // local group (owned reference)
  int rank = -1;                    // my rank in `group`
  int size = 0;
  std::uint32_t ctx_pt2pt = 0;      // context id of point-to-point traffic
  std::uint32_t ctx_coll = 0;       // context id of collective traffic (= ctx_pt2pt + 1)
  ftmpi_errhandler_s *errhandler = nullptr;
  const void *session = nullptr;    // the MPI session it derives from (api/session.cpp), copied by make_comm
  std::string name;
  bool predefined = false;
  std::uint32_t coll_seq = 0;       // collectives issued on this communicator (used for internal tags)
  std::uint32_t idup_seq = 0;       // MPI_Comm_idup calls on it (keys of their agreements, comm/comm_idup.h)
  std::uint32_t part_seq = 0;       // partitioned sends: the next free data tag offset (p2p/partitioned.h)
  // Persistent collectives (coll/persistent.h): requests initialised on it so far (each one's tag channel),
  // and the channel whose tags next_coll_tag hands out while a persistent request builds its plan.
  std::uint32_t persistent_seq = 0;
  ftmpi::coll::TagChannel *tag_channel = nullptr;
  std::atomic<bool> revoked{false}; // ULFM (issue 3); read by every blocking loop
  ftmpi::ft::CommFt *ft = nullptr;   // fault-tolerance state (acknowledged failures, agreements), ft/
  // Shared-memory collectives (coll/shm_area.h): small collectives counted so far, the state of the area
  // (0 not decided, 1 set up, 2 not used, 3 set-up failed: later small collectives fail) and the area.
  int shm_calls = 0;
  std::uint8_t shm_state = 0;
  ftmpi::coll::ShmArea *shm_area = nullptr;

  ftmpi_group_s *remote_group = nullptr;  // intercommunicators: the remote group (owned reference)
  ftmpi_comm_s *local_comm = nullptr;     // intercommunicators: a hidden intracommunicator over `group`
                                          // (own context), for agreements among the local side (owned)
  std::shared_ptr<const ftmpi::topo::Topology> topo;  // process topology (topo/topology.h), shared by dups
  std::shared_ptr<const ftmpi::Info> hints;           // info hints of set_info / dup_with_info (util/info.h)

  // Life cycle (comm/comm_ops.h): objects made by make_comm are counted; MPI_Comm_free sets
  // retire_on_idle, and the communicator is retired (context ids given back, FT state, group and error
  // handler released) once no request holds it any more.
  bool counted = false;         // made by make_comm (predefined and transient communicators: false)
  bool retire_on_idle = false;  // freed by the user, waiting for its last request
  int holds = 0;                // requests (and transient API holds) pointing here

  // World rank of communicator rank `r` (0 <= r < size) in the local group.
  int world_rank(int r) const { return group->world_ranks[static_cast<size_t>(r)]; }
  bool is_inter() const { return remote_group != nullptr; }
  // Point-to-point addressing: ranks name processes of the remote group on an intercommunicator, of the
  // local group otherwise. The envelope's source is always the sender's rank in its local group, which is
  // the receiver's remote group, so matching needs nothing else.
  int peer_size() const { return remote_group ? remote_group->size() : size; }
  int peer_world_rank(int r) const {
    return (remote_group ? remote_group : group)->world_ranks[static_cast<size_t>(r)];
  }
};

namespace ftmpi::comm {
using Communicator = ftmpi_comm_s;

// A request (or an API call for its duration) starts / stops pointing at `c`. comm_unhold returns true
// when `c` was freed by the user and nothing holds it any more: the caller then retires it
// (comm::retire, comm_ops.h) — at a point where no engine or FT loop is walking its structures.
inline void comm_hold(Communicator* c) {
  if (c && c->counted) ++c->holds;
}
inline bool comm_unhold(Communicator* c) {
  return c && c->counted && --c->holds == 0 && c->retire_on_idle;
}

// Context ids: each communicator takes an even id for point-to-point and id+1 for collectives.
// World = 0/1, self = 2/3. New ids come from ContextAllocator (comm/context_alloc.h).
inline constexpr std::uint32_t kCtxWorld = 0;
inline constexpr std::uint32_t kCtxSelf = 2;
}  // namespace ftmpi::comm
