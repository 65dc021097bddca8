// MPI-3.1 chapter 10, process creation and management: argument checks and the C boundary over
// dpm::Dpm (src/dpm/dpm.h, the model and its failure rules).
#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "api/common.h"
#include "api/errors.h"
#include "api/info_object.h"
#include "comm/comm_ops.h"
#include "dpm/dpm.h"
#include "runtime/runtime.h"

using ftmpi::Errc;
using ftmpi::Status;
using ftmpi::api::ret;
using ftmpi::api::rt;
namespace cops = ftmpi::comm;

namespace {

#define DPM_CHECK_INTRA(c, fn)                                                            \
  FTMPI_CHECK_COMM(c, fn);                                                                \
  if ((c)->is_inter()) return ret(c, Status(Errc::comm, "an intracommunicator is required"), fn)

const std::string* info_value(MPI_Info info, const char* key) {
  if (info == MPI_INFO_NULL || !ftmpi::api::valid_info(info)) return nullptr;
  return info->info.get(key);
}

bool bad_info(MPI_Info info) { return info != MPI_INFO_NULL && !ftmpi::api::valid_info(info); }

// One command of a spawn, with its info keys (host, wdir, path; others are ignored as the standard allows).
Status make_command(const char* command, char** argv, int maxprocs, MPI_Info info, ftmpi::dpm::SpawnCommand* out) {
  if (command == nullptr || *command == '\0') return Status(Errc::arg, "the command is NULL or empty");
  if (maxprocs <= 0) return Status(Errc::arg, "maxprocs must be positive");
  if (bad_info(info)) return Status(Errc::info, "invalid info object");
  out->command = command;
  out->maxprocs = maxprocs;
  if (argv != MPI_ARGV_NULL)
    for (char** a = argv; *a; ++a) out->args.emplace_back(*a);
  if (const std::string* v = info_value(info, "host")) out->host = *v;
  if (const std::string* v = info_value(info, "wdir")) out->wdir = *v;
  if (const std::string* v = info_value(info, "path")) out->path = *v;
  return {};
}

int finish_spawn(MPI_Comm comm, const std::vector<ftmpi::dpm::SpawnCommand>& cmds, int root, MPI_Comm* intercomm,
                 int* errcodes, const Status& before, const char* fn) {
  std::vector<int> codes;
  MPI_Comm out = MPI_COMM_NULL;
  Status st = rt().dpm().spawn(cmds, root, comm, &out, &codes, before);
  if (errcodes != MPI_ERRCODES_IGNORE) std::copy(codes.begin(), codes.end(), errcodes);
  *intercomm = st.ok() ? out : MPI_COMM_NULL;
  return ret(comm, st, fn);
}

}  // namespace

extern "C" int PMPI_Comm_spawn(const char* command, char* argv[], int maxprocs, MPI_Info info, int root, MPI_Comm comm,
                               MPI_Comm* intercomm, int array_of_errcodes[]) {
  const char* fn = "MPI_Comm_spawn";
  FTMPI_ENTER(fn);
  DPM_CHECK_INTRA(comm, fn);
  if (!intercomm) return ret(comm, Status(Errc::arg, "intercomm is NULL"), fn);
  if (root < 0 || root >= comm->size) return ret(comm, Status(Errc::root, "root is not a rank of comm"), fn);
  *intercomm = MPI_COMM_NULL;
  std::vector<ftmpi::dpm::SpawnCommand> cmds(1);
  Status before;
  if (comm->rank == root) {  // the arguments are significant at the root only
    before = make_command(command, argv, maxprocs, info, &cmds[0]);
    // A bad argument at the root is still a collective outcome: every member learns it from the root.
    if (!before.ok()) cmds.clear();
  }
  return finish_spawn(comm, cmds, root, intercomm, array_of_errcodes, before, fn);
}
FTMPI_ALIAS(Comm_spawn)

