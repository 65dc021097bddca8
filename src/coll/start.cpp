// Non-blocking collectives (see start.h).
#include "coll/start.h"

#include "coll/schedule_op.h"
#include "runtime/runtime.h"

namespace ftmpi::coll {

p2p::Request* start(Runtime& rt, std::unique_ptr<Schedule> s) {
  p2p::Engine& engine = rt.engine();
  ftmpi_comm_s* comm = s->comm();
  (void)s->advance(engine);  // post the first round now; a finished schedule completes at the next progress
  p2p::Request* r = engine.start_generic(std::make_unique<ScheduleOp>(engine, std::move(s)));
  r->comm = comm;
  return r;
}

}  // namespace ftmpi::coll
