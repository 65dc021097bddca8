// Inquiry and timing: MPI_Get_processor_name, Get_version, Get_library_version, Wtime, Wtick,
// (MPI_INFO_ENV lives with the other Info functions in api/info.cpp).
#include <time.h>
#include <unistd.h>

#include <cstring>
#include <map>
#include <string>

#include "api/common.h"

using ftmpi::Errc;
using ftmpi::Status;
using ftmpi::api::ret;

namespace {
void copy_out(const std::string& s, char* out, int max, int* len) {
  size_t n = s.size() < static_cast<size_t>(max - 1) ? s.size() : static_cast<size_t>(max - 1);
  std::memcpy(out, s.data(), n);
  out[n] = '\0';
  if (len) *len = static_cast<int>(n);
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
