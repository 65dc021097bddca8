// MPI tool information interface, MPI-3.1 §14.3.6-14.3.7 (and MPI-4.0's category event calls): control
// variables, performance variables, categories and enumerations. The events half is api/mpit.cpp.
//
// What ftmpi exposes (indices are stable; every variable is bound to no object, MPI_T_BIND_NO_OBJECT, and
// describes this process's running library, so reading one before MPI_Init / an MPI_Session or after the
// library is finalized returns MPI_T_ERR_INVALID):
//   control variables (all MPI_T_SCOPE_CONSTANT: fixed when the library starts, from mpiexec's options and
//   the environment; writing one is MPI_T_ERR_CVAR_SET_NEVER):
//     0 ftmpi_ft_mode         MPI_INT, enumeration "ftmpi_ft_mode": 0 off, 1 ulfm, 2 reinit, 3 lam
//     1 ftmpi_eager_limit     MPI_UNSIGNED_LONG, bytes (FTMPI_EAGER_LIMIT; a transport may cap it lower)
//     2 ftmpi_async_progress  MPI_INT, 1 when the progress thread runs (--async-progress)
//     3 ftmpi_revoke_radix    MPI_INT, fan-out of the revoke tree (FTMPI_REVOKE_RADIX)
//   performance variables (read-only, continuous: MPI_T_pvar_start/stop give MPI_T_ERR_PVAR_NO_STARTSTOP,
//   write/reset MPI_T_ERR_PVAR_NO_WRITE):
//     0 ftmpi_unexpected_queue_length  LEVEL,   MPI_UNSIGNED_LONG: messages arrived and not matched yet
//     1 ftmpi_posted_queue_length      LEVEL,   MPI_UNSIGNED_LONG: receives posted and not matched yet
//     2 ftmpi_failed_processes         COUNTER, MPI_UNSIGNED_LONG_LONG: processes this one knows failed
//                                      (in the current Reinit epoch)
//     3 ftmpi_reinit_restarts          COUNTER, MPI_UNSIGNED_LONG_LONG: rollbacks of this process (Reinit)
//   categories: 0 ftmpi_p2p (cvar 1, pvars 0-1), 1 ftmpi_fault_tolerance (cvars 0 and 3, pvars 2-3, every
//   MPI_T event), 2 ftmpi_progress (cvar 2); no sub-categories; MPI_T_category_changed's number stays 0.
// Handles and sessions are checked against the set of live ones (a freed or foreign handle is an error, never
// a crash). Reads take the library's API lock (THREAD_MULTIPLE), so a tool thread may read at any time.
#include <mutex>
#include <new>
#include <unordered_set>
#include <vector>

#include "api/common.h"
#include "api/mpit_common.h"
#include "ft/failure_state.h"
#include "ft/ft_manager.h"
#include "p2p/engine.h"

using ftmpi::api::g_api;
using ftmpi::api::rt;
using ftmpi::api::mpit::bad_len;
using ftmpi::api::mpit::put_string;

struct ftmpi_mpit_enum_s {
  const char* name;
  std::vector<std::pair<int, const char*>> items;
};

struct ftmpi_mpit_cvar_handle_s {
  int index;
};

struct ftmpi_mpit_pvar_session_s {
  std::vector<ftmpi_mpit_pvar_handle_s*> handles;
};

struct ftmpi_mpit_pvar_handle_s {
  int index;
  ftmpi_mpit_pvar_session_s* session;
};

