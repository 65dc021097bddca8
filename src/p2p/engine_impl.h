// Engine internals shared by engine*.cpp. Not included outside src/p2p.
#pragma once
#include <cstddef>
#include <cstdint>
#include <deque>
#include <memory>
#include <vector>

#include "p2p/engine.h"
#include "p2p/envelope.h"
#include "p2p/matcher.h"
#include "p2p/request_pool.h"
#include "transport/router.h"

namespace ftmpi::p2p {

// A frame the transport did not accept yet. `payload` points into a buffer that stays valid until
// `req` completes (user buffer, staging) or into `owned`.
struct PendingFrame {
  Envelope env{};
  const std::byte* payload = nullptr;
  std::size_t len = 0;
  Request* complete_on_accept = nullptr;  // completed when this frame is accepted
};

// States of ftmpi_request_s::proto_state.
enum ProtoState : std::uint8_t {
  kIdle = 0,
  kSendQueued,     // eager frame waiting in the backlog
  kSendWaitAck,    // sync eager sent, waiting for sync_ack
  kSendWaitRndv,   // rts sent, waiting for cts or fin
  kSendStreaming,  // data chunks queued after cts
  kRecvPosted,     // in the posted queue
  kRecvData,       // cts sent, receiving data chunks
};

struct Engine::Impl {
  Impl(transport::Router& r, int me, int n);

  transport::Router& router;
  int me;
  int nworld;
  Matcher matcher;
  RequestPool pool;

  // Per world peer: frames waiting for the transport, in order.
  std::vector<std::deque<PendingFrame>> backlog;
  std::vector<int> backlog_peers;   // peers whose backlog is non-empty
  std::size_t eager_limit_default;  // FTMPI_EAGER_LIMIT or 0 for per-transport defaults

  std::vector<Request*> generic_active;

  // Buffered sends (MPI_Buffer_attach).
  void* bsend_buf = nullptr;
  std::size_t bsend_size = 0;
  std::size_t bsend_used = 0;
  std::vector<Request*> bsend_active;

  // --- helpers ---
  std::size_t eager_limit(transport::Transport& t) const;
  // Send a frame to world rank `peer` behind any backlog; when not accepted now it is queued.
  // Returns true if accepted immediately.
  bool send_frame(int peer, const Envelope& env, const std::byte* payload, std::size_t len,
                  Request* complete_on_accept);
  int flush_backlog();
  void complete(Request* r);
  void release(Request* r);

  // send side
  Status start_send(Request* r);
  void on_cts(int src, const Envelope& env);
  void on_sender_done(const Envelope& env);  // fin / sync_ack
  // receive side
  Status start_recv(Request* r);
  void deliver(Request* r, Unexpected* u);  // matched: complete eager or start rendezvous
  void deliver_eager(Request* r, const Envelope& env, int src_world, std::span<const std::byte> data);
  void start_rndv_recv(Request* r, const Envelope& env, int src_world);
  void on_data(const Envelope& env, std::span<const std::byte> payload);
  void finish_recv(Request* r);
};

}  // namespace ftmpi::p2p
