// Dynamic processes (MPI-3.1 chapter 10): spawn, ports (accept/connect), names, join — the rank's side.
//
// Model. A *job part* is a set of processes started together with their own MPI_COMM_WORLD: the job mpiexec
// started, or the children of one spawn. Every process of the universe (all parts under one mpiexec) has a
// *process id* (dpm/universe.h): the first part's ids are its WORLD ranks, a spawned part's are
// base..base+size-1 with a base mpiexec hands out. Groups, the engine, failure notices and agreements name
// processes by process id, so two parts' processes can share communicators with no translation; only the
// transports of a part number their peers by WORLD rank (transport/router.h shifts them).
//
// Algorithm. mpiexec is the broker (tools/mpiexec/dpm_broker.h): it keeps each process's card (where its
// DpmTransport listens), the ports and the published names, and starts spawned parts. Every operation
// joining two groups runs the same three steps:
//   1. every member of both groups opens its listener and gives mpiexec its card (ensure_open);
//   2. the roots meet at a port through mpiexec (accept waits for a connect; spawn = the parent's root
//      accepts on a private port, the children's root connects to it from MPI_Init) and learn each other's
//      process id and a pairing number, which each root broadcasts to its group;
//   3. MPI_Intercomm_create over the local communicator, with a *bridge* (a 1+1 intercommunicator between
//      the roots on a context outside the allocator's range, tag = pairing number) as peer communicator.
// Step 3 is the ordinary constructor, so context ids, member lists (process ids) and, in FT mode, its
// fault-tolerant behaviour are the existing ones; frames between members of different parts dial each other
// lazily (DpmTransport asks mpiexec for the card).
//
// Failures (seed 000 §1.2.2). mpiexec answers every waiting request when its subject is gone: an accept for
// spawned children that die before connecting, a connect to a port whose owner died, a card of a dead
// process. A root's error is broadcast to its group (step 2), so the group returns it; failures after that
// surface in step 3 as in any intercommunicator creation (MPI_ERR_PROC_FAILED). Spawned processes are
// watched by mpiexec like any rank, and their failure notices reach every process of the universe.
//
// Separate jobs (dpm/universe.h, dpm/name_dir.h). Each mpiexec's processes form a universe. Universes
// started with the same name service (mpiexec --name-service DIR) have distinct id ranges (slots), share
// a secret, and find each other's cards in DIR. In such a job MPI_Open_port makes a port the root owns
// itself (dpm/direct_port.h: its name carries its TCP addresses), so step 2 runs between the two roots
// directly; the names are files in DIR. Without a name service, ports and names are mpiexec's (one
// universe only). The ids exchanged with mpiexec are local ones (id - universe base).
#pragma once
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "boot/pmi_wire.h"
#include "comm/communicator.h"
#include "dpm/direct_port.h"
#include "dpm/name_dir.h"
#include "dpm/spawn_spec.h"
#include "dpm/universe.h"
#include "util/status.h"

namespace ftmpi {
class Runtime;
}

namespace ftmpi::dpm {

// The bridge's context ids (dpm.h step 3): above every id the allocator hands out (comm/context_alloc.h).
inline constexpr std::uint32_t kBridgeContext = 8192;

class DpmTransport;

class Dpm {
 public:
  explicit Dpm(Runtime& rt) : rt_(rt) {}
  ~Dpm();
  // MPI_Finalize, once no more frames are expected: with a name service, the card says this process
  // left (dpm/name_dir.h), so a late dialer of another job does not take its absence for a failure.
  void leaving();
  Dpm(const Dpm&) = delete;
  Dpm& operator=(const Dpm&) = delete;

  // Local: listener opened and card given to mpiexec (once).
  Status ensure_open();
  // MPI_Init of a job with a name service: ensure_open() now. A process of such a job may come to share a
  // communicator with processes of another job without any dynamic-process call of its own (e.g.
  // MPI_Intercomm_create over a bridge that two roots made with accept/connect over MPI_COMM_SELF): they
  // must find its card and reach it. No-op without a name service (cost: one listener, one card file).
  Status open_if_shared();
  // Before this process first shares a communicator with `members` (process ids): if one of them belongs
  // to another job part (a spawned part, the parents, another job), ensure_open(), so that they find this
  // process's card and can dial it. A process that never made a dynamic-process call of its own meets
  // such members through MPI_Intercomm_create over a peer communicator only its leader holds (e.g. the
  // intercommunicator of a spawn over MPI_COMM_SELF); without its card, their first send to it would wait
  // for ever. Local; no-op once open or when every member is of this part.
  Status open_for(const std::vector<int>& members);

