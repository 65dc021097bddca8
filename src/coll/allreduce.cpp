// Allreduce: Rabenseifner for large vectors and commutative ops (rabenseifner.cpp, tuning.h), otherwise
// recursive doubling with the usual fix-up for non-powers of two (Thakur, Rabenseifner, Gropp
// 2005). With pof2 the largest power of two <= p and rem = p - pof2, the first 2*rem ranks pair up
// (even sends to odd, odd keeps the combined value), the pof2 remaining ranks exchange-and-combine over
// log2(pof2) rounds, and the odd ranks hand the result back to their even partners.
// Scratch buffers have the type's layout (not packed), so pair types like MPI_DOUBLE_INT and later
// derived types reduce in place. Operand order is kept (the lower-ranked side is always the left operand), so non-commutative ops are
// correct too. The combine step is a parameter so that context-id allocation can reuse the algorithm on
// bit masks (coll/mask_allreduce.h).
#include "coll/allreduce_schedule.h"
#include "runtime/runtime.h"
#include "coll/builders.h"
#include "coll/coll.h"
#include "coll/local_copy.h"
#include "coll/shm_coll.h"
#include "coll/tuning.h"

namespace ftmpi::coll {

void build_allreduce_recursive_doubling(Schedule& s, const void* sendbuf, void* recvbuf, std::size_t count,
                                        const ftmpi_datatype_s* type, const ftmpi_op_s* op) {
  // The combination runs in recvbuf itself (laid out per the type for `count` elements): one scratch
  // vector (build_allreduce_into's tmp) instead of two, which matters for messages of gigabytes.
  if (!is_in_place(sendbuf)) copy_typed(sendbuf, count, type, recvbuf, count, type);
  build_allreduce_into(s, recvbuf, count, type, op->commutative,
                       [=](const void* in, void* inout) { dt::apply(op, in, inout, count, type); });
}

void build_allreduce(Schedule& s, const void* sendbuf, void* recvbuf, std::size_t count,
                     const ftmpi_datatype_s* type, const ftmpi_op_s* op) {
  const int pof2 = pof2_below(s.comm()->size);
  if (op->commutative && pof2 > 1 && count >= static_cast<std::size_t>(pof2) &&
      dt::packed_size(type, count) >= tuning::kRabenseifnerMinBytes) {
    build_allreduce_rabenseifner(s, sendbuf, recvbuf, count, type, op);
  } else {
    build_allreduce_recursive_doubling(s, sendbuf, recvbuf, count, type, op);
  }
}

Status allreduce(Runtime& rt, ftmpi_comm_s* comm, const void* sendbuf, void* recvbuf, std::size_t count,
                 const Datatype* type, const Op* op) {
  if (auto st = shm_allreduce(rt, comm, sendbuf, recvbuf, count, type, op)) return *st;  // small, one host
  Schedule s(comm, &rt.scratch());
  s.run_immediately(rt);  // both algorithms copy sendbuf into recvbuf before their first step
  build_allreduce(s, sendbuf, recvbuf, count, type, op);
  return run(rt, s);
}

}  // namespace ftmpi::coll
