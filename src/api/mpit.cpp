// MPI-4.0 tool information interface (§15.3), the event part (§15.3.8) and what a tool needs around it:
// the failure notices of src/models/events/ as MPI_T events, so a tool written to the standard sees process
// failures, revokes and application events. Control and performance variables, categories and
// enumerations: api/mpit_vars.cpp.
//
// Events (index, name, elements — all MPI_INT; bound to a communicator, MPI_T_BIND_MPI_COMM):
//   0 ftmpi_proc_failed   world rank, cause (MPIX_CAUSE_*), exit code or signal
//   1 ftmpi_node_lost     world rank, cause, code
//   2 ftmpi_comm_revoked  world rank of the revoker
//   3 ftmpi_user_event    world rank of the publisher, the application's code
// One source (index 0, "ftmpi_events", ordered, nanosecond ticks of CLOCK_MONOTONIC).
//
// Where callbacks run. Notices reach the event thread (models/events/event_hub.h), which runs concurrently
// with the application: there a callback registered for MPI_T_CB_REQUIRE_THREAD_SAFE or
// MPI_T_CB_REQUIRE_ASYNC_SIGNAL_SAFE is invoked at once (the first of the two that is set; it is passed that
// level). A handle whose callbacks all need more (MPI_T_CB_REQUIRE_NONE or _MPI_RESTRICTED: no concurrency
// with the application, or MPI functions allowed) gets the event queued instead; the application thread runs
// it at the exit of its next outermost MPI call (ApiLock, api/common.h: no library lock held, any MPI
// function may be called — the NONE context), passing MPI_T_CB_REQUIRE_NONE (or _MPI_RESTRICTED when only
// that one is set). The queue holds kMaxDeferred events; events beyond are counted and reported through
// the handle's dropped handler at the next delivery (also on the application thread). A handle with no
// callback at all drops its events (dropped handler, count 1, on the event thread). Freeing a handle
// discards its queued events. MPI_T functions return their error codes directly (no error handler), as the
// standard says.
#include <time.h>

#include <atomic>
#include <cstring>
#include <deque>
#include <mutex>

#include "api/common.h"
#include "api/events_api.h"
#include "api/mpit_common.h"
#include "models/events/event_hub.h"

using ftmpi::api::rt;
using ftmpi::api::mpit::bad_len;
using ftmpi::api::mpit::put_string;
using ftmpi::api::mpit::t_ready;
namespace ev = ftmpi::events;

namespace {

constexpr std::uint32_t kRegMagic = 0x4d505452;   // "MPTR"
constexpr std::uint32_t kInstMagic = 0x4d505449;  // "MPTI"

struct EventKind {
  const char* name;
  const char* desc;
  int type;  // ev::Type
  int num_elements;
};
constexpr EventKind kEvents[] = {
    {"ftmpi_proc_failed", "a process failed (elements: world rank, cause MPIX_CAUSE_*, exit code or signal)",
     ev::kProcFailed, 3},
    {"ftmpi_node_lost", "a process was lost with its host (elements: world rank, cause, code)", ev::kNodeLost, 3},
    {"ftmpi_comm_revoked", "a communicator was revoked (element: world rank of the revoker)", ev::kCommRevoked, 1},
    {"ftmpi_user_event", "an application event, MPIX_Event_publish (elements: world rank of the publisher, code)",
     ev::kUser, 2},
};
constexpr int kNumEvents = static_cast<int>(sizeof kEvents / sizeof kEvents[0]);

std::int64_t now_ns() {
  timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<std::int64_t>(ts.tv_sec) * 1000000000 + ts.tv_nsec;
}

}  // namespace

struct ftmpi_mpit_event_registration_s {
  std::uint32_t magic = kRegMagic;
  int index = 0;
  MPI_Comm comm = MPI_COMM_NULL;
  int subscription = 0;
  std::mutex mu;  // callbacks vs register_callback / set_dropped_handler
  MPI_T_event_cb_function* cb[4] = {};
  void* user_data[4] = {};
  MPI_T_event_dropped_cb_function* dropped = nullptr;
  MPI_Count dropped_deferred = 0;  // events the full queue could not take (guarded by g_deferred_mu)
  // Hints given to handle_alloc / handle_set_info and to callback_set_info per safety level (owned copies,
  // MPI_INFO_NULL when none): ftmpi defines no event hints, but get_info returns what was set, as
  // MPI_Comm_get_info does, so a tool can read back its own keys.
  MPI_Info hints = MPI_INFO_NULL;
  MPI_Info cb_hints[4] = {MPI_INFO_NULL, MPI_INFO_NULL, MPI_INFO_NULL, MPI_INFO_NULL};
};

