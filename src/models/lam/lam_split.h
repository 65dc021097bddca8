// LAM's reliable mode (seed 002 §7.3.3, §8.2 item 5a; `mpiexec --with-ft lam`): MPI_Comm_split on a
// wounded communicator succeeds among the survivors.
//
// Rule (seed): every process that calls split says "I am alive"; failed processes implicitly supply
// MPI_UNDEFINED and are in no new communicator; every survivor with the same color gets the same
// communicator.
//
// Algorithm. (1) The ordinary split (comm/comm_ops.h), which in FT mode is uniform: every survivor gets
// the new communicator, or every survivor gets Errc::proc_failed (the context id is decided by the
// fault-tolerant agreement, ft/agreement.h). On a healthy communicator that is all, at the usual cost.
// (2) On Errc::proc_failed (uniform, so every survivor takes this branch in the same call): agree, on the
// parent, on the failed set and a context id — the shrink agreement — and build the communicator of the
// survivors (the same everywhere, because both are decided); then split that one (again uniform) and free
// it. A process that dies during (2) makes the inner split fail everywhere; the survivors repeat (2), which
// excludes it. Every repetition needs a new failure, so there are at most `size` of them.
//
// Safety: (2) starts at every survivor because (1)'s outcome is uniform; each agreement is among the
// survivors of the parent and all call the same sequence of agreements on it (instances are numbered per
// communicator), so they decide the same failed set and context; the inner split's outcome is uniform.
// Cost on a wounded communicator: two agreements and one allgather more than a split.
#pragma once
#include "comm/communicator.h"
#include "util/status.h"

namespace ftmpi {
class Runtime;
}

namespace ftmpi::lam {

using comm::Communicator;

Status split(Runtime& rt, Communicator* parent, int color, int key, Communicator** out);

}  // namespace ftmpi::lam
