// MPI-4.0 sessions (§11.3): MPI_Session_init/finalize, the process sets "mpi://WORLD" and "mpi://SELF",
// MPI_Group_from_session_pset, MPI_Comm_create_from_group, session info and error handlers; and the
// runtime's lifetime shared by the world model and sessions (api/session.h).
//
// Choices (docs/api.md "Sessions"):
//  * The first MPI_Session_init (or MPI_Init) starts the runtime, which is collective over the job as
//    MPI_Init is; later ones are local. The runtime stays up while MPI_Init..MPI_Finalize or any session
//    is open. When the last session closes before MPI_Init was ever called, it stays up (a later session or
//    MPI_Init reuses it) and is finalized at process exit. It cannot be restarted once torn down (after
//    MPI_Finalize with no session open, MPI_Session_init fails with MPI_ERR_OTHER).
//  * MPI_Comm_create_from_group is MPI_Comm_create_group over the process set's members: collective over
//    the group only, the string tag hashed to an internal tag. With a failed member the creation fails
//    (MPI_ERR_PROC_FAILED) at the survivors rather than excluding it, with the same (non-)uniformity as the
//    other communicator constructors; the survivors can MPI_Group_difference the failed processes away and
//    create again. The new communicator is an ordinary one (revoke/shrink/agree work on it).
//  * Errors: a session's own error handler for calls on a valid session; for an invalid session handle
//    (MPI_ERR_SESSION), MPI_COMM_WORLD's handler inside MPI_Init..MPI_Finalize, otherwise the code is
//    returned.
#include "api/session.h"

#include <climits>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>

#include "api/buffer_attach.h"
#include "api/common.h"
#include "api/errors.h"
#include "api/info_object.h"
#include "comm/comm_ctors.h"
#include "comm/comm_hints.h"
#include "comm/group.h"
#include "ft/ft_manager.h"
#include "util/log.h"

using ftmpi::Errc;
using ftmpi::Status;
using ftmpi::api::g_api;
using ftmpi::api::ret;

namespace {
constexpr std::uint32_t kMagicSession = 0x5E550009;
}

struct ftmpi_session_s {
  std::uint32_t magic = kMagicSession;
  ftmpi_errhandler_s* errhandler = nullptr;
  ftmpi::Info info;  // what MPI_Session_get_info reports
};

namespace ftmpi::api {
namespace {
int g_sessions = 0;
bool g_torn_down = false;  // the runtime was up once and is gone
}  // namespace

Status runtime_acquire(int required_thread_level, const Runtime::InitFailureHook& on_failure) {
  if (g_api.rt) return {};
  if (g_torn_down) return Status(Errc::other, "the MPI library cannot be restarted after it was finalized");
  auto rt = Runtime::init(required_thread_level, on_failure);
  if (!rt.ok()) return rt.status();
  g_api.rt = rt.value().release();
  return {};
}

namespace {
Status teardown() {
  if (!g_api.rt || g_sessions > 0 || (g_api.initialized && !g_api.finalized)) return {};
  Status st = g_api.rt->finalize();
  delete g_api.rt;
  g_api.rt = nullptr;
  g_torn_down = true;
  return st;
}
}  // namespace

Status runtime_release_if_unused() {
  if (!g_api.rt || g_sessions > 0 || (g_api.initialized && !g_api.finalized)) return {};
  if (!g_api.initialized) {
    // Sessions only so far: another session or MPI_Init may still come (MPI-4.0 §11.3 allows both), and the
    // runtime cannot be restarted, so it stays up until then or until the process exits.
    static bool registered = false;
    if (!registered) {
      registered = true;
      std::atexit([] {
        Status st = teardown();
        if (!st.ok()) log::error("finalizing the MPI library at exit: %s", st.message().c_str());
      });
    }
    return {};
  }
  return teardown();
}

int open_sessions() { return g_sessions; }

}  // namespace ftmpi::api

