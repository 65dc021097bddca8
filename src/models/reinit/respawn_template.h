// The respawn template (mpiexec --with-ft reinit; the launcher's side: tools/launch/template_process.h).
// A process of the job's program that stops inside libmpi before the program's `main` — exec, dynamic
// loading and libc's start-up done, the program's own constructors and `main` not yet run — and forks a
// restarted rank on the launcher's command, so that a recovery does not pay fork+exec+loading on its
// critical path. The child returns from libmpi's constructor with the rank's environment and descriptors
// and runs the program from the top: a fresh process as far as the program can tell (RESTARTED).
//
// Model. FTMPI_TEMPLATE_FD=<fd> marks the process as the template: libmpi's first constructor
// (api/reinit_template_entry.cpp) calls serve_as_template(fd), which returns only in a rank it made. The fd
// is a SOCK_SEQPACKET socket to the launcher; every message is one datagram.
//   template -> launcher, once:  "ready pid=P"          (a child waits for commands)
//                                "refused why=TEXT"     (then exits 0: e.g. not single-threaded)
//   launcher -> waiting child:   fork command (encode_fork), descriptors by SCM_RIGHTS in the order
//                                out, err, pmi, [ctrl], [in]
//   -> launcher, per command:    "pid=P" (the new rank) or "err=TEXT" (nothing started, still waiting)
// End of file on the socket ends the template and its waiting child (_exit(0)).
//
// Algorithm. The template keeps one child made in advance, waiting for a command: a copy of itself made with
// clone(CLONE_PARENT), so that its parent is the launcher from the start (the rank's getppid() is the
// launcher, which reaps it like one it forked; Reinit++ programs signal getppid()), with SIGKILL on the
// launcher's death. That child reads the command, answers "pid=<its pid>", tells the template (a pipe;
// the template then makes the next waiting child) and takes the rank's identity: its own process group
// (the launcher sets it too on reading the pid), default signals, empty mask, fds 0/1/2 and the PMI and
// control channels (PMI_FD / FTMPI_CTRL_FD rewritten to where they landed), every other descriptor closed,
// CPU binding, `environ` replaced; then it returns from the constructor and the program starts. A
// recovery thus pays one wake-up, not fork+exec+loading (nor a fork: it was made before).
//
// Safety. The template holds no MPI state and runs no thread; it refuses to serve (and exits) when the
// process already has more than one thread or the kernel cannot tell it its tid address (glibc's fork
// bookkeeping is redone by hand for the clone: clone_sibling). The waiting child is in the template's
// process group until it has answered, so a launcher that gave up on an answer kills both with one killpg;
// it also ends when the template does (a pipe whose write end only the template holds), so a killed template
// never serves one more command through its orphan.
// A command that cannot be carried out is answered "err=" and leaves nothing behind.
#pragma once
#include <sys/types.h>

#include <string>
#include <string_view>
#include <vector>

#include "util/status.h"

namespace ftmpi::reinit {

inline constexpr const char* kTemplateFdEnv = "FTMPI_TEMPLATE_FD";
// The largest datagram either side sends (a command carries the rank's whole environment).
inline constexpr std::size_t kTemplateMaxMessage = 256 * 1024;

struct ForkCommand {
  int cpu = -1;           // bind to this logical CPU; -1: no binding
  bool has_ctrl = false;  // a control channel among the descriptors
  bool has_stdin = false; // a stdin descriptor among them (else the template's, /dev/null)
  std::vector<std::string> env;  // the rank's complete environment, "NAME=value"
  int fd_count() const { return 3 + (has_ctrl ? 1 : 0) + (has_stdin ? 1 : 0); }
};

// "fork cpu=N ctrl=0|1 in=0|1\n" then the environment, each entry NUL-terminated.
std::string encode_fork(const ForkCommand& c);
// Errc::arg for anything else (not a fork command, an entry without '=', no terminating NUL).
Result<ForkCommand> decode_fork(std::string_view msg);
// `env` with PMI_FD and FTMPI_CTRL_FD (when ctrl_fd >= 0) set to these descriptor numbers.
void place_channel_fds(std::vector<std::string>& env, int pmi_fd, int ctrl_fd);

// The template's loop (FTMPI_TEMPLATE_FD set). Never returns in the template itself; returns in each
// forked rank, with the rank's environment and descriptors in place.
void serve_as_template(int fd);

}  // namespace ftmpi::reinit
