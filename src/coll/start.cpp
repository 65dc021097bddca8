// Non-blocking collectives (see start.h).
#include "coll/start.h"

#include "coll/schedule_op.h"
#include "runtime/runtime.h"

namespace ftmpi::coll {

p2p::Request* start(Runtime& rt, std::unique_ptr<Schedule> s) { return start_plan(rt.engine(), std::move(s)); }

}  // namespace ftmpi::coll
