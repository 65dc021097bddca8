#include "p2p/matcher.h"

namespace ftmpi::p2p {

Matcher::~Matcher() {
  for (auto& q : by_context_) {
    while (Unexpected* u = q.unexpected.front()) {
      q.unexpected.erase(u);
      delete u;
    }
  }
  for (Unexpected* u : free_) delete u;
}

Unexpected* Matcher::make_unexpected() {
  if (free_.empty()) return new Unexpected;
  Unexpected* u = free_.back();
  free_.pop_back();
  return u;
}

void Matcher::recycle(Unexpected* u) {
  if (free_.size() >= kMaxFreeUnexpected) {
    delete u;
    return;
  }
  if (u->data.capacity() > kMaxRecycledPayload) {
    std::vector<std::byte>().swap(u->data);
  } else {
    u->data.clear();
  }
  u->env = Envelope{};
  u->src_world = -1;
  u->next = u->prev = nullptr;
  free_.push_back(u);
}

void Matcher::grow(std::uint32_t context) { by_context_.resize(static_cast<size_t>(context) + 16); }

void Matcher::add_unexpected(std::uint32_t context, Unexpected* u) {
  queues(context).unexpected.push_back(u);
  ++unexpected_total_;
}

Unexpected* Matcher::match_unexpected_queued(std::uint32_t context, int source, int tag, bool peek) {
  if (context >= by_context_.size()) return nullptr;
  auto& unexpected = by_context_[context].unexpected;
  for (Unexpected* u = unexpected.front(); u; u = u->next) {
    if (matches(source, tag, u->env.src, u->env.tag)) {
      if (!peek) {
        unexpected.erase(u);
        --unexpected_total_;
      }
      return u;
    }
  }
  return nullptr;
}

bool Matcher::remove_posted(Request* r) {
  if (r->ctx >= by_context_.size()) return false;
  auto& posted = by_context_[r->ctx].posted;
  for (Request* x = posted.front(); x; x = x->next) {
    if (x == r) {
      posted.erase(r);
      --posted_total_;
      return true;
    }
  }
  return false;
}

}  // namespace ftmpi::p2p

namespace ftmpi::p2p {
void Matcher::drop_unexpected(std::uint32_t context) {
  if (context >= by_context_.size()) return;
  auto& q = by_context_[context].unexpected;
  while (Unexpected* u = q.front()) {
    q.erase(u);
    --unexpected_total_;
    recycle(u);
  }
}
}  // namespace ftmpi::p2p
