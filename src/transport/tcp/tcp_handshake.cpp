#include "transport/tcp/tcp_handshake.h"

#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <cstdio>
#include <cstring>

#include "transport/tcp/tcp_wire.h"
#include "util/log.h"

namespace ftmpi::transport::tcp {
namespace {

using Clock = std::chrono::steady_clock;
constexpr auto kFirstRetryDelay = std::chrono::milliseconds(20);
constexpr auto kMaxRetryDelay = std::chrono::milliseconds(1000);
constexpr auto kGoneCheck = std::chrono::milliseconds(200);

// One socket being set up. Outgoing: connecting → sending hello → receiving the answer → done.
// Incoming: receiving hello → (checked) sending our hello → done. `retry_wait` is an outgoing attempt that
// failed (peer not reachable yet) and is started again at `retry_at`.
struct Attempt {
  enum class Stage { retry_wait, connecting, sending, receiving, done };
  int fd = -1;
  int rank = -1;  // -1 for an incoming socket until its hello is checked
  bool outgoing = false;
  Stage stage = Stage::receiving;
  const DialTarget* target = nullptr;
  Clock::time_point retry_at{};
  std::chrono::milliseconds retry_delay = kFirstRetryDelay;  // doubles per failed round, up to 1 s
  size_t which = 0;                 // outgoing: index of the target's address being tried
  Clock::time_point started{};      // outgoing: when the current connect began
  std::string last_error;           // outgoing: why the last attempt failed
  std::array<std::byte, kHelloSize> buf{};
  size_t off = 0;
};

class Handshake {
 public:
  explicit Handshake(const HandshakePlan& plan) : plan_(plan) {}
  ~Handshake() {
    for (auto& a : attempts_)
      if (a.fd >= 0) ::close(a.fd);
  }

  Result<std::vector<PeerSocket>> run() {
    for (const auto& t : plan_.dial) {
      Attempt a;
      a.outgoing = true;
      a.rank = t.rank;
      a.target = &t;
      a.stage = Attempt::Stage::retry_wait;
      a.retry_at = Clock::now();
      attempts_.push_back(a);
    }
    const size_t wanted = plan_.dial.size() + plan_.accept.size();
    auto next_gone_check = Clock::now() + kGoneCheck;
    while (done_ < wanted) {
      auto now = Clock::now();
      if (now >= plan_.deadline) {
        Status st = timeout_status();
        if (!plan_.give_up_at_deadline || !plan_.gone_out) return st;
        log::warn("%s; going on without them (fault-tolerant mode: they count as failed)", st.message().c_str());
        give_up_missing();
        break;
      }
      if (plan_.gone && now >= next_gone_check) {
        give_up_gone_peers();
        next_gone_check = now + kGoneCheck;
        if (done_ >= wanted) break;
      }
      for (auto& a : attempts_) {
        if (a.stage == Attempt::Stage::retry_wait && now >= a.retry_at) start_dial(a);
        // A connect that has had no answer for attempt_timeout: silence (a cut link); try the next address.
        else if (a.outgoing && a.stage == Attempt::Stage::connecting && now - a.started >= plan_.attempt_timeout)
          retry_later(a, "no answer");
      }
      FTMPI_TRY(poll_once());
    }
    std::vector<PeerSocket> out;
    for (auto& a : attempts_) {
      if (a.stage != Attempt::Stage::done || a.fd < 0) continue;  // fd < 0: a dropped stranger
      out.push_back({a.rank, a.fd});
      a.fd = -1;  // ownership passes to the caller
    }
    return out;
  }

 private:
  bool is_gone(int rank) const { return std::find(gone_.begin(), gone_.end(), rank) != gone_.end(); }
  bool connected(int rank, bool outgoing) const {
    for (const auto& a : attempts_)
      if (a.rank == rank && a.outgoing == outgoing && a.stage == Attempt::Stage::done && a.fd >= 0) return true;
    return false;
  }

  // Give up every peer still missing (give_up_at_deadline).
  void give_up_missing() {
    for (const auto& t : plan_.dial)
      if (!is_gone(t.rank) && !connected(t.rank, true)) give_up(t.rank);
    for (int r : plan_.accept)
      if (!is_gone(r) && !connected(r, false)) give_up(r);
  }

  void give_up(int rank) {
      gone_.push_back(rank);
      if (plan_.gone_out) plan_.gone_out->push_back(rank);
      for (auto& a : attempts_)
        if (a.rank == rank && a.stage != Attempt::Stage::done) {
          if (a.fd >= 0) ::close(a.fd);
          a.fd = -1;
          a.stage = Attempt::Stage::done;  // inert
        }
      ++done_;
      log::debug("tcp: rank %d failed during start-up or is unreachable; not waiting for it", rank);
  }

  // Peers not connected yet that the launcher declares failed: stop waiting for them.
  void give_up_gone_peers() {
    for (const auto& t : plan_.dial)
      if (!is_gone(t.rank) && !connected(t.rank, true) && plan_.gone(t.rank)) give_up(t.rank);
    for (int r : plan_.accept)
      if (!is_gone(r) && !connected(r, false) && plan_.gone(r)) give_up(r);
  }

