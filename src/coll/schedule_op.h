// A collective as a non-blocking operation, and the two ways of driving one. A *plan* is anything with
//   bool advance(p2p::Engine&)   (posts what it can, never blocks, true once finished)
//   const Status& status()       (the outcome once finished)
//   ftmpi_comm_s* comm()
// — a Schedule (coll/schedule.h) or an InterPlan (coll/inter_plan.h). The blocking collectives drive it with
// drive_plan(); the non-blocking ones hand it to the progress loop with start_plan() (a PlanOp, the
// p2p::GenericOp whose completion is the plan's end).
#pragma once
#include <memory>

#include "p2p/engine.h"
#include "p2p/request.h"
#include "progress/progress.h"

namespace ftmpi::coll {

template <class Plan>
class PlanOp final : public p2p::GenericOp {
 public:
  PlanOp(p2p::Engine& engine, std::unique_ptr<Plan> plan) : engine_(engine), plan_(std::move(plan)) {}

  // Contract of GenericOp: called from the progress loop until it returns true; `result` is then final.
  bool progress() override {
    if (!plan_->advance(engine_)) return false;
    result = plan_->status();
    return true;
  }

 private:
  p2p::Engine& engine_;
  std::unique_ptr<Plan> plan_;
};

// Run `plan` to the end, driving progress (backs off like every blocking MPI call).
template <class Plan>
Status drive_plan(p2p::Engine& engine, progress::Progress& progress, Plan& plan) {
  if (!plan.advance(engine)) progress.wait_until([&] { return plan.advance(engine); });
  return plan.status();
}

// Take ownership of `plan` (fully built), post its first operations at once (so that communication overlaps
// the caller's computation) and return a pending request (never null) whose completion is the plan's end;
// the request's error is the plan's status. The request belongs to the caller (engine.release() after
// completion) and has comm set to the plan's communicator. A plan finished already completes at the next
// progress pass.
template <class Plan>
p2p::Request* start_plan(p2p::Engine& engine, std::unique_ptr<Plan> plan) {
  ftmpi_comm_s* comm = plan->comm();
  (void)plan->advance(engine);
  p2p::Request* r = engine.start_generic(std::make_unique<PlanOp<Plan>>(engine, std::move(plan)));
  ftmpi::p2p::set_comm(r, comm);
  return r;
}

}  // namespace ftmpi::coll
