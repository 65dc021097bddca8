#include "transport/tcp/tcp_transport.h"

#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <algorithm>
#include <vector>

#include "transport/tcp/tcp_connection.h"
#include "transport/tcp/tcp_handshake.h"
#include "transport/tcp/tcp_interfaces.h"
#include "transport/tcp/tcp_socket.h"
#include "transport/tcp/tcp_wire.h"
#include "util/log.h"

namespace ftmpi::transport {

TcpOptions TcpOptions::from_env() {
  TcpOptions o;
  if (const char* a = std::getenv("FTMPI_TCP_IF_ADDR"); a && *a) o.if_include = a;
  if (const char* a = std::getenv("FTMPI_TCP_IF"); a && *a) o.if_include = a;
  if (const char* t = std::getenv("FTMPI_TCP_CONNECT_TIMEOUT"); t && *t) {
    char* end = nullptr;
    double s = std::strtod(t, &end);
    if (end && *end == '\0' && s > 0 && s <= 86400) o.connect_timeout_ms = static_cast<int>(s * 1000);
    else log::warn("FTMPI_TCP_CONNECT_TIMEOUT='%s' is not a number of seconds; using %d ms", t, o.connect_timeout_ms);
  }
  long mp = tcp::env_long("FTMPI_TCP_MAX_PAYLOAD", static_cast<long>(o.max_payload));
  if (mp >= 4096 && mp <= (64l << 20)) o.max_payload = static_cast<size_t>(mp);
  long sb = tcp::env_long("FTMPI_TCP_SOCKBUF", o.socket_buffer);
  if (sb >= 0 && sb <= (256l << 20)) o.socket_buffer = static_cast<int>(sb);
  return o;
}

namespace {

using tcp::Connection;

// With few peers, reading each socket is cheaper than asking epoll which ones are ready.
constexpr size_t kDirectReadPeers = 4;

class TcpTransportImpl final : public TcpTransport {
 public:
  TcpTransportImpl(boot::Bootstrap& boot, const TcpOptions& opts, int listen_fd, std::string address,
                   int wake_fd, int epoll_fd, std::vector<tcp::LocalAddress> selected,
                   std::vector<tcp::LocalAddress> all)
      : boot_(&boot), rank_(boot.rank()), opts_(opts), listen_fd_(listen_fd), address_(std::move(address)),
        selected_(std::move(selected)), all_(std::move(all)),
        wake_fd_(wake_fd), epoll_fd_(epoll_fd), by_rank_(static_cast<size_t>(boot.size()), nullptr) {}

  ~TcpTransportImpl() override {
    if (!abandoned_) drain_output(std::chrono::seconds(10));
    for (auto& c : conns_) c->say_goodbye();
    conns_.clear();
    if (listen_fd_ >= 0) ::close(listen_fd_);
    ::close(wake_fd_);
    ::close(epoll_fd_);
  }

  const char* name() const override { return "tcp"; }
  void abandon_output() override { abandoned_ = true; }
  void forget(int peer) override {
    Connection* c = (peer >= 0 && static_cast<size_t>(peer) < by_rank_.size()) ? by_rank_[static_cast<size_t>(peer)] : nullptr;
    if (!c) return;
    by_rank_[static_cast<size_t>(peer)] = nullptr;
    if (c->state() != Connection::State::closed) {
      ::epoll_ctl(epoll_fd_, EPOLL_CTL_DEL, c->fd(), nullptr);
      c->close();  // silently: a closed connection is skipped by poll() and never reaped or reported
    }
  }
  size_t max_payload() const override { return opts_.max_payload; }
  const std::string& address() const override { return address_; }
  int wait_fd() const override { return epoll_fd_; }

