// MPI_Comm_idup as a progress-loop state machine (see comm_idup.h).
#include "comm/comm_idup.h"

#include <bit>
#include <memory>
#include <vector>

#include "coll/allreduce_schedule.h"
#include "coll/schedule.h"
#include "comm/comm_ops.h"
#include "comm/context_alloc.h"
#include "comm/group.h"
#include "comm/group_algebra.h"
#include "ft/ft_manager.h"
#include "mpi.h"
#include "runtime/runtime.h"

namespace ftmpi::comm {
namespace {

constexpr int kMaxRounds = 128;

std::uint64_t mix(std::uint64_t x) {  // splitmix64's finaliser
  x += 0x9e3779b97f4a7c15ull;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
  return x ^ (x >> 31);
}

// A private stand-in for a communicator the rounds talk over: the same group(s) and contexts, owned by the
// duplication (so that the user may free the parent meanwhile), sharing the parent's failure state.
Communicator* shadow(const Communicator* c, std::uint32_t world_rank) {
  auto* s = new Communicator;
  s->group = make_group(c->group->world_ranks, static_cast<int>(world_rank));
  s->rank = s->group->my_rank;
  s->size = s->group->size();
  if (c->remote_group) s->remote_group = make_group(c->remote_group->world_ranks, static_cast<int>(world_rank));
  s->ctx_pt2pt = c->ctx_pt2pt;
  s->ctx_coll = c->ctx_coll;
  s->ft = c->ft;
  s->revoked.store(c->revoked.load());
  s->magic = kMagicComm;
  return s;
}

void drop_shadow(Communicator* s) {
  if (!s) return;
  group_release(s->group);
  if (s->remote_group) group_release(s->remote_group);
  s->magic = kMagicFreed;
  delete s;
}

class Idup final : public p2p::GenericOp {
 public:
  Idup(Runtime& rt, Communicator* parent, Communicator* out, Communicator** handle)
      : rt_(rt), parent_(parent), out_(out), handle_(handle) {
    seq_ = static_cast<std::uint32_t>(coll::next_coll_tag(parent));
    key_ = (static_cast<std::uint64_t>(parent->ctx_pt2pt) << 32) | seq_;
    inter_ = parent->is_inter();
    need_ = inter_ ? 2 : 1;
    // The parent may be revoked or freed meanwhile: state(parent) first, so that the shadows share it.
    rt.ft().register_comm(parent);
    talk_ = shadow(parent, static_cast<std::uint32_t>(rt.world_rank()));
    if (inter_) {
      rt.ft().register_comm(parent->local_comm);
      local_ = shadow(parent->local_comm, static_cast<std::uint32_t>(rt.world_rank()));
    }
    errhandler_ = parent->errhandler;
    if (errhandler_ && !errhandler_->predefined) ++errhandler_->refs;
    uniform_ = rt.ft().ft_mode();
    on_ = inter_ ? rt.ft().span(parent) : parent;  // uniform: where the rounds' agreements run
    idup_seq_ = parent->idup_seq++;
    start_round();
  }

  ~Idup() override {
    sched_.reset();  // before the shadows it talks over
    if (reserved_ != 0) rt_.contexts().give_back_async(w_, reserved_);
    drop_shadow(talk_);
    drop_shadow(local_);
    if (errhandler_ && !errhandler_->predefined && --errhandler_->refs == 0) errhandler_->magic = kMagicFreed;
  }

  bool progress() override {
    if (uniform_) return progress_uniform();
    for (;;) {
      if (!sched_->advance(rt_.engine())) return false;
      Status st = sched_->status();
      // A leader whose exchange failed still runs phase 2, so that its side learns the error and does not
      // wait for it (err_ travels with the word).
      if (!st.ok() && !(inter_ && phase_ == 1)) return finish(st);
      if (inter_ && phase_ == 1 && !st.ok()) err_ = static_cast<std::uint64_t>(st.code());
      if (inter_ && phase_ < 2) {
        ++phase_;
        build_phase();
        continue;
      }
      if (err_ != 0)
        return finish(Status(static_cast<Errc>(err_), "the leaders' exchange failed (a process of the other group failed?)"));
      // The round's outcome: the AND of every member's reserved word (both sides' for an intercommunicator).
      if (end_round(word_)) return true;
    }
  }