namespace {

bool valid_session(const ftmpi_session_s* s) { return s && s->magic == kMagicSession; }
bool valid_errhandler(const ftmpi_errhandler_s* e) { return e && e->magic == ftmpi::kMagicErrhandler; }

// Apply `s`'s error handler (see the header comment for an invalid session).
int session_ret(MPI_Session s, const Status& st, const char* fn) {
  if (st.ok()) return MPI_SUCCESS;
  const int code = ftmpi::api::error_class_of(st.code());
  if (!valid_session(s)) {  // MPI_ERR_SESSION (no Errc of its own: only this file raises it)
    if (g_api.initialized && !g_api.finalized)
      return ftmpi::api::invoke_errhandler(nullptr, MPI_ERR_SESSION, "invalid session", fn);
    return MPI_ERR_SESSION;
  }
  ftmpi_errhandler_s* eh = s->errhandler;
  auto kind = eh ? eh->kind : ftmpi_errhandler_s::Kind::fatal;
  if (kind == ftmpi_errhandler_s::Kind::return_) return code;
  if (kind == ftmpi_errhandler_s::Kind::user && eh->fn) {
    MPI_Session handle = s;
    int c = code;
    reinterpret_cast<MPI_Session_errhandler_function*>(eh->fn)(&handle, &c);
    return code;
  }
  std::string line = std::string(fn) + ": " + (st.message().empty() ? "" : st.message() + " ") + "(" +
                     ftmpi::api::error_class_sentence(code) + ")";
  ftmpi::log::error("%s; aborting the job (error handler of the session)", line.c_str());
  ftmpi::api::abort_job(code, line.c_str());
}

#define CHECK_SESSION(s, fn) \
  if (!valid_session(s)) return session_ret(s, Status(Errc::arg, "invalid session"), fn)

void set_errhandler(MPI_Session s, ftmpi_errhandler_s* eh) {
  ftmpi_errhandler_s* old = s->errhandler;
  s->errhandler = eh;
  if (eh && !eh->predefined) ++eh->refs;
  if (old && !old->predefined && --old->refs == 0) old->magic = ftmpi::kMagicFreed;
}

const char* thread_level_name(int level) {
  switch (level) {
    case MPI_THREAD_SINGLE: return "MPI_THREAD_SINGLE";
    case MPI_THREAD_FUNNELED: return "MPI_THREAD_FUNNELED";
    case MPI_THREAD_SERIALIZED: return "MPI_THREAD_SERIALIZED";
    default: return "MPI_THREAD_MULTIPLE";
  }
}

int thread_level_of(const std::string& v) {
  if (v == "MPI_THREAD_SINGLE") return MPI_THREAD_SINGLE;
  if (v == "MPI_THREAD_FUNNELED") return MPI_THREAD_FUNNELED;
  if (v == "MPI_THREAD_SERIALIZED") return MPI_THREAD_SERIALIZED;
  if (v == "MPI_THREAD_MULTIPLE") return MPI_THREAD_MULTIPLE;
  return -1;
}

// The process sets every session knows.
constexpr const char* kPsets[] = {"mpi://WORLD", "mpi://SELF"};
constexpr int kNumPsets = 2;

// Index of `name` in kPsets (names are case-insensitive, as MPICH and Open MPI treat them), or -1.
int pset_index(const char* name) {
  if (!name) return -1;
  for (int i = 0; i < kNumPsets; ++i)
    if (strcasecmp(name, kPsets[i]) == 0) return i;
  return -1;
}

// The members of process set i, as world ranks (the process identifiers groups are made of). mpi://WORLD is
// MPI_COMM_WORLD's group, whose machinery is up whenever the runtime is: in a spawned process its members
// are not 0..n-1 (the parents come first), so it is read from there, not counted.
std::vector<int> pset_members(int i) {
  if (i == 0) return ftmpi_comm_world.group->world_ranks;
  return {g_api.rt->world_rank()};
}

}  // namespace

