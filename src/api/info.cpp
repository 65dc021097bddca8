// Info objects (MPI-3.1 §9): MPI_Info_create, set, get, get_valuelen, get_nkeys, get_nthkey, delete, dup,
// free, and the predefined MPI_INFO_ENV (read-only).
#include <sys/utsname.h>
#include <unistd.h>

#include <cstdlib>
#include <cstring>
#include <string>

#include "api/common.h"
#include "api/info_object.h"

using ftmpi::Errc;
using ftmpi::Status;
using ftmpi::api::ret;

FTMPI_API ftmpi_info_s ftmpi_info_env;

namespace ftmpi::api {

bool valid_info(const ftmpi_info_s* i) { return i && i->magic == kMagicInfo; }

ftmpi_info_s* new_info(const Info& from) {
  auto* i = new ftmpi_info_s;
  i->info = from;
  return i;
}

}  // namespace ftmpi::api

namespace {

const char* thread_level_name(int level) {
  switch (level) {
    case MPI_THREAD_SINGLE: return "MPI_THREAD_SINGLE";
    case MPI_THREAD_FUNNELED: return "MPI_THREAD_FUNNELED";
    case MPI_THREAD_SERIALIZED: return "MPI_THREAD_SERIALIZED";
    default: return "MPI_THREAD_MULTIPLE";
  }
}
int g_requested_thread_level = -1;  // -1: MPI not initialised yet

// MPI_INFO_ENV's keys (MPI-4.1 §11.2.6): what this process can tell about how it was started.
//   command, argv  the program and its arguments (from /proc/self/cmdline, as exec'ed)
//   maxprocs       the number of processes started (PMI_SIZE; 1 for a singleton)
//   soft           our mpiexec has no -soft: the only count it accepts is maxprocs, so the same value
//   host, arch     gethostname(), uname's machine
//   wdir           the working directory
//   file           mpiexec's --hostfile, when one was given (FTMPI_INFO_FILE); absent otherwise
//   thread_level   the level requested from MPI_Init_thread (MPI_Init: MPI_THREAD_SINGLE), once known
void fill_info_env() {
  if (ftmpi_info_env.predefined) return;
  ftmpi_info_env.predefined = true;
  ftmpi::Info& e = ftmpi_info_env.info;
  if (FILE* f = std::fopen("/proc/self/cmdline", "re")) {
    std::string all;
    char buf[4096];
    std::size_t n;
    while ((n = std::fread(buf, 1, sizeof buf, f)) > 0) all.append(buf, n);
    std::fclose(f);
    std::string command, args;
    std::size_t start = 0;
    for (int i = 0; start < all.size(); ++i) {
      std::size_t end = all.find('\0', start);
      if (end == std::string::npos) end = all.size();
      std::string word = all.substr(start, end - start);
      if (i == 0) command = word;
      else args += (args.empty() ? "" : " ") + word;
      start = end + 1;
    }
    if (!command.empty()) (void)e.set("command", command);
    (void)e.set("argv", args);
  }
  const char* n = getenv("PMI_SIZE");
  std::string maxprocs = n && *n ? n : "1";
  (void)e.set("maxprocs", maxprocs);
  (void)e.set("soft", maxprocs);
  char host[256] = {};
  gethostname(host, sizeof host - 1);
  (void)e.set("host", host);
  struct utsname u {};
  if (uname(&u) == 0) (void)e.set("arch", u.machine);
  char cwd[1024] = {};
  if (getcwd(cwd, sizeof cwd - 1)) (void)e.set("wdir", cwd);
  if (const char* file = getenv("FTMPI_INFO_FILE"); file && *file) (void)e.set("file", file);
  if (g_requested_thread_level >= 0) (void)e.set("thread_level", thread_level_name(g_requested_thread_level));
  const char* eh = getenv("FTMPI_INITIAL_ERRHANDLER");
  (void)e.set("mpi_initial_errhandler", eh && *eh ? eh : "mpi_errors_are_fatal");
}

// Resolve a handle: Errc::info for a null/freed one. MPI_INFO_ENV is filled on first use.
Status lookup(MPI_Info info) {
  if (!ftmpi::api::valid_info(info)) return Status(Errc::info, "invalid info object");
  if (info == &ftmpi_info_env) fill_info_env();
  return {};
}

// Outside MPI_Init..MPI_Finalize (MPI-4 allows Info calls there) an error is returned as its class: there
// is no MPI_COMM_WORLD whose handler could be applied.
int fail(const Status& st, const char* fn) {
  if (!ftmpi::api::g_api.initialized || ftmpi::api::g_api.finalized) return ftmpi::api::error_class_of(st.code());
  return ret(nullptr, st, fn);
}

}  // namespace

