// Group C functions (MPI-3.1 §6.3): size, rank, incl/excl, range incl/excl, union/intersection/
// difference, translate_ranks, compare, free, plus the predefined MPI_GROUP_EMPTY.
#include <array>
#include <span>
#include <vector>

#include "api/common.h"
#include "comm/group.h"
#include "comm/group_algebra.h"

using ftmpi::Errc;
using ftmpi::Status;
using ftmpi::api::ret;
using ftmpi::api::rt;
using ftmpi::api::valid_group;
namespace comm = ftmpi::comm;

FTMPI_API ftmpi_group_s ftmpi_group_empty;

namespace {
// MPI_GROUP_EMPTY is never freed (group_release ignores predefined groups).
[[maybe_unused]] const bool g_group_empty_marked = (ftmpi_group_empty.predefined = true);
}  // namespace

namespace {

// Group errors go to MPI_COMM_WORLD's handler (groups have no handler of their own).
int group_error(Status st, const char* fn) { return ret(nullptr, st, fn); }

#define FTMPI_CHECK_GROUP(g, fn) \
  if (!valid_group(g)) return group_error(Status(Errc::group, "invalid group"), fn)

// A new group object, or MPI_GROUP_EMPTY for an empty list (what MPICH and Open MPI return too).
MPI_Group new_group(comm::RankList ranks) {
  if (ranks.empty()) return MPI_GROUP_EMPTY;
  return comm::make_group(std::move(ranks), rt().world_rank());
}

std::span<const int> members(MPI_Group g) { return g->world_ranks; }

int finish(ftmpi::Result<comm::RankList> r, MPI_Group* newgroup, const char* fn) {
  if (!r.ok()) return group_error(r.status(), fn);
  *newgroup = new_group(std::move(r.value()));
  return MPI_SUCCESS;
}

Status check_rank_array(int n, const int ranks[], MPI_Group* out) {
  if (n < 0) return Status(Errc::arg, "n must be non-negative");
  if (n > 0 && !ranks) return Status(Errc::arg, "ranks is NULL");
  if (!out) return Status(Errc::arg, "newgroup is NULL");
  return {};
}

std::span<const int> as_span(const int ranks[], int n) {
  return n > 0 ? std::span<const int>(ranks, static_cast<size_t>(n)) : std::span<const int>();
}

}  // namespace

extern "C" int PMPI_Group_size(MPI_Group group, int* size) {
  FTMPI_ENTER("MPI_Group_size");
  FTMPI_CHECK_GROUP(group, "MPI_Group_size");
  if (!size) return group_error(Status(Errc::arg, "size is NULL"), "MPI_Group_size");
  *size = group->size();
  return MPI_SUCCESS;
}
FTMPI_ALIAS(Group_size)

extern "C" int PMPI_Group_rank(MPI_Group group, int* rank) {
  FTMPI_ENTER("MPI_Group_rank");
  FTMPI_CHECK_GROUP(group, "MPI_Group_rank");
  if (!rank) return group_error(Status(Errc::arg, "rank is NULL"), "MPI_Group_rank");
  *rank = group->my_rank >= 0 ? group->my_rank : MPI_UNDEFINED;
  return MPI_SUCCESS;
}
FTMPI_ALIAS(Group_rank)

extern "C" int PMPI_Group_incl(MPI_Group group, int n, const int ranks[], MPI_Group* newgroup) {
  FTMPI_ENTER("MPI_Group_incl");
  FTMPI_CHECK_GROUP(group, "MPI_Group_incl");
  Status st = check_rank_array(n, ranks, newgroup);
  if (!st.ok()) return group_error(st, "MPI_Group_incl");
  return finish(comm::group_incl(members(group), as_span(ranks, n)), newgroup, "MPI_Group_incl");
}
FTMPI_ALIAS(Group_incl)

extern "C" int PMPI_Group_excl(MPI_Group group, int n, const int ranks[], MPI_Group* newgroup) {
  FTMPI_ENTER("MPI_Group_excl");
  FTMPI_CHECK_GROUP(group, "MPI_Group_excl");
  Status st = check_rank_array(n, ranks, newgroup);
  if (!st.ok()) return group_error(st, "MPI_Group_excl");
  return finish(comm::group_excl(members(group), as_span(ranks, n)), newgroup, "MPI_Group_excl");
}
FTMPI_ALIAS(Group_excl)

extern "C" int PMPI_Group_translate_ranks(MPI_Group group1, int n, const int ranks1[], MPI_Group group2,
                                          int ranks2[]) {
  FTMPI_ENTER("MPI_Group_translate_ranks");
  FTMPI_CHECK_GROUP(group1, "MPI_Group_translate_ranks");
  FTMPI_CHECK_GROUP(group2, "MPI_Group_translate_ranks");
  if (n < 0 || (n > 0 && (!ranks1 || !ranks2)))
    return group_error(Status(Errc::arg, "bad rank arrays"), "MPI_Group_translate_ranks");
  auto r = comm::group_translate(members(group1), as_span(ranks1, n), members(group2));
  if (!r.ok()) return group_error(r.status(), "MPI_Group_translate_ranks");
  for (int i = 0; i < n; ++i) ranks2[i] = (*r)[static_cast<size_t>(i)];
  return MPI_SUCCESS;
}
FTMPI_ALIAS(Group_translate_ranks)