extern "C" int PMPI_Session_init(MPI_Info info, MPI_Errhandler errhandler, MPI_Session* session) {
  const char* fn = "MPI_Session_init";
  if (!session) return MPI_ERR_ARG;
  *session = MPI_SESSION_NULL;
  if (info != MPI_INFO_NULL && !ftmpi::api::valid_info(info)) return MPI_ERR_INFO;
  if (errhandler != MPI_ERRHANDLER_NULL && !valid_errhandler(errhandler)) return MPI_ERR_ERRHANDLER;
  int required = MPI_THREAD_SINGLE;
  if (info != MPI_INFO_NULL) {
    if (const std::string* v = info->info.get("thread_level")) {
      required = thread_level_of(*v);
      if (required < 0) return MPI_ERR_INFO_VALUE;
    }
  }
  if (Status st = ftmpi::api::runtime_acquire(required); !st.ok()) {
    ftmpi::log::error("%s: %s", fn, st.message().c_str());
    return ftmpi::api::error_class_of(st.code());
  }
  ftmpi::api::ApiLock lock;
  auto* s = new ftmpi_session_s;
  set_errhandler(s, errhandler == MPI_ERRHANDLER_NULL ? MPI_ERRORS_ARE_FATAL : errhandler);
  (void)s->info.set("thread_level", thread_level_name(g_api.rt->thread_level()));
  (void)s->info.set("mpi_size", std::to_string(g_api.rt->world_size()));
  ++ftmpi::api::g_sessions;
  *session = s;
  return MPI_SUCCESS;
}
FTMPI_ALIAS(Session_init)

extern "C" int PMPI_Session_finalize(MPI_Session* session) {
  const char* fn = "MPI_Session_finalize";
  if (!session) return MPI_ERR_ARG;
  MPI_Session s = *session;
  if (!g_api.rt) return session_ret(s, Status(Errc::arg, "invalid session"), fn);
  {
    ftmpi::api::ApiLock lock;
    CHECK_SESSION(s, fn);
    // The session's buffered-send buffer: its messages are transmitted first (as MPI_Session_detach_buffer
    // would), then it is dropped.
    ftmpi::api::flush_buffer(s);
    g_api.rt->engine().buffer_forget(s);
    set_errhandler(s, nullptr);
    s->magic = ftmpi::kMagicFreed;  // kept allocated: stale handles stay detectable
    --ftmpi::api::g_sessions;
    *session = MPI_SESSION_NULL;
  }
  Status st = ftmpi::api::runtime_release_if_unused();
  if (!st.ok()) {
    ftmpi::log::error("%s: %s", fn, st.message().c_str());
    return ftmpi::api::error_class_of(st.code());
  }
  return MPI_SUCCESS;
}
FTMPI_ALIAS(Session_finalize)

extern "C" int PMPI_Session_get_num_psets(MPI_Session session, MPI_Info info, int* npset_names) {
  const char* fn = "MPI_Session_get_num_psets";
  FTMPI_ENTER(fn);
  CHECK_SESSION(session, fn);
  if (info != MPI_INFO_NULL && !ftmpi::api::valid_info(info))
    return session_ret(session, Status(Errc::info, "invalid info object"), fn);
  if (!npset_names) return session_ret(session, Status(Errc::arg, "npset_names is NULL"), fn);
  *npset_names = kNumPsets;
  return MPI_SUCCESS;
}
FTMPI_ALIAS(Session_get_num_psets)

extern "C" int PMPI_Session_get_nth_pset(MPI_Session session, MPI_Info info, int n, int* pset_len, char* pset_name) {
  const char* fn = "MPI_Session_get_nth_pset";
  FTMPI_ENTER(fn);
  CHECK_SESSION(session, fn);
  if (info != MPI_INFO_NULL && !ftmpi::api::valid_info(info))
    return session_ret(session, Status(Errc::info, "invalid info object"), fn);
  if (n < 0 || n >= kNumPsets) return session_ret(session, Status(Errc::arg, "no process set with that index"), fn);
  if (!pset_len || *pset_len < 0) return session_ret(session, Status(Errc::arg, "invalid pset_len"), fn);
  const std::size_t len = std::strlen(kPsets[n]);
  if (*pset_len > 0) {  // pset_len == 0: only ask for the length (MPI-4.0 §11.3.2)
    if (!pset_name) return session_ret(session, Status(Errc::arg, "pset_name is NULL"), fn);
    const std::size_t k = std::min(len, static_cast<std::size_t>(*pset_len) - 1);
    std::memcpy(pset_name, kPsets[n], k);
    pset_name[k] = '\0';
  }
  *pset_len = static_cast<int>(len + 1);
  return MPI_SUCCESS;
}
FTMPI_ALIAS(Session_get_nth_pset)