namespace {

ftmpi_mpit_enum_s g_ft_mode_enum{"ftmpi_ft_mode", {{0, "off"}, {1, "ulfm"}, {2, "reinit"}, {3, "lam"}}};

// A variable's value into `buf` (one element of its datatype). False when the library is not running.
using ReadFn = bool (*)(void* buf);

bool running() { return g_api.rt != nullptr && !g_api.finalized; }

template <typename T>
bool put(void* buf, T v) {
  *static_cast<T*>(buf) = v;
  return true;
}

struct Cvar {
  const char* name;
  const char* desc;
  int verbosity;
  MPI_Datatype (*type)();
  MPI_T_enum enumtype;
  ReadFn read;
};

struct Pvar {
  const char* name;
  const char* desc;
  int verbosity;
  int var_class;
  MPI_Datatype (*type)();
  ReadFn read;
};

MPI_Datatype int_type() { return MPI_INT; }
MPI_Datatype ulong_type() { return MPI_UNSIGNED_LONG; }
MPI_Datatype ull_type() { return MPI_UNSIGNED_LONG_LONG; }

const Cvar kCvars[] = {
    {"ftmpi_ft_mode", "the fault-tolerance model of this job (mpiexec --with-ft): off, ulfm, reinit or lam",
     MPI_T_VERBOSITY_USER_BASIC, int_type, &g_ft_mode_enum,
     [](void* b) {
       if (!running()) return false;
       return put(b, rt().reinit() ? 2 : rt().lam_mode() ? 3 : rt().ft_mode() ? 1 : 0);
     }},
    {"ftmpi_eager_limit",
     "bytes up to which a message is sent eagerly (FTMPI_EAGER_LIMIT); a transport may cap it lower",
     MPI_T_VERBOSITY_TUNER_BASIC, ulong_type, MPI_T_ENUM_NULL,
     [](void* b) { return running() && put(b, static_cast<unsigned long>(rt().engine().eager_limit())); }},
    {"ftmpi_async_progress", "1 when the asynchronous progress thread runs (mpiexec --async-progress)",
     MPI_T_VERBOSITY_USER_DETAIL, int_type, MPI_T_ENUM_NULL,
     [](void* b) { return running() && put(b, rt().async_progress() != nullptr ? 1 : 0); }},
    {"ftmpi_revoke_radix", "fan-out of the tree that spreads a revoke (FTMPI_REVOKE_RADIX)",
     MPI_T_VERBOSITY_TUNER_DETAIL, int_type, MPI_T_ENUM_NULL,
     [](void* b) { return running() && put(b, rt().ft().revoke_radix()); }},
};
constexpr int kNumCvars = static_cast<int>(sizeof kCvars / sizeof kCvars[0]);

const Pvar kPvars[] = {
    {"ftmpi_unexpected_queue_length", "messages arrived at this process and not matched by a receive yet",
     MPI_T_VERBOSITY_TUNER_DETAIL, MPI_T_PVAR_CLASS_LEVEL, ulong_type,
     [](void* b) { return running() && put(b, static_cast<unsigned long>(rt().engine().unexpected_count())); }},
    {"ftmpi_posted_queue_length", "receives posted by this process and not matched by a message yet",
     MPI_T_VERBOSITY_TUNER_DETAIL, MPI_T_PVAR_CLASS_LEVEL, ulong_type,
     [](void* b) { return running() && put(b, static_cast<unsigned long>(rt().engine().posted_count())); }},
    {"ftmpi_failed_processes", "processes this process knows have failed (in the current Reinit epoch)",
     MPI_T_VERBOSITY_USER_BASIC, MPI_T_PVAR_CLASS_COUNTER, ull_type,
     [](void* b) {
       return running() && put(b, static_cast<unsigned long long>(rt().failures().records().size()));
     }},
    {"ftmpi_reinit_restarts", "rollbacks of this process to its Reinit restart point",
     MPI_T_VERBOSITY_USER_BASIC, MPI_T_PVAR_CLASS_COUNTER, ull_type,
     [](void* b) {
       if (!running()) return false;
       return put(b, static_cast<unsigned long long>(rt().reinit() ? rt().reinit()->restarts() : 0));
     }},
};
constexpr int kNumPvars = static_cast<int>(sizeof kPvars / sizeof kPvars[0]);

struct Category {
  const char* name;
  const char* desc;
  std::vector<int> cvars, pvars;
  bool events;  // every MPI_T event
};
const Category kCategories[] = {
    {"ftmpi_p2p", "point-to-point messaging", {1}, {0, 1}, false},
    {"ftmpi_fault_tolerance", "failures, revokes and recovery", {0, 3}, {2, 3}, true},
    {"ftmpi_progress", "progress of communication", {2}, {}, false},
};
constexpr int kNumCategories = static_cast<int>(sizeof kCategories / sizeof kCategories[0]);

// Live handles and sessions.
std::mutex g_mu;
std::unordered_set<const void*> g_live;

bool live(const void* p) {
  std::lock_guard<std::mutex> l(g_mu);
  return p != nullptr && g_live.count(p) != 0;
}

// Reads under the API lock (the runtime's state may change in another thread otherwise).
int read_var(ReadFn fn, void* buf) {
  if (!buf) return MPI_ERR_ARG;
  if (!running()) return MPI_T_ERR_INVALID;
  ftmpi::api::ApiLock lock;
  return running() && fn(buf) ? MPI_SUCCESS : MPI_T_ERR_INVALID;
}

int find_name(const char* name, int n, const char* (*name_of)(int), int* index) {
  if (!name || !index) return MPI_ERR_ARG;
  for (int i = 0; i < n; ++i) {
    if (std::strcmp(name, name_of(i)) == 0) {
      *index = i;
      return MPI_SUCCESS;
    }
  }
  return MPI_T_ERR_INVALID_NAME;
}

int copy_indices(const std::vector<int>& v, int len, int indices[]) {
  if (len < 0 || (len > 0 && !indices)) return MPI_ERR_ARG;
  for (int i = 0; i < len && i < static_cast<int>(v.size()); ++i) indices[i] = v[static_cast<std::size_t>(i)];
  return MPI_SUCCESS;
}

}  // namespace