extern "C" int PMPI_Group_compare(MPI_Group group1, MPI_Group group2, int* result) {
  FTMPI_ENTER("MPI_Group_compare");
  FTMPI_CHECK_GROUP(group1, "MPI_Group_compare");
  FTMPI_CHECK_GROUP(group2, "MPI_Group_compare");
  if (!result) return group_error(Status(Errc::arg, "result is NULL"), "MPI_Group_compare");
  switch (comm::group_compare(members(group1), members(group2))) {
    case comm::Compare::ident: *result = MPI_IDENT; break;
    case comm::Compare::similar: *result = MPI_SIMILAR; break;
    case comm::Compare::unequal: *result = MPI_UNEQUAL; break;
  }
  return MPI_SUCCESS;
}
FTMPI_ALIAS(Group_compare)

extern "C" int PMPI_Group_free(MPI_Group* group) {
  FTMPI_ENTER("MPI_Group_free");
  if (!group) return group_error(Status(Errc::arg, "group is NULL"), "MPI_Group_free");
  FTMPI_CHECK_GROUP(*group, "MPI_Group_free");
  comm::group_release(*group);  // predefined groups (MPI_GROUP_EMPTY, world's) are never freed
  *group = MPI_GROUP_NULL;
  return MPI_SUCCESS;
}
FTMPI_ALIAS(Group_free)

namespace {

using SetOp = comm::RankList (*)(std::span<const int>, std::span<const int>);

int set_operation(MPI_Group group1, MPI_Group group2, MPI_Group* newgroup, SetOp f, const char* fn) {
  FTMPI_CHECK_GROUP(group1, fn);
  FTMPI_CHECK_GROUP(group2, fn);
  if (!newgroup) return group_error(Status(Errc::arg, "newgroup is NULL"), fn);
  *newgroup = new_group(f(members(group1), members(group2)));
  return MPI_SUCCESS;
}

using RangeOp = ftmpi::Result<comm::RankList> (*)(std::span<const int>, std::span<const std::array<int, 3>>);

int range_operation(MPI_Group group, int n, int ranges[][3], MPI_Group* newgroup, RangeOp f, const char* fn) {
  FTMPI_CHECK_GROUP(group, fn);
  if (n < 0 || (n > 0 && !ranges) || !newgroup) return group_error(Status(Errc::arg, "bad arguments"), fn);
  std::vector<std::array<int, 3>> triplets(static_cast<size_t>(n));
  for (int i = 0; i < n; ++i) triplets[static_cast<size_t>(i)] = {ranges[i][0], ranges[i][1], ranges[i][2]};
  return finish(f(members(group), triplets), newgroup, fn);
}

}  // namespace

extern "C" int PMPI_Group_union(MPI_Group group1, MPI_Group group2, MPI_Group* newgroup) {
  FTMPI_ENTER("MPI_Group_union");
  return set_operation(group1, group2, newgroup, comm::group_union, "MPI_Group_union");
}
FTMPI_ALIAS(Group_union)

extern "C" int PMPI_Group_intersection(MPI_Group group1, MPI_Group group2, MPI_Group* newgroup) {
  FTMPI_ENTER("MPI_Group_intersection");
  return set_operation(group1, group2, newgroup, comm::group_intersection, "MPI_Group_intersection");
}
FTMPI_ALIAS(Group_intersection)

extern "C" int PMPI_Group_difference(MPI_Group group1, MPI_Group group2, MPI_Group* newgroup) {
  FTMPI_ENTER("MPI_Group_difference");
  return set_operation(group1, group2, newgroup, comm::group_difference, "MPI_Group_difference");
}
FTMPI_ALIAS(Group_difference)

extern "C" int PMPI_Group_range_incl(MPI_Group group, int n, int ranges[][3], MPI_Group* newgroup) {
  FTMPI_ENTER("MPI_Group_range_incl");
  return range_operation(group, n, ranges, newgroup, comm::group_range_incl, "MPI_Group_range_incl");
}
FTMPI_ALIAS(Group_range_incl)

extern "C" int PMPI_Group_range_excl(MPI_Group group, int n, int ranges[][3], MPI_Group* newgroup) {
  FTMPI_ENTER("MPI_Group_range_excl");
  return range_operation(group, n, ranges, newgroup, comm::group_range_excl, "MPI_Group_range_excl");
}
FTMPI_ALIAS(Group_range_excl)