extern "C" int PMPI_Session_get_pset_info(MPI_Session session, const char* pset_name, MPI_Info* info) {
  const char* fn = "MPI_Session_get_pset_info";
  FTMPI_ENTER(fn);
  CHECK_SESSION(session, fn);
  if (!info) return session_ret(session, Status(Errc::arg, "info is NULL"), fn);
  const int i = pset_index(pset_name);
  if (i < 0) return session_ret(session, Status(Errc::arg, "unknown process set name"), fn);
  ftmpi::Info out;
  (void)out.set("mpi_size", std::to_string(pset_members(i).size()));
  *info = ftmpi::api::new_info(out);
  return MPI_SUCCESS;
}
FTMPI_ALIAS(Session_get_pset_info)

extern "C" int PMPI_Session_get_info(MPI_Session session, MPI_Info* info_used) {
  const char* fn = "MPI_Session_get_info";
  FTMPI_ENTER(fn);
  CHECK_SESSION(session, fn);
  if (!info_used) return session_ret(session, Status(Errc::arg, "info_used is NULL"), fn);
  *info_used = ftmpi::api::new_info(session->info);
  return MPI_SUCCESS;
}
FTMPI_ALIAS(Session_get_info)

extern "C" int PMPI_Session_create_errhandler(MPI_Session_errhandler_function* function, MPI_Errhandler* errhandler) {
  const char* fn = "MPI_Session_create_errhandler";
  // At any time: the handler of a session is made before the session (MPI_Session_init takes it), and a
  // program of the Sessions model may never call MPI_Init.
  FTMPI_ENTER_ANYTIME(fn);
  if (!function || !errhandler) {
    if (!g_api.initialized || g_api.finalized) return MPI_ERR_ARG;  // no handler applies outside MPI
    return ret(nullptr, Status(Errc::arg, "NULL function or handle"), fn);
  }
  auto* e = new ftmpi_errhandler_s;
  e->kind = ftmpi_errhandler_s::Kind::user;
  e->fn = reinterpret_cast<ftmpi_comm_errhandler_fn*>(function);
  *errhandler = e;
  return MPI_SUCCESS;
}
FTMPI_ALIAS(Session_create_errhandler)

extern "C" int PMPI_Session_set_errhandler(MPI_Session session, MPI_Errhandler errhandler) {
  const char* fn = "MPI_Session_set_errhandler";
  FTMPI_ENTER(fn);
  CHECK_SESSION(session, fn);
  if (!valid_errhandler(errhandler)) return session_ret(session, Status(Errc::arg, "invalid error handler"), fn);
  set_errhandler(session, errhandler);
  return MPI_SUCCESS;
}
FTMPI_ALIAS(Session_set_errhandler)

extern "C" int PMPI_Session_get_errhandler(MPI_Session session, MPI_Errhandler* errhandler) {
  const char* fn = "MPI_Session_get_errhandler";
  FTMPI_ENTER(fn);
  CHECK_SESSION(session, fn);
  if (!errhandler) return session_ret(session, Status(Errc::arg, "errhandler is NULL"), fn);
  ftmpi_errhandler_s* e = session->errhandler;
  if (e && !e->predefined) ++e->refs;  // the handle is one more reference (MPI_Errhandler_free drops it)
  *errhandler = e;
  return MPI_SUCCESS;
}
FTMPI_ALIAS(Session_get_errhandler)

extern "C" int PMPI_Session_call_errhandler(MPI_Session session, int errorcode) {
  const char* fn = "MPI_Session_call_errhandler";
  FTMPI_ENTER(fn);
  CHECK_SESSION(session, fn);
  ftmpi_errhandler_s* eh = session->errhandler;
  auto kind = eh ? eh->kind : ftmpi_errhandler_s::Kind::fatal;
  if (kind == ftmpi_errhandler_s::Kind::return_) return MPI_SUCCESS;
  if (kind == ftmpi_errhandler_s::Kind::user && eh->fn) {
    MPI_Session handle = session;
    int c = errorcode;
    reinterpret_cast<MPI_Session_errhandler_function*>(eh->fn)(&handle, &c);
    return MPI_SUCCESS;
  }
  std::string why = std::string(fn) + ": error code " + std::to_string(errorcode);
  ftmpi::log::error("%s; aborting the job (error handler of the session)", why.c_str());
  ftmpi::api::abort_job(errorcode, why.c_str());
}
FTMPI_ALIAS(Session_call_errhandler)

