// The launcher's side of the Reinit respawn template (the template's side and the wire:
// src/models/reinit/respawn_template.h): one process of the job's program per launcher (mpiexec on one
// host, ftmpid on each host of several), stopped in libmpi before `main`, which forks restarted ranks on
// command instead of a fork+exec. Shared by mpiexec (tools/mpiexec/job_reinit.cpp) and ftmpid
// (tools/ftmpid/daemon_reinit.cpp). On by default in Reinit mode; FTMPI_REINIT_TEMPLATE=0 turns it off.
//
// Contract. start() spawns the template (a rank's spawn request minus its rank; its stdout and stderr go to
// /dev/null). The template keeps one child waiting for a command, and that child is the caller's child
// (clone(CLONE_PARENT)): the caller may reap a process it never heard of (a waiting child killed by someone)
// and must ignore it. fork_rank() has
// spawn_rank's contract — the returned pid is, by the time the caller reaps anything, the caller's child
// with its own process group, the request's fds as 0/1/2, the PMI and control channels open (PMI_FD and
// FTMPI_CTRL_FD naming where they are), nothing else of the caller's open, SIGKILL on the caller's
// death — but costs two forks of a loaded process instead of a fork, exec and dynamic loading. Any error
// (no template, not ready yet, it died, refused, no answer within the timeout) returns an error and leaves
// nothing running: the caller falls back to spawn_rank. A template that does not answer within the
// timeout is killed (with its process group) and forgotten.
//
// Replacement (template_renewal.h). A template lost while the job runs (reaped, found dead, killed for not
// answering, unreachable) is replaced by renew(), which the caller calls off the critical path (after the
// epoch change that needed the restart committed); bounded: one that keeps dying young is given up.
//
// Not used for: processes of MPI_Comm_spawn (another program), ranks with a working directory of their
// own (req.cwd), or a program that does not load this libmpi (program_loads_libmpi; one that still never
// says "ready" is never used and is killed at the end).
#pragma once
#include <sys/types.h>

#include <string>

#include "spawn.h"
#include "template_renewal.h"
#include "util/status.h"

namespace ftmpi::mpiexec {

// FTMPI_REINIT_TEMPLATE=0 in the launcher's environment turns templates off.
bool template_enabled();
// `path` is a 64-bit ELF program whose DT_NEEDED names this libmpi (libmpi.so.0, or libmpi_fortran.so.0):
// only such a program stops in libmpi's constructor as a template. Any other (a script, a wrapper such as
// valgrind, another MPI's program) would run to its end as the template, side effects included: no template.
bool program_loads_libmpi(const std::string& path);

class TemplateProcess {
 public:
  TemplateProcess() = default;
  ~TemplateProcess() { release(); }
  TemplateProcess(const TemplateProcess&) = delete;
  TemplateProcess& operator=(const TemplateProcess&) = delete;

  // Spawn the template: `req` as a rank's (path, argv, env, cwd) with PMI_RANK, FTMPI_LOCAL_RANK,
  // FTMPI_SPARE, FTMPI_INJECT_AT, PMI_FD and FTMPI_CTRL_FD removed here; its fds are ignored. `req` is kept
  // for replacements (renew). Errc::unsupported (nothing started) when the program does not load libmpi itself.
  Status start(SpawnRequest req);
  // What renew() did: nothing to do (running, never started, released, or given up earlier); started a
  // replacement; could not start one (counted as a young death); gave up just now (reported once).
  enum class Renewal { none, started, failed, given_up };
  // If the template was lost since the last start and the budget allows (template_renewal.h), start a new one
  // from the same request. Call off the critical path.
  Renewal renew();
  bool running() const { return pid_ > 0; }
  pid_t pid() const { return pid_; }
  // `pid` is the template and ended (reaped by the caller): forget it. False if it is not the template.
  bool reaped(pid_t pid);
  // Fork a rank from the template (see the contract above). `req.path`/`argv` must be the template's.
  Result<pid_t> fork_rank(const SpawnRequest& req, int timeout_ms = 300);
  // End of the job: SIGKILL to its group (the template and its waiting child), both reaped, socket closed;
  // no replacement after this.
  void release();
  const TemplateRenewal& renewal() const { return renewal_; }
  // How many ranks it forked (for the logs).
  int forked() const { return forked_; }

 private:
  void poll_ready();  // reads "ready"/"refused" if it came
  Status launch();    // spawn a template from spec_
  void drop();        // kill and reap the group, close the socket (release() without forgetting the request)
  void lose();        // the template is unusable (dead, not answering): dropped and counted as lost
  SpawnRequest spec_;           // the request of start(), for replacements
  bool wanted_ = false;         // start() succeeded and release() was not called: replace what is lost
  bool told_given_up_ = false;  // renew() reported Renewal::given_up
  TemplateRenewal renewal_;
  pid_t pid_ = -1;
  int fd_ = -1;
  bool ready_ = false;
  int forked_ = 0;
};

}  // namespace ftmpi::mpiexec