void ftmpi::api::note_requested_thread_level(int required) {
  g_requested_thread_level = required;
  if (ftmpi_info_env.predefined)  // already filled: MPI_Info calls before MPI_Init are allowed
    (void)ftmpi_info_env.info.set("thread_level", thread_level_name(required));
}

extern "C" int PMPI_Info_create(MPI_Info* info) {
  FTMPI_ENTER_ANYTIME("MPI_Info_create");
  if (!info) return fail(Status(Errc::arg, "info is NULL"), "MPI_Info_create");
  *info = new ftmpi_info_s;
  return MPI_SUCCESS;
}
FTMPI_ALIAS(Info_create)

extern "C" int PMPI_Info_set(MPI_Info info, const char* key, const char* value) {
  FTMPI_ENTER_ANYTIME("MPI_Info_set");
  if (Status st = lookup(info); !st.ok()) return fail(st, "MPI_Info_set");
  if (info->predefined) return fail(Status(Errc::info, "MPI_INFO_ENV is read-only"), "MPI_Info_set");
  if (!key) return fail(Status(Errc::info_key, "key is NULL"), "MPI_Info_set");
  if (!value) return fail(Status(Errc::info_value, "value is NULL"), "MPI_Info_set");
  return fail(info->info.set(key, value), "MPI_Info_set");
}
FTMPI_ALIAS(Info_set)

extern "C" int PMPI_Info_delete(MPI_Info info, const char* key) {
  FTMPI_ENTER_ANYTIME("MPI_Info_delete");
  if (Status st = lookup(info); !st.ok()) return fail(st, "MPI_Info_delete");
  if (info->predefined) return fail(Status(Errc::info, "MPI_INFO_ENV is read-only"), "MPI_Info_delete");
  if (!key) return fail(Status(Errc::info_key, "key is NULL"), "MPI_Info_delete");
  return fail(info->info.remove(key), "MPI_Info_delete");
}
FTMPI_ALIAS(Info_delete)

extern "C" int PMPI_Info_get(MPI_Info info, const char* key, int valuelen, char* value, int* flag) {
  FTMPI_ENTER_ANYTIME("MPI_Info_get");
  if (Status st = lookup(info); !st.ok()) return fail(st, "MPI_Info_get");
  if (!key) return fail(Status(Errc::info_key, "key is NULL"), "MPI_Info_get");
  if (Status st = ftmpi::Info::check_key(key); !st.ok()) return fail(st, "MPI_Info_get");
  if (!value || !flag || valuelen < 0) return fail(Status(Errc::arg, "invalid argument"), "MPI_Info_get");
  const std::string* v = info->info.get(key);
  *flag = v != nullptr;
  // valuelen excludes the terminating NUL (MPI-3.1 §9): up to valuelen characters are copied.
  if (v) ftmpi::copy_c_string(*v, value, static_cast<std::size_t>(valuelen) + 1);
  return MPI_SUCCESS;
}
FTMPI_ALIAS(Info_get)

extern "C" int PMPI_Info_get_valuelen(MPI_Info info, const char* key, int* valuelen, int* flag) {
  FTMPI_ENTER_ANYTIME("MPI_Info_get_valuelen");
  if (Status st = lookup(info); !st.ok()) return fail(st, "MPI_Info_get_valuelen");
  if (!key) return fail(Status(Errc::info_key, "key is NULL"), "MPI_Info_get_valuelen");
  if (Status st = ftmpi::Info::check_key(key); !st.ok()) return fail(st, "MPI_Info_get_valuelen");
  if (!valuelen || !flag) return fail(Status(Errc::arg, "NULL argument"), "MPI_Info_get_valuelen");
  const std::string* v = info->info.get(key);
  *flag = v != nullptr;
  if (v) *valuelen = static_cast<int>(v->size());
  return MPI_SUCCESS;
}
FTMPI_ALIAS(Info_get_valuelen)

