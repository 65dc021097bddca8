// The Reinit model's epoch change (seed 003; docs/fault-tolerance.md "Reinit") as two plain state machines:
// the launcher's EpochCoordinator and a rank's EpochMember. Events in, actions out; no sockets, no
// processes. The same code runs in mpiexec (tools/mpiexec/job_reinit.cpp), in the library
// (models/reinit/reinit_control.cpp) and in the deterministic simulator (tests/sim/reinit_sim_test.cpp),
// which kills ranks at every step and checks the properties below.
//
// Model. One coordinator (mpiexec, or later a host daemon) that never fails, sees every rank's death
// (fail-stop: it kills a suspect before it counts it) and talks to every rank over a FIFO channel. Ranks
// fail by crashing, at any moment, any number of times. A failed rank is restarted by the coordinator with
// the same rank number (RespawnOps::restart "restart rank R with epoch E").
//
// Algorithm. The job lives in numbered epochs; every rank's engine (matching, requests, communicators)
// belongs to exactly one epoch and stamps it on every frame; links (shm rings, TCP connections) between
// two processes that both lived through a commit are kept across rollbacks (kept_links.h), links with a
// new process are built in the new epoch (segment names and TCP cards under E'-prefixed keys).
//  * A death in epoch E (or during the change to E): the coordinator moves to E' = E+1, restarts the dead
//    rank for E' (or hands the rank to a warm spare), and tells every other live rank `reinit E'` (plus
//    who failed since the last commit). One notice per rank; nothing else from the coordinator is needed
//    before fence 1.
//  * A rank told `reinit E'` (at once when asynchronous, at MPI_Test_failure when synchronous) drops its
//    whole engine of the old epoch (nothing of it is polled, sent or completed any more), creates
//    endpoints for the new processes only (a survivor) or for everybody (a new process), publishes them,
//    and enters fence 1 of E'. Fence 1 released: it maps/connects the links it lacks, enters fence 2 of
//    E' WITHOUT waiting for it, commits E' locally and resumes in the resilient function. (Before
//    2026-11-26 15:40 a rank waited for fence 2 too: one more round through the coordinator on the
//    critical path, n lines in and n out, serialised in mpiexec.)
//  * Cards travel with fence 1 (2026-11-26 18:40; before, each card was a PMI put, and each one read a
//    PMI get: one round trip through the launcher per key, n+7 per survivor and ~2n per new process,
//    all serialised in mpiexec). A member enters fence 1 of E' with the set-up cards it publishes
//    (segment name, TCP address, "up"); the coordinator keeps the cards of the current epoch only and,
//    when it releases fence 1, hands each member in its fence_out the cards it needs (cards_for): a
//    card named for a rank ("<name>.<k>") reaches q when q or k is new in E' (in the failed list: only
//    links with a new process are built), a card named for no rank reaches everybody. A card left out
//    is not needed by the link rules of kept_links.h; the rank's bootstrap falls back to the launcher's
//    key-value space for anything it does not hold.
//  * The coordinator releases fence k of E' when every member (live rank that has not finalized) has
//    entered it — only for the current epoch: fences of older epochs are ignored. Releasing fence 2
//    commits E' at the coordinator (the failed list restarts from empty); for a rank it only means that
//    every member has mapped its new segment, whose name it can then remove (a background step).
//  * A death during the change simply starts the next epoch: members still in fence 1 of the old one see
//    the newer `reinit` and start over (their fence is never released). A member whose fence 1 was
//    released finishes building and resumes, then changes again at once. Because the coordinator commits
//    only at fence 2, the next failed list names every process new since its last commit, including
//    those of an epoch that ranks resumed in but the coordinator never committed; such a process counts
//    as new again (kept_links.h, survivor_for) and every link with it is rebuilt, by both ends.
// Safety: (1) a rank resumes in E only after fence 1 of E was released, i.e. after every member of E
// dropped its engine of the older epoch (it does so before entering fence 1) — so while any rank runs
// user code of E, nothing of an older epoch is polled, sent, matched or completed anywhere: no old
// eager frame is delivered (and a kept link's leftovers are dropped by stamp), no old rendezvous
// completes, and no single-copy read (CMA) of an old request can copy memory that a rank which already
// resumed is rewriting. (2) a frame of E is only ever read by an engine of E: it is sent after fence 1 of
// E, when every member's engine of the older epoch is gone; a member superseded before building E reads
// it with a newer engine and drops it (E is over for everybody). (3) both ends of every link agree on
// keeping it: the failed list is the same for every member of an epoch (kept_links.h).
// (4) the cards a member receives with fence 1 of E were all published for E by the current processes
// of its members: cards are dropped at each new epoch and a fence of an older epoch (with its cards) is
// ignored; a member of E entered fence 1 of E (with its cards) before the release, and a process that
// died since made a newer epoch, so its cards are never handed out as those of a live process.
// Liveness: finitely many failures (bounded by --max-restarts) → the last epoch's fence 1 is entered by
// every member and released; every member then enters fence 2 and it is released.
// Cost: on the critical path, one notice per rank and ONE fence through the coordinator (n lines in, n
// out, the cards inside them: no other exchange with the launcher), one process start (none with a warm
// spare); fence 2 is off the critical path. Bytes: a survivor's fence_out holds the new processes' cards
// (k x ~3), a new process's everybody's (~3n). Nothing grows with
// the number of communicators or pending operations.
#pragma once
#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace ftmpi::reinit {

