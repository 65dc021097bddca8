// Group algebra on ordered lists of world ranks (MPI-3.1 §6.3). Pure functions: no MPI state, no
// processes, so they are unit-tested directly. The C API builds group objects from their results with
// make_group(); ranks passed in are group ranks (0 <= r < size) unless stated otherwise.
#pragma once
#include <array>
#include <span>
#include <vector>

#include "util/status.h"

namespace ftmpi::comm {

using RankList = std::vector<int>;  // group rank -> world rank

// MPI_Group_incl: the members at `ranks` in that order. Errc::rank for a rank out of range or repeated.
Result<RankList> group_incl(std::span<const int> members, std::span<const int> ranks);
// MPI_Group_excl: the members not at `ranks`, order kept. Errc::rank for out-of-range or repeated ranks.
Result<RankList> group_excl(std::span<const int> members, std::span<const int> ranks);
// MPI_Group_range_incl / range_excl: triplets (first, last, stride). Errc::rank for a bad triplet or a
// rank named twice; Errc::arg for stride 0.
Result<RankList> group_range_incl(std::span<const int> members, std::span<const std::array<int, 3>> ranges);
Result<RankList> group_range_excl(std::span<const int> members, std::span<const std::array<int, 3>> ranges);
// Set operations, order as MPI defines them: union = all of a, then the members of b not in a;
// intersection = members of a also in b (a's order); difference = members of a not in b (a's order).
RankList group_union(std::span<const int> a, std::span<const int> b);
RankList group_intersection(std::span<const int> a, std::span<const int> b);
RankList group_difference(std::span<const int> a, std::span<const int> b);

// MPI_Group_translate_ranks: for each rank of group a, its rank in b or `undefined` (MPI_UNDEFINED) if
// absent; `proc_null` (MPI_PROC_NULL) maps to itself. Errc::rank for an out-of-range rank.
inline constexpr int kUndefined = -32766;  // == MPI_UNDEFINED
inline constexpr int kProcNull = -2;       // == MPI_PROC_NULL
Result<std::vector<int>> group_translate(std::span<const int> a, std::span<const int> ranks,
                                         std::span<const int> b);

// MPI_Group_compare / the group part of MPI_Comm_compare.
enum class Compare { ident = 0, similar = 2, unequal = 3 };  // values of MPI_IDENT / MPI_SIMILAR / MPI_UNEQUAL
Compare group_compare(std::span<const int> a, std::span<const int> b);

}  // namespace ftmpi::comm
