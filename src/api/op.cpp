// C API: user-defined reduction operations and MPI_Reduce_local (MPI-3.1 §5.9.5, §5.9.7).
#include "api/common.h"
#include "datatype/op.h"

namespace {
using ftmpi::Errc;
using ftmpi::Status;
namespace dt = ftmpi::dt;

int fail(Errc e, const char* msg, const char* fn) { return ftmpi::api::ret(nullptr, Status(e, msg), fn); }
}  // namespace

extern "C" int PMPI_Op_create(MPI_User_function* user_fn, int commute, MPI_Op* op) {
  FTMPI_ENTER("MPI_Op_create");
  if (user_fn == nullptr || op == nullptr) return fail(Errc::arg, "user_fn or op is NULL", "MPI_Op_create");
  ftmpi::Result<dt::Op*> r = dt::make_user_op(user_fn, commute != 0);
  if (!r.ok()) return ftmpi::api::ret(nullptr, r.status(), "MPI_Op_create");
  *op = r.value();
  return MPI_SUCCESS;
}
FTMPI_ALIAS(Op_create)

extern "C" int PMPI_Op_create_c(MPI_User_function_c* user_fn, int commute, MPI_Op* op) {
  FTMPI_ENTER("MPI_Op_create_c");
  if (user_fn == nullptr || op == nullptr) return fail(Errc::arg, "user_fn or op is NULL", "MPI_Op_create_c");
  ftmpi::Result<dt::Op*> r = dt::make_user_op_c(user_fn, commute != 0);
  if (!r.ok()) return ftmpi::api::ret(nullptr, r.status(), "MPI_Op_create_c");
  *op = r.value();
  return MPI_SUCCESS;
}
FTMPI_ALIAS(Op_create_c)

extern "C" int PMPI_Op_free(MPI_Op* op) {
  FTMPI_ENTER("MPI_Op_free");
  if (op == nullptr) return fail(Errc::arg, "op is NULL", "MPI_Op_free");
  ftmpi::Status st = dt::retire(*op);
  if (!st.ok()) return ftmpi::api::ret(nullptr, st, "MPI_Op_free");
  *op = MPI_OP_NULL;
  return MPI_SUCCESS;
}
FTMPI_ALIAS(Op_free)

extern "C" int PMPI_Op_commutative(MPI_Op op, int* commute) {
  FTMPI_ENTER("MPI_Op_commutative");
  if (!dt::live(op)) return fail(Errc::op, "invalid op", "MPI_Op_commutative");
  if (commute == nullptr) return fail(Errc::arg, "commute is NULL", "MPI_Op_commutative");
  *commute = op->commutative ? 1 : 0;
  return MPI_SUCCESS;
}
FTMPI_ALIAS(Op_commutative)

extern "C" int PMPI_Reduce_local(const void* inbuf, void* inoutbuf, int count, MPI_Datatype datatype, MPI_Op op) {
  FTMPI_ENTER("MPI_Reduce_local");
  if (count < 0) return fail(Errc::count, "negative count", "MPI_Reduce_local");
  if (!dt::usable(datatype)) return fail(Errc::type, "invalid or uncommitted datatype", "MPI_Reduce_local");
  if (!dt::live(op)) return fail(Errc::op, "invalid op", "MPI_Reduce_local");
  if (inbuf == MPI_IN_PLACE || inoutbuf == MPI_IN_PLACE)
    return fail(Errc::buffer, "MPI_IN_PLACE is not allowed in MPI_Reduce_local", "MPI_Reduce_local");
  if (inbuf == inoutbuf && inbuf != nullptr && count > 0)  // MPI forbids aliasing the two (MPI-4.0 §6.9.7)
    return fail(Errc::buffer, "inbuf and inoutbuf are the same buffer", "MPI_Reduce_local");
  ftmpi::Status st = dt::check_op(op, datatype);
  if (!st.ok()) return ftmpi::api::ret(nullptr, st, "MPI_Reduce_local");
  dt::apply(op, inbuf, inoutbuf, static_cast<std::size_t>(count), datatype);
  return MPI_SUCCESS;
}
FTMPI_ALIAS(Reduce_local)