  Result<std::string> open_port();
  Status close_port(const std::string& port);
  Status publish(const std::string& service, const std::string& port);
  Status unpublish(const std::string& service, const std::string& port);
  Result<std::string> lookup(const std::string& service);

  // Collective over intracommunicator `comm`; `port` significant at `root` only.
  // `before`: an argument error found at the root (returned by every member).
  Status accept(const std::string& port, int root, comm::Communicator* comm, comm::Communicator** out,
                Status before = Status::Ok());
  // A connect to a port of mpiexec's broker with no MPI_Comm_accept gives up after `timeout_s` seconds (MPI-4.0
  // §11.7.2: it "will eventually time out after an implementation-defined time") with Errc::port: the root
  // withdraws its request (dpm_connect_cancel; a pairing that won the race stands). timeout_s <= 0: the
  // default, FTMPI_CONNECT_TIMEOUT seconds (180 if unset; 0 there: wait for ever). Ports of processes
  // (a name service's direct ports) wait for ever.
  Status connect(const std::string& port, int root, comm::Communicator* comm, comm::Communicator** out,
                 Status before = Status::Ok(), int timeout_s = 0);
  // Collective over `comm`; `cmds` significant at `root`. `errcodes` (one per process asked for, at every
  // member) receives MPI_SUCCESS or MPI_ERR_SPAWN for each.
  Status spawn(const std::vector<SpawnCommand>& cmds, int root, comm::Communicator* comm, comm::Communicator** out,
               std::vector<int>* errcodes, Status before = Status::Ok());
  // MPI_Comm_join over the connected socket `fd`.
  Status join(int fd, comm::Communicator** out);

  // MPI_Init of a spawned process: build the intercommunicator to the parents (collective over WORLD).
  Status init_child(const std::string& parent_port);
  comm::Communicator* parent() const { return parent_; }
  void forget_parent() { parent_ = nullptr; }

 private:
  // FT mode, at every member of `comm` (all must call it): the fault-tolerant agreement over comm, proc_failed
  // at all of them when a member did not contribute (it failed), else ok. Uniform.
  Status parents_alive(comm::Communicator* comm);
  // Step 2 at the root (accept: is_accept), then the broadcast of its outcome; step 3.
  Status meet(const std::string& port, bool is_accept, int root, comm::Communicator* comm, comm::Communicator** out,
              Status before = Status::Ok(), int timeout_s = 0);
  // One request to mpiexec; a reply with rc != 0 becomes the Status it names (err=, msg=). `progress`:
  // MPI progress goes on while the reply is awaited (an accept or connect may wait long).
  Result<boot::pmi::Message> call(const std::string& line, const char* expect, bool progress = false);
  // A reply with rc != 0 as the Status it names.
  static Result<boot::pmi::Message> reply_status(Result<boot::pmi::Message> m);
  static constexpr int kDefaultConnectTimeoutS = 180;  // as MPICH's default
  // A port of mpiexec's broker (spawn's private ports; every port without a name service).
  Result<std::string> broker_port();
  // The id mpiexec knows a process of this universe by.
  std::string local_id(int id) const { return std::to_string(id - ubase_); }
  void idle();
  // Read the launcher's settings (secret, name service) once there is a launcher.
  void setup_universe();
  // A singleton (no launcher) starts ftmpi's mpiexec at its first call that needs one (boot/singleton.h);
  // no-op when there is one. Errc::unsupported with the reason when none can be had.
  Status ensure_launcher();
  // After an intercommunicator creation: dial every remote member of another universe (watched so).
  void watch_remote(comm::Communicator* inter);

  Runtime& rt_;
  bool open_ = false;
  int my_id_ = -1;
  bool universe_known_ = false;
  int slot_ = 0;   // this universe's slot (dpm/universe.h); 0: no name service
  int ubase_ = 0;  // universe_base(slot_)
  std::string secret_;
  std::optional<NameDir> names_;  // the name service, if any
  DpmTransport* transport_ = nullptr;  // owned by the router once open
  std::map<std::string, std::unique_ptr<DirectPort>> ports_;  // open direct ports by name
  int next_port_ = 0;
  int next_pair_ = 1;
  comm::Communicator* parent_ = nullptr;
};

}  // namespace ftmpi::dpm
