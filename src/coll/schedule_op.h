// A schedule as a non-blocking operation: the engine's progress loop advances it (p2p::GenericOp), so a
// non-blocking collective is "build the schedule, start_generic(ScheduleOp)". The blocking collectives
// use coll::run() instead. Created by coll::start() (start.h).
#pragma once
#include <memory>

#include "coll/schedule.h"
#include "p2p/engine.h"
#include "p2p/request.h"

namespace ftmpi::coll {

class ScheduleOp final : public p2p::GenericOp {
 public:
  ScheduleOp(p2p::Engine& engine, std::unique_ptr<Schedule> schedule)
      : engine_(engine), schedule_(std::move(schedule)) {}

  // Contract of GenericOp: called from the progress loop until it returns true; `result` is then final.
  bool progress() override {
    if (!schedule_->advance(engine_)) return false;
    result = schedule_->status();
    return true;
  }

 private:
  p2p::Engine& engine_;
  std::unique_ptr<Schedule> schedule_;
};

}  // namespace ftmpi::coll
