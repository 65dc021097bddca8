// Reduction operations: predefined ops over basic kinds and user functions.
#pragma once
#include <cstddef>
#include <cstdint>

#include "datatype/datatype.h"
#include "util/magic.h"
#include "util/status.h"

typedef void ftmpi_user_fn(void*, void*, int*, ftmpi_datatype_s**);
typedef void ftmpi_user_fn_c(void*, void*, long long*, ftmpi_datatype_s**);  // MPI_User_function_c

namespace ftmpi::dt {
enum class OpKind : std::uint8_t {
  max, min, sum, prod, land, band, lor, bor, lxor, bxor, maxloc, minloc, replace, no_op, user
};
}

struct ftmpi_op_s {
  std::uint32_t magic = ftmpi::kMagicOp;
  ftmpi::dt::OpKind kind = ftmpi::dt::OpKind::sum;
  bool commutative = true;
  bool predefined = false;
  ftmpi_user_fn* user_fn = nullptr;
  int refs = 1;
  ftmpi_user_fn_c* user_fn_c = nullptr;  // MPI_Op_create_c: called with an MPI_Count, in one piece
};

namespace ftmpi::dt {
using Op = ftmpi_op_s;
// Errc::op when `op` is not defined for type `t` (e.g. BAND on float), ok otherwise.
Status check_op(const Op* op, const Datatype* t);
// True when `op` points at a live op object (predefined or user, not freed).
inline bool live(const Op* op) { return op != nullptr && op->magic == kMagicOp; }

// MPI_Op_create: a user op (kind user) owned by the caller, given back with retire().
Result<Op*> make_user_op(ftmpi_user_fn* fn, bool commutative);
// MPI_Op_create_c: the same with a large-count function.
Result<Op*> make_user_op_c(ftmpi_user_fn_c* fn, bool commutative);
// MPI_Op_free: the handle becomes invalid (magic = kMagicFreed); the object is kept so that stale
// handles are rejected and reductions already started keep working. Errc::op for predefined/freed ops.
Status retire(Op* op);

// inout[i] = in[i] (op) inout[i] for `count` elements of type `t` (MPI's order: in is the left operand).
// Precondition: check_op(op, t).ok().
void apply(const Op* op, const void* in, void* inout, std::size_t count, const Datatype* t);
// The same reduction on PACKED data (dt::pack's output: packed_size(t, count) bytes each), which is what
// collectives move around. For contiguous types this is apply(). Predefined ops reduce the packed basic
// units directly; user ops see the typed layout (the data is unpacked into scratch, reduced, packed back).
// Precondition: check_op(op, t).ok().
void apply_packed(const Op* op, const void* in, void* inout, std::size_t count, const Datatype* t);
}  // namespace ftmpi::dt
