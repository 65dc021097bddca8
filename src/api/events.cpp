// Asynchronous events (seed 004; MPIX_Event_*), per-communicator failure callbacks and LAM's failed-rank
// queries (seed 002 §7.3, §8.2): the C boundary of src/models/events/ and src/models/lam/.
// docs/events.md and docs/lam.md are the user's view.
#include <cstring>
#include <unordered_map>
#include <vector>

#include "api/common.h"
#include "api/events_api.h"
#include "ft/ft_manager.h"
#include "models/events/event_hub.h"

using ftmpi::Errc;
using ftmpi::Status;
using ftmpi::api::ret;
using ftmpi::api::rt;
namespace ev = ftmpi::events;

#define FTMPIX_ALIAS(name) \
  extern "C" __attribute__((weak, alias("PMPIX_" #name), visibility("default"))) decltype(PMPIX_##name) MPIX_##name;

namespace ftmpi::api {

// Callbacks run on the event thread and must not call MPI (seed 002 §7.3.1: signal-handler rules). The
// registration calls say so instead of deadlocking on the delivery lock the thread holds.
bool called_from_event_callback() { return g_api.rt != nullptr && rt().events().on_event_thread(); }

MPIX_Event to_mpix(const ev::Event& e, MPI_Comm comm_for_failures) {
  MPIX_Event out;
  out.type = e.type;
  out.world_rank = e.world_rank;
  out.cause = e.cause;
  out.code = e.code;
  out.time = e.time;
  const bool failure = e.type == ev::kProcFailed || e.type == ev::kNodeLost;
  out.comm = e.comm ? static_cast<MPI_Comm>(const_cast<void*>(e.comm)) : failure ? comm_for_failures : MPI_COMM_NULL;
  return out;
}

std::vector<int> member_world_ranks(const ftmpi_comm_s* c) {
  std::vector<int> w = c->group->world_ranks;
  if (c->remote_group) w.insert(w.end(), c->remote_group->world_ranks.begin(), c->remote_group->world_ranks.end());
  return w;
}

namespace {
// Values of the MPI_FAILED_LIST attribute (the C API hands out a pointer that must outlive the call):
// one array per communicator, refreshed at each get, dropped when the communicator is freed.
std::unordered_map<const void*, std::vector<int>>& failed_lists() {
  static std::unordered_map<const void*, std::vector<int>> lists;
  return lists;
}
int g_failed_size = 0;
int g_empty_list = -1;
}  // namespace

int* failed_attr(ftmpi_comm_s* comm, int keyval) {
  std::vector<int> ranks = rt().ft().failed_members(comm);
  if (keyval == MPI_FAILED_SIZE) {
    g_failed_size = static_cast<int>(ranks.size());
    return &g_failed_size;
  }
  if (ranks.empty()) {
    failed_lists().erase(comm);
    return &g_empty_list;
  }
  std::vector<int>& slot = failed_lists()[comm];
  slot = std::move(ranks);
  return slot.data();
}

void forget_comm(ftmpi_comm_s* comm) {
  rt().events().drop_comm(comm);
  failed_lists().erase(comm);
}

}  // namespace ftmpi::api

namespace {

constexpr const char* kFromCallback = "called from an event callback: callbacks run like signal handlers and must not call MPI (seed 002 §7.3.1)";

}  // namespace

extern "C" int PMPIX_Event_poll(MPIX_Event* event, int* flag) {
  static constexpr const char* fn = "MPIX_Event_poll";
  FTMPI_ENTER(fn);
  if (!event || !flag) return ret(nullptr, Status(Errc::arg, "NULL argument"), fn);
  rt().progress().poll();  // one progress pass: revokes and user events sent to this process arrive
  ev::Event e;
  *flag = rt().events().poll(&e) ? 1 : 0;
  if (*flag) *event = ftmpi::api::to_mpix(e, MPI_COMM_WORLD);
  return MPI_SUCCESS;
}
FTMPIX_ALIAS(Event_poll)

extern "C" int PMPIX_Event_subscribe(MPI_Comm comm, int rank, int type_mask, MPIX_Event_callback* cb, void* extra,
                                     int* subscription) {
  static constexpr const char* fn = "MPIX_Event_subscribe";
  if (ftmpi::api::called_from_event_callback()) return ret(nullptr, Status(Errc::other, kFromCallback), fn);
  FTMPI_ENTER(fn);
  FTMPI_CHECK_COMM(comm, fn);
  if (!cb) return ret(comm, Status(Errc::arg, "the callback is NULL"), fn);
  if (!subscription) return ret(comm, Status(Errc::arg, "subscription is NULL"), fn);
  if (type_mask == 0 || (type_mask & ~MPIX_EVENT_MASK_ALL) != 0)
    return ret(comm, Status(Errc::arg, "type_mask must be a non-empty OR of MPIX_EVENT_MASK(MPIX_EVENT_*)"), fn);
  if (rank != MPI_ANY_SOURCE && (rank < 0 || rank >= comm->peer_size()))
    return ret(comm, Status(Errc::rank, "rank is neither MPI_ANY_SOURCE nor a rank of the communicator"), fn);
  ev::Filter f;
  f.comm = comm;
  f.members = ftmpi::api::member_world_ranks(comm);
  f.world_rank = rank == MPI_ANY_SOURCE ? -1 : comm->peer_world_rank(rank);
  f.mask = static_cast<unsigned>(type_mask);
  *subscription = rt().events().subscribe(std::move(f), [cb, extra, comm](const ev::Event& e) {
    const MPIX_Event m = ftmpi::api::to_mpix(e, comm);
    cb(&m, extra);
  });
  return MPI_SUCCESS;
}
FTMPIX_ALIAS(Event_subscribe)

extern "C" int PMPIX_Event_unsubscribe(int subscription) {
  static constexpr const char* fn = "MPIX_Event_unsubscribe";
  if (ftmpi::api::called_from_event_callback()) return ret(nullptr, Status(Errc::other, kFromCallback), fn);
  FTMPI_ENTER(fn);
  if (!rt().events().unsubscribe(subscription))
    return ret(nullptr, Status(Errc::arg, "unknown subscription (never returned by MPIX_Event_subscribe, or already ended)"), fn);
  return MPI_SUCCESS;
}
FTMPIX_ALIAS(Event_unsubscribe)

extern "C" int PMPIX_Event_publish(MPI_Comm comm, int code) {
  static constexpr const char* fn = "MPIX_Event_publish";
  if (ftmpi::api::called_from_event_callback()) return ret(nullptr, Status(Errc::other, kFromCallback), fn);
  FTMPI_ENTER(fn);
  FTMPI_CHECK_COMM(comm, fn);
  if (comm->is_inter())
    return ret(comm, Status(Errc::unsupported, "MPIX_Event_publish on an intercommunicator is not implemented"), fn);
  // One FT frame to every other live member (it bypasses matching and revocation); the receivers' hubs
  // get it at their next progress pass. This process's own hub gets it now.
  std::int32_t c32 = code;
  std::span<const std::byte> payload(reinterpret_cast<const std::byte*>(&c32), sizeof c32);
  for (int r = 0; r < comm->size; ++r) {
    const int w = comm->world_rank(r);
    if (r == comm->rank || rt().failures().failed(w)) continue;
    rt().engine().send_ft_frame(w, comm->ctx_pt2pt, ftmpi::ft::kUserEvent, payload);
  }
  rt().events().on_user_event(comm, rt().world_rank(), code);
  return MPI_SUCCESS;
}
FTMPIX_ALIAS(Event_publish)

extern "C" int PMPIX_Comm_set_failure_callback(MPI_Comm comm, MPIX_Failure_callback* cb, void* extra) {
  static constexpr const char* fn = "MPIX_Comm_set_failure_callback";
  if (ftmpi::api::called_from_event_callback()) return ret(nullptr, Status(Errc::other, kFromCallback), fn);
  FTMPI_ENTER(fn);
  FTMPI_CHECK_COMM(comm, fn);
  if (comm->is_inter())
    return ret(comm, Status(Errc::unsupported, "failure callbacks on intercommunicators are not implemented"), fn);
  std::function<void(int)> call;
  if (cb) call = [cb, extra, comm](int failed_rank) { cb(comm, failed_rank, extra); };
  rt().events().set_comm_callback(comm, comm->group->world_ranks, std::move(call));
  return MPI_SUCCESS;
}
FTMPIX_ALIAS(Comm_set_failure_callback)

extern "C" int PMPIX_Comm_failed_ranks(MPI_Comm comm, int maxcount, int ranks[], int* count) {
  static constexpr const char* fn = "MPIX_Comm_failed_ranks";
  FTMPI_ENTER(fn);
  FTMPI_CHECK_COMM(comm, fn);
  if (!count) return ret(comm, Status(Errc::arg, "count is NULL"), fn);
  if (maxcount < 0) return ret(comm, Status(Errc::arg, "maxcount is negative"), fn);
  if (maxcount > 0 && !ranks) return ret(comm, Status(Errc::arg, "ranks is NULL"), fn);
  std::vector<int> failed = rt().ft().failed_members(comm);
  *count = static_cast<int>(failed.size());
  for (std::size_t i = 0; i < failed.size() && i < static_cast<std::size_t>(maxcount); ++i) ranks[i] = failed[i];
  return MPI_SUCCESS;
}
FTMPIX_ALIAS(Comm_failed_ranks)
