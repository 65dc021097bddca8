#include "boot/process_mapping.h"

#include <string>

namespace ftmpi::boot {
namespace {

struct Triple {
  long node, count, per_node;
};

class Reader {
 public:
  explicit Reader(std::string_view s) : s_(s) {}
  bool eat(std::string_view word) {
    if (s_.substr(pos_, word.size()) != word) return false;
    pos_ += word.size();
    return true;
  }
  bool number(long& out) {
    size_t start = pos_;
    long v = 0;
    while (pos_ < s_.size() && s_[pos_] >= '0' && s_[pos_] <= '9') {
      if (v > 100'000'000) return false;
      v = v * 10 + (s_[pos_++] - '0');
    }
    out = v;
    return pos_ > start;
  }
  bool at_end() const { return pos_ == s_.size(); }

 private:
  std::string_view s_;
  size_t pos_ = 0;
};

Status malformed(std::string_view text, const char* why) {
  return Status(Errc::arg, "PMI_process_mapping '" + std::string(text.substr(0, 200)) + "' is malformed: " + why);
}

}  // namespace

Result<std::vector<int>> parse_process_mapping(std::string_view text, int size) {
  if (size < 1) return Status(Errc::arg, "PMI_process_mapping: job size must be >= 1");
  Reader in(text);
  if (!in.eat("(vector")) return malformed(text, "expected '(vector'");
  std::vector<Triple> triples;
  while (in.eat(",(")) {
    Triple t{};
    if (!in.number(t.node) || !in.eat(",") || !in.number(t.count) || !in.eat(",") || !in.number(t.per_node) ||
        !in.eat(")"))
      return malformed(text, "expected (node,count,ranks_per_node)");
    if (t.count < 1 || t.per_node < 1) return malformed(text, "a count of 0");
    triples.push_back(t);
    if (triples.size() > 100'000) return malformed(text, "too many entries");
  }
  if (!in.eat(")") || !in.at_end()) return malformed(text, "expected ')' at the end");
  if (triples.empty()) return malformed(text, "no entries");
  std::vector<int> node_of(static_cast<size_t>(size), -1);
  int rank = 0;
  while (rank < size) {
    for (const Triple& t : triples)
      for (long n = 0; n < t.count && rank < size; ++n)
        for (long k = 0; k < t.per_node && rank < size; ++k) node_of[static_cast<size_t>(rank++)] = static_cast<int>(t.node + n);
  }
  return node_of;
}

std::string single_node_mapping(int size) { return "(vector,(0,1," + std::to_string(size) + "))"; }

}  // namespace ftmpi::boot