// ---- enumerations --------------------------------------------------------------------------------------
extern "C" int PMPI_T_enum_get_info(MPI_T_enum enumtype, int* num, char* name, int* name_len) {
  FTMPI_T_CHECK();
  if (enumtype != &g_ft_mode_enum) return MPI_T_ERR_INVALID_HANDLE;
  if (!num || bad_len(name_len)) return MPI_ERR_ARG;
  *num = static_cast<int>(enumtype->items.size());
  put_string(enumtype->name, name, name_len);
  return MPI_SUCCESS;
}
FTMPI_ALIAS(T_enum_get_info)

extern "C" int PMPI_T_enum_get_item(MPI_T_enum enumtype, int index, int* value, char* name, int* name_len) {
  FTMPI_T_CHECK();
  if (enumtype != &g_ft_mode_enum) return MPI_T_ERR_INVALID_HANDLE;
  if (index < 0 || index >= static_cast<int>(enumtype->items.size())) return MPI_T_ERR_INVALID_ITEM;
  if (!value || bad_len(name_len)) return MPI_ERR_ARG;
  *value = enumtype->items[static_cast<std::size_t>(index)].first;
  put_string(enumtype->items[static_cast<std::size_t>(index)].second, name, name_len);
  return MPI_SUCCESS;
}
FTMPI_ALIAS(T_enum_get_item)

// ---- control variables -----------------------------------------------------------------------------------
extern "C" int PMPI_T_cvar_get_num(int* n) {
  FTMPI_T_CHECK();
  if (!n) return MPI_ERR_ARG;
  *n = kNumCvars;
  return MPI_SUCCESS;
}
FTMPI_ALIAS(T_cvar_get_num)

