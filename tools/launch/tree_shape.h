// The shape of the launcher tree: node 0 is the origin (mpiexec), node h+1 the daemon of host h. Heap
// numbering with fan-out k: parent(i) = (i-1)/k, children of i are k*i+1 .. k*i+k. Every node computes
// routes from (k, node count) alone, so no routing table travels.
#pragma once
#include <vector>

namespace ftmpi::mpiexec {

struct TreeShape {
  int fanout = 32;  // k >= 1
  int nodes = 1;    // origin + hosts

  int parent(int node) const { return node <= 0 ? -1 : (node - 1) / fanout; }
  std::vector<int> children(int node) const;
  // The child of `from` on the way down to `to` (a descendant of `from`), or -1 if `to` is not below it.
  int next_hop(int from, int to) const;
  // `node` and every node below it.
  std::vector<int> subtree(int node) const;
  int depth(int node) const;
};

}  // namespace ftmpi::mpiexec