 private:
  int tag(int phase) const {
    return static_cast<int>(0x30000000u | ((seq_ & 0x1fffu) << 15) | ((static_cast<std::uint32_t>(round_) & 0x1fffu) << 2) |
                            static_cast<std::uint32_t>(phase));
  }

  // A round decided `common` (the AND of every member's reserved word): build the communicators from its
  // lowest `need_` slots and return true (finished), or give the reservation back and start the next round
  // (false), or finish with an error after kMaxRounds (true).
  bool end_round(std::uint64_t common) {
    if (std::popcount(common) >= need_) {
      std::uint64_t keep = 0, c = common;
      for (int i = 0; i < need_; ++i) {
        keep |= c & (~c + 1);  // lowest bit
        c &= c - 1;
      }
      rt_.contexts().give_back_async(w_, reserved_ & ~keep);
      reserved_ = 0;
      std::vector<std::uint32_t> ids;
      for (std::uint64_t k = keep; k != 0; k &= k - 1) ids.push_back(ContextAllocator::async_id(w_, std::countr_zero(k)));
      build(ids);
      return finish({});
    }
    rt_.contexts().give_back_async(w_, reserved_);
    reserved_ = 0;
    if (++round_ >= kMaxRounds) return finish(Status(Errc::no_mem, "out of communicator context ids for MPI_Comm_idup"));
    start_round();
    return false;
  }

  // FT mode, intracommunicator (see comm_idup.h, "Failures"): the round's AND is a fault-tolerant
  // agreement, so every survivor decides alike.
  bool progress_uniform() {
    for (;;) {
      if (!agreement_->decided()) return false;
      const ft::Bits& v = agreement_->value();
      if (v.size() != 2) return finish(Status(Errc::intern, "idup agreement: unexpected value size"));
      if (!agreement_->failed().empty())
        return finish(Status(Errc::proc_failed, "a member of the communicator failed (MPI_Comm_idup)"));
      if ((v[1] & 1u) == 0) return finish(Status(Errc::revoked, "the communicator has been revoked (MPI_Comm_idup)"));
      if (end_round(v[0])) return true;
    }
  }

  void start_round() {
    w_ = static_cast<std::size_t>(mix(key_ ^ mix(static_cast<std::uint64_t>(round_))) % ContextAllocator::kAsyncWords);
    reserved_ = rt_.contexts().reserve_async(w_);
    if (uniform_) {
      // Contribution: the reserved word, and a flags word whose bit 0 says "the parent is not revoked here".
      const std::uint64_t flags = parent_->revoked.load() ? ~std::uint64_t{1} : ~std::uint64_t{0};
      const auto key = static_cast<std::uint32_t>(((idup_seq_ & 0x7fffffu) << 7) | (static_cast<std::uint32_t>(round_) & 0x7fu));
      agreement_ = &rt_.ft().start_keyed_agreement(on_, key, ft::Bits{reserved_, flags});
      return;
    }
    word_ = reserved_;
    err_ = 0;
    phase_ = 0;
    build_phase();
  }

  // Phase 0: AND over the (local) members. Intercommunicator: phase 1, the leaders swap their side's word
  // (and AND it in); phase 2, each leader sends the result to its side.
  void build_phase() {
    Communicator* local = inter_ ? local_ : talk_;
    if (phase_ == 0) {
      sched_ = std::make_unique<coll::Schedule>(local, tag(0), &rt_.scratch());
      coll::build_allreduce_into(*sched_, &word_, sizeof word_, &ftmpi_dt_byte, true, [](const void* in, void* inout) {
        *static_cast<std::uint64_t*>(inout) &= *static_cast<const std::uint64_t*>(in);
      });
    } else if (phase_ == 1) {
      sched_ = std::make_unique<coll::Schedule>(talk_, tag(1), &rt_.scratch());
      if (talk_->rank == 0) {
        sched_->send_bytes(0, &word_, sizeof word_);
        sched_->recv_bytes(0, &other_, sizeof other_);
        sched_->local([this] { word_ &= other_; });
      }
    } else {
      sched_ = std::make_unique<coll::Schedule>(local_, tag(2), &rt_.scratch());
      msg_[0] = word_;
      msg_[1] = err_;
      if (local_->rank == 0) {
        for (int r = 1; r < local_->size; ++r) sched_->send_bytes(r, msg_, sizeof msg_);
      } else {
        sched_->recv_bytes(0, msg_, sizeof msg_);
        sched_->local([this] {
          word_ = msg_[0];
          err_ = msg_[1];
        });
      }
    }
    sched_->interrupt_on_revoke(parent_);
    (void)sched_->advance(rt_.engine());
  }

