// Intercommunicator collectives as phases (see inter_plan.h).
#include "coll/inter_plan.h"

#include "coll/local_copy.h"
#include "coll/schedule_op.h"
#include "runtime/runtime.h"

namespace ftmpi::coll {

namespace {

bool revoked(const ftmpi_comm_s* c) { return c->revoked.load(std::memory_order_acquire); }

}  // namespace

// Contract: destroyed only after advance() returned true (run() and PlanOp guarantee it), so the
// current schedule, if any, has finished.
InterPlan::~InterPlan() = default;

void* InterPlan::scratch(std::size_t count, const ftmpi_datatype_s* type) {
  const std::size_t bytes = typed_span(count, type);
  scratch_.push_back(std::unique_ptr<std::byte[]>(new std::byte[bytes == 0 ? 1 : bytes]));
  return scratch_.back().get() - type->true_lb;
}

std::unique_ptr<Schedule> InterPlan::next_phase() {
  if (next_ == phases_.size()) return nullptr;
  Phase& ph = phases_[next_++];
  auto s = std::make_unique<Schedule>(ph.comm, ph.tag);
  if (ph.comm != inter_) s->interrupt_on_revoke(inter_);
  ph.build(*s);
  return s;
}

bool InterPlan::advance(p2p::Engine& engine) {
  while (!done_) {
    if (!current_) {
      if (revoked(inter_)) {
        if (status_.ok()) status_ = Status(Errc::revoked, "the intercommunicator was revoked");
        done_ = true;
        break;
      }
      current_ = next_phase();
      if (!current_) {
        done_ = true;
        break;
      }
    }
    if (!current_->advance(engine)) return false;
    if (status_.ok() && !current_->status().ok()) status_ = current_->status();
    current_.reset();
  }
  return true;
}

Status run(Runtime& rt, InterPlan& plan) { return drive_plan(rt.engine(), rt.progress(), plan); }

p2p::Request* start(Runtime& rt, std::unique_ptr<InterPlan> plan) { return start_plan(rt.engine(), std::move(plan)); }

}  // namespace ftmpi::coll