struct ftmpi_mpit_event_instance_s {
  std::uint32_t magic = kInstMagic;
  int index = 0;
  ev::Event e;
};

namespace {

bool valid_reg(MPI_T_event_registration r) { return r != nullptr && r->magic == kRegMagic; }
bool valid_inst(MPI_T_event_instance i) { return i != nullptr && i->magic == kInstMagic; }

// Replace *slot by a copy of `info` (MPI_INFO_NULL clears it). MPI error code.
int keep_hints(MPI_Info* slot, MPI_Info info) {
  MPI_Info copy = MPI_INFO_NULL;
  if (info != MPI_INFO_NULL) {
    const int rc = PMPI_Info_dup(info, &copy);
    if (rc != MPI_SUCCESS) return rc;
  }
  if (*slot != MPI_INFO_NULL) PMPI_Info_free(slot);
  *slot = copy;
  return MPI_SUCCESS;
}

// A new info object with the hints of *slot (empty when none were set).
int hints_used(MPI_Info slot, MPI_Info* info_used) {
  return slot != MPI_INFO_NULL ? PMPI_Info_dup(slot, info_used) : PMPI_Info_create(info_used);
}

// The communicator of handle_alloc's obj_handle. The standard passes a pointer to the handle
// (MPI-4.0 §15.3.8, as for MPI_T_pvar_handle_alloc); programs written against Open MPI (whose handles are
// pointers) also pass the handle itself, e.g. open-mpi/ompi-tests-public's events/ tests. Both are accepted:
// a communicator object starts with kMagicComm, an odd word, which the low half of a handle (an aligned
// pointer) never is, so reading the first 4 bytes tells the two apart (both forms have at least 8).
MPI_Comm comm_of_obj_handle(void* obj_handle) {
  std::uint32_t first;
  std::memcpy(&first, obj_handle, sizeof first);
  if (first == ftmpi::kMagicComm) return static_cast<MPI_Comm>(obj_handle);
  return *static_cast<MPI_Comm*>(obj_handle);
}

int element(const ftmpi_mpit_event_instance_s& in, int k) {
  switch (k) {
    case 0: return in.e.world_rank;
    case 1: return in.e.type == ev::kUser ? in.e.code : in.e.cause;
    default: return in.e.code;
  }
}

// Events waiting for the application's context (see the top of this file).
struct Deferred {
  MPI_T_event_registration reg;
  ev::Event e;
};
constexpr std::size_t kMaxDeferred = 1024;
std::mutex g_deferred_mu;       // the queue, dropped_deferred
std::deque<Deferred> g_deferred;
std::mutex g_delivering_mu;     // held while deferred callbacks run: handle_free waits for them
thread_local bool t_in_deferred = false;

void defer(MPI_T_event_registration reg, const ev::Event& e) {
  std::lock_guard<std::mutex> l(g_deferred_mu);
  if (g_deferred.size() >= kMaxDeferred)
    ++reg->dropped_deferred;
  else
    g_deferred.push_back(Deferred{reg, e});
  ftmpi::api::g_mpit_deferred.store(1, std::memory_order_relaxed);
}

void deliver(MPI_T_event_registration reg, const ev::Event& e) {
  MPI_T_event_cb_function* fn = nullptr;
  void* data = nullptr;
  MPI_T_cb_safety level = MPI_T_CB_REQUIRE_THREAD_SAFE;
  MPI_T_event_dropped_cb_function* dropped = nullptr;
  void* dropped_data = nullptr;
  {
    std::lock_guard<std::mutex> l(reg->mu);
    for (MPI_T_cb_safety s : {MPI_T_CB_REQUIRE_THREAD_SAFE, MPI_T_CB_REQUIRE_ASYNC_SIGNAL_SAFE}) {
      if (reg->cb[s]) {
        fn = reg->cb[s];
        data = reg->user_data[s];
        level = s;
        break;
      }
    }
    if (!fn && (reg->cb[MPI_T_CB_REQUIRE_NONE] || reg->cb[MPI_T_CB_REQUIRE_MPI_RESTRICTED])) {
      defer(reg, e);
      return;
    }
    if (!fn) {
      dropped = reg->dropped;
      for (void* d : reg->user_data) dropped_data = dropped_data ? dropped_data : d;
    }
  }
  if (fn) {
    ftmpi_mpit_event_instance_s inst;
    inst.index = reg->index;
    inst.e = e;
    fn(&inst, reg, level, data);
    inst.magic = 0;  // an instance is valid only during the callback
  } else if (dropped) {
    dropped(1, reg, 0, MPI_T_CB_REQUIRE_THREAD_SAFE, dropped_data);
  }
}

}  // namespace

