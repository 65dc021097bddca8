// ftmpi-info: prints what this ftmpi build is — version, how it was built, which transports were compiled
// in, and which interface features the public headers declare.
//
// usage: ftmpi-info [--version | --all]      (no option: same as --all)
// Exit status 0, or 2 on an unknown option.  Needs nothing at run time (no libmpi, no mpiexec).
#include <cstdio>
#include <cstring>

#include "build_info.h"
#include "mpi.h"
#if __has_include("mpi-ext.h")
#include "mpi-ext.h"
#endif

namespace {

struct Feature {
  const char *name;
  bool declared;  // the public headers declare it (feature-test macro defined to a non-zero value)
};

// Each FTMPI_INFO_ON_X is true when the headers define the macro that announces feature X.
#if defined(OMPI_HAVE_MPIX_COMM_GET_FAILED) && OMPI_HAVE_MPIX_COMM_GET_FAILED
#define FTMPI_INFO_ON_GET_FAILED true
#else
#define FTMPI_INFO_ON_GET_FAILED false
#endif
#if defined(OMPI_HAVE_MPIX_COMM_ACK_FAILED) && OMPI_HAVE_MPIX_COMM_ACK_FAILED
#define FTMPI_INFO_ON_ACK_FAILED true
#else
#define FTMPI_INFO_ON_ACK_FAILED false
#endif
#if defined(OMPI_HAVE_MPIX_COMM_ISHRINK) && OMPI_HAVE_MPIX_COMM_ISHRINK
#define FTMPI_INFO_ON_ISHRINK true
#else
#define FTMPI_INFO_ON_ISHRINK false
#endif
#if defined(MPIX_ERR_PROC_FAILED) || defined(MPI_ERR_PROC_FAILED)
#define FTMPI_INFO_ON_PROC_FAILED true
#else
#define FTMPI_INFO_ON_PROC_FAILED false
#endif
#if defined(MPI_ERR_REVOKED) || defined(MPIX_ERR_REVOKED)
#define FTMPI_INFO_ON_REVOKED true
#else
#define FTMPI_INFO_ON_REVOKED false
#endif
#if defined(MPIX_REINIT_NEW) || defined(MPI_ERRORS_REINIT_SYNC)
#define FTMPI_INFO_ON_REINIT true
#else
#define FTMPI_INFO_ON_REINIT false
#endif
#if defined(MPI_TIMEOUT) || defined(MPI_GROUP_SHRUNK)
#define FTMPI_INFO_ON_TRYBLOCK true
#else
#define FTMPI_INFO_ON_TRYBLOCK false
#endif
#if defined(MPIX_EVENT_PROC_FAILED)
#define FTMPI_INFO_ON_EVENTS true
#else
#define FTMPI_INFO_ON_EVENTS false
#endif

constexpr Feature kFeatures[] = {
    Feature{"ULFM error classes (PROC_FAILED)", FTMPI_INFO_ON_PROC_FAILED},
    Feature{"ULFM revoke (REVOKED)", FTMPI_INFO_ON_REVOKED},
    Feature{"ULFM MPIX_Comm_get_failed", FTMPI_INFO_ON_GET_FAILED},
    Feature{"ULFM MPIX_Comm_ack_failed", FTMPI_INFO_ON_ACK_FAILED},
    Feature{"ULFM MPIX_Comm_ishrink", FTMPI_INFO_ON_ISHRINK},
    Feature{"Reinit (global restart)", FTMPI_INFO_ON_REINIT},
    Feature{"FA-MPI TryBlocks", FTMPI_INFO_ON_TRYBLOCK},
    Feature{"Asynchronous failure events", FTMPI_INFO_ON_EVENTS},
};

void print_version() { std::printf("ftmpi %s (MPI %d.%d)\n", ftmpi::info::kVersion, MPI_VERSION, MPI_SUBVERSION); }

void print_all() {
  namespace bi = ftmpi::info;
  print_version();
  std::printf("\nBuild\n");
  std::printf("  %-22s %s\n", "build type:", bi::kBuildType[0] ? bi::kBuildType : "(none)");
  std::printf("  %-22s %s\n", "C++ compiler:", bi::kCxxCompiler);
  std::printf("  %-22s %s\n", "C compiler:", bi::kCCompiler);
  std::printf("  %-22s %s\n", "C++ flags:", bi::kCxxFlags[0] ? bi::kCxxFlags : "(none)");
  std::printf("  %-22s %s\n", "warnings as errors:", bi::kWerror);
  std::printf("  %-22s %s\n", "configured prefix:", bi::kInstallPrefix);
  std::printf("  %-22s %s\n", "system:", bi::kSystem);
  std::printf("\nTransports compiled in\n  %s\n", bi::kTransports[0] ? bi::kTransports : "(none)");
  std::printf("\nFeatures declared by mpi.h / mpi-ext.h\n");
  for (const Feature &f : kFeatures) std::printf("  %-40s %s\n", f.name, f.declared ? "yes" : "no");
}

}  // namespace

int main(int argc, char **argv) {
  if (argc == 1 || (argc == 2 && std::strcmp(argv[1], "--all") == 0)) {
    print_all();
    return 0;
  }
  if (argc == 2 && (std::strcmp(argv[1], "--version") == 0 || std::strcmp(argv[1], "-V") == 0)) {
    print_version();
    return 0;
  }
  if (argc == 2 && (std::strcmp(argv[1], "--help") == 0 || std::strcmp(argv[1], "-h") == 0)) {
    std::printf("usage: ftmpi-info [--version | --all]\n");
    return 0;
  }
  std::fprintf(stderr, "ftmpi-info: unknown option '%s' (try --help)\n", argv[1]);
  return 2;
}
