// Communicator info hints (MPI-4.0 §7.4.4): which keys of a user's info a communicator keeps. MPI_Comm_get_info
// returns the hints "actually used", so keys of other meanings (a typo, another implementation's hint, a
// made-up key) are dropped at MPI_Comm_set_info, MPI_Comm_dup_with_info, MPI_Comm_idup_with_info and
// MPI_Comm_create_from_group, as MPICH does (its comm/comm_info checks it) and as windows do
// (api/rma_win.cpp). Kept: the four MPI-4.0 assertions mpi_assert_no_any_tag, mpi_assert_no_any_source,
// mpi_assert_exact_length and mpi_assert_allow_overtaking when their value is "true" or "false" (ftmpi
// accepts them and relies on none: an assertion only permits optimisations).
#pragma once
#include <memory>

#include "util/info.h"

namespace ftmpi::comm {

// The hints of `info` a communicator keeps, or nullptr when none.
std::shared_ptr<const Info> used_hints(const Info& info);

}  // namespace ftmpi::comm