extern "C" int PMPI_T_cvar_get_info(int cvar_index, char* name, int* name_len, int* verbosity,
                                    MPI_Datatype* datatype, MPI_T_enum* enumtype, char* desc, int* desc_len,
                                    int* bind, int* scope) {
  FTMPI_T_CHECK();
  if (cvar_index < 0 || cvar_index >= kNumCvars) return MPI_T_ERR_INVALID_INDEX;
  const Cvar& c = kCvars[cvar_index];
  if (bad_len(name_len) || bad_len(desc_len)) return MPI_ERR_ARG;
  put_string(c.name, name, name_len);
  put_string(c.desc, desc, desc_len);
  if (verbosity) *verbosity = c.verbosity;
  if (datatype) *datatype = c.type();
  if (enumtype) *enumtype = c.enumtype;
  if (bind) *bind = MPI_T_BIND_NO_OBJECT;
  if (scope) *scope = MPI_T_SCOPE_CONSTANT;
  return MPI_SUCCESS;
}
FTMPI_ALIAS(T_cvar_get_info)

extern "C" int PMPI_T_cvar_get_index(const char* name, int* cvar_index) {
  FTMPI_T_CHECK();
  return find_name(name, kNumCvars, [](int i) { return kCvars[i].name; }, cvar_index);
}
FTMPI_ALIAS(T_cvar_get_index)

extern "C" int PMPI_T_cvar_handle_alloc(int cvar_index, void* obj_handle, MPI_T_cvar_handle* handle, int* count) {
  FTMPI_T_CHECK();
  (void)obj_handle;  // every variable is bound to no object
  if (cvar_index < 0 || cvar_index >= kNumCvars) return MPI_T_ERR_INVALID_INDEX;
  if (!handle || !count) return MPI_ERR_ARG;
  auto* h = new (std::nothrow) ftmpi_mpit_cvar_handle_s{cvar_index};
  if (!h) return MPI_T_ERR_MEMORY;
  {
    std::lock_guard<std::mutex> l(g_mu);
    g_live.insert(h);
  }
  *handle = h;
  *count = 1;
  return MPI_SUCCESS;
}
FTMPI_ALIAS(T_cvar_handle_alloc)

extern "C" int PMPI_T_cvar_handle_free(MPI_T_cvar_handle* handle) {
  FTMPI_T_CHECK();
  if (!handle) return MPI_ERR_ARG;
  {
    std::lock_guard<std::mutex> l(g_mu);
    if (!*handle || g_live.erase(*handle) == 0) return MPI_T_ERR_INVALID_HANDLE;
  }
  delete *handle;
  *handle = MPI_T_CVAR_HANDLE_NULL;
  return MPI_SUCCESS;
}
FTMPI_ALIAS(T_cvar_handle_free)

extern "C" int PMPI_T_cvar_read(MPI_T_cvar_handle handle, void* buf) {
  FTMPI_T_CHECK();
  if (!live(handle)) return MPI_T_ERR_INVALID_HANDLE;
  return read_var(kCvars[handle->index].read, buf);
}
FTMPI_ALIAS(T_cvar_read)

extern "C" int PMPI_T_cvar_write(MPI_T_cvar_handle handle, const void* buf) {
  FTMPI_T_CHECK();
  if (!live(handle)) return MPI_T_ERR_INVALID_HANDLE;
  if (!buf) return MPI_ERR_ARG;
  return MPI_T_ERR_CVAR_SET_NEVER;  // every control variable is MPI_T_SCOPE_CONSTANT
}
FTMPI_ALIAS(T_cvar_write)

// ---- performance variables -------------------------------------------------------------------------------
extern "C" int PMPI_T_pvar_get_num(int* n) {
  FTMPI_T_CHECK();
  if (!n) return MPI_ERR_ARG;
  *n = kNumPvars;
  return MPI_SUCCESS;
}
FTMPI_ALIAS(T_pvar_get_num)

