#include "tree_membership.h"

namespace ftmpi::mpiexec {

TreeMembership::TreeMembership(int nodes, Duration window)
    : window_(window), nodes_(static_cast<std::size_t>(nodes > 0 ? nodes : 1)) {
  nodes_[0].state = State::up;
}

void TreeMembership::joined(int node, int parent) {
  if (node <= 0 || node >= static_cast<int>(nodes_.size()) || parent < 0 ||
      parent >= static_cast<int>(nodes_.size()))
    return;
  Node& n = nodes_[static_cast<std::size_t>(node)];
  if (n.state != State::absent) return;
  n.state = State::up;
  n.parent = parent;
}

bool TreeMembership::below(int node, int top) const {
  for (int hops = 0; node >= 0 && hops <= static_cast<int>(nodes_.size()); ++hops) {
    if (node == top) return true;
    node = nodes_[static_cast<std::size_t>(node)].parent;
  }
  return false;
}

void TreeMembership::lose(int node, Clock::time_point now) {
  nodes_[static_cast<std::size_t>(node)].state = State::lost;
  for (Node& c : nodes_)
    if (c.parent == node && c.state == State::up) {
      c.state = State::orphan;
      c.deadline = now + window_;
    }
}

std::vector<int> TreeMembership::link_lost(int node, int reporter, bool closed, Clock::time_point now) {
  std::vector<int> out;
  if (node <= 0 || node >= static_cast<int>(nodes_.size())) return out;
  Node& n = nodes_[static_cast<std::size_t>(node)];
  if (n.parent != reporter || (n.state != State::up && n.state != State::orphan)) return out;
  if (closed || n.parent == 0) {  // under the origin there is no other ancestor to re-attach to
    lose(node, now);
    out.push_back(node);
  } else if (n.state == State::up) {
    n.state = State::orphan;
    n.deadline = now + window_;
  }
  return out;
}

bool TreeMembership::adopt(int node, int parent, Clock::time_point now) {
  (void)now;
  if (node <= 0 || node >= static_cast<int>(nodes_.size()) || parent < 0 ||
      parent >= static_cast<int>(nodes_.size()))
    return false;
  Node& n = nodes_[static_cast<std::size_t>(node)];
  State ps = nodes_[static_cast<std::size_t>(parent)].state;
  if (n.state != State::up && n.state != State::orphan) return false;
  if (ps != State::up && ps != State::orphan) return false;
  if (below(parent, node)) return false;  // no cycle: the new parent must not hang below the node
  n.parent = parent;
  n.state = State::up;
  return true;
}

void TreeMembership::done(int node) {
  if (node <= 0 || node >= static_cast<int>(nodes_.size())) return;
  Node& n = nodes_[static_cast<std::size_t>(node)];
  if (n.state != State::lost) n.state = State::done;
}

std::vector<int> TreeMembership::tick(Clock::time_point now) {
  std::vector<int> out;
  for (std::size_t i = 1; i < nodes_.size(); ++i)
    if (nodes_[i].state == State::orphan && now >= nodes_[i].deadline) {
      lose(static_cast<int>(i), now);
      out.push_back(static_cast<int>(i));
    }
  return out;
}

TreeMembership::Clock::time_point TreeMembership::next_deadline() const {
  Clock::time_point t = Clock::time_point::max();
  for (const Node& n : nodes_)
    if (n.state == State::orphan && n.deadline < t) t = n.deadline;
  return t;
}

}  // namespace ftmpi::mpiexec