  // The duplicate, with context ids[0] (and ids[1] for an intercommunicator's hidden local communicator).
  void build(const std::vector<std::uint32_t>& ids) {
    Communicator* c = out_;
    c->group = make_group(talk_->group->world_ranks, rt_.world_rank());
    c->rank = c->group->my_rank;
    c->size = c->group->size();
    c->ctx_pt2pt = ids[0];
    c->ctx_coll = ids[0] + 1;
    c->errhandler = errhandler_;  // our reference passes to the communicator
    errhandler_ = nullptr;
    if (inter_) {
      c->remote_group = make_group(talk_->remote_group->world_ranks, rt_.world_rank());
      c->local_comm = make_comm(make_group(local_->group->world_ranks, rt_.world_rank()), ids[1], c);
      rt_.ft().register_comm(c->local_comm);
    }
    c->magic = kMagicComm;
    c->counted = true;  // its requests hold it; freed, it retires after the last one (comm_ops.h)
    rt_.ft().register_comm(c);
  }

  bool finish(Status st) {
    if (reserved_ != 0) rt_.contexts().give_back_async(w_, reserved_);
    reserved_ = 0;
    if (!st.ok()) {
      out_->topo.reset();
      out_->hints.reset();
      out_->magic = kMagicFreed;
      if (handle_ && *handle_ == out_) *handle_ = nullptr;
    }
    result = st;
    sched_.reset();
    return true;
  }

  Runtime& rt_;
  Communicator* parent_;  // only its revoked flag is read (communicator objects are never deleted)
  Communicator* on_ = nullptr;  // uniform: parent_, or an intercommunicator parent's span (FtManager::span)
  Communicator* out_;
  Communicator** handle_;
  Communicator* talk_ = nullptr;   // shadow of parent
  Communicator* local_ = nullptr;  // intercommunicator: shadow of parent's hidden local communicator
  ftmpi_errhandler_s* errhandler_ = nullptr;
  std::uint32_t seq_ = 0;
  std::uint64_t key_ = 0;
  bool inter_ = false;
  bool uniform_ = false;                   // rounds agree with ft/agreement.h (FT mode)
  std::uint32_t idup_seq_ = 0;             // this idup's number on the parent (the agreements' key)
  const ft::Agreement* agreement_ = nullptr;
  int need_ = 1;
  int round_ = 0;
  int phase_ = 0;
  std::size_t w_ = 0;
  std::uint64_t reserved_ = 0;
  std::uint64_t word_ = 0;
  std::uint64_t other_ = 0;
  std::uint64_t err_ = 0;     // intercommunicator: the leader's exchange failed with this Errc
  std::uint64_t msg_[2] = {};  // phase 2: word, err
  std::unique_ptr<coll::Schedule> sched_;
};

}  // namespace

Communicator* new_pending_comm() { return new Communicator; }

p2p::Request* start_idup(Runtime& rt, Communicator* parent, Communicator* out, Communicator** handle) {
  out->topo = parent->topo;
  out->hints = parent->hints;
  p2p::Request* r = rt.engine().start_generic(std::make_unique<Idup>(rt, parent, out, handle));
  p2p::set_comm(r, parent);  // the parent lives (context, FT state shared by the shadows) until the idup ends
  return r;
}

}  // namespace ftmpi::comm
