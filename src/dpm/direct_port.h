// A port the accepting process owns itself (MPI_Open_port in a job with a name service, dpm/name_dir.h):
// a listening TCP socket whose addresses are in the port name, so a process of another mpiexec job can
// reach it with no launcher in between (as MPICH's Hydra ports do).
//
// Name: "ftmpi-port-<owner id>-<n>@ip:port,ip:port,..." (at most MPI_MAX_PORT_NAME-1 characters; the
// addresses are those the DpmTransport publishes, loopback last, cut to fit).
//
// Meeting (step 2 of dpm.h): the connecting root dials the port and sends a hello {magic, its process id,
// the name service's secret}; the accepting root, inside MPI_Comm_accept, takes one connection, checks the
// hello and answers {magic, rc, its process id, pairing number}. Both then close the socket. A wrong secret
// (a job of another name service, or none) is answered rc=1: the connector gets Errc::port.
//
// Failures: a port that is closed or whose owner died refuses the connection (or resets it, when it was
// queued): Errc::port at once; an address that does not answer: Errc::port after the TCP connect timeout.
// A connector waits for MPI_Comm_accept as long as the owner lives (MPI semantics). Both sides call
// `idle` between polls of at most a few milliseconds, so MPI progress goes on while the roots wait.
#pragma once
#include <functional>
#include <memory>
#include <string>
#include <string_view>

#include "util/status.h"

namespace ftmpi::dpm {

struct Meeting {
  int peer = -1;  // the other root's process id
  int pair = 0;   // the pairing number (the bridge's tag)
};

bool is_direct_port(std::string_view name);

class DirectPort {
 public:
  static Result<std::unique_ptr<DirectPort>> open(int owner_id, int n);
  ~DirectPort();
  DirectPort(const DirectPort&) = delete;
  DirectPort& operator=(const DirectPort&) = delete;
  const std::string& name() const { return name_; }
  // One connector, checked against `secret`. `pair`: the pairing number to hand it.
  Result<Meeting> accept(int my_id, const std::string& secret, int pair, const std::function<void()>& idle);

 private:
  DirectPort(int fd, std::string name) : fd_(fd), name_(std::move(name)) {}
  int fd_;
  std::string name_;
};

Result<Meeting> direct_connect(const std::string& port, int my_id, const std::string& secret,
                               const std::function<void()>& idle);

}  // namespace ftmpi::dpm