extern "C" int PMPI_Group_from_session_pset(MPI_Session session, const char* pset_name, MPI_Group* newgroup) {
  const char* fn = "MPI_Group_from_session_pset";
  FTMPI_ENTER(fn);
  CHECK_SESSION(session, fn);
  if (!newgroup) return session_ret(session, Status(Errc::arg, "newgroup is NULL"), fn);
  const int i = pset_index(pset_name);
  if (i < 0) return session_ret(session, Status(Errc::arg, "unknown process set name"), fn);
  *newgroup = ftmpi::comm::make_group(pset_members(i), g_api.rt->world_rank());
  (*newgroup)->session = session;  // its communicators use the session's buffered-send buffer
  return MPI_SUCCESS;
}
FTMPI_ALIAS(Group_from_session_pset)

namespace {
// Errors of MPI_Comm_create_from_group go to the handler the caller passed (it has no communicator yet).
int create_ret(MPI_Errhandler eh, const Status& st, const char* fn) {
  if (st.ok()) return MPI_SUCCESS;
  if (valid_errhandler(eh) && eh->kind == ftmpi_errhandler_s::Kind::return_) return ftmpi::api::error_class_of(st.code());
  if (valid_errhandler(eh) && eh->kind == ftmpi_errhandler_s::Kind::user && eh->fn) {
    // A communicator error handler needs a communicator: report through MPI_COMM_SELF-less return.
    return ftmpi::api::error_class_of(st.code());
  }
  if (g_api.initialized && !g_api.finalized) return ftmpi::api::ret(nullptr, st, fn);
  const int code = ftmpi::api::error_class_of(st.code());
  std::string line = std::string(fn) + ": " + st.message();
  ftmpi::log::error("%s; aborting the job (MPI_ERRORS_ARE_FATAL)", line.c_str());
  ftmpi::api::abort_job(code, line.c_str());
}

std::uint32_t hash_tag(const char* s) {  // FNV-1a, folded into create_group's 28-bit tag range
  std::uint32_t h = 2166136261u;
  for (; *s; ++s) h = (h ^ static_cast<unsigned char>(*s)) * 16777619u;
  return h & ((1u << 28) - 1);
}
}  // namespace

extern "C" int PMPI_Comm_create_from_group(MPI_Group group, const char* stringtag, MPI_Info info,
                                           MPI_Errhandler errhandler, MPI_Comm* newcomm) {
  const char* fn = "MPI_Comm_create_from_group";
  FTMPI_ENTER(fn);
  if (errhandler != MPI_ERRHANDLER_NULL && !valid_errhandler(errhandler))
    return create_ret(nullptr, Status(Errc::arg, "invalid error handler"), fn);
  if (!ftmpi::api::valid_group(group)) return create_ret(errhandler, Status(Errc::group, "invalid group"), fn);
  if (!stringtag || std::strlen(stringtag) >= MPI_MAX_STRINGTAG_LEN)
    return create_ret(errhandler, Status(Errc::arg, "stringtag is NULL or too long"), fn);
  if (info != MPI_INFO_NULL && !ftmpi::api::valid_info(info))
    return create_ret(errhandler, Status(Errc::info, "invalid info object"), fn);
  if (!newcomm) return create_ret(errhandler, Status(Errc::arg, "newcomm is NULL"), fn);
  *newcomm = MPI_COMM_NULL;
  if (group->size() == 0) return create_ret(errhandler, Status(Errc::group, "the group is empty"), fn);
  // MPI_COMM_WORLD's machinery (always there while the runtime is up) carries the agreement; the world model
  // need not be initialised.
  MPI_Comm out = MPI_COMM_NULL;
  Status st = ftmpi::comm::create_group(g_api.rt[0], &ftmpi_comm_world, group, static_cast<int>(hash_tag(stringtag)),
                                        &out, stringtag);
  if (!st.ok()) return create_ret(errhandler, st, fn);
  ftmpi_errhandler_s* eh = errhandler == MPI_ERRHANDLER_NULL ? MPI_ERRORS_ARE_FATAL : errhandler;
  ftmpi_errhandler_s* old = out->errhandler;
  out->errhandler = eh;
  if (!eh->predefined) ++eh->refs;
  if (old && !old->predefined && --old->refs == 0) old->magic = ftmpi::kMagicFreed;
  if (info != MPI_INFO_NULL) out->hints = ftmpi::comm::used_hints(info->info);  // comm/comm_hints.h
  out->session = group->session;  // (MPI-4.1 §3.6: Bsend falls back to the session's buffer)
  *newcomm = out;
  return MPI_SUCCESS;
}
FTMPI_ALIAS(Comm_create_from_group)