// A set-up card a rank publishes for an epoch: (key without the epoch prefix, value), e.g. ("shm.3", name).
using Card = std::pair<std::string, std::string>;

// Does a card named `key` reach rank `q`? Per-rank cards ("<name>.<k>", k a rank number) when q or k is
// new in the epoch (`is_new`); others always.
template <class IsNew>
bool card_reaches(const std::string& key, int q, IsNew is_new) {
  const std::size_t dot = key.rfind('.');
  if (dot == std::string::npos || dot + 1 == key.size()) return true;
  int k = 0;
  for (std::size_t i = dot + 1; i < key.size(); ++i) {
    if (key[i] < '0' || key[i] > '9' || k > 100000000) return true;  // not a rank suffix
    k = k * 10 + (key[i] - '0');
  }
  return is_new(q) || is_new(k);
}

// The " card.<key>=<value>" fields of a control line (a rank's `cmd=fence`, the launcher's `cmd=fence_out`).
std::vector<Card> parse_cards(std::string_view line);

// What the coordinator asks its environment to do. Delivered in order.
struct CoordAction {
  enum class Kind : std::uint8_t {
    restart,     // start a new process for `rank` that joins epoch `epoch` (RESTARTED)
    reinit,      // tell `rank`: roll back into `epoch`; `failed` = ranks failed since the last commit
    fence_out,   // tell `rank`: fence `seq` of `epoch` is complete
    committed,   // `epoch` is committed (every member passed fence 2); for the timeline
    fatal,       // end the job: `why`
  };
  Kind kind;
  int rank = -1;
  int epoch = 0;
  int seq = 0;
  std::vector<int> failed;
  std::string why;
  std::vector<Card> cards;  // fence_out of fence 1: the epoch's cards this rank needs (cards_for)
};

class EpochCoordinator {
 public:
  // `n` ranks, all members of epoch 0 and not yet inside MPI_Reinit. max_restarts: how many failures may
  // be recovered (a rank's death counts one, ranks dying together in on_deaths one); < 0: unlimited.
  EpochCoordinator(int n, int max_restarts);

