// Non-blocking collectives: a built schedule handed to the progress loop as a request.
#pragma once
#include <memory>

#include "coll/schedule.h"
#include "p2p/request.h"

namespace ftmpi {
class Runtime;
}

namespace ftmpi::coll {

// Take ownership of `s` (fully built), post its first operations at once (so that communication overlaps
// the caller's computation) and return a pending request (never null) whose completion is the schedule's
// end; the request's error is the schedule's status (a failed member or a revoke end it with
// proc_failed / revoked). The request belongs to the caller (engine.release() after completion), and has
// comm set to the schedule's communicator.
p2p::Request* start(Runtime& rt, std::unique_ptr<Schedule> s);

}  // namespace ftmpi::coll
