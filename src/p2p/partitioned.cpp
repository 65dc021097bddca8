// Partitioned point-to-point communication: the send and receive operations (protocol in partitioned.h).
#include "p2p/partitioned.h"

#include <algorithm>
#include <memory>
#include <utility>
#include <vector>

#include "datatype/builtin_types.h"
#include "ft/failure_state.h"

namespace ftmpi::p2p::part {

namespace {

const ftmpi_datatype_s* byte_type() { return dt::builtin(dt::Basic::byte); }

// The handshake message (same architecture on every rank: plain bytes).
struct Handshake {
  std::uint64_t partitions = 0;
  std::uint64_t part_bytes = 0;  // bytes per send partition
  std::uint32_t data_base = 0;   // data_tag(data_base, i) carries partition i
  std::int32_t user_tag = 0;
};

// Keeps the handshake's message buffer alive until its send or receive completes, after the request that
// posted it was freed (a request freed unstarted still consumes its handshake: the pair matched at init).
class HandshakeKeeper final : public GenericOp {
 public:
  HandshakeKeeper(Engine& e, Request* sub, std::unique_ptr<Handshake> box) : e_(e), sub_(sub), box_(std::move(box)) {}
  ~HandshakeKeeper() override {
    if (sub_) e_.release(sub_);
  }
  bool progress() override {
    if (!sub_->complete) return false;
    e_.release(sub_);
    sub_ = nullptr;
    return true;
  }

 private:
  Engine& e_;
  Request* sub_;
  std::unique_ptr<Handshake> box_;
};

// Release `sub` (a handshake's send or receive) now or, while it is pending, once it completes.
void let_go(Engine& e, Request* sub, std::unique_ptr<Handshake> box) {
  if (!sub) return;
  if (sub->complete) {
    e.release(sub);
    return;
  }
  Request* k = e.start_generic(std::make_unique<HandshakeKeeper>(e, sub, std::move(box)));
  e.release(k);  // released when the keeper finishes
}

enum : std::uint8_t { kPending = 0, kLanded = 1, kFailed = 2 };

// --- send ----------------------------------------------------------------------------------------------

class PartSend final : public GenericOp {
 public:
  PartSend(Engine& e, const ft::FailureState* failures, const PartArgs& a, std::uint32_t data_base)
      : e_(e), failures_(failures), a_(a), part_bytes_(dt::packed_size(a.type, a.count)), data_base_(data_base),
        ready_(a.partitions, 0), subs_(a.partitions, nullptr) {
    peer_world_ = a.peer >= 0 ? a.comm->peer_world_rank(a.peer) : -1;
  }
  ~PartSend() override {
    for (Request*& s : subs_)
      if (s) e_.release(s);
    let_go(e_, hs_req_, std::move(hs_box_));
  }

  // Send the handshake (once, at init).
  Status handshake() {
    if (a_.peer < 0) return {};  // MPI_PROC_NULL
    hs_box_ = std::make_unique<Handshake>();
    hs_box_->partitions = a_.partitions;
    hs_box_->part_bytes = part_bytes_;
    hs_box_->data_base = data_base_;
    hs_box_->user_tag = a_.tag;
    SendArgs s{hs_box_.get(), sizeof(Handshake), byte_type(), a_.peer, hs_tag(a_.tag), a_.comm};
    s.coll = true;
    s.peer_rules = true;
    return e_.isend(s, &hs_req_);
  }

  Status restart() override {
    std::fill(ready_.begin(), ready_.end(), 0);
    nready_ = 0;
    error_ = Status::Ok();
    finished_ = false;
    result = Status::Ok();
    status = MsgStatus{};
    return {};
  }

  bool active_round() const { return !finished_; }

  // Contract: every index in range and not marked this round (checked by the caller).
  void mark(std::uint64_t i) {
    ready_[i] = 1;
    ++nready_;
    if (a_.peer < 0 || finished_ || !error_.ok()) return;  // PROC_NULL, or the round failed: nothing to send
    const std::byte* src = static_cast<const std::byte*>(a_.buf) + i * part_bytes_;
    if (!a_.type->contiguous && part_bytes_ > 0) {
      if (staging_.empty()) staging_.resize(a_.partitions * part_bytes_);
      dt::pack_range(a_.buf, a_.type, i * part_bytes_, part_bytes_, staging_.data() + i * part_bytes_);
      src = staging_.data() + i * part_bytes_;
    }
    SendArgs s{src, part_bytes_, byte_type(), a_.peer, data_tag(data_base_, i), a_.comm};
    s.coll = true;
    s.peer_rules = true;
    Request* sub = nullptr;
    Status st = e_.isend(s, &sub);
    if (!st.ok()) {
      if (error_.ok()) error_ = st;
      return;
    }
    subs_[i] = sub;
    ++pending_;
  }
  bool marked(std::uint64_t i) const { return ready_[i] != 0; }
  bool all_marked() const { return nready_ == a_.partitions; }
  std::uint64_t partitions() const { return a_.partitions; }