namespace ftmpi::api {
std::atomic<int> g_mpit_deferred{0};
thread_local int t_api_depth = 0;

void run_deferred_mpit_events() {
  if (t_in_deferred) return;  // a callback's own MPI calls
  // Another thread delivering (MPI_THREAD_MULTIPLE) empties the queue: do not wait for its callbacks.
  std::unique_lock<std::mutex> delivering(g_delivering_mu, std::try_to_lock);
  if (!delivering.owns_lock()) return;
  t_in_deferred = true;
  for (;;) {
    Deferred d{};
    MPI_Count lost = 0;
    {
      std::lock_guard<std::mutex> l(g_deferred_mu);
      if (g_deferred.empty()) {
        g_mpit_deferred.store(0, std::memory_order_relaxed);
        break;
      }
      d = g_deferred.front();
      g_deferred.pop_front();
      lost = d.reg->dropped_deferred;
      d.reg->dropped_deferred = 0;
    }
    MPI_T_event_registration reg = d.reg;
    MPI_T_event_cb_function* fn = nullptr;
    void* data = nullptr;
    MPI_T_cb_safety level = MPI_T_CB_REQUIRE_NONE;
    MPI_T_event_dropped_cb_function* dropped = nullptr;
    {
      std::lock_guard<std::mutex> l(reg->mu);
      for (MPI_T_cb_safety s : {MPI_T_CB_REQUIRE_NONE, MPI_T_CB_REQUIRE_MPI_RESTRICTED}) {
        if (reg->cb[s]) {
          fn = reg->cb[s];
          data = reg->user_data[s];
          level = s;
          break;
        }
      }
      dropped = reg->dropped;
    }
    if (lost > 0 && dropped) dropped(lost, reg, 0, MPI_T_CB_REQUIRE_NONE, data);
    if (!fn) continue;  // its callback was removed meanwhile
    ftmpi_mpit_event_instance_s inst;
    inst.index = reg->index;
    inst.e = d.e;
    fn(&inst, reg, level, data);
    inst.magic = 0;
  }
  t_in_deferred = false;
}
}  // namespace ftmpi::api


extern "C" int PMPI_T_init_thread(int required, int* provided) {
  if (!provided) return MPI_ERR_ARG;
  if (required < MPI_THREAD_SINGLE || required > MPI_THREAD_MULTIPLE) return MPI_ERR_ARG;
  *provided = required;  // the MPI_T functions here are thread-safe
  ftmpi::api::mpit::g_t_init.fetch_add(1);
  return MPI_SUCCESS;
}
FTMPI_ALIAS(T_init_thread)

extern "C" int PMPI_T_finalize(void) {
  int v = ftmpi::api::mpit::g_t_init.load();
  while (v > 0 && !ftmpi::api::mpit::g_t_init.compare_exchange_weak(v, v - 1)) {
  }
  return v > 0 ? MPI_SUCCESS : MPI_T_ERR_NOT_INITIALIZED;
}
FTMPI_ALIAS(T_finalize)

extern "C" int PMPI_T_source_get_num(int* n) {
  FTMPI_T_CHECK();
  if (!n) return MPI_ERR_ARG;
  *n = 1;
  return MPI_SUCCESS;
}
FTMPI_ALIAS(T_source_get_num)

