// Communicator constructors beyond dup/split/create (MPI-3.1 §6.4.2, §6.4.4, §6.6): Comm_split_type,
// Comm_create_group, Comm_dup_with_info, Comm_idup, Comm_set_info/get_info, Intercomm_create,
// Intercomm_merge, Comm_remote_size, Comm_remote_group. Cores in comm/comm_ctors.h.
#include <memory>

#include "api/attr.h"
#include "api/common.h"
#include "api/errors.h"
#include "api/info_object.h"
#include "comm/comm_ctors.h"
#include "comm/comm_hints.h"
#include "comm/comm_idup.h"
#include "comm/group.h"
#include "ft/ft_manager.h"

using ftmpi::Errc;
using ftmpi::Status;
using ftmpi::api::ret;
using ftmpi::api::rt;
namespace cops = ftmpi::comm;

namespace {

#define CHECK_INTRA(c, fn)                                                                \
  FTMPI_CHECK_COMM(c, fn);                                                                \
  if ((c)->is_inter()) return ret(c, Status(Errc::comm, "an intracommunicator is required"), fn)

// MPI_Comm_dup's semantics (new context, topology, hints, attributes by their copy callbacks).
int dup_with_attributes(MPI_Comm comm, MPI_Comm* newcomm, const char* fn) {
  MPI_Comm dup = MPI_COMM_NULL;
  Status st = cops::dup(rt(), comm, &dup);
  if (!st.ok()) return ret(comm, st, fn);
  if (int rc = ftmpi::api::copy_attributes(ftmpi::attr::ObjectKind::comm, comm, dup); rc != MPI_SUCCESS) {
    Status f = cops::free(rt(), dup);
    (void)f;
    return ftmpi::api::invoke_errhandler(comm, rc, "an attribute copy callback failed", fn);
  }
  *newcomm = dup;
  return MPI_SUCCESS;
}

}  // namespace

// MPI_COMM_TYPE_SHARED splits by host. The MPI-4.0 hardware splits know one level, the host's shared memory:
// HW_GUIDED with info "mpi_hw_resource_type" = "mpi_shared_memory" splits as SHARED; any other value, no such
// key or MPI_INFO_NULL gives MPI_COMM_NULL (the standard's answer for a resource type this process does not
// support; every member still takes part, as MPI_UNDEFINED). HW_UNGUIDED gives the shared-memory level when
// it is a strict subset of comm (comm spans hosts), else MPI_COMM_NULL, and writes the type into `info`.
extern "C" int PMPI_Comm_split_type(MPI_Comm comm, int split_type, int key, MPI_Info info, MPI_Comm* newcomm) {
  FTMPI_ENTER("MPI_Comm_split_type");
  CHECK_INTRA(comm, "MPI_Comm_split_type");
  if (!newcomm) return ret(comm, Status(Errc::arg, "newcomm is NULL"), "MPI_Comm_split_type");
  if (split_type != MPI_COMM_TYPE_SHARED && split_type != MPI_UNDEFINED && split_type != MPI_COMM_TYPE_HW_GUIDED &&
      split_type != MPI_COMM_TYPE_HW_UNGUIDED)
    return ret(comm,
               Status(Errc::arg, "unknown split_type (MPI_COMM_TYPE_SHARED, MPI_COMM_TYPE_HW_GUIDED, "
                                 "MPI_COMM_TYPE_HW_UNGUIDED or MPI_UNDEFINED)"),
               "MPI_Comm_split_type");
  if (info != MPI_INFO_NULL && !ftmpi::api::valid_info(info))
    return ret(comm, Status(Errc::info, "invalid info"), "MPI_Comm_split_type");
  constexpr const char* kResourceKey = "mpi_hw_resource_type";
  constexpr const char* kSharedMemory = "mpi_shared_memory";
  bool undefined = split_type == MPI_UNDEFINED;
  if (split_type == MPI_COMM_TYPE_HW_GUIDED) {
    const std::string* v = info == MPI_INFO_NULL ? nullptr : info->info.get(kResourceKey);
    undefined = v == nullptr || *v != kSharedMemory;
  }
  *newcomm = MPI_COMM_NULL;
  Status st = cops::split_shared(rt(), comm, undefined, key, newcomm);
  if (!st.ok()) return ret(comm, st, "MPI_Comm_split_type");
  if (split_type == MPI_COMM_TYPE_HW_UNGUIDED && *newcomm != MPI_COMM_NULL) {
    if ((*newcomm)->size >= comm->size) {  // the host level is not a strict subset: no level below comm
      Status f = cops::free(rt(), *newcomm);
      *newcomm = MPI_COMM_NULL;
      if (!f.ok()) return ret(comm, f, "MPI_Comm_split_type");
    } else if (info != MPI_INFO_NULL && !info->predefined) {
      Status s = info->info.set(kResourceKey, kSharedMemory);
      (void)s;  // a valid key and value: cannot fail
    }
  }
  return MPI_SUCCESS;
}
FTMPI_ALIAS(Comm_split_type)

