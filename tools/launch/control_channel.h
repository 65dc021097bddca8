// The control channel of fault-tolerant mode (protocol: docs/ft-protocol.md): mpiexec's end of one rank's
// second socketpair. Rank → mpiexec: cmd=hb, cmd=bye, cmd=suspect rank=R. mpiexec → rank:
// cmd=failed rank=R cause=C code=N time=T. This file holds the wire codec and the per-rank connection
// buffers; the policy (who is failed, who is told) lives in Job.
#pragma once
#include <string>
#include <string_view>

#include "boot/pmi_wire.h"

namespace ftmpi::mpiexec {

// Why a rank failed, as the notice's cause= field spells it.
enum class FailureCause { exited, signaled, hung, disappeared, node_lost };
const char* cause_name(FailureCause c);

// One line from a rank. Kind::unknown covers malformed lines (logged and ignored).
struct ControlMessage {
  enum class Kind { hb, bye, suspect, unknown };
  Kind kind = Kind::unknown;
  int rank = -1;  // Kind::suspect: the world rank suspected
};
ControlMessage parse_control_line(std::string_view line);

// "cmd=failed rank=R cause=C code=N time=T\n" with T in seconds since the epoch, microsecond precision.
std::string format_failed_notice(int rank, FailureCause cause, int code, double realtime_seconds);

// CLOCK_REALTIME now, in seconds (microsecond resolution).
double realtime_seconds();

// mpiexec's end of one rank's control channel. `fd` is non-blocking; -1 once closed.
struct ControlConn {
  int fd = -1;
  boot::pmi::LineSplitter in;
  std::string out;  // notices not yet written (the rank is slow to read)

  // Write as much of `out` as the socket takes. Returns false when the peer is gone (the caller closes).
  bool flush();
  void close();
};

}  // namespace ftmpi::mpiexec
