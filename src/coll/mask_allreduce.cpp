// Bitwise-AND allreduce of masks (see mask_allreduce.h).
#include "coll/mask_allreduce.h"
#include "runtime/runtime.h"

#include "coll/allreduce_schedule.h"
#include "mpi.h"

namespace ftmpi::coll {

Status allreduce_band(Runtime& rt, ftmpi_comm_s* comm, std::span<std::uint64_t> words) {
  Schedule s(comm, &rt.scratch());
  const std::size_t n = words.size();
  build_allreduce_into(s, words.data(), n * sizeof(std::uint64_t), &ftmpi_dt_byte, true,
                       [n](const void* in, void* inout) {
                    const auto* a = static_cast<const std::uint64_t*>(in);
                    auto* b = static_cast<std::uint64_t*>(inout);
                    for (std::size_t i = 0; i < n; ++i) b[i] &= a[i];
                  });
  return run(rt, s);
}

}  // namespace ftmpi::coll