  Status poll_once() {
    std::vector<pollfd> fds;
    std::vector<size_t> which;  // attempt index per pollfd (after the listener)
    fds.push_back({plan_.listen_fd, POLLIN, 0});
    auto next_event = plan_.deadline;
    for (size_t i = 0; i < attempts_.size(); ++i) {
      auto& a = attempts_[i];
      short ev = 0;
      switch (a.stage) {
        case Attempt::Stage::connecting:
        case Attempt::Stage::sending: ev = POLLOUT; break;
        case Attempt::Stage::receiving: ev = POLLIN; break;
        case Attempt::Stage::retry_wait: next_event = std::min(next_event, a.retry_at); continue;
        case Attempt::Stage::done: continue;
      }
      fds.push_back({a.fd, ev, 0});
      which.push_back(i);
    }
    auto wait = std::chrono::duration_cast<std::chrono::milliseconds>(next_event - Clock::now()).count();
    int timeout = static_cast<int>(std::clamp<long long>(wait + 1, 0, 100));
    int n = ::poll(fds.data(), fds.size(), timeout);
    if (n < 0) {
      if (errno == EINTR) return Status::Ok();
      return Status(Errc::other, std::string("tcp: poll during connect: ") + std::strerror(errno));
    }
    if (n == 0) return Status::Ok();
    // Attempts are appended by accept_all(), so index-based access stays valid; process those first.
    for (size_t k = 1; k < fds.size(); ++k)
      if (fds[k].revents) FTMPI_TRY(advance(attempts_[which[k - 1]]));
    if (fds[0].revents & POLLIN) accept_all();
    return Status::Ok();
  }

  void start_dial(Attempt& a) {
    a.started = Clock::now();
    if (a.target->endpoints.empty()) {
      a.last_error = "it published no address";
      a.retry_at = plan_.deadline;
      return;
    }
    auto fd = start_connect(a.target->endpoints[a.which], plan_.socket_buffer);
    if (!fd.ok()) {
      a.last_error = fd.status().message();
      log::debug("tcp: connect to rank %d: %s (retrying)", a.rank, a.last_error.c_str());
      next_address(a);
      return;
    }
    a.fd = fd.value();
    a.stage = Attempt::Stage::connecting;
    a.off = 0;
  }

  // The current address did not work: try the target's next one at once, or, after the last, start over
  // after a delay that doubles per round.
  void retry_later(Attempt& a, const std::string& why) {
    log::debug("tcp: connection to rank %d at %s failed (%s), retrying", a.rank,
               format_endpoint(a.target->endpoints[a.which]).c_str(), why.c_str());
    a.last_error = why;
    if (a.fd >= 0) ::close(a.fd);
    a.fd = -1;
    a.stage = Attempt::Stage::retry_wait;
    next_address(a);
  }

  static void next_address(Attempt& a) {
    a.stage = Attempt::Stage::retry_wait;
    if (++a.which < a.target->endpoints.size()) {
      a.retry_at = Clock::now();
      return;
    }
    a.which = 0;
    a.retry_at = Clock::now() + a.retry_delay;
    a.retry_delay = std::min(a.retry_delay * 2, kMaxRetryDelay);
  }

  void drop_stranger(Attempt& a, const char* why) {
    Endpoint from;
    from.len = sizeof from.addr;
    std::string who = ::getpeername(a.fd, reinterpret_cast<sockaddr*>(&from.addr), &from.len) == 0
                          ? format_endpoint(from) : std::string("unknown address");
    log::warn("tcp: rejected a connection from %s during set-up: %s", who.c_str(), why);
    ::close(a.fd);
    a.fd = -1;
    a.stage = Attempt::Stage::done;  // inert: never handed out since fd < 0
    a.rank = -1;
  }

  void accept_all() {
    for (;;) {
      int fd = ::accept4(plan_.listen_fd, nullptr, nullptr, SOCK_NONBLOCK | SOCK_CLOEXEC);
      if (fd < 0) return;  // EAGAIN, or a transient error (ECONNABORTED, EMFILE): poll again
      tune_socket(fd, 0);  // buffer sizes are inherited from the listener
      Attempt a;
      a.fd = fd;
      a.stage = Attempt::Stage::receiving;
      attempts_.push_back(a);
    }
  }

