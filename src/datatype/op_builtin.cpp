// Predefined reduction operations (constant-initialised: valid before MPI_Init) and user ops.
#include <new>

#include "mpi.h"
#include "datatype/op.h"

namespace {
using ftmpi::dt::OpKind;
constexpr ftmpi_op_s predefined(OpKind k) {
  return ftmpi_op_s{ftmpi::kMagicOp, k, /*commutative=*/true, /*predefined=*/true, nullptr, 1};
}
}  // namespace

constinit ftmpi_op_s ftmpi_op_max = predefined(OpKind::max);
constinit ftmpi_op_s ftmpi_op_min = predefined(OpKind::min);
constinit ftmpi_op_s ftmpi_op_sum = predefined(OpKind::sum);
constinit ftmpi_op_s ftmpi_op_prod = predefined(OpKind::prod);
constinit ftmpi_op_s ftmpi_op_land = predefined(OpKind::land);
constinit ftmpi_op_s ftmpi_op_band = predefined(OpKind::band);
constinit ftmpi_op_s ftmpi_op_lor = predefined(OpKind::lor);
constinit ftmpi_op_s ftmpi_op_bor = predefined(OpKind::bor);
constinit ftmpi_op_s ftmpi_op_lxor = predefined(OpKind::lxor);
constinit ftmpi_op_s ftmpi_op_bxor = predefined(OpKind::bxor);
constinit ftmpi_op_s ftmpi_op_maxloc = predefined(OpKind::maxloc);
constinit ftmpi_op_s ftmpi_op_minloc = predefined(OpKind::minloc);
constinit ftmpi_op_s ftmpi_op_replace = predefined(OpKind::replace);
constinit ftmpi_op_s ftmpi_op_no_op = predefined(OpKind::no_op);

namespace ftmpi::dt {

Result<Op*> make_user_op(ftmpi_user_fn* fn, bool commutative) {
  auto* op = new (std::nothrow) Op;
  if (op == nullptr) return Status(Errc::no_mem, "out of memory creating an op");
  op->kind = OpKind::user;
  op->commutative = commutative;
  op->predefined = false;
  op->user_fn = fn;
  return op;
}

Result<Op*> make_user_op_c(ftmpi_user_fn_c* fn, bool commutative) {
  Result<Op*> r = make_user_op(nullptr, commutative);
  if (r.ok()) r.value()->user_fn_c = fn;
  return r;
}

Status retire(Op* op) {
  if (!live(op)) return Status(Errc::op, "invalid op");
  if (op->predefined) return Status(Errc::op, "cannot free a predefined op");
  op->magic = kMagicFreed;
  op->refs -= 1;
  return {};
}

}  // namespace ftmpi::dt