  bool progress() override {
    if (hs_req_ && hs_req_->complete) {
      if (!hs_req_->error.ok() && error_.ok()) error_ = hs_req_->error;
      e_.release(hs_req_);
      hs_req_ = nullptr;
      hs_box_.reset();
    }
    if (pending_ > 0) reap();
    if (pending_ > 0) return false;
    if (a_.peer < 0) {  // MPI_PROC_NULL: nothing to send, complete at once as the receive side does (MPI_Pready
      finished_ = true;  // calls until MPI_Wait/MPI_Test are still accepted: mark() sends nothing)
      result = error_;
      return true;
    }
    if (nready_ < a_.partitions && error_.ok()) {
      // Waiting for MPI_Pready: give up only when the peer can never take the data.
      if (a_.comm->revoked.load(std::memory_order_relaxed))
        error_ = Status(Errc::revoked, "the communicator has been revoked");
      else if (peer_world_ >= 0 && failures_ && failures_->epoch() != 0 && failures_->failed(peer_world_))
        error_ = Status(Errc::proc_failed, "the destination process of this partitioned send has failed");
      else
        return false;
    }
    if (nready_ < a_.partitions && error_.ok()) return false;
    finished_ = true;
    result = error_;
    return true;
  }

 private:
  void reap() {
    for (std::uint64_t i = 0; i < subs_.size() && pending_ > 0; ++i) {
      Request* s = subs_[i];
      if (!s || !s->complete) continue;
      if (!s->error.ok() && error_.ok()) error_ = s->error;
      e_.release(s);
      subs_[i] = nullptr;
      --pending_;
    }
  }

  Engine& e_;
  const ft::FailureState* failures_;
  PartArgs a_;
  std::uint64_t part_bytes_;
  std::uint32_t data_base_;
  int peer_world_ = -1;
  std::unique_ptr<Handshake> hs_box_;
  Request* hs_req_ = nullptr;
  std::vector<std::uint8_t> ready_;
  std::vector<Request*> subs_;
  std::vector<std::byte> staging_;  // non-contiguous type: the packed partitions
  std::uint64_t nready_ = 0;
  std::uint64_t pending_ = 0;
  Status error_;
  bool finished_ = false;
};

// --- receive -------------------------------------------------------------------------------------------

class PartRecv final : public GenericOp {
 public:
  PartRecv(Engine& e, const PartArgs& a)
      : e_(e), a_(a), part_bytes_(dt::packed_size(a.type, a.count)), total_(a.partitions * part_bytes_) {}
  ~PartRecv() override {
    for (Request*& s : subs_)
      if (s) e_.release(s);
    let_go(e_, hs_req_, std::move(hs_box_));
  }

  // Post the handshake's receive (once, at init: the pairing order is the init order).
  Status post_handshake() {
    if (a_.peer < 0) return {};  // MPI_PROC_NULL
    hs_box_ = std::make_unique<Handshake>();
    RecvArgs r{hs_box_.get(), sizeof(Handshake), byte_type(), a_.peer, hs_tag(a_.tag), a_.comm};
    r.coll = true;
    r.peer_rules = true;
    return e_.irecv(r, &hs_req_);
  }

  Status restart() override {
    round_error_ = Status::Ok();
    posted_ = false;
    landed_count_ = 0;
    bytes_ = 0;
    finished_ = false;
    std::fill(state_.begin(), state_.end(), kPending);
    result = Status::Ok();
    status = MsgStatus{};
    return {};
  }

  bool progress() override {
    if (a_.peer < 0) return finish();  // MPI_PROC_NULL: nothing arrives
    if (!hs_known_) {
      if (!hs_req_->complete) return false;
      learn();
    }
    if (!hs_error_.ok()) {
      round_error_ = hs_error_;
      return finish();
    }
    if (!posted_) post();
    if (landed_count_ < hs_.partitions) reap();
    if (landed_count_ < hs_.partitions) return false;
    return finish();
  }