// MPI-4.0 §10: on a hit, copies at most *buflen - 1 characters and a NUL (nothing when *buflen is 0, so
// value may then be NULL) and sets *buflen to the value's length + 1; on a miss, buflen and value are
// left alone.
extern "C" int PMPI_Info_get_string(MPI_Info info, const char* key, int* buflen, char* value, int* flag) {
  static constexpr const char* fn = "MPI_Info_get_string";
  FTMPI_ENTER_ANYTIME(fn);
  if (Status st = lookup(info); !st.ok()) return fail(st, fn);
  if (!key) return fail(Status(Errc::info_key, "key is NULL"), fn);
  if (Status st = ftmpi::Info::check_key(key); !st.ok()) return fail(st, fn);
  if (!buflen || !flag || *buflen < 0) return fail(Status(Errc::arg, "buflen or flag is NULL, or *buflen < 0"), fn);
  if (*buflen > 0 && !value) return fail(Status(Errc::arg, "value is NULL with *buflen > 0"), fn);
  const std::string* v = info->info.get(key);
  *flag = v != nullptr;
  if (!v) return MPI_SUCCESS;
  if (*buflen > 0) ftmpi::copy_c_string(*v, value, static_cast<std::size_t>(*buflen));
  *buflen = static_cast<int>(v->size()) + 1;
  return MPI_SUCCESS;
}
FTMPI_ALIAS(Info_get_string)

extern "C" int PMPI_Info_get_nkeys(MPI_Info info, int* nkeys) {
  FTMPI_ENTER_ANYTIME("MPI_Info_get_nkeys");
  if (Status st = lookup(info); !st.ok()) return fail(st, "MPI_Info_get_nkeys");
  if (!nkeys) return fail(Status(Errc::arg, "nkeys is NULL"), "MPI_Info_get_nkeys");
  *nkeys = static_cast<int>(info->info.size());
  return MPI_SUCCESS;
}
FTMPI_ALIAS(Info_get_nkeys)

extern "C" int PMPI_Info_get_nthkey(MPI_Info info, int n, char* key) {
  FTMPI_ENTER_ANYTIME("MPI_Info_get_nthkey");
  if (Status st = lookup(info); !st.ok()) return fail(st, "MPI_Info_get_nthkey");
  if (!key) return fail(Status(Errc::arg, "key is NULL"), "MPI_Info_get_nthkey");
  if (n < 0) return fail(Status(Errc::arg, "n is negative"), "MPI_Info_get_nthkey");
  auto k = info->info.nth_key(static_cast<std::size_t>(n));
  if (!k.ok()) return fail(k.status(), "MPI_Info_get_nthkey");
  ftmpi::copy_c_string(*k, key, MPI_MAX_INFO_KEY + 1);
  return MPI_SUCCESS;
}
FTMPI_ALIAS(Info_get_nthkey)

extern "C" int PMPI_Info_dup(MPI_Info info, MPI_Info* newinfo) {
  FTMPI_ENTER_ANYTIME("MPI_Info_dup");
  if (Status st = lookup(info); !st.ok()) return fail(st, "MPI_Info_dup");
  if (!newinfo) return fail(Status(Errc::arg, "newinfo is NULL"), "MPI_Info_dup");
  *newinfo = ftmpi::api::new_info(info->info);
  return MPI_SUCCESS;
}
FTMPI_ALIAS(Info_dup)

extern "C" int PMPI_Info_free(MPI_Info* info) {
  FTMPI_ENTER_ANYTIME("MPI_Info_free");
  if (!info) return fail(Status(Errc::arg, "info is NULL"), "MPI_Info_free");
  if (Status st = lookup(*info); !st.ok()) return fail(st, "MPI_Info_free");
  if ((*info)->predefined) return fail(Status(Errc::info, "cannot free MPI_INFO_ENV"), "MPI_Info_free");
  // Handles are never returned to the system while a stale copy could be used (util/magic.h): stamp it.
  (*info)->magic = ftmpi::kMagicFreed;
  (*info)->info.clear();
  *info = MPI_INFO_NULL;
  return MPI_SUCCESS;
}
FTMPI_ALIAS(Info_free)

// MPI-4.0 §11.2.2: a new info object with MPI_INFO_ENV's keys plus the command line given; callable at any
// time (before MPI_Init too).
extern "C" int PMPI_Info_create_env(int argc, char* argv[], MPI_Info* info) {
  FTMPI_ENTER_ANYTIME("MPI_Info_create_env");
  if (!info) return fail(Status(Errc::arg, "info is NULL"), "MPI_Info_create_env");
  if (argc < 0 || (argc > 0 && !argv)) return fail(Status(Errc::arg, "invalid argc/argv"), "MPI_Info_create_env");
  fill_info_env();
  ftmpi::Info e = ftmpi_info_env.info;
  if (argc > 0 && argv[0]) {
    (void)e.set("command", argv[0]);
    std::string rest;
    for (int i = 1; i < argc && argv[i]; ++i) {
      if (!rest.empty()) rest += ' ';
      rest += argv[i];
    }
    if (!rest.empty()) (void)e.set("argv", rest.substr(0, ftmpi::Info::kMaxValue));
  }
  *info = ftmpi::api::new_info(e);
  return MPI_SUCCESS;
}
FTMPI_ALIAS(Info_create_env)
