// Rank-to-rank failure detection when no ftmpi daemon watches the ranks (FT mode under MPICH's Hydra or
// Slurm's srun), as a plain state machine: events in (clock tick, heartbeat, suspicion, fence notice,
// goodbye, failure learned elsewhere), datagrams and verdicts out. ft/peer_watch.* drives it from a thread
// of the rank over UDP; tests/unit/ring_detector_test.cpp drives it with a simulated clock and network.
//
// Model. n ranks; a rank may crash, hang (SIGSTOP) or be cut off (its link silent both ways, no EOF). Clocks
// are local and monotonic. Datagrams between live, connected ranks arrive within `timeout - period` (a
// partially synchronous network) but may be lost when it is cut; nothing else loses them here (the real
// network may, rarely: see Safety). There is no launcher to kill a suspect, so the detector must make its
// suspicions true by itself (fencing), and must keep the two sides of a cut job from both going on.
//
// Algorithm (k-ring: each rank watched by its k next live ranks):
//  * A rank's *out set* is the ranks it knows to be failed (suspected here, told by others, or learned
//    outside: a lost connection, a pidfd) or departed (said goodbye in MPI_Finalize). Out sets only grow.
//  * Ring: the live ranks in cyclic order. A rank sends a heartbeat every `period` to its k successors in
//    the ring (its *observers*) and *watches* its k predecessors. A watched rank is suspected when nothing
//    was heard from it for `timeout` since it became watched (a ring repair starts the clock afresh, so a
//    new observer never suspects a rank that did not know yet whom to heartbeat).
//  * A suspicion (local, or the first notice of any failure learned outside) is flooded once: the rank
//    sends suspect(r) to every live rank, and each rank that learns it from a live sender forwards it once
//    to every live rank. Then the ring is repaired (observers and watched recomputed from the new out set;
//    new observers get a heartbeat at once).
//  * Fencing: the suspect itself is sent fence(); a suspected (or failed) rank that still speaks — a
//    heartbeat or a suspicion — is answered fence() and otherwise ignored: its suspicions never infect the
//    live ranks. A rank told fence() by a live rank, or told suspect(itself), is *fenced*: it must end at
//    once (the driver exits). Besides, the driver closes its connections to every suspect (ft/peer_watch.h),
//    so a hung rank that resumes finds itself alone.
//  * Quorum (majority of the job): once the failed ranks are half or more of the ranks that did not depart,
//    this rank has lost its quorum: it is on the minority side of a cut (or fenced without knowing it) and
//    must end. Only one side of a partition can hold a strict majority, so two halves never both go on.
//    Consequence: without a daemon a job survives failures while fewer than half of its ranks failed; set
//    `quorum = false` (FTMPI_DETECTOR_QUORUM=0) to keep going regardless (and accept split brain).
//  * A goodbye (MPI_Finalize) takes the rank out of the ring without counting as a failure.
// Safety: every rank that a live rank considers failed either is failed, or receives fence() from it (and
// from every live rank it speaks to afterwards) and ends; a rank that acts on a failure (ULFM shrinks
// without it) holds a quorum, and two disjoint quorums do not exist. A lost suspect()/fence() datagram is
// repaired by the next heartbeat the fenced rank sends (answered fence()); a lost suspect() among live ranks
// is covered by the flood (every live rank forwards it) and by the ULFM layers above (revoke and agreement
// carry failure knowledge).
// Liveness: a crashed, hung or cut rank stops heartbeating; its first observer suspects it within `timeout`
// of the last heartbeat; the flood tells every live connected rank within one more network delay. With
// several adjacent failures the k observers see up to k of them in one timeout; each further one costs one
// more timeout after the repair.
// Cost without failures: k datagrams sent and k received per rank per period (k = 2 by default), no
// allocation per heartbeat; per failure, at most n datagrams sent by each rank (the flood).
#pragma once
#include <cstdint>
#include <vector>

namespace ftmpi::ft {

struct DetectorConfig {
  int me = 0;
  int size = 1;
  double period_ms = 100;    // FTMPI_DETECTOR_PERIOD_MS
  double timeout_ms = 1000;  // FTMPI_DETECTOR_TIMEOUT_MS (> period_ms)
  int observers = 2;         // k: FTMPI_DETECTOR_OBSERVERS (1..size-1)
  bool quorum = true;        // FTMPI_DETECTOR_QUORUM (0: never end for lack of a majority)
};

enum class DetectorMsg : std::uint8_t { heartbeat = 1, suspect = 2, fence = 3, bye = 4 };

struct DetectorSend {
  int dest;
  DetectorMsg kind;
  int about;  // suspect: the suspected rank; else -1
};

// What one event produced. The driver sends `sends`, records `suspected` as failed (in order), and ends the
// process when `fenced` or `quorum_lost`.
struct DetectorActions {
  std::vector<DetectorSend> sends;
  std::vector<int> suspected;  // newly out as failed through this detector (local timeout or a live sender)
  bool fenced = false;         // a live rank said this one is suspected
  bool quorum_lost = false;    // failed ranks are half or more of those that did not depart
  void clear() {
    sends.clear();
    suspected.clear();
    fenced = quorum_lost = false;
  }
};

class RingDetector {
 public:
  // `now_ms`: the driver's monotonic clock. Every watched rank gets a full timeout from here.
  RingDetector(const DetectorConfig& cfg, double now_ms);

  // Sends heartbeats that are due and suspects watched ranks silent for `timeout`.
  void tick(double now_ms, DetectorActions& out);
  // A datagram from `from` (the driver checked it belongs to this job). `about` for suspect.
  void on_message(int from, DetectorMsg kind, int about, double now_ms, DetectorActions& out);
  // A failure learned outside the detector (lost connection, pidfd, ULFM agreement or revoke): taken out
  // of the ring and flooded once. Not reported in out.suspected (the driver already knows it).
  void on_failed(int rank, double now_ms, DetectorActions& out);
  // MPI_Finalize: goodbyes to every live rank (the driver then stops).
  void leave(DetectorActions& out);

  // The latest time at which tick() must be called next.
  double next_deadline() const;
  bool failed(int r) const { return state_[static_cast<std::size_t>(r)] == State::failed; }
  bool departed(int r) const { return state_[static_cast<std::size_t>(r)] == State::departed; }
  const std::vector<int>& observers() const { return observers_; }  // I heartbeat them
  const std::vector<int>& watched() const { return watched_; }      // they heartbeat me
  int failed_count() const { return failed_count_; }

 private:
  enum class State : std::uint8_t { live, failed, departed };
  bool live(int r) const { return state_[static_cast<std::size_t>(r)] == State::live; }
  // Marks `r` failed, floods it, repairs the ring. False when it was already out.
  bool take_out(int r, double now_ms, DetectorActions& out, bool fence_it);
  void repair(double now_ms, DetectorActions& out);
  void check_quorum(DetectorActions& out) const;

  DetectorConfig cfg_;
  std::vector<State> state_;
  std::vector<double> last_heard_;   // per rank: last heartbeat (or watch start), ms
  std::vector<int> observers_, watched_;
  double next_beat_ = 0;
  int failed_count_ = 0;
  int departed_count_ = 0;
};

}  // namespace ftmpi::ft