extern "C" int PMPI_Comm_spawn_multiple(int count, char* array_of_commands[], char** array_of_argv[],
                                        const int array_of_maxprocs[], const MPI_Info array_of_info[], int root,
                                        MPI_Comm comm, MPI_Comm* intercomm, int array_of_errcodes[]) {
  const char* fn = "MPI_Comm_spawn_multiple";
  FTMPI_ENTER(fn);
  DPM_CHECK_INTRA(comm, fn);
  if (!intercomm) return ret(comm, Status(Errc::arg, "intercomm is NULL"), fn);
  if (root < 0 || root >= comm->size) return ret(comm, Status(Errc::root, "root is not a rank of comm"), fn);
  *intercomm = MPI_COMM_NULL;
  std::vector<ftmpi::dpm::SpawnCommand> cmds;
  Status before;
  if (comm->rank == root) {
    if (count <= 0) {
      before = Status(Errc::arg, "count must be positive");
    } else if (!array_of_commands || !array_of_maxprocs) {
      before = Status(Errc::arg, "array_of_commands or array_of_maxprocs is NULL");
    } else {
      cmds.resize(static_cast<std::size_t>(count));
      for (int i = 0; i < count && before.ok(); ++i) {
        Status st = make_command(array_of_commands[i], array_of_argv == MPI_ARGVS_NULL ? MPI_ARGV_NULL : array_of_argv[i],
                                 array_of_maxprocs[i], array_of_info ? array_of_info[i] : MPI_INFO_NULL,
                                 &cmds[static_cast<std::size_t>(i)]);
        if (!st.ok()) before = Status(st.code(), "command " + std::to_string(i) + ": " + st.message());
      }
    }
    if (!before.ok()) cmds.clear();
  }
  return finish_spawn(comm, cmds, root, intercomm, array_of_errcodes, before, fn);
}
FTMPI_ALIAS(Comm_spawn_multiple)

extern "C" int PMPI_Comm_get_parent(MPI_Comm* parent) {
  FTMPI_ENTER("MPI_Comm_get_parent");
  if (!parent) return ret(nullptr, Status(Errc::arg, "parent is NULL"), "MPI_Comm_get_parent");
  MPI_Comm p = rt().dpm().parent();
  *parent = (p != nullptr && ftmpi::api::valid_comm(p)) ? p : MPI_COMM_NULL;
  return MPI_SUCCESS;
}
FTMPI_ALIAS(Comm_get_parent)

extern "C" int PMPI_Open_port(MPI_Info info, char* port_name) {
  FTMPI_ENTER("MPI_Open_port");
  if (!port_name) return ret(nullptr, Status(Errc::arg, "port_name is NULL"), "MPI_Open_port");
  if (bad_info(info)) return ret(nullptr, Status(Errc::info, "invalid info object"), "MPI_Open_port");
  auto p = rt().dpm().open_port();
  if (!p.ok()) return ret(nullptr, p.status(), "MPI_Open_port");
  std::snprintf(port_name, MPI_MAX_PORT_NAME, "%s", p.value().c_str());
  return MPI_SUCCESS;
}
FTMPI_ALIAS(Open_port)

extern "C" int PMPI_Close_port(const char* port_name) {
  FTMPI_ENTER("MPI_Close_port");
  if (!port_name) return ret(nullptr, Status(Errc::arg, "port_name is NULL"), "MPI_Close_port");
  return ret(nullptr, rt().dpm().close_port(port_name), "MPI_Close_port");
}
FTMPI_ALIAS(Close_port)

namespace {
int accept_or_connect(bool accept, const char* port_name, MPI_Info info, int root, MPI_Comm comm, MPI_Comm* newcomm,
                      const char* fn) {
  DPM_CHECK_INTRA(comm, fn);
  if (!newcomm) return ret(comm, Status(Errc::arg, "newcomm is NULL"), fn);
  if (root < 0 || root >= comm->size) return ret(comm, Status(Errc::root, "root is not a rank of comm"), fn);
  *newcomm = MPI_COMM_NULL;
  std::string port;
  Status before;
  if (comm->rank == root) {  // a bad argument at the root reaches every member through the root's broadcast
    if (!port_name) before = Status(Errc::arg, "port_name is NULL");
    else if (bad_info(info)) before = Status(Errc::info, "invalid info object");
    else port = port_name;
  }
  // MPI_Comm_connect's info key "timeout" (seconds, as MPICH): how long to wait for the MPI_Comm_accept.
  int timeout_s = 0;
  if (!accept && comm->rank == root && before.ok() && info != MPI_INFO_NULL)
    if (const std::string* t = info->info.get("timeout")) timeout_s = std::atoi(t->c_str());
  MPI_Comm out = MPI_COMM_NULL;
  Status st = accept ? rt().dpm().accept(port, root, comm, &out, before)
                     : rt().dpm().connect(port, root, comm, &out, before, timeout_s);
  if (st.ok()) *newcomm = out;
  return ret(comm, st, fn);
}
}  // namespace

