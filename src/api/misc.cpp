// Inquiry and timing: MPI_Get_processor_name, Get_version, Get_library_version, Wtime, Wtick,
// MPI_INFO_ENV (read-only keys).
#include <time.h>
#include <unistd.h>

#include <cstring>
#include <map>
#include <string>

#include "api/common.h"

using ftmpi::Errc;
using ftmpi::Status;
using ftmpi::api::ret;

// Info objects (the full MPI_Info API comes with the breadth issue). MPI_INFO_ENV is read-only.
struct ftmpi_info_s {
  std::uint32_t magic = ftmpi::kMagicInfo;
  std::map<std::string, std::string> entries;
};
FTMPI_API ftmpi_info_s ftmpi_info_env;

namespace {
void copy_out(const std::string& s, char* out, int max, int* len) {
  size_t n = s.size() < static_cast<size_t>(max - 1) ? s.size() : static_cast<size_t>(max - 1);
  std::memcpy(out, s.data(), n);
  out[n] = '\0';
  if (len) *len = static_cast<int>(n);
}

void fill_info_env() {
  auto& e = ftmpi_info_env.entries;
  if (!e.empty()) return;
  char host[256] = {};
  gethostname(host, sizeof host - 1);
  e["host"] = host;
  char cwd[4096] = {};
  if (getcwd(cwd, sizeof cwd - 1)) e["wdir"] = cwd;
  e["thread_level"] = "MPI_THREAD_MULTIPLE";
  const char* eh = getenv("FTMPI_INITIAL_ERRHANDLER");
  e["mpi_initial_errhandler"] = eh ? eh : "mpi_errors_are_fatal";
  if (const char* n = getenv("PMI_SIZE")) e["maxprocs"] = n;
}
}  // namespace

extern "C" int PMPI_Get_processor_name(char* name, int* resultlen) {
  FTMPI_ENTER("MPI_Get_processor_name");
  if (!name || !resultlen) return ret(nullptr, Status(Errc::arg, "NULL argument"), "MPI_Get_processor_name");
  char host[MPI_MAX_PROCESSOR_NAME] = {};
  if (gethostname(host, sizeof host - 1) != 0) std::strcpy(host, "localhost");
  copy_out(host, name, MPI_MAX_PROCESSOR_NAME, resultlen);
  return MPI_SUCCESS;
}
FTMPI_ALIAS(Get_processor_name)

extern "C" int PMPI_Get_version(int* version, int* subversion) {
  if (!version || !subversion) return MPI_ERR_ARG;
  *version = MPI_VERSION;
  *subversion = MPI_SUBVERSION;
  return MPI_SUCCESS;
}
FTMPI_ALIAS(Get_version)

extern "C" int PMPI_Get_library_version(char* version, int* resultlen) {
  if (!version || !resultlen) return MPI_ERR_ARG;
  copy_out("ftmpi " FTMPI_VERSION_STRING " (fault-tolerant MPI; MPI 3.1 subset, ULFM extensions planned)", version,
           MPI_MAX_LIBRARY_VERSION_STRING, resultlen);
  return MPI_SUCCESS;
}
FTMPI_ALIAS(Get_library_version)

extern "C" double PMPI_Wtime(void) {
  timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) * 1e-9;
}
FTMPI_ALIAS(Wtime)

extern "C" double PMPI_Wtick(void) {
  timespec ts;
  clock_getres(CLOCK_MONOTONIC, &ts);
  return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) * 1e-9;
}
FTMPI_ALIAS(Wtick)

extern "C" int PMPI_Info_get(MPI_Info info, const char* key, int valuelen, char* value, int* flag) {
  FTMPI_ENTER("MPI_Info_get");
  if (!info || info->magic != ftmpi::kMagicInfo)
    return ret(nullptr, Status(Errc::info, "invalid info object"), "MPI_Info_get");
  if (!key || !value || !flag || valuelen < 0)
    return ret(nullptr, Status(Errc::arg, "invalid argument"), "MPI_Info_get");
  if (info == &ftmpi_info_env) fill_info_env();
  auto it = info->entries.find(key);
  *flag = it != info->entries.end();
  if (*flag) copy_out(it->second, value, valuelen + 1, nullptr);
  return MPI_SUCCESS;
}
FTMPI_ALIAS(Info_get)
