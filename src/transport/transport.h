// The byte-moving layer. It knows nothing of MPI semantics: it moves frames (a small opaque header plus a
// payload) between world ranks, in FIFO order per (sender, receiver) pair.
//
// Contracts common to every transport:
//  * All calls are made from the progress loop of the owning rank (one thread at a time; the caller holds
//    the runtime lock when MPI_THREAD_MULTIPLE is active). Implementations need no locks of their own.
//  * Frames from one sender to one receiver are delivered in the order try_send() accepted them.
//  * A header is at most kMaxHeader bytes; a payload at most max_payload() bytes.
#pragma once
#include <cstddef>
#include <cstdint>
#include <span>

#include "util/status.h"

namespace ftmpi::transport {

inline constexpr size_t kMaxHeader = 64;
inline constexpr int kSplitGates = 16;  // Transport::split_gates

// Where frames go. Implemented by the p2p engine.
class FrameSink {
 public:
  virtual ~FrameSink() = default;
  // One frame from world rank `src`. `hdr` and `payload` are valid only during the call: the sink copies
  // what it keeps. The sink may call try_send() on any transport from inside this callback.
  virtual void on_frame(int src, std::span<const std::byte> hdr, std::span<const std::byte> payload) = 0;
  // Asked by a transport that queues frames (shm rings) after each on_frame(): true means "stop
  // delivering for this poll(); leave the rest queued for the next one". The engine asks for it once the
  // last posted receive was matched, so that a stream of messages stays in the bounded ring (backpressure
  // on the sender, one copy into the receive posted next) instead of piling up as unexpected messages.
  // A transport may ignore it; it never delays a frame past the next poll().
  virtual bool pause_requested() { return false; }
  // The transport lost its connection to `peer` (EOF, reset, bad data from a known peer). The FT layer
  // treats this as a failure of `peer`.
  virtual void on_peer_lost(int peer) = 0;
};

class Transport {
 public:
  virtual ~Transport() = default;
  virtual const char* name() const = 0;

  // Largest payload one frame can carry.
  virtual size_t max_payload() const = 0;

  // Hand one frame to the transport. Returns true when accepted: the bytes have been copied (or written)
  // and the caller may reuse both buffers. Returns false when the transport cannot take it now (ring full,
  // socket backlog over its limit): the caller keeps the frame, keeps later frames to that peer behind it,
  // and retries after poll(). Never blocks.
  virtual bool try_send(int peer, std::span<const std::byte> hdr, std::span<const std::byte> payload) = 0;

  // Deliver arriving frames to `sink` (and push queued output). Returns the number of frames delivered.
  // Never blocks.
  virtual int poll(FrameSink& sink) = 0;

  // Single-copy read of `len` bytes at address `remote_addr` in the peer's address space into `dst`
  // (process_vm_readv for shared memory, memcpy for self). Only when supports_remote_read().
  virtual bool supports_remote_read() const { return false; }
  virtual Status remote_read(int peer, void* dst, std::uint64_t remote_addr, size_t len) {
    return Status(Errc::unsupported, "remote read not supported by this transport");
  }
  // Several single-copy reads from one peer at once: segment i moves segs[i].len bytes at segs[i].remote_addr
  // in the peer into segs[i].dst. Returns how many leading segments were read completely; the caller redoes
  // the others one by one with remote_read (which reports their error). Shared memory makes them one
  // process_vm_readv: its fixed cost (~0.9 us here, the call and the peer's address-space lookup) is paid
  // once (p2p: Engine::Impl::flush_reads). Default: remote_read per segment, stopping at the first failure.
  struct ReadSeg {
    void* dst;
    std::uint64_t remote_addr;
    size_t len;
  };
  virtual size_t remote_readv(int peer, std::span<const ReadSeg> segs) {
    size_t k = 0;
    while (k < segs.size() && remote_read(peer, segs[k].dst, segs[k].remote_addr, segs[k].len).ok()) ++k;
    return k;
  }
  // Single-copy write of `len` bytes from `src` to address `remote_addr` in the peer's address space
  // (process_vm_writev; the split rendezvous of p2p/rndv_split.h). Errors: proc_failed when the peer is
  // gone, other otherwise. Only when supports_remote_write().
  virtual bool supports_remote_write() const { return false; }
  virtual Status remote_write(int peer, std::uint64_t remote_addr, const void* src, size_t len) {
    return Status(Errc::unsupported, "remote write not supported by this transport");
  }
  // The kSplitGates gate words of the split rendezvous (p2p/rndv_gate.h) between this process and `peer`,
  // in memory both map: `from_peer` true — the words of messages `peer` sends to us, else of messages we
  // send to it. Zero at first. nullptr when the transport has none (then the split way is not taken).
  virtual std::uint64_t* split_gates(int peer, bool from_peer) {
    (void)peer;
    (void)from_peer;
    return nullptr;
  }

  // Sleep up to `timeout_us` microseconds or until a frame for this rank may have arrived (futex doorbell
  // for shared memory, poll(2) for sockets). Spurious returns are allowed. Used by the progress loop's
  // back-off; must be cheap to call when nothing arrives.
  virtual void wait(int timeout_us) = 0;

  // A file descriptor that becomes readable when input arrives, or -1 (used to sleep on several
  // transports at once).
  virtual int wait_fd() const { return -1; }

  // Interrupt a wait() in progress (or make the next one return at once). Thread-safe: the service
  // thread calls it after publishing a failure notice.
  virtual void wake_self() {}

  // Fault-tolerant mode without an ftmpi daemon: `peer` is declared failed though it may still run (a
  // hung or cut-off rank); end the connection to it so that it cannot go on as a member (it sees EOF when it
  // resumes). Progress-loop thread. Default: nothing (shared memory: the detector kills a same-host peer).
  virtual void fence(int peer) { (void)peer; }

  // Reinit rollback: this transport's epoch is being left and nobody will read what is still queued for
  // it, so closing need not deliver it (no drain on destruction). Default: nothing to skip.
  virtual void abandon_output() {}

  // Reinit, a connection kept across a rollback: `peer` was replaced by a new process, which is reached
  // through another transport from now on. Forget it here without reporting anything (no on_peer_lost):
  // stop reading what the dead process left behind and release what names it. Progress-loop thread (the
  // application thread during an epoch change). Default: nothing to forget.
  virtual void forget(int peer) { (void)peer; }
};

}  // namespace ftmpi::transport
