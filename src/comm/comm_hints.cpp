// Communicator info hints (see comm_hints.h).
#include "comm/comm_hints.h"

#include <string_view>

namespace ftmpi::comm {

std::shared_ptr<const Info> used_hints(const Info& info) {
  static constexpr std::string_view kAssertions[] = {"mpi_assert_no_any_tag", "mpi_assert_no_any_source",
                                                     "mpi_assert_exact_length", "mpi_assert_allow_overtaking"};
  Info kept;
  for (const auto& [key, value] : info.entries()) {
    if (value != "true" && value != "false") continue;
    for (std::string_view k : kAssertions)
      if (key == k) (void)kept.set(key, value);
  }
  if (kept.size() == 0) return nullptr;
  return std::make_shared<const Info>(std::move(kept));
}

}  // namespace ftmpi::comm