  // Rank `r` died (once per process; a restarted process may die again).
  std::vector<CoordAction> on_death(int r);
  // Ranks died together (a lost host's ranks): one epoch change restarts them all.
  std::vector<CoordAction> on_deaths(const std::vector<int>& rs);
  // Rank `r` entered fence `seq` (1 or 2) of `epoch`, publishing `cards` for it (fence 1).
  std::vector<CoordAction> on_fence(int r, int epoch, int seq, std::vector<Card> cards = {});
  // The launcher's own card for the epoch being built (a several-hosts job's new host map after a host
  // loss), handed out with fence 1 like the ranks' cards. Ignored when no change is in progress.
  void publish(Card c) {
    if (epoch_ == committed_) return;
    upsert(std::move(c));
  }
  // Rank `r` has (true) / no longer has (false) an active rollback location (inside MPI_Reinit). A rank
  // without one when another rank fails makes the failure fatal (seed 003 §1.4.2).
  void on_active(int r, bool active) { ranks_[idx(r)].active = active; }
  // Rank `r` finalized (or exited cleanly): no longer a member of any epoch.
  std::vector<CoordAction> on_finalized(int r);

  int epoch() const { return epoch_; }
  int committed_epoch() const { return committed_; }
  int restarts() const { return restarts_; }  // processes restarted
  bool changing() const { return epoch_ != committed_; }
  bool member(int r) const { return ranks_[idx(r)].member; }
  // Members of the current epoch (live or being restarted, not finalized): fence 1's count on a board.
  int members() const {
    int m = 0;
    for (const Rank& k : ranks_) m += k.member ? 1 : 0;
    return m;
  }
  // Rank `r` has entered fence 2 of the current epoch: it resumed in it (a rank resumes as soon as fence 1
  // is released, before fence 2 is), so its leaving MPI_Reinit is no failure of the change.
  bool resumed(int r) const {
    const Rank& k = ranks_[idx(r)];
    return k.fence_epoch == epoch_ && k.fence_seq >= 2;
  }

 private:
  struct Rank {
    bool member = true;   // alive (or being restarted) and not finalized
    bool active = false;  // inside MPI_Reinit, or restarted and not yet back in it
    int fence_epoch = -1, fence_seq = 0;  // last fence entered
  };
  static std::size_t idx(int r) { return static_cast<std::size_t>(r); }
  void try_release(std::vector<CoordAction>& out);

  std::vector<Rank> ranks_;
  int max_restarts_;
  int restarts_ = 0;
  int failures_ = 0;  // recovered failures, the count --max-restarts bounds
  int epoch_ = 0;
  int committed_ = 0;
  int released_seq_ = 0;           // highest fence of epoch_ released
  std::vector<int> failed_since_commit_;
  std::vector<Card> cards_;        // published for epoch_ (by key: a later put replaces)
  bool dead_ = false;              // fatal was returned
  std::vector<Card> cards_for(int q) const;
  void upsert(Card c);
};

// A rank's side: which epoch it runs in and which one it must reach. The library drives it from the
// service thread (notices) and the application thread (fences); the simulator drives it directly.
class EpochMember {
 public:
  explicit EpochMember(int committed = 0) : committed_(committed), target_(committed) {}
  // Notice `reinit E`. Returns true when it moved the target (a newer epoch).
  bool on_reinit(int e) {
    if (e <= target_) return false;
    target_ = e;
    return true;
  }
  // The application thread starts the change to target(): returns the epoch to build.
  int begin() { building_ = target_; fence_done_ = 0; return building_; }
  // Fence `seq` of `e` released.
  void on_fence_out(int e, int seq) {
    if (e == building_ && seq > fence_done_) fence_done_ = seq;
  }
  bool fence_released(int seq) const { return fence_done_ >= seq; }
  // The change being built was overtaken by a newer epoch: start over with begin().
  bool superseded() const { return target_ > building_; }
  // Both fences passed: the epoch is committed.
  void commit() { committed_ = building_; }
  bool rollback_due() const { return target_ > committed_; }
  int committed() const { return committed_; }
  int target() const { return target_; }
  int building() const { return building_; }

 private:
  int committed_;
  int target_;
  int building_ = -1;
  int fence_done_ = 0;
};

}  // namespace ftmpi::reinit