extern "C" int PMPI_Comm_create_group(MPI_Comm comm, MPI_Group group, int tag, MPI_Comm* newcomm) {
  FTMPI_ENTER("MPI_Comm_create_group");
  CHECK_INTRA(comm, "MPI_Comm_create_group");
  if (!ftmpi::api::valid_group(group)) return ret(comm, Status(Errc::group, "invalid group"), "MPI_Comm_create_group");
  if (!newcomm) return ret(comm, Status(Errc::arg, "newcomm is NULL"), "MPI_Comm_create_group");
  *newcomm = MPI_COMM_NULL;
  return ret(comm, cops::create_group(rt(), comm, group, tag, newcomm), "MPI_Comm_create_group");
}
FTMPI_ALIAS(Comm_create_group)

extern "C" int PMPI_Comm_dup_with_info(MPI_Comm comm, MPI_Info info, MPI_Comm* newcomm) {
  FTMPI_ENTER("MPI_Comm_dup_with_info");
  FTMPI_CHECK_COMM(comm, "MPI_Comm_dup_with_info");
  if (info != MPI_INFO_NULL && !ftmpi::api::valid_info(info))
    return ret(comm, Status(Errc::info, "invalid info object"), "MPI_Comm_dup_with_info");
  if (!newcomm) return ret(comm, Status(Errc::arg, "newcomm is NULL"), "MPI_Comm_dup_with_info");
  *newcomm = MPI_COMM_NULL;
  int rc = dup_with_attributes(comm, newcomm, "MPI_Comm_dup_with_info");
  if (rc != MPI_SUCCESS) return rc;
  // The new communicator's hints are those of `info` it uses (comm/comm_hints.h), not comm's.
  (*newcomm)->hints = info == MPI_INFO_NULL ? nullptr : ftmpi::comm::used_hints(info->info);
  return MPI_SUCCESS;
}
FTMPI_ALIAS(Comm_dup_with_info)

namespace {

// MPI_Comm_idup(_with_info): returns at once; the duplication completes in the progress loop
// (comm/comm_idup.h). The new handle is written now but is not a valid communicator until the request
// completes (MPI-3.1 §6.4.2; using it earlier gives MPI_ERR_COMM); attributes are copied now, by their
// copy callbacks (they read only the parent), and the hints are `info`'s when with_info.
int idup(MPI_Comm comm, MPI_Info info, bool with_info, MPI_Comm* newcomm, MPI_Request* request, const char* fn) {
  FTMPI_CHECK_COMM(comm, fn);
  if (with_info && info != MPI_INFO_NULL && !ftmpi::api::valid_info(info))
    return ret(comm, Status(Errc::info, "invalid info object"), fn);
  if (!newcomm || !request) return ret(comm, Status(Errc::arg, "NULL argument"), fn);
  *newcomm = MPI_COMM_NULL;
  *request = MPI_REQUEST_NULL;
  // In FT mode an idup (intra- or intercommunicator) is uniform (comm/comm_idup.h): it runs its agreement
  // even on a revoked communicator (every member must take part) and completes with MPI_ERR_REVOKED everywhere.
  if (comm->revoked.load() && !rt().ft().ft_mode())
    return ret(comm, Status(Errc::revoked, "the communicator has been revoked"), fn);
  MPI_Comm dup = cops::new_pending_comm();
  if (int rc = ftmpi::api::copy_attributes(ftmpi::attr::ObjectKind::comm, comm, dup); rc != MPI_SUCCESS) {
    dup->magic = ftmpi::kMagicFreed;
    return ftmpi::api::invoke_errhandler(comm, rc, "an attribute copy callback failed", fn);
  }
  *newcomm = dup;
  *request = cops::start_idup(rt(), comm, dup, newcomm);
  if (with_info) dup->hints = info == MPI_INFO_NULL ? nullptr : ftmpi::comm::used_hints(info->info);
  return MPI_SUCCESS;
}

}  // namespace

extern "C" int PMPI_Comm_idup(MPI_Comm comm, MPI_Comm* newcomm, MPI_Request* request) {
  FTMPI_ENTER("MPI_Comm_idup");
  return idup(comm, MPI_INFO_NULL, false, newcomm, request, "MPI_Comm_idup");
}
FTMPI_ALIAS(Comm_idup)

extern "C" int PMPI_Comm_idup_with_info(MPI_Comm comm, MPI_Info info, MPI_Comm* newcomm, MPI_Request* request) {
  FTMPI_ENTER("MPI_Comm_idup_with_info");
  return idup(comm, info, true, newcomm, request, "MPI_Comm_idup_with_info");
}
FTMPI_ALIAS(Comm_idup_with_info)

