// The one hook through which the fault-tolerance layer tells a listener (the event hub of
// src/models/events/) what it learns: a process failure the moment it is recorded, a communicator revoked
// here, an application event that arrived from a peer. The FT layer calls it and knows nothing else of
// events, subscriptions or callbacks.
//
// Contract: the methods may be called on any thread (the service thread for launcher notices, the
// application thread for failures reported by peers, revokes and user events), possibly with the runtime
// lock held; they must be quick, must not call back into the FT layer or MPI, and must not block on anything
// a callback might hold. `comm` is the communicator handle as an opaque key.
#pragma once
#include "ft/failure_state.h"

namespace ftmpi::ft {

class FailureObserver {
 public:
  virtual ~FailureObserver() = default;
  // `rec` was just added to the FailureState (its bit is set): called once per failed process.
  virtual void on_process_failed(const FailureRecord& rec) = 0;
  // `comm` was revoked here for the first time; `revoker_world` is the process whose revoke message
  // arrived first (this process for a local call).
  virtual void on_comm_revoked(const void* comm, int revoker_world) = 0;
  // An application event (MPIX_Event_publish) published on `comm` by `src_world`.
  virtual void on_user_event(const void* comm, int src_world, int code) = 0;
};

}  // namespace ftmpi::ft
