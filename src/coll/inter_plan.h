// An intercommunicator collective as a list of phases (MPI-3.1 §5.2.2 collectives, see coll/inter.h).
//
// A phase is one schedule, either on the intercommunicator (peers are ranks of the remote group) or on its
// hidden intracommunicator `local_comm` (this group only). Phases run one after the other and each is built
// only when the one before it finished: builders may copy local data at build time, and that must see the
// earlier phases' results. The collective tag of every phase is reserved when the phase is added, so a plan
// takes its tags in the order the collectives were called on every member, however the phases of several
// outstanding plans interleave later (non-blocking forms).
//
// Rules that keep the members of both groups matched: every member adds exactly one inter() phase per
// collective (an empty one when it moves nothing), and the local() phases a member adds depend only on
// arguments that are the same for its whole group.
//
// Failures: a failed phase does not stop the later ones (a leader whose exchange with the remote group
// failed still serves the local phases its group waits in, with undefined data as MPI allows after an
// error), so no member of a live group hangs; the outcome is the first error. A revoked intercommunicator
// ends the plan at once (Errc::revoked), also in the middle of a local phase.
#pragma once
#include <cstddef>
#include <functional>
#include <memory>
#include <vector>

#include "coll/schedule.h"
#include "p2p/engine.h"
#include "p2p/request.h"
#include "util/status.h"

namespace ftmpi {
class Runtime;
}

namespace ftmpi::coll {

class InterPlan {
 public:
  using Build = std::function<void(Schedule&)>;
  // A plan for one collective on the intercommunicator `inter` (inter->is_inter()).
  explicit InterPlan(ftmpi_comm_s* inter) : inter_(inter) {}
  InterPlan(const InterPlan&) = delete;
  InterPlan& operator=(const InterPlan&) = delete;
  ~InterPlan();

  // ---- building (in the order the phases run) ----
  // A phase on the intercommunicator; reserves its tag now.
  void inter(Build b) { add(inter_, std::move(b)); }
  // A phase on this group's local_comm; reserves its tag now.
  void local(Build b) { add(inter_->local_comm, std::move(b)); }
  // Room for `count` elements of `type` laid out as the type says, owned by the plan (it outlives every
  // phase, so one phase can hand data to the next). Returns the address of element 0.
  void* scratch(std::size_t count, const ftmpi_datatype_s* type);

  // ---- execution ----
  // Build and advance the phases; never blocks. True once finished; status() is then the outcome.
  bool advance(p2p::Engine& engine);
  const Status& status() const { return status_; }
  ftmpi_comm_s* comm() const { return inter_; }

  // The next phase's schedule, built now (with its reserved tag), or nullptr after the last one. advance()
  // runs the phases through this; tests without processes call it directly (each phase only once the
  // previous one has finished) instead of advance().
  std::unique_ptr<Schedule> next_phase();

 private:
  struct Phase {
    ftmpi_comm_s* comm;
    int tag;
    Build build;
  };
  void add(ftmpi_comm_s* c, Build b) { phases_.push_back({c, next_coll_tag(c), std::move(b)}); }

  ftmpi_comm_s* inter_;
  std::vector<Phase> phases_;
  std::size_t next_ = 0;
  std::unique_ptr<Schedule> current_;
  std::vector<std::unique_ptr<std::byte[]>> scratch_;
  bool done_ = false;
  Status status_;
};

// Blocking form: run `plan` to the end (backing off like every blocking call) and return its outcome.
Status run(Runtime& rt, InterPlan& plan);
// Non-blocking form: as coll::start (coll/start.h) for a plan: the first phase is posted at once, the
// returned request (never null, comm = the intercommunicator) completes when the plan does, with its status.
p2p::Request* start(Runtime& rt, std::unique_ptr<InterPlan> plan);

}  // namespace ftmpi::coll