extern "C" int PMPI_T_source_get_info(int source_index, char* name, int* name_len, char* desc, int* desc_len,
                                      MPI_T_source_order* ordering, MPI_Count* ticks_per_second,
                                      MPI_Count* max_ticks, MPI_Info* info) {
  FTMPI_T_CHECK();
  if (source_index != 0) return MPI_T_ERR_INVALID_INDEX;
  if (bad_len(name_len) || bad_len(desc_len)) return MPI_ERR_ARG;
  put_string("ftmpi_events", name, name_len);
  put_string("failure notices (launcher and peers), revokes and application events, in the order this process saw them",
             desc, desc_len);
  if (ordering) *ordering = MPI_T_SOURCE_ORDERED;
  if (ticks_per_second) *ticks_per_second = 1000000000;
  if (max_ticks) *max_ticks = INT64_MAX;
  if (info) *info = MPI_INFO_NULL;
  return MPI_SUCCESS;
}
FTMPI_ALIAS(T_source_get_info)

extern "C" int PMPI_T_source_get_timestamp(int source_index, MPI_Count* timestamp) {
  FTMPI_T_CHECK();
  if (source_index != 0) return MPI_T_ERR_INVALID_INDEX;
  if (!timestamp) return MPI_ERR_ARG;
  *timestamp = now_ns();
  return MPI_SUCCESS;
}
FTMPI_ALIAS(T_source_get_timestamp)

extern "C" int PMPI_T_event_get_num(int* n) {
  FTMPI_T_CHECK();
  if (!n) return MPI_ERR_ARG;
  *n = kNumEvents;
  return MPI_SUCCESS;
}
FTMPI_ALIAS(T_event_get_num)

extern "C" int PMPI_T_event_get_info(int event_index, char* name, int* name_len, int* verbosity,
                                     MPI_Datatype array_of_datatypes[], MPI_Aint array_of_displacements[],
                                     int* num_elements, MPI_T_enum* enumtype, MPI_Info* info, char* desc,
                                     int* desc_len, int* bind) {
  FTMPI_T_CHECK();
  if (event_index < 0 || event_index >= kNumEvents) return MPI_T_ERR_INVALID_INDEX;
  if (bad_len(name_len) || bad_len(desc_len) || bad_len(num_elements)) return MPI_ERR_ARG;
  const EventKind& k = kEvents[event_index];
  put_string(k.name, name, name_len);
  put_string(k.desc, desc, desc_len);
  if (verbosity) *verbosity = MPI_T_VERBOSITY_USER_BASIC;
  if (num_elements) {
    const int room = *num_elements;
    for (int i = 0; i < k.num_elements && i < room; ++i) {
      if (array_of_datatypes) array_of_datatypes[i] = MPI_INT;
      if (array_of_displacements) array_of_displacements[i] = static_cast<MPI_Aint>(i * sizeof(int));
    }
    *num_elements = k.num_elements;
  }
  if (enumtype) *enumtype = MPI_T_ENUM_NULL;
  if (info) *info = MPI_INFO_NULL;
  if (bind) *bind = MPI_T_BIND_MPI_COMM;
  return MPI_SUCCESS;
}
FTMPI_ALIAS(T_event_get_info)

extern "C" int PMPI_T_event_get_index(const char* name, int* event_index) {
  FTMPI_T_CHECK();
  if (!name || !event_index) return MPI_ERR_ARG;
  for (int i = 0; i < kNumEvents; ++i)
    if (std::strcmp(name, kEvents[i].name) == 0) {
      *event_index = i;
      return MPI_SUCCESS;
    }
  return MPI_T_ERR_INVALID_NAME;
}
FTMPI_ALIAS(T_event_get_index)