extern "C" int PMPI_Comm_set_info(MPI_Comm comm, MPI_Info info) {
  FTMPI_ENTER("MPI_Comm_set_info");
  FTMPI_CHECK_COMM(comm, "MPI_Comm_set_info");
  if (!ftmpi::api::valid_info(info)) return ret(comm, Status(Errc::info, "invalid info object"), "MPI_Comm_set_info");
  // Only the hints a communicator uses are kept, so MPI_Comm_get_info reports no made-up keys (comm_hints.h).
  comm->hints = ftmpi::comm::used_hints(info->info);
  return MPI_SUCCESS;
}
FTMPI_ALIAS(Comm_set_info)

extern "C" int PMPI_Comm_get_info(MPI_Comm comm, MPI_Info* info_used) {
  FTMPI_ENTER("MPI_Comm_get_info");
  FTMPI_CHECK_COMM(comm, "MPI_Comm_get_info");
  if (!info_used) return ret(comm, Status(Errc::arg, "info_used is NULL"), "MPI_Comm_get_info");
  *info_used = ftmpi::api::new_info(comm->hints ? *comm->hints : ftmpi::Info{});
  return MPI_SUCCESS;
}
FTMPI_ALIAS(Comm_get_info)

// ---- intercommunicators ----

extern "C" int PMPI_Intercomm_create(MPI_Comm local_comm, int local_leader, MPI_Comm peer_comm, int remote_leader,
                                     int tag, MPI_Comm* newintercomm) {
  FTMPI_ENTER("MPI_Intercomm_create");
  CHECK_INTRA(local_comm, "MPI_Intercomm_create");
  const char* fn = "MPI_Intercomm_create";
  if (!newintercomm) return ret(local_comm, Status(Errc::arg, "newintercomm is NULL"), fn);
  if (local_leader < 0 || local_leader >= local_comm->size)
    return ret(local_comm, Status(Errc::rank, "local_leader is not a rank of local_comm"), fn);
  if (tag < 0) return ret(local_comm, Status(Errc::tag, "invalid tag"), fn);
  if (local_comm->rank == local_leader) {  // peer_comm and remote_leader matter at the leader only
    if (!ftmpi::api::valid_comm(peer_comm)) return ret(local_comm, Status(Errc::comm, "invalid peer_comm"), fn);
    if (remote_leader < 0 || remote_leader >= peer_comm->peer_size())
      return ret(local_comm, Status(Errc::rank, "remote_leader is not a rank of peer_comm"), fn);
  }
  *newintercomm = MPI_COMM_NULL;
  return ret(local_comm, cops::intercomm_create(rt(), local_comm, local_leader, peer_comm, remote_leader, tag,
                                                newintercomm), fn);
}
FTMPI_ALIAS(Intercomm_create)

extern "C" int PMPI_Intercomm_merge(MPI_Comm intercomm, int high, MPI_Comm* newintracomm) {
  FTMPI_ENTER("MPI_Intercomm_merge");
  FTMPI_CHECK_COMM(intercomm, "MPI_Intercomm_merge");
  if (!intercomm->is_inter())
    return ret(intercomm, Status(Errc::comm, "an intercommunicator is required"), "MPI_Intercomm_merge");
  if (!newintracomm) return ret(intercomm, Status(Errc::arg, "newintracomm is NULL"), "MPI_Intercomm_merge");
  *newintracomm = MPI_COMM_NULL;
  return ret(intercomm, cops::intercomm_merge(rt(), intercomm, high != 0, newintracomm), "MPI_Intercomm_merge");
}
FTMPI_ALIAS(Intercomm_merge)

extern "C" int PMPI_Comm_remote_size(MPI_Comm comm, int* size) {
  FTMPI_ENTER("MPI_Comm_remote_size");
  FTMPI_CHECK_COMM(comm, "MPI_Comm_remote_size");
  if (!comm->is_inter()) return ret(comm, Status(Errc::comm, "an intercommunicator is required"), "MPI_Comm_remote_size");
  if (!size) return ret(comm, Status(Errc::arg, "size is NULL"), "MPI_Comm_remote_size");
  *size = comm->remote_group->size();
  return MPI_SUCCESS;
}
FTMPI_ALIAS(Comm_remote_size)

extern "C" int PMPI_Comm_remote_group(MPI_Comm comm, MPI_Group* group) {
  FTMPI_ENTER("MPI_Comm_remote_group");
  FTMPI_CHECK_COMM(comm, "MPI_Comm_remote_group");
  if (!comm->is_inter()) return ret(comm, Status(Errc::comm, "an intercommunicator is required"), "MPI_Comm_remote_group");
  if (!group) return ret(comm, Status(Errc::arg, "group is NULL"), "MPI_Comm_remote_group");
  cops::group_retain(comm->remote_group);  // the handle is one more reference (see MPI_Comm_group)
  *group = comm->remote_group;
  return MPI_SUCCESS;
}
FTMPI_ALIAS(Comm_remote_group)
