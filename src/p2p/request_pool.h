// A pool of request objects. Memory is never returned while the engine lives, so a stale MPI_Request (or
// a request id arriving in a frame) points at a real object whose `magic` tells whether it is live.
#pragma once
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <memory>
#include <new>
#include <type_traits>
#include <vector>

#include "p2p/request.h"

namespace ftmpi::p2p {

class RequestPool {
 public:
  RequestPool() { new (fresh_) Request(); }
  ~RequestPool() { std::launder(reinterpret_cast<Request*>(fresh_))->~Request(); }
  RequestPool(const RequestPool&) = delete;
  RequestPool& operator=(const RequestPool&) = delete;

  // A fresh request (all fields reset, magic = kMagicRequest).
  // The reset is a copy of the bytes of a default-constructed request (fresh_), after the one member that
  // owns memory (the error's message) let it go: a dozen 16-byte moves, where destroying and constructing
  // the object cost a `rep stos` over it and the non-zero defaults stored one by one.
  Request* get() {
    if (free_ == nullptr) [[unlikely]] grow();
    Request* r = free_;
    free_ = r->next;
    const std::uint16_t inc = r->incarnation;
    r->error = Status::Ok();  // frees the message of a failed operation's error, if any
    std::memcpy(static_cast<void*>(r), fresh_, sizeof(Request));
    r->incarnation = static_cast<std::uint16_t>(inc + 1);
    return r;
  }
  // Back to the pool (magic = kMagicFreed). The caller has released staging buffers.
  void put(Request* r) {
    r->magic = kMagicFreed;
    r->generic = nullptr;
    r->next = free_;
    free_ = r;
  }

  // The live request with id `id` (from id_of), or nullptr when `id` is not a live request of this pool
  // in the same incarnation — defends against stale or malformed ids in frames: a notice (cts, fin,
  // sync_ack, data) for an operation that ended (revoked, failed, released) never reaches the request
  // object's next use.
  Request* lookup(std::uint64_t id) const;
  // Id = address (48 bits on every supported 64-bit target) | incarnation << 48.
  static std::uint64_t id_of(const Request* r) {
    return reinterpret_cast<std::uint64_t>(r) | (std::uint64_t{r->incarnation} << 48);
  }
  // A new incarnation (every start of an operation on `r`): ids of earlier ones no longer look it up.
  static void new_incarnation(Request* r) { ++r->incarnation; }
  // Reinit rollback: every request of this pool becomes invalid for good (magic = kMagicRolledBack); the
  // pool is never used again (its engine is dropped with the old epoch, memory kept for stale handles).
  void invalidate_all();

 private:
  void grow();  // one more chunk of free requests
  static constexpr std::size_t kChunk = 256;
  std::vector<std::unique_ptr<Request[]>> chunks_;
  Request* free_ = nullptr;  // free requests, linked through Request::next (a free request is in no queue)
  alignas(Request) std::byte fresh_[sizeof(Request)];  // a default-constructed request, copied by get()
};
// get()'s byte copy relies on this: the only member owning memory is the error's message, null in fresh_
// and released before the copy; nothing else refers to a request's own address.
static_assert(std::is_standard_layout_v<Request>);

}  // namespace ftmpi::p2p
