// Host identity from the launcher: the standard PMI job attribute PMI_process_mapping, as MPICH's Hydra,
// Slurm (PMI-2 job attribute) and ftmpi's own mpiexec publish it.
//
// Format: "(vector,(node,count,ranks_per_node),...)" — each triple says: `count` nodes numbered `node`,
// node+1, ... each take the next `ranks_per_node` consecutive ranks. When the triples are used up before
// every rank has a node, the vector starts over (that is how a round-robin placement is written: 6 ranks
// on 3 nodes one at a time is "(vector,(0,3,1))", giving nodes 0,1,2,0,1,2). Whitespace is not allowed
// inside the value (PMI values have none); an empty vector, a zero count or zero ranks per node, a negative
// or overflowing number, or any other shape is malformed.
#pragma once
#include <string_view>
#include <vector>

#include "util/status.h"

namespace ftmpi::boot {

// Node number of every rank 0..size-1. Errc::arg naming the problem when `text` is malformed.
Result<std::vector<int>> parse_process_mapping(std::string_view text, int size);

// The mapping of `size` ranks on one node: "(vector,(0,1,size))".
std::string single_node_mapping(int size);

}  // namespace ftmpi::boot
