// The matching engine: per context, a queue of posted receives and a queue of unexpected messages, both
// in arrival order. Matching follows MPI: a message (src, tag) matches a receive (source, tag) when
// source ∈ {src, ANY_SOURCE} and tag ∈ {tag, ANY_TAG}; the earliest posted receive wins for an arriving
// message, the earliest arrived message wins for a new receive. Because transports deliver frames of one
// sender in order and both queues are FIFO, messages from one sender on one communicator never overtake.
//
// Plain data structure: no I/O, no transports; unit-tested in tests/unit/matcher_test.cpp.
#pragma once
#include <cstddef>
#include <cstdint>
#include <vector>

#include "p2p/envelope.h"
#include "p2p/request.h"

namespace ftmpi::p2p {

inline constexpr int kAnySource = -1;
inline constexpr int kAnyTag = -1;

// A message that arrived before its receive was posted.
struct Unexpected {
  Envelope env{};                // kind is eager or rts
  int src_world = -1;            // sender's world rank
  std::vector<std::byte> data;   // eager payload (copied)
  Unexpected* next = nullptr;
  Unexpected* prev = nullptr;
};

template <class T>
class IntrusiveList {
 public:
  bool empty() const { return head_ == nullptr; }
  T* front() const { return head_; }
  void push_back(T* x) {
    x->next = nullptr;
    x->prev = tail_;
    if (tail_) tail_->next = x; else head_ = x;
    tail_ = x;
  }
  void erase(T* x) {
    if (x->prev) x->prev->next = x->next; else head_ = x->next;
    if (x->next) x->next->prev = x->prev; else tail_ = x->prev;
    x->next = x->prev = nullptr;
  }

 private:
  T* head_ = nullptr;
  T* tail_ = nullptr;
};

class Matcher {
 public:
  ~Matcher();

  // An arriving message: the earliest posted receive of `context` that matches (src, tag), removed from
  // the posted queue, or nullptr.
  Request* match_posted(std::uint32_t context, int src, int tag) {
    if (posted_total_ == 0 || context >= by_context_.size()) return nullptr;
    auto& posted = by_context_[context].posted;
    for (Request* r = posted.front(); r; r = r->next) {
      if (matches(r->peer, r->tag, src, tag)) {
        posted.erase(r);
        --posted_total_;
        return r;
      }
    }
    return nullptr;
  }
  // Queue an unexpected message (takes ownership).
  void add_unexpected(std::uint32_t context, Unexpected* u);

  // Unexpected messages come from a free list: a stream of small messages that arrive before their
  // receives (a collective's next rounds, a bcast root running ahead) allocates nothing once warm, since
  // a recycled entry keeps its payload capacity. make_unexpected() returns a cleared entry; recycle()
  // takes back one that is no longer queued (the caller's after match_unexpected).
  Unexpected* make_unexpected();
  void recycle(Unexpected* u);
  static constexpr std::size_t kMaxFreeUnexpected = 256;
  static constexpr std::size_t kMaxRecycledPayload = 4096;  // larger payload buffers are released

  // A new receive: the earliest unexpected message of `context` matching (source, tag), removed from the
  // queue (caller owns it), or nullptr. `peek` leaves it queued (probe).
  Unexpected* match_unexpected(std::uint32_t context, int source, int tag, bool peek = false) {
    if (unexpected_total_ == 0) return nullptr;  // the common case of a receive posted ahead
    return match_unexpected_queued(context, source, tag, peek);
  }
  // The first unexpected message of `context` for which pred(const Unexpected&) holds, removed from the
  // queue (caller owns it), or nullptr (a cancelled send's message, Engine::cancel).
  template <class Pred>
  Unexpected* find_unexpected(std::uint32_t context, Pred&& pred) {
    if (unexpected_total_ == 0 || context >= by_context_.size()) return nullptr;
    auto& unexpected = by_context_[context].unexpected;
    for (Unexpected* u = unexpected.front(); u; u = u->next) {
      if (pred(*u)) {
        unexpected.erase(u);
        --unexpected_total_;
        return u;
      }
    }
    return nullptr;
  }
  // Queue a posted receive (r->ctx, r->peer, r->tag are the pattern).
  void add_posted(Request* r) {
    queues(r->ctx).posted.push_back(r);
    ++posted_total_;
  }
  // Remove a posted receive (cancel). False if it is not queued (already matched).
  bool remove_posted(Request* r);

  std::size_t unexpected_count() const { return unexpected_total_; }
  std::size_t posted_count() const { return posted_total_; }

  // Visit every posted receive (fn may not modify the queues; collect and act afterwards).
  template <class Fn>
  void for_each_posted(Fn&& fn) {
    for (auto& q : by_context_)
      for (Request* r = q.posted.front(); r; r = r->next) fn(r);
  }
  // Discard every unexpected message of `context` (revoke).
  void drop_unexpected(std::uint32_t context);

  static bool matches(int want_src, int want_tag, int src, int tag) {
    return (want_src == kAnySource || want_src == src) && (want_tag == kAnyTag || want_tag == tag);
  }

 private:
  struct Queues {
    IntrusiveList<Request> posted;
    IntrusiveList<Unexpected> unexpected;
  };
  Queues& queues(std::uint32_t context) {
    if (context >= by_context_.size()) [[unlikely]] grow(context);
    return by_context_[context];
  }
  void grow(std::uint32_t context);
  Unexpected* match_unexpected_queued(std::uint32_t context, int source, int tag, bool peek);

  std::vector<Queues> by_context_;
  std::size_t unexpected_total_ = 0;
  std::size_t posted_total_ = 0;
  std::vector<Unexpected*> free_;
};

}  // namespace ftmpi::p2p
