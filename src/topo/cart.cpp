// Cartesian grids (see topology.h).
#include <cstdlib>

#include "topo/topology.h"

namespace ftmpi::topo {

int Cart::size() const {
  int n = 1;
  for (int d : dims) n *= d;
  return n;
}

Result<int> Cart::rank_of(std::span<const int> coords) const {
  if (coords.size() != dims.size()) return Status(Errc::arg, "wrong number of coordinates");
  int rank = 0;
  for (std::size_t i = 0; i < dims.size(); ++i) {
    int c = coords[i];
    if (c < 0 || c >= dims[i]) {
      if (!periods[i]) return Status(Errc::rank, "coordinate out of range in a non-periodic dimension");
      c %= dims[i];
      if (c < 0) c += dims[i];
    }
    rank = rank * dims[i] + c;
  }
  return rank;
}

Status Cart::coords_of(int rank, std::span<int> coords) const {
  if (rank < 0 || rank >= size()) return Status(Errc::rank, "rank outside the grid");
  for (std::size_t i = dims.size(); i-- > 0;) {
    if (i < coords.size()) coords[i] = rank % dims[i];
    rank /= dims[i];
  }
  return {};
}

Status Cart::shift(int rank, int dim, int disp, int proc_null, int* source, int* dest) const {
  if (dim < 0 || dim >= ndims()) return Status(Errc::dims, "shift direction is not a dimension of the grid");
  std::vector<int> c(dims.size());
  FTMPI_TRY(coords_of(rank, c));
  const int here = c[static_cast<std::size_t>(dim)];
  auto neighbour = [&](long long pos) {
    const int n = dims[static_cast<std::size_t>(dim)];
    if (pos < 0 || pos >= n) {
      if (!periods[static_cast<std::size_t>(dim)]) return proc_null;
      pos %= n;
      if (pos < 0) pos += n;
    }
    c[static_cast<std::size_t>(dim)] = static_cast<int>(pos);
    return *rank_of(c);
  };
  *dest = neighbour(static_cast<long long>(here) + disp);
  *source = neighbour(static_cast<long long>(here) - disp);
  return {};
}

Cart Cart::sub(const std::vector<bool>& remain) const {
  Cart out;
  for (std::size_t i = 0; i < dims.size() && i < remain.size(); ++i)
    if (remain[i]) {
      out.dims.push_back(dims[i]);
      out.periods.push_back(periods[i]);
    }
  return out;
}

Status Cart::sub_color_key(int rank, const std::vector<bool>& remain, int* color, int* key) const {
  if (remain.size() != dims.size()) return Status(Errc::arg, "remain_dims has the wrong length");
  std::vector<int> c(dims.size());
  FTMPI_TRY(coords_of(rank, c));
  int col = 0, k = 0;
  for (std::size_t i = 0; i < dims.size(); ++i) {
    if (remain[i])
      k = k * dims[i] + c[i];
    else
      col = col * dims[i] + c[i];
  }
  *color = col;
  *key = k;
  return {};
}

}  // namespace ftmpi::topo