extern "C" int PMPI_T_event_handle_alloc(int event_index, void* obj_handle, MPI_Info info,
                                         MPI_T_event_registration* event_registration) {
  FTMPI_T_CHECK();
  if (event_index < 0 || event_index >= kNumEvents) return MPI_T_ERR_INVALID_INDEX;
  if (!event_registration || !obj_handle) return MPI_ERR_ARG;
  if (ftmpi::api::called_from_event_callback() || t_in_deferred) return MPI_T_ERR_INVALID;
  if (!ftmpi::api::g_api.rt) return MPI_ERR_OTHER;  // bound to a communicator: MPI must be initialized
  ftmpi::api::ApiLock lock;
  MPI_Comm comm = comm_of_obj_handle(obj_handle);
  if (!ftmpi::api::valid_comm(comm)) return MPI_ERR_COMM;
  auto* reg = new ftmpi_mpit_event_registration_s;
  reg->index = event_index;
  reg->comm = comm;
  if (const int rc = keep_hints(&reg->hints, info); rc != MPI_SUCCESS) {
    delete reg;
    return rc;
  }
  ev::Filter f;
  f.comm = comm;
  f.members = ftmpi::api::member_world_ranks(comm);
  f.mask = 1u << kEvents[event_index].type;
  reg->subscription = rt().events().subscribe(std::move(f), [reg](const ev::Event& e) { deliver(reg, e); });
  *event_registration = reg;
  return MPI_SUCCESS;
}
FTMPI_ALIAS(T_event_handle_alloc)

extern "C" int PMPI_T_event_handle_set_info(MPI_T_event_registration reg, MPI_Info info) {
  FTMPI_T_CHECK();
  if (!valid_reg(reg)) return MPI_T_ERR_INVALID_HANDLE;
  std::lock_guard<std::mutex> l(reg->mu);
  return keep_hints(&reg->hints, info);  // no hints are defined: kept to be read back
}
FTMPI_ALIAS(T_event_handle_set_info)

extern "C" int PMPI_T_event_handle_get_info(MPI_T_event_registration reg, MPI_Info* info_used) {
  FTMPI_T_CHECK();
  if (!valid_reg(reg)) return MPI_T_ERR_INVALID_HANDLE;
  if (!info_used) return MPI_ERR_ARG;
  std::lock_guard<std::mutex> l(reg->mu);
  return hints_used(reg->hints, info_used);
}
FTMPI_ALIAS(T_event_handle_get_info)

extern "C" int PMPI_T_event_register_callback(MPI_T_event_registration reg, MPI_T_cb_safety cb_safety, MPI_Info info,
                                              void* user_data, MPI_T_event_cb_function* event_cb_function) {
  FTMPI_T_CHECK();
  if (!valid_reg(reg)) return MPI_T_ERR_INVALID_HANDLE;
  if (cb_safety < MPI_T_CB_REQUIRE_NONE || cb_safety > MPI_T_CB_REQUIRE_ASYNC_SIGNAL_SAFE) return MPI_ERR_ARG;
  std::lock_guard<std::mutex> l(reg->mu);
  reg->cb[cb_safety] = event_cb_function;  // NULL removes it
  reg->user_data[cb_safety] = user_data;
  return MPI_SUCCESS;
}
FTMPI_ALIAS(T_event_register_callback)

extern "C" int PMPI_T_event_callback_set_info(MPI_T_event_registration reg, MPI_T_cb_safety cb_safety, MPI_Info info) {
  FTMPI_T_CHECK();
  if (!valid_reg(reg)) return MPI_T_ERR_INVALID_HANDLE;
  if (cb_safety < MPI_T_CB_REQUIRE_NONE || cb_safety > MPI_T_CB_REQUIRE_ASYNC_SIGNAL_SAFE) return MPI_ERR_ARG;
  std::lock_guard<std::mutex> l(reg->mu);
  return keep_hints(&reg->cb_hints[cb_safety], info);
}
FTMPI_ALIAS(T_event_callback_set_info)

extern "C" int PMPI_T_event_callback_get_info(MPI_T_event_registration reg, MPI_T_cb_safety cb_safety,
                                              MPI_Info* info_used) {
  FTMPI_T_CHECK();
  if (!valid_reg(reg)) return MPI_T_ERR_INVALID_HANDLE;
  if (cb_safety < MPI_T_CB_REQUIRE_NONE || cb_safety > MPI_T_CB_REQUIRE_ASYNC_SIGNAL_SAFE) return MPI_ERR_ARG;
  if (!info_used) return MPI_ERR_ARG;
  std::lock_guard<std::mutex> l(reg->mu);
  return hints_used(reg->cb_hints[cb_safety], info_used);
}
FTMPI_ALIAS(T_event_callback_get_info)

