// Persistent collectives in the C API (MPI-4.0 §6.13, §7.8): the shared tail of every MPI_X_init.
// See coll/persistent.h for the model (fresh plan per MPI_Start, arguments kept, faults at completion).
#pragma once
#include <memory>
#include <utility>
#include <vector>

#include "api/common.h"
#include "api/info_object.h"
#include "coll/persistent.h"
#include "coll/schedule.h"

namespace ftmpi::api {

// Checks shared by every *_init beyond its collective's own: a request pointer and MPI_INFO_NULL or a live
// info object (no hint is interpreted).
inline Status persistent_coll_args(MPI_Info info, const MPI_Request* request) {
  if (!request) return Status(Errc::arg, "request is NULL");
  if (info != MPI_INFO_NULL && !valid_info(info)) return Status(Errc::info, "invalid info object");
  return {};
}

// `make()` returns Result<std::unique_ptr<Plan>> (Plan: coll::Schedule or coll::InterPlan) for the
// collective with its arguments bound (arrays captured by copy). It is called once now, to check the
// arguments (the plan is dropped unstarted; it may copy local blocks into the receive buffer, which MPI
// leaves undefined until completion), then at every MPI_Start. Every plan of the request takes its tags
// from the request's own channel (coll::TagChannel), so starts may come in any order at the members:
// they match by the order of the inits. Stores an inactive persistent request in *request.
template <class Make>
int init_collective(MPI_Comm comm, MPI_Info info, Make make, MPI_Request* request, const char* fn) {
  if (Status st = persistent_coll_args(info, request); !st.ok()) return ret(comm, st, fn);
  // The request's channels (coll/schedule.h): one for the communicator, one for an intercommunicator's
  // local_comm; the id is taken even by a refused init, as at every member.
  coll::TagChannel channel{comm->persistent_seq++, 0}, local_channel{channel.id, 0};
  {
    coll::TagScope scope(comm, &channel, &local_channel);
    auto first = make();
    if (!first.ok()) return ret(comm, first.status(), fn);
  }
  p2p::Engine& engine = rt().engine();
  auto factory = [make = std::move(make), &engine, comm, channel,
                  local_channel]() mutable -> Result<std::unique_ptr<p2p::GenericOp>> {
    coll::TagScope scope(comm, &channel, &local_channel);  // this request's own tags
    auto plan = make();
    if (!plan.ok()) return plan.status();
    return coll::begin_plan(engine, std::move(*plan));
  };
  p2p::Request* r = engine.generic_init(std::make_unique<coll::PersistentColl>(std::move(factory)));
  p2p::set_comm(r, comm);  // the communicator lives as long as the request
  *request = r;
  return MPI_SUCCESS;
}

// An argument array kept by a persistent request: a copy of the caller's `n` entries (the caller may reuse
// its array at once), or null when the caller passed NULL or the array is not significant here.
template <class T>
class KeptArray {
 public:
  KeptArray(const T* a, std::size_t n, bool significant = true) : null_(!a || !significant) {
    if (!null_) v_.assign(a, a + n);
    v_.resize(v_.size() + 1);  // data() never null, even for n == 0
  }
  const T* get() const { return null_ ? nullptr : v_.data(); }

 private:
  bool null_;
  std::vector<T> v_;
};

}  // namespace ftmpi::api
