// The origin's half of stdin forwarding (origin.h): mpiexec's stdin goes to rank 0 wherever it runs, as
// "stdin" frames down the launcher tree; rank 0's daemon writes them into rank 0's stdin pipe and answers
// "stdin_ack n=BYTES" for what the pipe took, so a rank that does not read holds at most kStdinInFlight
// bytes in the tree and mpiexec stops reading its stdin meanwhile (as on one host).
#include <unistd.h>

#include <cerrno>

#include "origin.h"

namespace ftmpi::mpiexec {
namespace {
constexpr std::size_t kStdinInFlight = 1u << 20;
constexpr std::size_t kStdinChunk = 64u << 10;
}  // namespace

bool Origin::stdin_wanted() const {
  if (!forward_stdin_ || stdin_done_ || !end_.running() || opt_.np < 1 || stdin_in_flight_ >= kStdinInFlight)
    return false;
  const RankRecord& r0 = ranks_[0];
  return r0.alive() && hosts_[static_cast<std::size_t>(r0.host)].state == Host::State::up;
}

void Origin::on_stdin_readable() {
  std::string buf(kStdinChunk, '\0');
  ssize_t n = ::read(0, buf.data(), buf.size());
  if (n < 0 && (errno == EINTR || errno == EAGAIN)) return;
  Frame f("stdin");
  f.set("rank", 0);
  if (n <= 0) {
    f.set("eof", 1);
    stdin_done_ = true;
  } else {
    buf.resize(static_cast<std::size_t>(n));
    f.payload = std::move(buf);
    stdin_in_flight_ += static_cast<std::size_t>(n);
  }
  send_to(ranks_[0].host + 1, f);
}

}  // namespace ftmpi::mpiexec
