// Communicator C functions (MPI-3.1 §6.4, §6.7.2, §6.8, §8.1.2): rank/size, dup/split/create/free,
// compare, test_inter, group, names. Attributes: api/attr.cpp; newer constructors: api/comm_ctors.cpp.
#include <cstring>

#include "api/attr.h"
#include "api/common.h"
#include "api/errors.h"
#include "mpi-ext.h"
#include "comm/comm_ctors.h"
#include "comm/comm_ops.h"
#include "comm/group.h"
#include "api/events_api.h"
#include "models/lam/lam_split.h"

using ftmpi::Errc;
using ftmpi::Status;
using ftmpi::api::ret;
using ftmpi::api::rt;
namespace cops = ftmpi::comm;

extern "C" int PMPI_Comm_rank(MPI_Comm comm, int* rank) {
  FTMPI_ENTER("MPI_Comm_rank");
  FTMPI_CHECK_COMM(comm, "MPI_Comm_rank");
  if (!rank) return ret(comm, Status(Errc::arg, "rank is NULL"), "MPI_Comm_rank");
  *rank = comm->rank;
  return MPI_SUCCESS;
}
FTMPI_ALIAS(Comm_rank)

extern "C" int PMPI_Comm_size(MPI_Comm comm, int* size) {
  FTMPI_ENTER("MPI_Comm_size");
  FTMPI_CHECK_COMM(comm, "MPI_Comm_size");
  if (!size) return ret(comm, Status(Errc::arg, "size is NULL"), "MPI_Comm_size");
  *size = comm->size;
  return MPI_SUCCESS;
}
FTMPI_ALIAS(Comm_size)

extern "C" int PMPI_Comm_dup(MPI_Comm comm, MPI_Comm* newcomm) {
  FTMPI_ENTER("MPI_Comm_dup");
  FTMPI_CHECK_COMM(comm, "MPI_Comm_dup");
  if (!newcomm) return ret(comm, Status(Errc::arg, "newcomm is NULL"), "MPI_Comm_dup");
  *newcomm = MPI_COMM_NULL;
  MPI_Comm dup = MPI_COMM_NULL;
  Status st = cops::dup(rt(), comm, &dup);
  if (!st.ok()) return ret(comm, st, "MPI_Comm_dup");
  // Attributes follow their keyvals' copy callbacks (MPI-3.1 §6.7.2); a failing callback undoes the dup.
  if (int rc = ftmpi::api::copy_attributes(ftmpi::attr::ObjectKind::comm, comm, dup); rc != MPI_SUCCESS) {
    Status f = cops::free(rt(), dup);
    (void)f;
    return ftmpi::api::invoke_errhandler(comm, rc, "an attribute copy callback failed", "MPI_Comm_dup");
  }
  *newcomm = dup;
  return MPI_SUCCESS;
}
FTMPI_ALIAS(Comm_dup)

extern "C" int PMPI_Comm_split(MPI_Comm comm, int color, int key, MPI_Comm* newcomm) {
  FTMPI_ENTER("MPI_Comm_split");
  FTMPI_CHECK_COMM(comm, "MPI_Comm_split");
  if (!newcomm) return ret(comm, Status(Errc::arg, "newcomm is NULL"), "MPI_Comm_split");
  *newcomm = MPI_COMM_NULL;
  if (comm->is_inter()) return ret(comm, cops::intercomm_split(rt(), comm, color, key, newcomm), "MPI_Comm_split");
  if (rt().lam_mode()) return ret(comm, ftmpi::lam::split(rt(), comm, color, key, newcomm), "MPI_Comm_split");
  return ret(comm, cops::split(rt(), comm, color, key, newcomm), "MPI_Comm_split");
}
FTMPI_ALIAS(Comm_split)

extern "C" int PMPI_Comm_create(MPI_Comm comm, MPI_Group group, MPI_Comm* newcomm) {
  FTMPI_ENTER("MPI_Comm_create");
  FTMPI_CHECK_COMM(comm, "MPI_Comm_create");
  if (!ftmpi::api::valid_group(group)) return ret(comm, Status(Errc::group, "invalid group"), "MPI_Comm_create");
  if (!newcomm) return ret(comm, Status(Errc::arg, "newcomm is NULL"), "MPI_Comm_create");
  *newcomm = MPI_COMM_NULL;
  if (comm->is_inter()) return ret(comm, cops::intercomm_create_sub(rt(), comm, group, newcomm), "MPI_Comm_create");
  return ret(comm, cops::create(rt(), comm, group, newcomm), "MPI_Comm_create");
}
FTMPI_ALIAS(Comm_create)

