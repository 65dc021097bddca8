// Transport selection and set-up. The only file that decides shm vs tcp vs self for a peer.
#include "transport/router.h"

#include <sys/random.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <string>
#include <string_view>

#include "boot/process_mapping.h"
#include "transport/self/self_transport.h"
#include "transport/shm/shm_transport.h"
#include "transport/tcp/tcp_transport.h"
#include "util/log.h"
#include "models/reinit/rollback_trace.h"

namespace ftmpi::transport {

namespace {
std::string random_secret() {
  unsigned char raw[16] = {};
  if (getrandom(raw, sizeof raw, 0) != static_cast<ssize_t>(sizeof raw)) {
    // getrandom cannot fail for 16 bytes once the pool is initialised; fall back to pid/time noise.
    auto x = static_cast<unsigned long long>(getpid()) * 0x9E3779B97F4A7C15ull ^
             static_cast<unsigned long long>(reinterpret_cast<std::uintptr_t>(raw));
    for (auto& b : raw) b = static_cast<unsigned char>(x >>= 3);
  }
  char hex[33];
  for (int i = 0; i < 16; ++i) std::snprintf(hex + 2 * i, 3, "%02x", raw[i]);
  return std::string(hex, 32);
}

// The transport of a peer that failed during set-up: frames to it are dropped, as a lost TCP peer's are.
class GoneTransport final : public Transport {
 public:
  const char* name() const override { return "gone"; }
  size_t max_payload() const override { return size_t{1} << 20; }
  bool try_send(int, std::span<const std::byte>, std::span<const std::byte>) override { return true; }
  int poll(FrameSink&) override { return 0; }
  void wait(int) override {}
};

// A transport of this job part seen from an engine that numbers processes base + WORLD rank (a spawned
// job part, src/dpm/): peers are shifted on the way down, senders on the way up.
class OffsetTransport final : public Transport {
 public:
  OffsetTransport(Transport& inner, int base) : in_(inner), base_(base) {}
  const char* name() const override { return in_.name(); }
  size_t max_payload() const override { return in_.max_payload(); }
  bool try_send(int peer, std::span<const std::byte> hdr, std::span<const std::byte> payload) override {
    return in_.try_send(peer - base_, hdr, payload);
  }
  int poll(FrameSink& sink) override {
    Shift s(sink, base_);
    return in_.poll(s);
  }
  bool supports_remote_read() const override { return in_.supports_remote_read(); }
  bool supports_remote_write() const override { return in_.supports_remote_write(); }
  Status remote_write(int peer, std::uint64_t addr, const void* src, size_t len) override {
    return in_.remote_write(peer - base_, addr, src, len);
  }
  Status remote_read(int peer, void* dst, std::uint64_t addr, size_t len) override {
    return in_.remote_read(peer - base_, dst, addr, len);
  }
  size_t remote_readv(int peer, std::span<const ReadSeg> segs) override { return in_.remote_readv(peer - base_, segs); }
  void wait(int timeout_us) override { in_.wait(timeout_us); }
  int wait_fd() const override { return in_.wait_fd(); }
  void wake_self() override { in_.wake_self(); }