  Status connect(std::span<const int> peers, const std::string& secret) override;
  void tolerate_gone_peers(std::function<bool(int rank)> gone) override { gone_check_ = std::move(gone); }
  void set_same_host(std::function<bool(int rank)> same_host) override { same_host_ = std::move(same_host); }
  const std::vector<int>& peers_gone() const override { return peers_gone_; }
  bool try_send(int peer, std::span<const std::byte> hdr, std::span<const std::byte> payload) override;
  int poll(FrameSink& sink) override;
  void wait(int timeout_us) override;
  // Shut the socket down both ways: the peer gets EOF (if it can hear), the next poll() reaps the connection
  // (the loss report finds the peer already failed).
  void fence(int peer) override {
    Connection* c = (peer >= 0 && static_cast<size_t>(peer) < by_rank_.size()) ? by_rank_[static_cast<size_t>(peer)] : nullptr;
    if (c && c->state() == Connection::State::open) ::shutdown(c->fd(), SHUT_RDWR);
  }

  // Write first, then raise the flag: whenever the eventfd is readable after a wake, the flag is set too,
  // so poll() (which drains only when the flag is up) never leaves wait_fd() readable behind it.
  void wake_self() override {
    std::uint64_t one = 1;
    ssize_t w = ::write(wake_fd_, &one, sizeof one);
    (void)w;
    wake_pending_.store(true, std::memory_order_release);
  }