extern "C" int PMPI_Comm_free(MPI_Comm* comm) {
  FTMPI_ENTER("MPI_Comm_free");
  if (!comm) return ret(nullptr, Status(Errc::arg, "comm is NULL"), "MPI_Comm_free");
  MPI_Comm old = *comm;
  if (!ftmpi::api::valid_comm(old)) return ret(nullptr, Status(Errc::comm, "invalid communicator"), "MPI_Comm_free");
  if (old->predefined) return ret(old, Status(Errc::comm, "cannot free a predefined communicator"), "MPI_Comm_free");
  // Attributes go first (their delete callbacks may still use the communicator); a failing callback
  // makes the free fail with the callback's code.
  if (int rc = ftmpi::api::delete_attributes(ftmpi::attr::ObjectKind::comm, old); rc != MPI_SUCCESS)
    return ftmpi::api::invoke_errhandler(old, rc, "an attribute delete callback failed", "MPI_Comm_free");
  ftmpi::api::forget_comm(old);  // failure callbacks, event subscriptions, MPI_FAILED_LIST (api/events.cpp)
  Status st = cops::free(rt(), old);
  if (!st.ok()) return ret(old, st, "MPI_Comm_free");
  *comm = MPI_COMM_NULL;
  return MPI_SUCCESS;
}
FTMPI_ALIAS(Comm_free)

extern "C" int PMPI_Comm_compare(MPI_Comm comm1, MPI_Comm comm2, int* result) {
  FTMPI_ENTER("MPI_Comm_compare");
  if (!ftmpi::api::valid_comm(comm1) || !ftmpi::api::valid_comm(comm2))
    return ret(nullptr, Status(Errc::comm, "invalid communicator"), "MPI_Comm_compare");
  if (!result) return ret(comm1, Status(Errc::arg, "result is NULL"), "MPI_Comm_compare");
  // Objects of two different sessions must not meet in one call (MPI-4.0 §11.3.1): detected here, where
  // the answer would otherwise be a plausible MPI_UNEQUAL. (A session's communicator and a World-model
  // one may be compared: comm/comm_sessions.c checks that mpi://WORLD gives MPI_COMM_WORLD's group.)
  if (comm1->session != nullptr && comm2->session != nullptr && comm1->session != comm2->session)
    return ret(comm1, Status(Errc::comm, "the communicators derive from different MPI sessions"),
               "MPI_Comm_compare");
  *result = cops::compare(comm1, comm2);
  return MPI_SUCCESS;
}
FTMPI_ALIAS(Comm_compare)

extern "C" int PMPI_Comm_test_inter(MPI_Comm comm, int* flag) {
  FTMPI_ENTER("MPI_Comm_test_inter");
  FTMPI_CHECK_COMM(comm, "MPI_Comm_test_inter");
  if (!flag) return ret(comm, Status(Errc::arg, "flag is NULL"), "MPI_Comm_test_inter");
  *flag = comm->is_inter() ? 1 : 0;
  return MPI_SUCCESS;
}
FTMPI_ALIAS(Comm_test_inter)

extern "C" int PMPI_Comm_group(MPI_Comm comm, MPI_Group* group) {
  FTMPI_ENTER("MPI_Comm_group");
  FTMPI_CHECK_COMM(comm, "MPI_Comm_group");
  if (!group) return ret(comm, Status(Errc::arg, "group is NULL"), "MPI_Comm_group");
  // Groups are immutable and shared: the user's handle is one more reference to the communicator's group
  // (predefined groups are not counted; MPI_Group_free only clears the handle then).
  cops::group_retain(comm->group);
  *group = comm->group;
  return MPI_SUCCESS;
}
FTMPI_ALIAS(Comm_group)

extern "C" int PMPI_Comm_set_name(MPI_Comm comm, const char* name) {
  FTMPI_ENTER("MPI_Comm_set_name");
  FTMPI_CHECK_COMM(comm, "MPI_Comm_set_name");
  if (!name) return ret(comm, Status(Errc::arg, "name is NULL"), "MPI_Comm_set_name");
  comm->name.assign(name, strnlen(name, MPI_MAX_OBJECT_NAME - 1));
  return MPI_SUCCESS;
}
FTMPI_ALIAS(Comm_set_name)

extern "C" int PMPI_Comm_get_name(MPI_Comm comm, char* name, int* resultlen) {
  FTMPI_ENTER("MPI_Comm_get_name");
  FTMPI_CHECK_COMM(comm, "MPI_Comm_get_name");
  if (!name || !resultlen) return ret(comm, Status(Errc::arg, "NULL argument"), "MPI_Comm_get_name");
  const std::size_t n = std::min<std::size_t>(comm->name.size(), MPI_MAX_OBJECT_NAME - 1);
  std::memcpy(name, comm->name.data(), n);
  name[n] = '\0';
  *resultlen = static_cast<int>(n);
  return MPI_SUCCESS;
}
FTMPI_ALIAS(Comm_get_name)
