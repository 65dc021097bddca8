// Schedule execution (see schedule.h).
#include "coll/schedule.h"

#include "coll/schedule_op.h"
#include "mpi.h"
#include "runtime/runtime.h"

namespace ftmpi::coll {

int next_coll_tag(ftmpi_comm_s* comm) {
  if (comm->tag_channel != nullptr) return comm->tag_channel->take();
  return static_cast<int>(comm->coll_seq++ & 0x3fffffffu);
}

TagScope::TagScope(ftmpi_comm_s* comm, TagChannel* ch, TagChannel* local_ch)
    : comm_(comm), local_(comm->local_comm) {
  comm_->tag_channel = ch;
  if (local_ != nullptr) local_->tag_channel = local_ch;
}

TagScope::~TagScope() {
  comm_->tag_channel = nullptr;
  if (local_ != nullptr) local_->tag_channel = nullptr;
}

Schedule::Schedule(ftmpi_comm_s* comm, ScratchPool* pool) : Schedule(comm, next_coll_tag(comm), pool) {}

Schedule::Schedule(ftmpi_comm_s* comm, int tag, ScratchPool* pool) : comm_(comm), pool_(pool), tag_(tag) {
  outstanding_.reserve(8);
}

// Contract: a schedule is destroyed only after advance() returned true (run() and PlanOp guarantee
// it), so no request of ours is outstanding any more.
Schedule::~Schedule() {
  for (Step& s : steps_) {
    if (s.fn != nullptr) s.fn->destroy();
  }
  for (const Pooled& b : big_scratch_) {
    if (orphaned_) break;  // a send of a failed collective may still read them: never reuse, never free
    if (pool_ != nullptr) {
      pool_->release(b.p, b.bytes);
    } else {
      ::operator delete(b.p, std::align_val_t{ScratchPool::kAlign});
    }
  }
}

void Schedule::send(int peer, const void* buf, std::size_t count, const ftmpi_datatype_s* type) {
  Step s;
  s.kind = Step::Kind::send;
  s.peer = peer;
  s.sbuf = buf;
  s.count = count;
  s.type = type;
  add_comm(s);
}

void Schedule::recv(int peer, void* buf, std::size_t count, const ftmpi_datatype_s* type) {
  recv_exact(peer, buf, count, type, nullptr);
}

void Schedule::recv_exact(int peer, void* buf, std::size_t count, const ftmpi_datatype_s* type,
                          RecvOutcome* out) {
  Step s;
  s.kind = Step::Kind::recv;
  s.peer = peer;
  s.rbuf = buf;
  s.count = count;
  s.type = type;
  s.out = out;
  add_comm(s);
}

void Schedule::send_spec(int peer, const SendSpec* spec) {
  Step s;
  s.kind = Step::Kind::send;
  s.peer = peer;
  s.spec = spec;
  add_comm(s);
}

void Schedule::add_comm(const Step& s) {
  if (immediate_ == nullptr) {
    if (steps_.empty()) steps_.reserve(16);
    steps_.push_back(s);
    return;
  }
  p2p::Engine& engine = immediate_->engine();
  if (done_) {  // failed earlier: skip the rest, telling the peer that waits for (or sends) this step
    give_up(engine, s.peer);
    return;
  }
  if (Status st = post(engine, s); !st.ok()) {
    fail(engine, std::move(st));
    give_up(engine, s.peer);
  }
}

void Schedule::send_bytes(int peer, const void* buf, std::size_t bytes) { send(peer, buf, bytes, &ftmpi_dt_byte); }
void Schedule::recv_bytes(int peer, void* buf, std::size_t bytes) { recv(peer, buf, bytes, &ftmpi_dt_byte); }

void Schedule::add_local(LocalFn* fn) {
  Step s;
  s.kind = Step::Kind::local;
  s.fn = fn;
  steps_.push_back(s);
}

void Schedule::fence() {
  if (immediate_ != nullptr) {
    (void)wait_posted();
    return;
  }
  Step s;
  s.kind = Step::Kind::fence;
  steps_.push_back(s);
}

std::byte* Schedule::scratch(std::size_t bytes) {
  // Not value-initialised: builders fill every byte they read (zeroing megabytes per call showed up in
  // the Allreduce benchmark).
  if (bytes <= kArenaScratchMax) return static_cast<std::byte*>(arena_.allocate(bytes == 0 ? 1 : bytes, 64));
  std::byte* p = pool_ != nullptr
                     ? pool_->acquire(bytes)
                     : static_cast<std::byte*>(::operator new(bytes, std::align_val_t{ScratchPool::kAlign}));
  big_scratch_.push_back({p, bytes});
  return p;
}

Status Schedule::post(p2p::Engine& engine, const Step& s) {
  if (!started_) {
    // A collective started once a member is known to have failed fails at once (p2p/engine.h,
    // "Collective failures"); one relaxed load when nothing failed.
    started_ = true;
    if (engine.comm_known_failed(comm_)) {
      if (comm_->revoked.load(std::memory_order_acquire))  // a revoke is what the others will report too
        return Status(Errc::revoked, "the communicator has been revoked");
      failed_at_start_ = true;
      return Status(Errc::proc_failed, "a member of the communicator has failed");
    }
  }
  p2p::Request* r = nullptr;
  if (s.kind == Step::Kind::send) {
    p2p::SendArgs a{s.sbuf, s.count, s.type, s.peer, tag_, comm_};
    if (s.spec != nullptr) {
      a.buf = s.spec->buf;
      a.count = s.spec->count;
      a.type = s.spec->type;
    }
    a.coll = true;
    a.precise = precise_;
    FTMPI_TRY(engine.isend(a, &r));
  } else {
    p2p::RecvArgs a{s.rbuf, s.count, s.type, s.peer, tag_, comm_};
    a.coll = true;
    a.precise = precise_;
    FTMPI_TRY(engine.irecv(a, &r));
    if (s.out != nullptr) watched_.push_back({r, s.out});
  }
  outstanding_.push_back(r);
  return {};
}

void Schedule::fail(p2p::Engine& engine, Status st) {
  status_ = std::move(st);
  done_ = true;
  watched_.clear();  // their requests are released below
  for (p2p::Request* r : outstanding_) {
    // Receives stop here (nothing may write into our buffers once we are gone); a send still in flight
    // completes on its own (stopping it half-way would strand its live receiver), so what it reads from
    // must stay valid: see orphaned_.
    if (!r->complete && r->kind == p2p::ReqKind::recv) {
      engine.abort_recv(r, status_);
      give_up(engine, r->peer);  // its sender may wait for us to take a large message
    }
    if (!r->complete) orphaned_ = true;
    engine.release(r);  // a still-pending request is released by the engine when it completes
  }
  outstanding_.clear();
  // Steps never posted: their peers wait for our message, or would send us one we will not take.
  for (std::size_t i = pc_; i < steps_.size(); ++i)
    if (steps_[i].kind == Step::Kind::send || steps_[i].kind == Step::Kind::recv) give_up(engine, steps_[i].peer);
}

void Schedule::give_up(p2p::Engine& engine, int peer) {
  if (status_.code() == Errc::revoked || peer < 0) return;
  for (int p : given_up_to_)
    if (p == peer) return;
  given_up_to_.push_back(peer);
  engine.give_up_coll(comm_, peer, tag_, failed_at_start_);
}

bool Schedule::harvest(p2p::Engine& engine) {
  if (done_) return true;
  if (comm_->revoked.load(std::memory_order_acquire) ||
      (parent_ && parent_->revoked.load(std::memory_order_acquire))) {
    fail(engine, Status(Errc::revoked, "communicator revoked during a collective"));
    return true;
  }
  // Stop at the first error; wait while anything posted is still pending. A truncated receive (a type
  // signature that does not match the sender's: an erroneous program, MPI_ERR_TRUNCATE) is the exception:
  // the bytes that fit were delivered, the schedule goes on and reports it at the end, so the ranks that
  // wait for this one (a tree forwards what it received) are not left hanging.
  bool pending = false;
  for (p2p::Request* r : outstanding_) {
    if (!r->complete) {
      pending = true;
    } else if (r->error.code() == Errc::truncate) {
      if (status_.ok()) status_ = r->error;
    } else if (!r->error.ok()) {
      fail(engine, r->error);
      return true;
    }
  }
  if (pending) return false;
  for (const Watched& w : watched_) {
    w.out->bytes = w.r->status.bytes;
    w.out->truncated = w.r->error.code() == Errc::truncate;
    if (!w.out->truncated && w.r->status.bytes < w.r->bytes_total && status_.ok())
      status_ = Status(Errc::other, "collective size mismatch: received " + std::to_string(w.r->status.bytes) +
                                        " bytes, this rank expected " + std::to_string(w.r->bytes_total));
  }
  watched_.clear();
  for (p2p::Request* r : outstanding_) engine.release(r);
  outstanding_.clear();
  return true;
}

bool Schedule::wait_posted() {
  p2p::Engine& engine = immediate_->engine();
  if (!harvest(engine)) immediate_->progress().wait_until([&] { return harvest(engine); });
  return !done_;
}

bool Schedule::advance(p2p::Engine& engine) {
  while (!done_) {
    if (!harvest(engine)) return false;
    if (done_) break;

    // Issue: post communication until a local step or fence needs the posted work finished.
    while (pc_ < steps_.size()) {
      Step& s = steps_[pc_];
      if (s.kind == Step::Kind::send || s.kind == Step::Kind::recv) {
        Status st = post(engine, s);
        if (!st.ok()) {
          fail(engine, std::move(st));
          return true;
        }
        ++pc_;
        continue;
      }
      if (!outstanding_.empty()) break;
      if (s.kind == Step::Kind::local) (*s.fn)();
      ++pc_;
    }
    if (pc_ == steps_.size() && outstanding_.empty()) done_ = true;
  }
  return true;
}

Status run(Runtime& rt, Schedule& s) {
  if (s.immediate_ != nullptr) {
    if (s.wait_posted()) s.done_ = true;
    return s.status();
  }
  return drive_plan(rt.engine(), rt.progress(), s);
}

}  // namespace ftmpi::coll