extern "C" int PMPI_T_pvar_get_info(int pvar_index, char* name, int* name_len, int* verbosity, int* var_class,
                                    MPI_Datatype* datatype, MPI_T_enum* enumtype, char* desc, int* desc_len,
                                    int* bind, int* readonly, int* continuous, int* atomic) {
  FTMPI_T_CHECK();
  if (pvar_index < 0 || pvar_index >= kNumPvars) return MPI_T_ERR_INVALID_INDEX;
  const Pvar& p = kPvars[pvar_index];
  if (bad_len(name_len) || bad_len(desc_len)) return MPI_ERR_ARG;
  put_string(p.name, name, name_len);
  put_string(p.desc, desc, desc_len);
  if (verbosity) *verbosity = p.verbosity;
  if (var_class) *var_class = p.var_class;
  if (datatype) *datatype = p.type();
  if (enumtype) *enumtype = MPI_T_ENUM_NULL;
  if (bind) *bind = MPI_T_BIND_NO_OBJECT;
  if (readonly) *readonly = 1;
  if (continuous) *continuous = 1;
  if (atomic) *atomic = 0;
  return MPI_SUCCESS;
}
FTMPI_ALIAS(T_pvar_get_info)

extern "C" int PMPI_T_pvar_get_index(const char* name, int var_class, int* pvar_index) {
  FTMPI_T_CHECK();
  if (!name || !pvar_index) return MPI_ERR_ARG;
  for (int i = 0; i < kNumPvars; ++i) {
    if (std::strcmp(name, kPvars[i].name) == 0 && kPvars[i].var_class == var_class) {
      *pvar_index = i;
      return MPI_SUCCESS;
    }
  }
  return MPI_T_ERR_INVALID_NAME;
}
FTMPI_ALIAS(T_pvar_get_index)

extern "C" int PMPI_T_pvar_session_create(MPI_T_pvar_session* session) {
  FTMPI_T_CHECK();
  if (!session) return MPI_ERR_ARG;
  auto* s = new (std::nothrow) ftmpi_mpit_pvar_session_s{};
  if (!s) return MPI_T_ERR_MEMORY;
  std::lock_guard<std::mutex> l(g_mu);
  g_live.insert(s);
  *session = s;
  return MPI_SUCCESS;
}
FTMPI_ALIAS(T_pvar_session_create)

extern "C" int PMPI_T_pvar_session_free(MPI_T_pvar_session* session) {
  FTMPI_T_CHECK();
  if (!session) return MPI_ERR_ARG;
  std::lock_guard<std::mutex> l(g_mu);
  if (!*session || g_live.erase(*session) == 0) return MPI_T_ERR_INVALID_SESSION;
  for (ftmpi_mpit_pvar_handle_s* h : (*session)->handles) {  // its handles go with it
    g_live.erase(h);
    delete h;
  }
  delete *session;
  *session = MPI_T_PVAR_SESSION_NULL;
  return MPI_SUCCESS;
}
FTMPI_ALIAS(T_pvar_session_free)

extern "C" int PMPI_T_pvar_handle_alloc(MPI_T_pvar_session session, int pvar_index, void* obj_handle,
                                        MPI_T_pvar_handle* handle, int* count) {
  FTMPI_T_CHECK();
  (void)obj_handle;
  if (!live(session)) return MPI_T_ERR_INVALID_SESSION;
  if (pvar_index < 0 || pvar_index >= kNumPvars) return MPI_T_ERR_INVALID_INDEX;
  if (!handle || !count) return MPI_ERR_ARG;
  auto* h = new (std::nothrow) ftmpi_mpit_pvar_handle_s{pvar_index, session};
  if (!h) return MPI_T_ERR_MEMORY;
  std::lock_guard<std::mutex> l(g_mu);
  g_live.insert(h);
  session->handles.push_back(h);
  *handle = h;
  *count = 1;
  return MPI_SUCCESS;
}
FTMPI_ALIAS(T_pvar_handle_alloc)

namespace {
// A handle of `session` (MPI_T_PVAR_ALL_HANDLES allowed when `all_ok`): MPI_SUCCESS or the error.
int check_pvar(MPI_T_pvar_session session, MPI_T_pvar_handle handle, bool all_ok) {
  if (!live(session)) return MPI_T_ERR_INVALID_SESSION;
  if (handle == MPI_T_PVAR_ALL_HANDLES) return all_ok ? MPI_SUCCESS : MPI_T_ERR_INVALID_HANDLE;
  if (!live(handle) || handle->session != session) return MPI_T_ERR_INVALID_HANDLE;
  return MPI_SUCCESS;
}
}  // namespace

