// Persistent collectives (MPI-4.0 §6.13): MPI_Bcast_init ... MPI_Neighbor_alltoallw_init.
//
// Model: the init call checks the arguments and keeps them (buffers by address, count/displacement/type
// arrays by copy, so the caller may reuse its arrays at once); every MPI_Start builds a fresh plan (a
// Schedule or an InterPlan, the same one the blocking and non-blocking forms build) and runs it from the
// progress loop exactly like the non-blocking collective; Wait/Test complete it, the request becomes
// inactive and can be started again, MPI_Request_free ends it.
//
// Why a fresh plan per start rather than a cached one: builders copy local data at build time (the
// root's own block, an in-place input) and take fresh collective tags, so a plan is valid for one run of
// one start only. Building costs the arithmetic of the algorithm's steps (no message); the scratch it
// needs comes from the runtime's ScratchPool, which is reused from one start to the next.
//
// Ordering: persistent collectives match in the order of their inits; members may start them in
// different orders, and interleave them differently with their other collectives (MPI-4.0 §6.13; MPICH's
// coll/p_order). So a request's plans take their tags from the request's own channel
// (coll::TagChannel, given at init), never from the communicator's ordinary sequence.
//
// Faults: a start on a communicator with a failed member or a revoked one is not refused; the run fails
// at its first operation and the request completes with MPI_ERR_PROC_FAILED / MPI_ERR_REVOKED (as the
// non-blocking form does). A start after a repair (shrink) still names the old communicator and so fails
// the same way — never a hang.
#pragma once
#include <functional>
#include <memory>
#include <utility>

#include "coll/schedule_op.h"
#include "p2p/request.h"
#include "util/status.h"

namespace ftmpi::coll {

// A restartable GenericOp whose every run is a plan made by `factory` (called at each restart()).
class PersistentColl final : public p2p::GenericOp {
 public:
  // The running form of a freshly built plan (a PlanOp, its first operations posted).
  using Factory = std::function<Result<std::unique_ptr<p2p::GenericOp>>()>;

  explicit PersistentColl(Factory factory) : factory_(std::move(factory)) {}

  Status restart() override {
    Result<std::unique_ptr<p2p::GenericOp>> r = factory_();
    if (!r.ok()) return r.status();
    run_ = std::move(*r);
    return Status::Ok();
  }

  bool progress() override {
    if (!run_ || !run_->progress()) return false;
    result = run_->result;
    run_.reset();  // the plan's scratch goes back to the pool between starts
    return true;
  }

 private:
  Factory factory_;
  std::unique_ptr<p2p::GenericOp> run_;
};

// The running form of `plan` for PersistentColl's factory: first operations posted at once.
template <class Plan>
std::unique_ptr<p2p::GenericOp> begin_plan(p2p::Engine& engine, std::unique_ptr<Plan> plan) {
  (void)plan->advance(engine);
  return std::make_unique<PlanOp<Plan>>(engine, std::move(plan));
}

}  // namespace ftmpi::coll
