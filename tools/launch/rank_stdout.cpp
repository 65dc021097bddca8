#include "rank_stdout.h"

#include <fcntl.h>
#include <stdlib.h>
#include <termios.h>
#include <unistd.h>

#include "util/log.h"

namespace ftmpi::mpiexec {
namespace {

bool open_pty(OutputChannel& out) {
  int master = posix_openpt(O_RDWR | O_NOCTTY | O_CLOEXEC);
  if (master < 0) return false;
  char name[128];
  int slave = -1;
  if (grantpt(master) == 0 && unlockpt(master) == 0 && ptsname_r(master, name, sizeof name) == 0)
    slave = ::open(name, O_RDWR | O_NOCTTY | O_CLOEXEC);
  termios t{};
  if (slave < 0 || tcgetattr(slave, &t) != 0) {
    if (slave >= 0) ::close(slave);
    ::close(master);
    return false;
  }
  cfmakeraw(&t);  // no output processing (OPOST: "\n" stays "\n"), no echo, no line discipline
  if (tcsetattr(slave, TCSANOW, &t) != 0) {
    ::close(slave);
    ::close(master);
    return false;
  }
  out = {master, slave, true};
  return true;
}

}  // namespace

bool open_output_channel(bool want_pty, OutputChannel& out) {
  if (want_pty) {
    if (open_pty(out)) return true;
    log::debug("mpiexec: no pseudo-terminal for a rank's stdout; using a pipe");
  }
  int p[2];
  if (pipe2(p, O_CLOEXEC) != 0) return false;
  out = {p[0], p[1], false};
  return true;
}

}  // namespace ftmpi::mpiexec
