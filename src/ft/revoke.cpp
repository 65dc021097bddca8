#include "ft/revoke.h"

namespace ftmpi::ft {

RevokeBroadcast::RevokeBroadcast(int me, int size, int radix)
    : me_(me),
      size_(size),
      radix_(radix < 2 ? 2 : radix),
      failed_(static_cast<std::size_t>(size > 0 ? size : 0), false),
      forwarded_(static_cast<std::size_t>(size > 0 ? size : 0), false),
      heard_(static_cast<std::size_t>(size > 0 ? size : 0), false) {}

void RevokeBroadcast::tree_children(int rel, int size, int radix, std::vector<int>* out) {
  out->clear();
  // Weight of rel's lowest non-zero digit in base `radix` (the root has none): its children differ from it
  // in one digit below that weight.
  long long low = 0;
  if (rel != 0) {
    low = 1;
    while ((rel / low) % radix == 0) low *= radix;
  }
  long long top = 1;
  while (top * radix < size && (low == 0 || top * radix < low)) top *= radix;
  for (long long step = top; step >= 1; step /= radix) {
    if (low != 0 && step >= low) continue;
    for (long long j = radix - 1; j >= 1; --j) {
      const long long c = rel + j * step;
      if (c < size) out->push_back(static_cast<int>(c));
    }
  }
}

void RevokeBroadcast::on_message(int from, int origin, int radix) {
  if (from >= 0 && from < size_) heard_[static_cast<std::size_t>(from)] = true;
  if (origin == RevokeOut::kFlood) {
    revoked_ = true;
    if (from >= 0 && from < size_ && known_failed(from)) flood();  // rule B
    return;
  }
  if (origin < 0 || origin >= size_) return;  // malformed: ignored (the caller validates the frame)
  on_tree(origin, radix < 2 ? 2 : radix);
}

void RevokeBroadcast::on_tree(int origin, int radix) {
  revoked_ = true;
  if (flooded_ || forwarded_[static_cast<std::size_t>(origin)]) return;
  forwarded_[static_cast<std::size_t>(origin)] = true;
  if (known_failed(origin)) {  // rule A: the origin may have died half-way through its sends
    flood();
    return;
  }
  forward(origin, (me_ - origin + size_) % size_, radix);
}

void RevokeBroadcast::forward(int origin, int rel, int radix) {
  std::vector<int> kids;
  tree_children(rel, size_, radix, &kids);
  for (int k : kids) {
    const int m = (k + origin) % size_;
    if (known_failed(m))
      forward(origin, k, radix);  // route around a known failure: its children are mine
    else
      out_.push_back(RevokeOut{m, origin, radix});
  }
}

void RevokeBroadcast::on_failure(int member) {
  if (member < 0 || member >= size_ || member == me_ || known_failed(member)) return;
  failed_[static_cast<std::size_t>(member)] = true;
  if (revoked_) flood();  // rule C
}

void RevokeBroadcast::on_retired(int member) {
  if (member < 0 || member >= size_ || heard_[static_cast<std::size_t>(member)]) return;
  on_failure(member);
}

void RevokeBroadcast::flood() {
  if (flooded_) return;
  flooded_ = true;
  for (int m = 0; m < size_; ++m)
    if (m != me_ && !known_failed(m)) out_.push_back(RevokeOut{m, RevokeOut::kFlood, 0});
}

std::vector<RevokeOut> RevokeBroadcast::take_outgoing() {
  std::vector<RevokeOut> o;
  o.swap(out_);
  return o;
}

}  // namespace ftmpi::ft