// ---- MPI-4.1 §3.6: the session's buffered-send buffer (helpers in api/buffer_attach.cpp) -----------------

extern "C" int PMPI_Session_attach_buffer(MPI_Session session, void* buffer, int size) {
  const char* fn = "MPI_Session_attach_buffer";
  FTMPI_ENTER(fn);
  CHECK_SESSION(session, fn);
  return session_ret(session, ftmpi::api::attach_buffer(session, buffer, size), fn);
}
FTMPI_ALIAS(Session_attach_buffer)

extern "C" int PMPI_Session_attach_buffer_c(MPI_Session session, void* buffer, MPI_Count size) {
  const char* fn = "MPI_Session_attach_buffer_c";
  FTMPI_ENTER(fn);
  CHECK_SESSION(session, fn);
  return session_ret(session, ftmpi::api::attach_buffer(session, buffer, size), fn);
}
FTMPI_ALIAS(Session_attach_buffer_c)

extern "C" int PMPI_Session_detach_buffer(MPI_Session session, void* buffer_addr, int* size) {
  const char* fn = "MPI_Session_detach_buffer";
  FTMPI_ENTER(fn);
  CHECK_SESSION(session, fn);
  if (!size) return session_ret(session, Status(Errc::arg, "NULL argument"), fn);
  long long n = 0;
  Status st = ftmpi::api::detach_buffer(session, buffer_addr, &n);
  if (st.ok()) *size = n > INT_MAX ? INT_MAX : static_cast<int>(n);
  return session_ret(session, st, fn);
}
FTMPI_ALIAS(Session_detach_buffer)

extern "C" int PMPI_Session_detach_buffer_c(MPI_Session session, void* buffer_addr, MPI_Count* size) {
  const char* fn = "MPI_Session_detach_buffer_c";
  FTMPI_ENTER(fn);
  CHECK_SESSION(session, fn);
  if (!size) return session_ret(session, Status(Errc::arg, "NULL argument"), fn);
  long long n = 0;
  Status st = ftmpi::api::detach_buffer(session, buffer_addr, &n);
  if (st.ok()) *size = n;
  return session_ret(session, st, fn);
}
FTMPI_ALIAS(Session_detach_buffer_c)

extern "C" int PMPI_Session_flush_buffer(MPI_Session session) {
  const char* fn = "MPI_Session_flush_buffer";
  FTMPI_ENTER(fn);
  CHECK_SESSION(session, fn);
  ftmpi::api::flush_buffer(session);
  return MPI_SUCCESS;
}
FTMPI_ALIAS(Session_flush_buffer)

extern "C" int PMPI_Session_iflush_buffer(MPI_Session session, MPI_Request* request) {
  const char* fn = "MPI_Session_iflush_buffer";
  FTMPI_ENTER(fn);
  CHECK_SESSION(session, fn);
  if (!request) return session_ret(session, Status(Errc::arg, "request is NULL"), fn);
  *request = ftmpi::api::iflush_buffer(session, MPI_COMM_SELF);
  return MPI_SUCCESS;
}
FTMPI_ALIAS(Session_iflush_buffer)
