#include "tree_shape.h"

namespace ftmpi::mpiexec {

std::vector<int> TreeShape::children(int node) const {
  std::vector<int> out;
  for (int c = fanout * node + 1; c <= fanout * node + fanout && c < nodes; ++c) out.push_back(c);
  return out;
}

int TreeShape::next_hop(int from, int to) const {
  if (to <= from || to >= nodes) return -1;
  int n = to;
  while (n > 0) {
    int p = parent(n);
    if (p == from) return n;
    n = p;
  }
  return -1;
}

std::vector<int> TreeShape::subtree(int node) const {
  std::vector<int> out;
  if (node < 0 || node >= nodes) return out;
  out.push_back(node);
  for (std::size_t i = 0; i < out.size(); ++i)
    for (int c : children(out[i])) out.push_back(c);
  return out;
}

int TreeShape::depth(int node) const {
  int d = 0;
  while (node > 0) {
    node = parent(node);
    ++d;
  }
  return d;
}

}  // namespace ftmpi::mpiexec