extern "C" int PMPI_Comm_accept(const char* port_name, MPI_Info info, int root, MPI_Comm comm, MPI_Comm* newcomm) {
  FTMPI_ENTER("MPI_Comm_accept");
  return accept_or_connect(true, port_name, info, root, comm, newcomm, "MPI_Comm_accept");
}
FTMPI_ALIAS(Comm_accept)

extern "C" int PMPI_Comm_connect(const char* port_name, MPI_Info info, int root, MPI_Comm comm, MPI_Comm* newcomm) {
  FTMPI_ENTER("MPI_Comm_connect");
  return accept_or_connect(false, port_name, info, root, comm, newcomm, "MPI_Comm_connect");
}
FTMPI_ALIAS(Comm_connect)

extern "C" int PMPI_Publish_name(const char* service_name, MPI_Info info, const char* port_name) {
  FTMPI_ENTER("MPI_Publish_name");
  if (!service_name || !port_name || !*service_name)
    return ret(nullptr, Status(Errc::arg, "service_name or port_name is NULL or empty"), "MPI_Publish_name");
  if (bad_info(info)) return ret(nullptr, Status(Errc::info, "invalid info object"), "MPI_Publish_name");
  return ret(nullptr, rt().dpm().publish(service_name, port_name), "MPI_Publish_name");
}
FTMPI_ALIAS(Publish_name)

extern "C" int PMPI_Unpublish_name(const char* service_name, MPI_Info info, const char* port_name) {
  FTMPI_ENTER("MPI_Unpublish_name");
  if (!service_name || !port_name)
    return ret(nullptr, Status(Errc::arg, "service_name or port_name is NULL"), "MPI_Unpublish_name");
  if (bad_info(info)) return ret(nullptr, Status(Errc::info, "invalid info object"), "MPI_Unpublish_name");
  return ret(nullptr, rt().dpm().unpublish(service_name, port_name), "MPI_Unpublish_name");
}
FTMPI_ALIAS(Unpublish_name)

extern "C" int PMPI_Lookup_name(const char* service_name, MPI_Info info, char* port_name) {
  FTMPI_ENTER("MPI_Lookup_name");
  if (!service_name || !port_name) return ret(nullptr, Status(Errc::arg, "service_name or port_name is NULL"), "MPI_Lookup_name");
  if (bad_info(info)) return ret(nullptr, Status(Errc::info, "invalid info object"), "MPI_Lookup_name");
  auto p = rt().dpm().lookup(service_name);
  if (!p.ok()) return ret(nullptr, p.status(), "MPI_Lookup_name");
  std::snprintf(port_name, MPI_MAX_PORT_NAME, "%s", p.value().c_str());
  return MPI_SUCCESS;
}
FTMPI_ALIAS(Lookup_name)

extern "C" int PMPI_Comm_disconnect(MPI_Comm* comm) {
  FTMPI_ENTER("MPI_Comm_disconnect");
  if (!comm) return ret(nullptr, Status(Errc::arg, "comm is NULL"), "MPI_Comm_disconnect");
  MPI_Comm c = *comm;
  if (!ftmpi::api::valid_comm(c)) return ret(nullptr, Status(Errc::comm, "invalid communicator"), "MPI_Comm_disconnect");
  if (c->predefined)
    return ret(c, Status(Errc::comm, "cannot disconnect a predefined communicator"), "MPI_Comm_disconnect");
  // Pending communication on it completes first (MPI-3.1 §10.5.4); then it is freed as MPI_Comm_free does.
  rt().progress().wait_until([c] { return c->holds <= 0; });
  if (rt().dpm().parent() == c) rt().dpm().forget_parent();
  return PMPI_Comm_free(comm);
}
FTMPI_ALIAS(Comm_disconnect)

extern "C" int PMPI_Comm_join(int fd, MPI_Comm* intercomm) {
  FTMPI_ENTER("MPI_Comm_join");
  if (!intercomm) return ret(nullptr, Status(Errc::arg, "intercomm is NULL"), "MPI_Comm_join");
  *intercomm = MPI_COMM_NULL;
  if (fd < 0) return ret(nullptr, Status(Errc::arg, "fd is not a socket"), "MPI_Comm_join");
  MPI_Comm out = MPI_COMM_NULL;
  Status st = rt().dpm().join(fd, &out);
  if (st.ok()) *intercomm = out;
  return ret(nullptr, st, "MPI_Comm_join");
}
FTMPI_ALIAS(Comm_join)