  // Contract: the request is active; progress() ran just before (the caller polled the engine).
  Status arrived(std::uint64_t j, bool* flag) const {
    *flag = false;
    if (a_.peer < 0 || finished_) {
      *flag = finished_ || a_.peer < 0;
      return finished_ ? result : Status::Ok();
    }
    if (!hs_known_) return Status::Ok();
    if (!hs_error_.ok()) return hs_error_;
    std::uint64_t lo = 0, hi = 0;
    send_span(j, part_bytes_, hs_.part_bytes, hs_.partitions, &lo, &hi);
    for (std::uint64_t i = lo; i <= hi && lo <= hi; ++i) {
      if (state_[i] == kFailed) return round_error_;
      if (state_[i] != kLanded) return Status::Ok();
    }
    *flag = true;
    return Status::Ok();
  }
  std::uint64_t partitions() const { return a_.partitions; }

 private:
  bool finish() {
    finished_ = true;
    result = round_error_;
    status.source = a_.peer;
    status.tag = a_.tag;
    status.bytes = bytes_;
    return true;
  }

  // The handshake arrived (or failed).
  void learn() {
    hs_known_ = true;
    if (!hs_req_->error.ok()) {
      hs_error_ = hs_req_->error;
    } else if (hs_box_->user_tag != a_.tag) {
      hs_error_ = Status(Errc::unsupported,
                         "a partitioned send with tag " + std::to_string(hs_box_->user_tag) +
                             " paired with this receive with tag " + std::to_string(a_.tag) +
                             ": tags that differ by a multiple of 2^28 between the same processes at the same "
                             "time are not supported (docs/api.md)");
    } else {
      hs_ = *hs_box_;
      subs_.assign(hs_.partitions, nullptr);
      state_.assign(hs_.partitions, kPending);
      if (!a_.type->contiguous && hs_.partitions * hs_.part_bytes > 0)
        staging_.resize(std::min<std::uint64_t>(hs_.partitions * hs_.part_bytes, total_));
    }
    e_.release(hs_req_);
    hs_req_ = nullptr;
    hs_box_.reset();
  }

  // Post this round's receives, one per send partition; those beyond the buffer take what fits (the
  // engine reports the truncation, and the sender's messages are still consumed).
  void post() {
    posted_ = true;
    for (std::uint64_t i = 0; i < hs_.partitions; ++i) {
      const std::uint64_t off = i * hs_.part_bytes;
      const std::uint64_t cap = off >= total_ ? 0 : std::min(hs_.part_bytes, total_ - off);
      std::byte* dst = a_.type->contiguous ? static_cast<std::byte*>(a_.buf) + off
                       : cap > 0           ? staging_.data() + off
                                           : nullptr;
      RecvArgs r{dst, cap, byte_type(), a_.peer, data_tag(hs_.data_base, i), a_.comm};
      r.coll = true;
      r.peer_rules = true;
      Status st = e_.irecv(r, &subs_[i]);
      if (!st.ok()) {
        subs_[i] = nullptr;
        settle(i, st, 0);
      }
    }
  }

  void reap() {
    for (std::uint64_t i = 0; i < subs_.size(); ++i) {
      Request* s = subs_[i];
      if (!s || !s->complete) continue;
      const std::size_t got = s->error.ok() ? s->status.bytes : 0;
      if (s->error.ok() && got > 0 && !a_.type->contiguous)
        dt::unpack_range(staging_.data() + i * hs_.part_bytes, a_.type, i * hs_.part_bytes, got, a_.buf);
      Status st = s->error;
      e_.release(s);
      subs_[i] = nullptr;
      settle(i, st, got);
    }
  }

  void settle(std::uint64_t i, const Status& st, std::size_t got) {
    state_[i] = st.ok() ? kLanded : kFailed;
    if (!st.ok() && round_error_.ok()) round_error_ = st;
    bytes_ += got;
    ++landed_count_;
  }