 private:
  struct Shift final : FrameSink {
    Shift(FrameSink& s, int b) : sink(s), base(b) {}
    void on_frame(int src, std::span<const std::byte> hdr, std::span<const std::byte> payload) override {
      sink.on_frame(src + base, hdr, payload);
    }
    bool pause_requested() override { return sink.pause_requested(); }
    void on_peer_lost(int peer) override { sink.on_peer_lost(peer + base); }
    FrameSink& sink;
    int base;
  };
  Transport& in_;
  int base_;
};

// Node of every rank, from the launcher's PMI_process_mapping (boot/process_mapping.h). Without one (a
// launcher that does not publish it), every rank counts as a host of its own: TCP between all ranks is
// always correct, shared memory between ranks of different hosts never is.
std::vector<int> node_map(boot::Bootstrap& boot) {
  const int n = boot.size();
  if (auto text = boot.job_attribute("PMI_process_mapping")) {
    auto m = boot::parse_process_mapping(*text, n);
    if (m.ok()) return m.value();
    log::warn("router: %s; treating every rank as a host of its own (TCP between all ranks)",
              m.status().message().c_str());
  } else {
    log::debug("router: the launcher publishes no PMI_process_mapping; every rank is a host of its own");
  }
  std::vector<int> own(static_cast<size_t>(n));
  for (int p = 0; p < n; ++p) own[static_cast<size_t>(p)] = p;
  return own;
}
}  // namespace

Router::~Router() = default;

void Router::set_foreign(std::unique_ptr<Transport> t) {
  foreign_ = t.get();
  foreign_owned_ = true;
  active_.push_back(t.get());
  owned_.push_back(std::move(t));
}

Result<std::unique_ptr<Router>> Router::create(boot::Bootstrap& boot, const RouterOptions& opts, int base) {
  auto made = create_part(boot, opts);
  if (!made.ok() || base == 0) return made;
  // Renumber: process id base + p is part rank p, its transport wrapped.
  std::unique_ptr<Router> r = std::move(made.value());
  std::vector<Transport*> wrapped_active;
  std::vector<std::pair<Transport*, Transport*>> wrap;  // inner -> wrapper
  auto wrapper_of = [&](Transport* t) -> Transport* {
    if (t == nullptr) return nullptr;
    for (auto& [in, w] : wrap)
      if (in == t) return w;
    r->owned_.push_back(std::make_unique<OffsetTransport>(*t, base));
    wrap.emplace_back(t, r->owned_.back().get());
    return r->owned_.back().get();
  };
  for (Transport* t : r->active_) wrapped_active.push_back(wrapper_of(t));
  for (Transport*& t : r->by_peer_) t = wrapper_of(t);
  r->base_ = base;  // by_peer_[id - base]: no table of `base` empty entries (ids of other universes are large)
  r->active_ = std::move(wrapped_active);
  for (StartupFailure& f : r->failed_at_start_) f.rank += base;
  return r;
}

Result<std::unique_ptr<Router>> Router::create_links(boot::Bootstrap& boot, const RouterOptions& opts,
                                                      std::vector<int> replaced) {
  std::sort(replaced.begin(), replaced.end());
  replaced.erase(std::unique(replaced.begin(), replaced.end()), replaced.end());
  RouterOptions o = opts;
  o.only_with = &replaced;
  auto made = create_part(boot, o);
  if (!made.ok()) return made.status();
  if (!made.value()->failed_at_start_.empty()) return Status(Errc::other, "reinit: a rank failed while the epoch was built");
  made.value()->replaced_ = std::move(replaced);
  return made;
}

void Router::adopt_links(Router& part, std::vector<std::unique_ptr<Transport>>* retired) {
  Transport* part_self = nullptr;
  for (size_t p = 0; p < part.by_peer_.size(); ++p)
    if (part.by_peer_[p] && std::string_view(part.by_peer_[p]->name()) == "self") part_self = part.by_peer_[p];
  for (int p : part.replaced_) {
    if (p < 0 || static_cast<size_t>(p) >= by_peer_.size() || part.by_peer_[static_cast<size_t>(p)] == part_self)
      continue;
    if (Transport* old = by_peer_[static_cast<size_t>(p)]) old->forget(p);
    by_peer_[static_cast<size_t>(p)] = part.by_peer_[static_cast<size_t>(p)];
  }
  // Take over the part's shm/tcp transports (its self transport and its sink for foreign processes stay
  // behind and go with it).
  for (auto& t : part.owned_) {
    Transport* raw = t.get();
    if (raw == part.foreign_ || raw == part_self) continue;
    if (std::find(part.active_.begin(), part.active_.end(), raw) == part.active_.end()) continue;
    active_.push_back(raw);
    owned_.push_back(std::move(t));
  }
  // Transports nobody is routed through any more (every peer on them was replaced).
  for (size_t i = 0; i < owned_.size();) {
    Transport* raw = owned_[i].get();
    if (raw == foreign_ || std::find(by_peer_.begin(), by_peer_.end(), raw) != by_peer_.end()) {
      ++i;
      continue;
    }
    std::erase(active_, raw);
    retired->push_back(std::move(owned_[i]));
    owned_.erase(owned_.begin() + static_cast<std::ptrdiff_t>(i));
  }
  local_ranks_ = part.local_ranks_;
  host_id_ = part.host_id_;
}

Result<std::unique_ptr<Router>> Router::create_part(boot::Bootstrap& boot, const RouterOptions& opts) {
  std::unique_ptr<Router> r(new Router());
  r->owned_.push_back(std::make_unique<GoneTransport>());
  r->foreign_ = r->owned_.back().get();
  const int n = boot.size();
  const int me = boot.rank();
  r->owned_.push_back(make_self_transport(me));
  Transport* self = r->owned_.back().get();
  r->by_peer_.assign(static_cast<size_t>(n), nullptr);
  r->by_peer_[static_cast<size_t>(me)] = self;
  r->active_.push_back(self);
  if (n == 1) {
    r->host_id_ = "node0";
    return r;
  }
  reinit::trace::mark("part");

  // Phase 1: create endpoints and publish business cards.
  std::unique_ptr<TcpTransport> tcp;
  std::unique_ptr<ShmTransport> shm;
  if (opts.choice != Choice::shm) {
    auto t = TcpTransport::listen(boot);
    if (!t.ok()) return t.status();
    tcp = std::move(t.value());
  }
  reinit::trace::mark("listen");
  if (opts.choice != Choice::tcp) {
    auto so = ShmOptions::for_job(boot.size());
    if (!so.ok()) return so.status();
    so.value().reserve_by_chunks = opts.rings_by_chunks;
    auto s = ShmTransport::create(boot, so.value());
    if (!s.ok()) return s.status();
    shm = std::move(s.value());
  }
  reinit::trace::mark("shmcreate");
  FTMPI_TRY(boot.put("up." + std::to_string(me), "1"));
  if (me == 0) FTMPI_TRY(boot.put("secret", random_secret()));
  reinit::trace::mark("f1in");
  FTMPI_TRY(boot.fence());
  reinit::trace::mark("f1out");
  // After the fence: a Reinit epoch's bootstrap holds the epoch's host map by then (its cards).
  const std::vector<int> node_of = node_map(boot);
  r->host_id_ = "node" + std::to_string(node_of[static_cast<size_t>(me)]);

  // Phase 2: decide per peer, connect.
  std::vector<int> local, remote;
  auto listed = [&](int p) {
    return !opts.only_with || p == me || std::binary_search(opts.only_with->begin(), opts.only_with->end(), p);
  };
  for (int p = 0; p < n; ++p) {
    if (!listed(p)) {  // Reinit, a kept link: nothing of it is set up, its card is not needed
      (node_of[static_cast<size_t>(p)] == node_of[static_cast<size_t>(me)] ? local : remote).push_back(p);
      continue;
    }
    auto h = boot.get("up." + std::to_string(p));
    if (!h.ok() && opts.tolerate_failed_peers) {
      // Fence 1 completed without it: in FT mode the launcher releases barriers from dead ranks only.
      if (auto how = boot.rank_gone(p)) {
        r->failed_at_start_.push_back({p, *how});
        continue;
      }
    }
    if (!h.ok())
      return Status(Errc::other, "bootstrap: no host entry for rank " + std::to_string(p) +
                                     (opts.tolerate_failed_peers
                                          ? " (it died during MPI_Init and this launcher cannot say so; start "
                                            "fault-tolerant jobs with ftmpi's mpiexec --with-ft)"
                                          : ""));
    (node_of[static_cast<size_t>(p)] == node_of[static_cast<size_t>(me)] ? local : remote).push_back(p);
  }
  r->local_ranks_ = static_cast<int>(local.size());
  reinit::trace::mark("gets");
  if (opts.only_with) {  // Reinit, partial set-up: links with the listed ranks only
    std::erase_if(local, [&](int p) { return !listed(p); });
    std::erase_if(remote, [&](int p) { return !listed(p); });
    if (shm) shm->set_last_attacher_unlinks(false);
  }
  std::vector<int> tcp_peers;
  if (opts.choice == Choice::tcp) {
    tcp_peers = local;
    tcp_peers.insert(tcp_peers.end(), remote.begin(), remote.end());
    std::sort(tcp_peers.begin(), tcp_peers.end());
    std::erase(tcp_peers, me);
  } else {
    tcp_peers = remote;
    if (opts.choice == Choice::shm && !remote.empty())
      return Status(Errc::other, "FTMPI_TRANSPORT=shm but some ranks run on other hosts");
  }
  if (shm && local.size() > 1) {
    FTMPI_TRY(shm->attach(local));
    for (int p : local)
      if (p != me) r->by_peer_[static_cast<size_t>(p)] = shm.get();
  }
  reinit::trace::mark("attached");
  if (tcp && !tcp_peers.empty()) {
    auto secret = boot.get("secret");
    if (!secret.ok()) return Status(Errc::other, "bootstrap: job secret missing");
    if (opts.tolerate_failed_peers) tcp->tolerate_gone_peers([&boot](int p) { return boot.rank_gone(p).has_value(); });
    tcp->set_same_host([&node_of, me](int p) { return node_of[static_cast<size_t>(p)] == node_of[static_cast<size_t>(me)]; });
    FTMPI_TRY(tcp->connect(tcp_peers, secret.value()));
    for (int p : tcp_peers) r->by_peer_[static_cast<size_t>(p)] = tcp.get();
    for (int p : tcp->peers_gone()) r->failed_at_start_.push_back({p, boot.rank_gone(p).value_or("unreachable:0")});
  }
  if (!r->failed_at_start_.empty()) {
    r->owned_.push_back(std::make_unique<GoneTransport>());
    for (const StartupFailure& f : r->failed_at_start_) r->by_peer_[static_cast<size_t>(f.rank)] = r->owned_.back().get();
    log::debug("router: %zu rank(s) failed during start-up", r->failed_at_start_.size());
  }
  FTMPI_TRY(boot.fence());
  if (shm && !opts.keep_segment_name) shm->unlink();  // everybody has mapped our segment: remove its name

  if (shm && local.size() > 1 && opts.choice != Choice::tcp) {
    r->active_.push_back(shm.get());
    r->owned_.push_back(std::move(shm));
  }
  if (tcp && !tcp_peers.empty()) {
    r->active_.push_back(tcp.get());
    r->owned_.push_back(std::move(tcp));
  }
  if (log::debug_enabled()) {
    auto list = [](const std::vector<int>& v, int skip) {
      std::string s;
      for (int p : v)
        if (p != skip) s += (s.empty() ? "" : ",") + std::to_string(p);
      return "[" + s + "]";
    };
    std::vector<int> shm_peers;
    for (int p : local)
      if (r->by_peer_[static_cast<size_t>(p)] != nullptr && std::string_view(r->by_peer_[static_cast<size_t>(p)]->name()) == "shm")
        shm_peers.push_back(p);
    log::debug("router: %s, shm with %s, tcp with %s", r->host_id_.c_str(), list(shm_peers, me).c_str(),
               list(tcp_peers, me).c_str());
  }
  return r;
}

}  // namespace ftmpi::transport