extern "C" int PMPI_T_pvar_handle_free(MPI_T_pvar_session session, MPI_T_pvar_handle* handle) {
  FTMPI_T_CHECK();
  if (!handle) return MPI_ERR_ARG;
  if (int rc = check_pvar(session, *handle, false); rc != MPI_SUCCESS) return rc;
  std::lock_guard<std::mutex> l(g_mu);
  auto& v = session->handles;
  v.erase(std::remove(v.begin(), v.end(), *handle), v.end());
  g_live.erase(*handle);
  delete *handle;
  *handle = MPI_T_PVAR_HANDLE_NULL;
  return MPI_SUCCESS;
}
FTMPI_ALIAS(T_pvar_handle_free)

// Every variable is continuous: start/stop of one handle is refused; with MPI_T_PVAR_ALL_HANDLES continuous
// variables are skipped, so the call succeeds (MPI-3.1 §14.3.7).
extern "C" int PMPI_T_pvar_start(MPI_T_pvar_session session, MPI_T_pvar_handle handle) {
  FTMPI_T_CHECK();
  if (int rc = check_pvar(session, handle, true); rc != MPI_SUCCESS) return rc;
  return handle == MPI_T_PVAR_ALL_HANDLES ? MPI_SUCCESS : MPI_T_ERR_PVAR_NO_STARTSTOP;
}
FTMPI_ALIAS(T_pvar_start)

extern "C" int PMPI_T_pvar_stop(MPI_T_pvar_session session, MPI_T_pvar_handle handle) {
  FTMPI_T_CHECK();
  if (int rc = check_pvar(session, handle, true); rc != MPI_SUCCESS) return rc;
  return handle == MPI_T_PVAR_ALL_HANDLES ? MPI_SUCCESS : MPI_T_ERR_PVAR_NO_STARTSTOP;
}
FTMPI_ALIAS(T_pvar_stop)

extern "C" int PMPI_T_pvar_read(MPI_T_pvar_session session, MPI_T_pvar_handle handle, void* buf) {
  FTMPI_T_CHECK();
  if (int rc = check_pvar(session, handle, false); rc != MPI_SUCCESS) return rc;
  return read_var(kPvars[handle->index].read, buf);
}
FTMPI_ALIAS(T_pvar_read)

// Every variable is read-only: write, reset and readreset are refused (with MPI_T_PVAR_ALL_HANDLES, reset
// skips read-only variables and succeeds).
extern "C" int PMPI_T_pvar_write(MPI_T_pvar_session session, MPI_T_pvar_handle handle, const void* buf) {
  FTMPI_T_CHECK();
  if (int rc = check_pvar(session, handle, false); rc != MPI_SUCCESS) return rc;
  if (!buf) return MPI_ERR_ARG;
  return MPI_T_ERR_PVAR_NO_WRITE;
}
FTMPI_ALIAS(T_pvar_write)

extern "C" int PMPI_T_pvar_reset(MPI_T_pvar_session session, MPI_T_pvar_handle handle) {
  FTMPI_T_CHECK();
  if (int rc = check_pvar(session, handle, true); rc != MPI_SUCCESS) return rc;
  return handle == MPI_T_PVAR_ALL_HANDLES ? MPI_SUCCESS : MPI_T_ERR_PVAR_NO_WRITE;
}
FTMPI_ALIAS(T_pvar_reset)

extern "C" int PMPI_T_pvar_readreset(MPI_T_pvar_session session, MPI_T_pvar_handle handle, void* buf) {
  FTMPI_T_CHECK();
  if (int rc = check_pvar(session, handle, false); rc != MPI_SUCCESS) return rc;
  if (!buf) return MPI_ERR_ARG;
  return MPI_T_ERR_PVAR_NO_WRITE;
}
FTMPI_ALIAS(T_pvar_readreset)

