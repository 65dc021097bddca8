#include "dpm/dpm_transport.h"
#include "dpm/socket_io.h"

#include <netinet/in.h>
#include <poll.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "transport/tcp/tcp_connection.h"
#include "transport/tcp/tcp_interfaces.h"
#include "transport/tcp/tcp_socket.h"
#include "transport/tcp/tcp_transport.h"
#include "transport/tcp/tcp_wire.h"
#include "util/log.h"

namespace ftmpi::dpm {
namespace {

namespace tcp = transport::tcp;
using Clock = std::chrono::steady_clock;

class DpmTransportImpl final : public DpmTransport {
 public:
  DpmTransportImpl(int me, std::string secret, Resolver resolve, int listen_fd, std::string card, int wake_fd,
                   transport::TcpOptions opts)
      : me_(me), secret_(std::move(secret)), resolve_(std::move(resolve)), listen_fd_(listen_fd),
        card_(std::move(card)), wake_fd_(wake_fd), opts_(opts) {}

  ~DpmTransportImpl() override {
    // Connections still waiting in the listener's queue are taken too (closing the listener would reset
    // them: their dialers would see a loss). Push what is queued (bounded), then goodbye: the EOF that
    // follows is a departure, not a loss.
    accept_pending();
    auto deadline = Clock::now() + std::chrono::seconds(5);
    for (;;) {
      bool pending = false;
      for (auto& c : conns_) {
        if (c->state() != tcp::Connection::State::open) continue;
        c->flush();
        pending |= c->has_output() && c->state() == tcp::Connection::State::open;
      }
      if (!pending || Clock::now() >= deadline) break;
      ::usleep(1000);
    }
    for (auto& c : conns_)
      if (c->state() == tcp::Connection::State::open) c->say_goodbye();
    conns_.clear();
    ::close(listen_fd_);
    ::close(wake_fd_);
  }

  const char* name() const override { return "dpm-tcp"; }
  size_t max_payload() const override { return opts_.max_payload; }
  const std::string& card() const override { return card_; }
  void wake_self() override {
    std::uint64_t one = 1;
    ssize_t k = ::write(wake_fd_, &one, sizeof one);
    (void)k;
  }

  void connect_now(int peer) override {
    if (!dead_.count(peer)) (void)sender(peer);
  }

  bool try_send(int peer, std::span<const std::byte> hdr, std::span<const std::byte> payload) override {
    if (dead_.count(peer)) return true;  // lost: dropped, as the TCP transport does
    tcp::Connection* c = sender(peer);
    if (c == nullptr) return true;
    return c->send(hdr, payload, opts_.queue_limit) == tcp::Connection::Send::accepted;
  }

  int poll(transport::FrameSink& sink) override {
    accept_pending();
    int n = 0;
    for (size_t i = 0; i < conns_.size();) {
      tcp::Connection& c = *conns_[i];
      if (c.state() == tcp::Connection::State::open) {
        if (c.has_output()) c.flush();
        n += c.receive(sink);
      }
      if (c.state() == tcp::Connection::State::open) {
        ++i;
        continue;
      }
      const int peer = c.peer();
      const bool lost = c.state() == tcp::Connection::State::broken;
      c.close();
      auto it = send_.find(peer);
      if (it != send_.end() && it->second == &c) send_.erase(it);
      conns_.erase(conns_.begin() + static_cast<std::ptrdiff_t>(i));
      if (lost && dead_.insert(peer).second) to_report_.push_back(peer);
      // A goodbye comes only from a transport that closes for good (MPI_Finalize): never dial it again.
      if (!lost) dead_.insert(peer);
    }
    for (int p : to_report_) sink.on_peer_lost(p);
    to_report_.clear();
    return n;
  }

  void wait(int timeout_us) override {
    std::vector<pollfd> fds;
    fds.push_back({wake_fd_, POLLIN, 0});
    fds.push_back({listen_fd_, POLLIN, 0});
    for (auto& c : conns_)
      if (c->state() == tcp::Connection::State::open)
        fds.push_back({c->fd(), static_cast<short>(POLLIN | (c->has_output() ? POLLOUT : 0)), 0});
    timespec ts{timeout_us / 1'000'000, static_cast<long>(timeout_us % 1'000'000) * 1000};
    int n = ::ppoll(fds.data(), fds.size(), timeout_us < 0 ? nullptr : &ts, nullptr);
    if (n > 0 && (fds[0].revents & POLLIN)) {
      std::uint64_t v;
      while (::read(wake_fd_, &v, sizeof v) > 0) {
      }
    }
  }

 private:
  // The connection frames to `peer` go over (dialed now if there is none). Null when the peer cannot be
  // reached: it is then dead and reported at the next poll.
  tcp::Connection* sender(int peer) {
    auto it = send_.find(peer);
    if (it != send_.end()) return it->second;
    accept_pending();  // the peer may have dialed us already
    it = send_.find(peer);
    if (it != send_.end()) return it->second;
    Status st = dial(peer);
    if (!st.ok() && st.code() == Errc::unsupported) {
      // The resolver says the peer left normally (MPI_Finalize): frames to it are dropped, not a failure.
      dead_.insert(peer);
      return nullptr;
    }
    if (!st.ok()) {
      log::debug("dpm: process %d cannot reach process %d: %s", me_, peer, st.message().c_str());
      if (dead_.insert(peer).second) to_report_.push_back(peer);
      return nullptr;
    }
    return send_[peer];
  }