  // Moves one attempt forward after poll() reported its socket ready.
  Status advance(Attempt& a) {
    if (a.stage == Attempt::Stage::connecting) {
      int err = connect_result(a.fd);
      if (err != 0) {
        retry_later(a, std::strerror(err));
        return Status::Ok();
      }
      FTMPI_TRY(encode_hello({plan_.my_rank, plan_.secret}, a.buf));
      a.stage = Attempt::Stage::sending;
      a.off = 0;
    }
    if (a.stage == Attempt::Stage::sending) {
      ssize_t w = ::send(a.fd, a.buf.data() + a.off, a.buf.size() - a.off, MSG_NOSIGNAL);
      if (w < 0) {
        if (errno == EAGAIN || errno == EINTR) return Status::Ok();
        if (a.outgoing) retry_later(a, std::strerror(errno));
        else drop_stranger(a, "write failed while answering hello");
        return Status::Ok();
      }
      a.off += static_cast<size_t>(w);
      if (a.off < a.buf.size()) return Status::Ok();
      a.off = 0;
      if (a.outgoing) {
        a.stage = Attempt::Stage::receiving;
        return Status::Ok();
      }
      a.stage = Attempt::Stage::done;  // incoming: our answer is out, the peer is connected
      ++done_;
      return Status::Ok();
    }
    if (a.stage != Attempt::Stage::receiving) return Status::Ok();
    // Read no more than the hello: frames may follow it at once and belong to the data path.
    ssize_t r = ::recv(a.fd, a.buf.data() + a.off, a.buf.size() - a.off, 0);
    if (r < 0 && (errno == EAGAIN || errno == EINTR)) return Status::Ok();
    if (r <= 0) {
      const char* why = r == 0 ? "closed by the other side" : std::strerror(errno);
      if (a.outgoing) {
        retry_later(a, why);
      } else {
        log::debug("tcp: incoming connection closed before its hello (%s)", why);
        ::close(a.fd);
        a.fd = -1;
        a.stage = Attempt::Stage::done;
      }
      return Status::Ok();
    }
    a.off += static_cast<size_t>(r);
    if (a.off < a.buf.size()) return Status::Ok();
    auto rank = check_hello(a.buf, plan_.secret);
    if (a.outgoing) {
      if (!rank.ok() || rank.value() != a.rank) {
        // Another process listens at that address (an address every host has, such as a docker bridge,
        // reaches a listener of our own host): not our peer; try its next address.
        retry_later(a, "the listener there answered as " +
                           (rank.ok() ? "rank " + std::to_string(rank.value()) : rank.status().message()));
        return Status::Ok();
      }
      a.stage = Attempt::Stage::done;
      ++done_;
      return Status::Ok();
    }
    if (!rank.ok()) {
      drop_stranger(a, rank.status().message().c_str());
      return Status::Ok();
    }
    int r_ = rank.value();
    if (is_gone(r_)) {  // its hello was sent before it died, and we gave up on it since
      ::close(a.fd);
      a.fd = -1;
      a.stage = Attempt::Stage::done;
      return Status::Ok();
    }
    if (std::find(plan_.accept.begin(), plan_.accept.end(), r_) == plan_.accept.end()) {
      std::string why = "hello from unexpected rank " + std::to_string(r_);
      drop_stranger(a, why.c_str());
      return Status::Ok();
    }
    for (const auto& other : attempts_) {
      if (&other != &a && !other.outgoing && other.rank == r_ && other.fd >= 0) {
        std::string why = "second connection claiming rank " + std::to_string(r_);
        drop_stranger(a, why.c_str());
        return Status::Ok();
      }
    }
    a.rank = r_;
    FTMPI_TRY(encode_hello({plan_.my_rank, plan_.secret}, a.buf));
    a.stage = Attempt::Stage::sending;
    a.off = 0;
    return advance(a);
  }

  Status timeout_status() const {
    std::string missing;
    auto secs = std::chrono::duration_cast<std::chrono::milliseconds>(plan_.deadline - start_).count() / 1000.0;
    for (const auto& a : attempts_) {
      if (!a.outgoing || is_gone(a.rank) || connected(a.rank, true)) continue;
      std::string where;
      for (const auto& e : a.target->endpoints) where += (where.empty() ? "" : ",") + format_endpoint(e);
      missing += (missing.empty() ? "" : "; ") + std::string("rank ") + std::to_string(plan_.my_rank) +
                 " cannot reach rank " + std::to_string(a.rank) + " at " + (where.empty() ? "?" : where) + " (" +
                 (a.last_error.empty() ? "no answer" : a.last_error) + ")";
    }
    for (int r : plan_.accept) {
      if (is_gone(r) || connected(r, false)) continue;
      std::string where = plan_.address_of ? plan_.address_of(r) : std::string();
      missing += (missing.empty() ? "" : "; ") + std::string("rank ") + std::to_string(r) +
                 (where.empty() ? "" : " (at " + where + ")") + " never reached rank " +
                 std::to_string(plan_.my_rank);
    }
    char head[96];
    std::snprintf(head, sizeof head, "tcp: timed out after %.1f s: ", secs);
    return Status(Errc::other, head + missing);
  }

  const HandshakePlan& plan_;
  Clock::time_point start_ = Clock::now();
  std::vector<Attempt> attempts_;
  std::vector<int> gone_;  // peers given up (plan_.gone said so)
  size_t done_ = 0;
};

}  // namespace

Result<std::vector<PeerSocket>> run_handshake(const HandshakePlan& plan) {
  Handshake hs(plan);
  return hs.run();
}

}  // namespace ftmpi::transport::tcp