// ---- categories --------------------------------------------------------------------------------------------
extern "C" int PMPI_T_category_get_num(int* n) {
  FTMPI_T_CHECK();
  if (!n) return MPI_ERR_ARG;
  *n = kNumCategories;
  return MPI_SUCCESS;
}
FTMPI_ALIAS(T_category_get_num)

extern "C" int PMPI_T_category_get_info(int cat_index, char* name, int* name_len, char* desc, int* desc_len,
                                        int* num_cvars, int* num_pvars, int* num_categories) {
  FTMPI_T_CHECK();
  if (cat_index < 0 || cat_index >= kNumCategories) return MPI_T_ERR_INVALID_INDEX;
  const Category& c = kCategories[cat_index];
  if (bad_len(name_len) || bad_len(desc_len)) return MPI_ERR_ARG;
  put_string(c.name, name, name_len);
  put_string(c.desc, desc, desc_len);
  if (num_cvars) *num_cvars = static_cast<int>(c.cvars.size());
  if (num_pvars) *num_pvars = static_cast<int>(c.pvars.size());
  if (num_categories) *num_categories = 0;
  return MPI_SUCCESS;
}
FTMPI_ALIAS(T_category_get_info)

extern "C" int PMPI_T_category_get_num_events(int cat_index, int* num_events) {
  FTMPI_T_CHECK();
  if (cat_index < 0 || cat_index >= kNumCategories) return MPI_T_ERR_INVALID_INDEX;
  if (!num_events) return MPI_ERR_ARG;
  *num_events = kCategories[cat_index].events ? ftmpi::api::mpit::event_count() : 0;
  return MPI_SUCCESS;
}
FTMPI_ALIAS(T_category_get_num_events)

extern "C" int PMPI_T_category_get_index(const char* name, int* cat_index) {
  FTMPI_T_CHECK();
  return find_name(name, kNumCategories, [](int i) { return kCategories[i].name; }, cat_index);
}
FTMPI_ALIAS(T_category_get_index)

extern "C" int PMPI_T_category_get_cvars(int cat_index, int len, int indices[]) {
  FTMPI_T_CHECK();
  if (cat_index < 0 || cat_index >= kNumCategories) return MPI_T_ERR_INVALID_INDEX;
  return copy_indices(kCategories[cat_index].cvars, len, indices);
}
FTMPI_ALIAS(T_category_get_cvars)

extern "C" int PMPI_T_category_get_pvars(int cat_index, int len, int indices[]) {
  FTMPI_T_CHECK();
  if (cat_index < 0 || cat_index >= kNumCategories) return MPI_T_ERR_INVALID_INDEX;
  return copy_indices(kCategories[cat_index].pvars, len, indices);
}
FTMPI_ALIAS(T_category_get_pvars)

extern "C" int PMPI_T_category_get_categories(int cat_index, int len, int indices[]) {
  FTMPI_T_CHECK();
  if (cat_index < 0 || cat_index >= kNumCategories) return MPI_T_ERR_INVALID_INDEX;
  return copy_indices({}, len, indices);
}
FTMPI_ALIAS(T_category_get_categories)

extern "C" int PMPI_T_category_get_events(int cat_index, int len, int indices[]) {
  FTMPI_T_CHECK();
  if (cat_index < 0 || cat_index >= kNumCategories) return MPI_T_ERR_INVALID_INDEX;
  std::vector<int> all;
  if (kCategories[cat_index].events)
    for (int i = 0; i < ftmpi::api::mpit::event_count(); ++i) all.push_back(i);
  return copy_indices(all, len, indices);
}
FTMPI_ALIAS(T_category_get_events)

extern "C" int PMPI_T_category_changed(int* update_number) {
  FTMPI_T_CHECK();
  if (!update_number) return MPI_ERR_ARG;
  *update_number = 0;  // the variables and categories never change
  return MPI_SUCCESS;
}
FTMPI_ALIAS(T_category_changed)
