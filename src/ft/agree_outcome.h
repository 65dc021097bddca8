// What MPIX_Comm_agree contributes to an agreement and how it reads the decision — pure functions, shared
// by the library (api/ft.cpp) and the simulator (tests/sim/agreement_sim_test.cpp), which checks that
// every survivor gets the same flag and the same error.
//
// ULFM: "the error is raised consistently at all processes". So the error must be a function of the
// decision alone (value and failed set, which every survivor decides identically; ft/agreement.h), never
// of local state. The value carries, besides the flag, the set of failures each process had acknowledged
// before the call, as a bitmap over communicator ranks; AND makes it the set acknowledged by *every*
// contributor. The agreement reports a process failure iff its failed set (the members that did not
// contribute) holds a member not acknowledged by every contributor:
//   * one rank acknowledged, the others did not: everyone gets MPI_ERR_PROC_FAILED (not just the others);
//   * every survivor acknowledged the same failures before the call: everyone gets success;
//   * a member that dies during the agreement without contributing: everyone gets MPI_ERR_PROC_FAILED.
// Afterwards every survivor acknowledges the whole failed set with failure_ack / ack_failed, even members
// whose failure notice has not reached it yet (FtManager::adopt_failed), so the next agreement succeeds.
//
// Layout of the value: word 0 = 0xffffffff'00000000 | flag (the flag's 32 bits, ANDed), words 1.. = the
// acknowledged bitmap (bit r of word 1 + r/64 = communicator rank r). Cost: size/64 words more per message
// (nothing below 64 ranks beyond one word).
#pragma once
#include <algorithm>
#include <cstdint>
#include <span>
#include <vector>

#include "ft/agreement.h"

namespace ftmpi::ft {

inline std::size_t flag_words(int size) { return 1 + (static_cast<std::size_t>(size < 0 ? 0 : size) + 63) / 64; }

// Into `v` of flag_words(size) words (no allocation: MPIX_Comm_agree's per-call path).
inline void fill_flag_contribution(std::span<std::uint64_t> v, int flag, const std::vector<int>& acked_ranks, int size) {
  if (v.size() == 2)  // below 65 ranks (no memset call for two words)
    v[1] = 0;
  else
    std::fill(v.begin(), v.end(), std::uint64_t{0});
  v[0] = 0xffffffff00000000ull | static_cast<std::uint32_t>(flag);
  for (int r : acked_ranks)
    if (r >= 0 && r < size && 1 + static_cast<std::size_t>(r) / 64 < v.size())
      v[1 + static_cast<std::size_t>(r) / 64] |= std::uint64_t{1} << (r % 64);
}

inline Bits flag_contribution(int flag, const std::vector<int>& acked_ranks, int size) {
  Bits v(flag_words(size), 0);
  fill_flag_contribution(v, flag, acked_ranks, size);
  return v;
}

struct FlagOutcome {
  int flag = 0;
  bool proc_failed = false;  // a member that did not contribute was not acknowledged by every contributor
};

inline FlagOutcome flag_outcome(const Bits& value, const RankSet& failed) {
  FlagOutcome o;
  o.flag = static_cast<int>(static_cast<std::uint32_t>(value.empty() ? 0 : value[0]));
  for (int r : failed.ranks()) {
    const std::size_t w = 1 + static_cast<std::size_t>(r) / 64;
    const bool acked_by_all = w < value.size() && ((value[w] >> (r % 64)) & 1u);
    if (!acked_by_all) {
      o.proc_failed = true;
      break;
    }
  }
  return o;
}

}  // namespace ftmpi::ft