extern "C" int PMPI_T_event_set_dropped_handler(MPI_T_event_registration reg,
                                                MPI_T_event_dropped_cb_function* dropped_cb_function) {
  FTMPI_T_CHECK();
  if (!valid_reg(reg)) return MPI_T_ERR_INVALID_HANDLE;
  std::lock_guard<std::mutex> l(reg->mu);
  reg->dropped = dropped_cb_function;
  return MPI_SUCCESS;
}
FTMPI_ALIAS(T_event_set_dropped_handler)

extern "C" int PMPI_T_event_handle_free(MPI_T_event_registration reg, void* user_data,
                                        MPI_T_event_free_cb_function* free_cb_function) {
  FTMPI_T_CHECK();
  if (!valid_reg(reg)) return MPI_T_ERR_INVALID_HANDLE;
  if (ftmpi::api::called_from_event_callback() || t_in_deferred) return MPI_T_ERR_INVALID;
  if (ftmpi::api::g_api.rt) {
    ftmpi::api::ApiLock lock;
    rt().events().unsubscribe(reg->subscription);  // on return no callback of it runs
  }
  {
    std::lock_guard<std::mutex> delivering(g_delivering_mu);  // another thread's deferred callbacks end first
    std::lock_guard<std::mutex> l(g_deferred_mu);
    std::erase_if(g_deferred, [reg](const Deferred& d) { return d.reg == reg; });
  }
  reg->magic = 0;
  if (free_cb_function) free_cb_function(reg, MPI_T_CB_REQUIRE_NONE, user_data);
  keep_hints(&reg->hints, MPI_INFO_NULL);
  for (MPI_Info& h : reg->cb_hints) keep_hints(&h, MPI_INFO_NULL);
  delete reg;
  return MPI_SUCCESS;
}
FTMPI_ALIAS(T_event_handle_free)

extern "C" int PMPI_T_event_read(MPI_T_event_instance inst, int element_index, void* buffer) {
  FTMPI_T_CHECK();
  if (!valid_inst(inst)) return MPI_T_ERR_INVALID_HANDLE;
  if (element_index < 0 || element_index >= kEvents[inst->index].num_elements) return MPI_T_ERR_INVALID_INDEX;
  if (!buffer) return MPI_ERR_ARG;
  const int v = element(*inst, element_index);
  std::memcpy(buffer, &v, sizeof v);
  return MPI_SUCCESS;
}
FTMPI_ALIAS(T_event_read)

extern "C" int PMPI_T_event_copy(MPI_T_event_instance inst, void* buffer) {
  FTMPI_T_CHECK();
  if (!valid_inst(inst)) return MPI_T_ERR_INVALID_HANDLE;
  if (!buffer) return MPI_ERR_ARG;
  for (int k = 0; k < kEvents[inst->index].num_elements; ++k) {
    const int v = element(*inst, k);
    std::memcpy(static_cast<char*>(buffer) + k * sizeof(int), &v, sizeof v);
  }
  return MPI_SUCCESS;
}
FTMPI_ALIAS(T_event_copy)

extern "C" int PMPI_T_event_get_timestamp(MPI_T_event_instance inst, MPI_Count* ts) {
  FTMPI_T_CHECK();
  if (!valid_inst(inst)) return MPI_T_ERR_INVALID_HANDLE;
  if (!ts) return MPI_ERR_ARG;
  *ts = static_cast<MPI_Count>(inst->e.seen * 1e9);
  return MPI_SUCCESS;
}
FTMPI_ALIAS(T_event_get_timestamp)

extern "C" int PMPI_T_event_get_source(MPI_T_event_instance inst, int* source_index) {
  FTMPI_T_CHECK();
  if (!valid_inst(inst)) return MPI_T_ERR_INVALID_HANDLE;
  if (!source_index) return MPI_ERR_ARG;
  *source_index = 0;
  return MPI_SUCCESS;
}
FTMPI_ALIAS(T_event_get_source)

int ftmpi::api::mpit::event_count() { return kNumEvents; }