  Status dial(int peer) {
    auto card = resolve_(peer);
    if (!card.ok()) return card.status();
    auto eps = tcp::parse_card(card.value());
    if (!eps.ok()) return eps.status();
    std::array<std::byte, tcp::kHelloSize> hello{};
    FTMPI_TRY(tcp::encode_hello({me_, secret_}, hello));
    std::string why = "no address";
    for (const tcp::Endpoint& ep : eps.value()) {
      auto fd = tcp::start_connect(ep, opts_.socket_buffer);
      if (!fd.ok()) {
        why = fd.status().message();
        continue;
      }
      auto deadline = Clock::now() + std::chrono::milliseconds(opts_.connect_timeout_ms);
      pollfd p{fd.value(), POLLOUT, 0};
      int left = static_cast<int>(std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now()).count());
      int k = ::poll(&p, 1, std::max(1, left));
      int err = k > 0 ? tcp::connect_result(fd.value()) : ETIMEDOUT;
      // No answer is awaited: the peer may be computing outside MPI for a long time; it checks our hello
      // when it next polls, and the kernel holds what we send meanwhile.
      if (err == 0 && io_fully(fd.value(), hello.data(), hello.size(), true, deadline)) {
        add(fd.value(), peer);
        return {};
      }
      why = std::string(err ? std::strerror(err) : "cannot send the hello") + " at " + tcp::format_endpoint(ep);
      ::close(fd.value());
    }
    return Status(Errc::other, "cannot connect to process " + std::to_string(peer) + ": " + why);
  }

  void add(int fd, int peer) {
    conns_.push_back(std::make_unique<tcp::Connection>(fd, peer, opts_.max_payload));
    send_.emplace(peer, conns_.back().get());  // the first connection with a peer carries our frames
  }

  // Accept every pending connection and check its hello.
  void accept_pending() {
    for (;;) {
      int fd = ::accept4(listen_fd_, nullptr, nullptr, SOCK_NONBLOCK | SOCK_CLOEXEC);
      if (fd < 0) return;
      tcp::tune_socket(fd, opts_.socket_buffer);
      auto deadline = Clock::now() + std::chrono::milliseconds(opts_.connect_timeout_ms);
      std::array<std::byte, tcp::kHelloSize> in{};
      if (!io_fully(fd, in.data(), in.size(), false, deadline)) {
        ::close(fd);
        continue;
      }
      auto who = tcp::check_hello(in, secret_);
      if (!who.ok() || who.value() < 0) {
        log::warn("dpm: process %d closed a connection from a stranger (%s)", me_,
                  who.ok() ? "bad process id" : who.status().message().c_str());
        ::close(fd);
        continue;
      }
      dead_.erase(who.value());  // a process id is never reused: only a stale mark could be here
      add(fd, who.value());
    }
  }

  int me_;
  std::string secret_;
  Resolver resolve_;
  int listen_fd_;
  std::string card_;
  int wake_fd_;
  transport::TcpOptions opts_;
  std::vector<std::unique_ptr<tcp::Connection>> conns_;
  std::unordered_map<int, tcp::Connection*> send_;
  std::unordered_set<int> dead_;
  std::vector<int> to_report_;
};

}  // namespace

Result<std::unique_ptr<DpmTransport>> DpmTransport::open(int my_gid, std::string secret, Resolver resolve) {
  transport::TcpOptions opts = transport::TcpOptions::from_env();
  tcp::Endpoint bound;
  auto lfd = tcp::open_listener("0.0.0.0", opts.socket_buffer, bound);
  if (!lfd.ok()) return lfd.status();
  const auto port = reinterpret_cast<sockaddr_in*>(&bound.addr)->sin_port;
  std::vector<tcp::Endpoint> published;
  if (auto all = tcp::local_addresses(); all.ok())
    if (auto sel = tcp::select_addresses(opts.if_include, all.value()); sel.ok())
      for (const auto& a : sel.value())
        if (a.ep.addr.ss_family == AF_INET) {
          tcp::Endpoint e = a.ep;
          reinterpret_cast<sockaddr_in*>(&e.addr)->sin_port = port;
          published.push_back(e);
        }
  auto lo = tcp::parse_endpoint("127.0.0.1:" + std::to_string(ntohs(port)));
  if (lo.ok()) published.push_back(lo.value());  // last: on this host it always works
  int wake_fd = ::eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
  if (wake_fd < 0) {
    ::close(lfd.value());
    return Status(Errc::other, std::string("dpm: eventfd: ") + std::strerror(errno));
  }
  std::string card = tcp::format_card(published);
  if (card.size() > 900) card = tcp::format_card({published.back()});
  log::debug("dpm: process %d listening on %s", my_gid, card.c_str());
  return std::unique_ptr<DpmTransport>(
      new DpmTransportImpl(my_gid, std::move(secret), std::move(resolve), lfd.value(), card, wake_fd, opts));
}

}  // namespace ftmpi::dpm