  Engine& e_;
  PartArgs a_;
  std::uint64_t part_bytes_;  // bytes per receive partition
  std::uint64_t total_;       // receive capacity
  std::unique_ptr<Handshake> hs_box_;
  Request* hs_req_ = nullptr;
  bool hs_known_ = false;
  Handshake hs_;
  Status hs_error_;
  std::vector<Request*> subs_;
  std::vector<std::uint8_t> state_;
  std::vector<std::byte> staging_;
  bool posted_ = false;
  std::uint64_t landed_count_ = 0;  // settled (landed or failed) this round
  std::size_t bytes_ = 0;
  Status round_error_;
  bool finished_ = false;
};

PartSend* as_send(Request* r) {
  return r && r->kind == ReqKind::generic && r->persistent ? dynamic_cast<PartSend*>(r->generic) : nullptr;
}
PartRecv* as_recv(Request* r) {
  return r && r->kind == ReqKind::generic && r->persistent ? dynamic_cast<PartRecv*>(r->generic) : nullptr;
}

Status not_active(const char* what) {
  return Status(Errc::request, std::string("not an active partitioned ") + what +
                                   " request (MPI_Start it first; it stays active until MPI_Wait/MPI_Test "
                                   "completes it)");
}

}  // namespace

Status psend_init(Engine& engine, const ft::FailureState* failures, const PartArgs& a, Request** out) {
  const std::uint32_t base = a.comm->part_seq;
  auto op = std::make_unique<PartSend>(engine, failures, a, base);
  a.comm->part_seq = static_cast<std::uint32_t>((base + a.partitions) & (kDataTagSpan - 1));
  PartSend* s = op.get();
  Request* r = engine.generic_init(std::move(op));
  set_comm(r, a.comm);
  r->peer = a.peer;
  r->tag = a.tag;
  if (Status st = s->handshake(); !st.ok()) {
    engine.release(r);
    return st;
  }
  *out = r;
  return {};
}

Status precv_init(Engine& engine, const PartArgs& a, Request** out) {
  auto op = std::make_unique<PartRecv>(engine, a);
  PartRecv* p = op.get();
  Request* r = engine.generic_init(std::move(op));
  set_comm(r, a.comm);
  r->peer = a.peer;
  r->tag = a.tag;
  if (Status st = p->post_handshake(); !st.ok()) {
    engine.release(r);
    return st;
  }
  *out = r;
  return {};
}

bool is_psend(const Request* r) { return as_send(const_cast<Request*>(r)) != nullptr; }
bool is_precv(const Request* r) { return as_recv(const_cast<Request*>(r)) != nullptr; }

bool psend_waits_for_pready(const Request* r) {
  const PartSend* s = as_send(const_cast<Request*>(r));
  return s != nullptr && r->active && !r->complete && !s->all_marked();
}

Status pready(Request* r, const int* partitions, std::size_t n) {
  PartSend* s = as_send(r);
  if (!s || !r->active) return not_active("send");
  for (std::size_t k = 0; k < n; ++k) {
    const int i = partitions[k];
    if (i < 0 || static_cast<std::uint64_t>(i) >= s->partitions())
      return Status(Errc::arg, "partition " + std::to_string(i) + " out of range [0, " +
                                   std::to_string(s->partitions()) + ")");
    if (s->marked(static_cast<std::uint64_t>(i)))
      return Status(Errc::arg, "partition " + std::to_string(i) + " is already ready in this round");
    for (std::size_t m = 0; m < k; ++m)
      if (partitions[m] == i) return Status(Errc::arg, "partition " + std::to_string(i) + " listed twice");
  }
  for (std::size_t k = 0; k < n; ++k) s->mark(static_cast<std::uint64_t>(partitions[k]));
  return {};
}

Status pready_range(Request* r, int lo, int hi) {
  PartSend* s = as_send(r);
  if (!s || !r->active) return not_active("send");
  if (lo < 0 || hi < lo || static_cast<std::uint64_t>(hi) >= s->partitions())
    return Status(Errc::arg, "invalid partition range [" + std::to_string(lo) + ", " + std::to_string(hi) +
                                 "] for " + std::to_string(s->partitions()) + " partitions");
  for (int i = lo; i <= hi; ++i)
    if (s->marked(static_cast<std::uint64_t>(i)))
      return Status(Errc::arg, "partition " + std::to_string(i) + " is already ready in this round");
  for (int i = lo; i <= hi; ++i) s->mark(static_cast<std::uint64_t>(i));
  return {};
}

Status parrived(Request* r, int partition, bool* flag) {
  PartRecv* p = as_recv(r);
  if (!p) return Status(Errc::request, "not a partitioned receive request");
  if (!r->active) {  // MPI-4.0 §4.2.2: an inactive request answers flag = true
    *flag = true;
    return {};
  }
  if (partition < 0 || static_cast<std::uint64_t>(partition) >= p->partitions())
    return Status(Errc::arg, "partition " + std::to_string(partition) + " out of range [0, " +
                                 std::to_string(p->partitions()) + ")");
  return p->arrived(static_cast<std::uint64_t>(partition), flag);
}

}  // namespace ftmpi::p2p::part