 private:
  // Before closing: frames accepted by try_send() may still sit in output queues, and MPI considers them
  // sent. Push them out for up to `limit`, discarding input meanwhile so a peer that does the same cannot
  // deadlock with us on full socket buffers.
  void drain_output(std::chrono::milliseconds limit) {
    struct Discard : FrameSink {
      void on_frame(int, std::span<const std::byte>, std::span<const std::byte>) override {}
      void on_peer_lost(int) override {}
    } discard;
    auto deadline = std::chrono::steady_clock::now() + limit;
    for (;;) {
      bool pending = false;
      for (auto& c : conns_) {
        if (c->state() != Connection::State::open || !c->has_output()) continue;
        c->flush();
        if (c->state() == Connection::State::open && c->has_output()) {
          pending = true;
          c->receive(discard);
        }
      }
      if (!pending) return;
      if (std::chrono::steady_clock::now() >= deadline) {
        log::warn("tcp: closing with unsent output to some peers");
        return;
      }
      wait(10'000);
    }
  }

  void drain_wake() {
    wake_pending_.store(false, std::memory_order_relaxed);
    std::uint64_t v;
    ssize_t r = ::read(wake_fd_, &v, sizeof v);  // non-blocking eventfd: EAGAIN when already drained
    (void)r;
  }
  // Closes a broken connection and reports it, or a finished one (goodbye) silently.
  void reap(Connection& c, FrameSink& sink) {
    auto state = c.state();
    if (state != Connection::State::broken && state != Connection::State::finished) return;
    ::epoll_ctl(epoll_fd_, EPOLL_CTL_DEL, c.fd(), nullptr);
    c.close();
    if (state == Connection::State::broken) sink.on_peer_lost(c.peer());
  }

  boot::Bootstrap* boot_;  // used by connect() only, then forgotten
  int rank_;
  TcpOptions opts_;
  int listen_fd_;
  std::string address_;
  std::vector<tcp::LocalAddress> selected_, all_;  // our listening addresses, every local address
  std::function<bool(int rank)> same_host_;
  bool abandoned_ = false;  // Reinit: the epoch is left, queued output is not drained on close
  int wake_fd_;
  int epoll_fd_;
  std::atomic<bool> wake_pending_{false};
  std::vector<std::unique_ptr<Connection>> conns_;
  std::vector<Connection*> by_rank_;  // world rank → connection (nullptr: not a peer)
  std::vector<pollfd> wait_fds_;
  bool connected_ = false;
  std::function<bool(int rank)> gone_check_;
  std::vector<int> peers_gone_;
};

Status TcpTransportImpl::connect(std::span<const int> peers, const std::string& secret) {
  if (connected_) return Status(Errc::intern, "tcp: connect() called twice");
  if (secret.size() > tcp::kMaxSecret) return Status(Errc::arg, "tcp: job secret longer than 64 bytes");
  tcp::HandshakePlan plan;
  plan.my_rank = rank_;
  plan.listen_fd = listen_fd_;
  plan.secret = secret;
  plan.socket_buffer = opts_.socket_buffer;
  plan.deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(opts_.connect_timeout_ms);
  plan.gone = gone_check_;
  plan.gone_out = &peers_gone_;
  plan.give_up_at_deadline = static_cast<bool>(gone_check_);
  plan.address_of = [this](int r) {
    auto card = boot_->get("tcp." + std::to_string(r));
    return card.ok() ? card.value() : std::string();
  };
  size_t most_addresses = 1;
  for (int p : peers) {
    if (p < 0 || static_cast<size_t>(p) >= by_rank_.size() || p == rank_)
      return Status(Errc::intern, "tcp: bad peer rank " + std::to_string(p));
    if (p > rank_) {
      plan.accept.push_back(p);
      continue;
    }
    auto card = boot_->get("tcp." + std::to_string(p));
    if (!card.ok()) return Status(Errc::other, "tcp: rank " + std::to_string(p) + " published no address");
    auto eps = tcp::parse_card(card.value());
    if (!eps.ok()) return Status(Errc::other, "tcp: rank " + std::to_string(p) + ": " + eps.status().message());
    bool local = same_host_ && same_host_(p);
    plan.dial.push_back({p, tcp::order_for_peer(eps.value(), local, selected_, all_)});
    most_addresses = std::max(most_addresses, plan.dial.back().endpoints.size());
  }
  // Each address gets a fair share of the time before the next is tried (at least 250 ms).
  plan.attempt_timeout = std::chrono::milliseconds(
      std::max<long>(250, opts_.connect_timeout_ms / static_cast<long>(most_addresses)));
  auto sockets = tcp::run_handshake(plan);
  if (!sockets.ok()) return sockets.status();
  for (auto& ps : sockets.value()) {
    conns_.push_back(std::make_unique<Connection>(ps.fd, ps.rank, opts_.max_payload));
    Connection* c = conns_.back().get();
    by_rank_[static_cast<size_t>(ps.rank)] = c;
    epoll_event ev{};
    ev.events = EPOLLIN;
    ev.data.ptr = c;
    if (::epoll_ctl(epoll_fd_, EPOLL_CTL_ADD, ps.fd, &ev) != 0)
      return Status(Errc::other, std::string("tcp: epoll_ctl: ") + std::strerror(errno));
  }
  connected_ = true;
  ::close(listen_fd_);  // everybody expected is here; later strangers are refused by the kernel
  listen_fd_ = -1;
  boot_ = nullptr;
  log::debug("tcp: rank %d connected to %zu peers", rank_, conns_.size());
  return Status::Ok();
}

bool TcpTransportImpl::try_send(int peer, std::span<const std::byte> hdr,
                                std::span<const std::byte> payload) {
  Connection* c = (peer >= 0 && static_cast<size_t>(peer) < by_rank_.size())
                      ? by_rank_[static_cast<size_t>(peer)] : nullptr;
  if (!c || hdr.size() > kMaxHeader || payload.size() > opts_.max_payload) {
    log::error("tcp: try_send to rank %d with hdr %zu / payload %zu bytes breaks the contract; dropped", peer,
               hdr.size(), payload.size());
    return true;
  }
  return c->send(hdr, payload, opts_.queue_limit) == Connection::Send::accepted;
}

int TcpTransportImpl::poll(FrameSink& sink) {
  if (wake_pending_.load(std::memory_order_acquire)) drain_wake();
  int delivered = 0;
  if (conns_.size() <= kDirectReadPeers) {
    for (auto& c : conns_) {
      if (c->state() == Connection::State::closed) continue;
      if (c->has_output()) c->flush();
      delivered += c->receive(sink);
      reap(*c, sink);
    }
    return delivered;
  }
  // Many peers: flush those with output, then read only the sockets epoll says are readable.
  for (auto& c : conns_) {
    if (c->has_output()) c->flush();
    reap(*c, sink);
  }
  epoll_event ev[32];
  int n = ::epoll_wait(epoll_fd_, ev, 32, 0);
  for (int i = 0; i < n; ++i) {
    auto* c = static_cast<Connection*>(ev[i].data.ptr);
    if (!c) continue;  // the wake eventfd
    if (c->state() != Connection::State::open) continue;
    delivered += c->receive(sink);
    reap(*c, sink);
  }
  return delivered;
}

void TcpTransportImpl::wait(int timeout_us) {
  auto& fds = wait_fds_;  // kept between calls: no allocation on the back-off path
  fds.clear();
  fds.push_back({wake_fd_, POLLIN, 0});
  for (auto& c : conns_) {
    if (c->state() == Connection::State::closed) continue;
    // A broken or finished connection is reaped by the next poll(): return at once.
    if (c->state() != Connection::State::open) return;
    fds.push_back({c->fd(), static_cast<short>(POLLIN | (c->has_output() ? POLLOUT : 0)), 0});
  }
  timespec ts{timeout_us / 1'000'000, static_cast<long>(timeout_us % 1'000'000) * 1000};
  int n = ::ppoll(fds.data(), fds.size(), timeout_us < 0 ? nullptr : &ts, nullptr);
  if (n > 0 && (fds[0].revents & POLLIN)) drain_wake();
}

}  // namespace

Result<std::unique_ptr<TcpTransport>> TcpTransport::listen(boot::Bootstrap& boot, const TcpOptions& opts) {
  auto all = tcp::local_addresses();
  if (!all.ok()) return all.status();
  auto selected = tcp::select_addresses(opts.if_include, all.value());
  if (!selected.ok()) return selected.status();
  // One address: bind it. Several: bind the wildcard of their family (both families: IPv6's, dual-stack).
  std::string bind_ip = selected.value().front().ip;
  if (selected.value().size() > 1) {
    bool v6 = false;
    for (const auto& a : selected.value()) v6 |= a.ep.addr.ss_family == AF_INET6;
    bind_ip = v6 ? "::" : "0.0.0.0";
  }
  tcp::Endpoint bound;
  auto lfd = tcp::open_listener(bind_ip, opts.socket_buffer, bound);
  if (!lfd.ok()) return lfd.status();
  std::vector<tcp::Endpoint> published;
  for (const auto& a : selected.value()) {
    tcp::Endpoint e = a.ep;
    if (e.addr.ss_family == AF_INET)
      reinterpret_cast<sockaddr_in*>(&e.addr)->sin_port = reinterpret_cast<sockaddr_in*>(&bound.addr)->sin_port;
    else
      reinterpret_cast<sockaddr_in6*>(&e.addr)->sin6_port = bound.addr.ss_family == AF_INET6
          ? reinterpret_cast<sockaddr_in6*>(&bound.addr)->sin6_port
          : reinterpret_cast<sockaddr_in*>(&bound.addr)->sin_port;
    published.push_back(e);
  }
  int wake_fd = ::eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
  int epoll_fd = ::epoll_create1(EPOLL_CLOEXEC);
  epoll_event ev{};
  ev.events = EPOLLIN;
  ev.data.ptr = nullptr;  // nullptr marks the wake eventfd
  if (wake_fd < 0 || epoll_fd < 0 || ::epoll_ctl(epoll_fd, EPOLL_CTL_ADD, wake_fd, &ev) != 0) {
    Status st(Errc::other, std::string("tcp: eventfd/epoll: ") + std::strerror(errno));
    ::close(lfd.value());
    if (wake_fd >= 0) ::close(wake_fd);
    if (epoll_fd >= 0) ::close(epoll_fd);
    return st;
  }
  std::string address = tcp::format_card(published);
  if (address.size() > 1000) {  // PMI values are at most 1024 bytes
    ::close(lfd.value());
    ::close(wake_fd);
    ::close(epoll_fd);
    return Status(Errc::arg, "tcp: too many interface addresses to publish (" + address.substr(0, 100) +
                                 "...): choose some with FTMPI_TCP_IF / --tcp-if");
  }
  std::unique_ptr<TcpTransport> t = std::make_unique<TcpTransportImpl>(
      boot, opts, lfd.value(), address, wake_fd, epoll_fd, std::move(selected.value()), std::move(all.value()));
  FTMPI_TRY(boot.put("tcp." + std::to_string(boot.rank()), address));
  log::debug("tcp: rank %d listening on %s", boot.rank(), address.c_str());
  return t;
}

Result<std::unique_ptr<TcpTransport>> TcpTransport::listen(boot::Bootstrap& boot) {
  return listen(boot, TcpOptions::from_env());
}

}  // namespace ftmpi::transport
