// Deterministic simulation of the Reinit epoch change (src/models/reinit/epoch_change.h): the launcher's
// EpochCoordinator and every rank's EpochMember, connected by FIFO channels, with ranks killed at every step
// of the change (and several at once, and again during the change). Ranks resume as soon as fence 1 of an
// epoch is released and their links are built; fence 2 is entered without waiting (it only tells the
// coordinator that every member mapped the new segments, and commits there). Checks:
//  * safety: a rank resumes in epoch E only when every member of E has entered fence 1 of E, i.e. dropped
//    its engine of the older epoch (no old-epoch traffic, request or single-copy read can be in progress
//    anywhere while user code of E runs); the coordinator commits E only when every member of E resumed
//    in it; all ranks that run at the end run in the same epoch, the coordinator's;
//  * liveness: once failures stop, every rank commits the coordinator's epoch;
//  * restarts are bounded by --max-restarts (then the job is declared fatal, never a hang).
// With links kept across rollbacks (src/models/reinit/kept_links.h) running ranks also send each other
// epoch-stamped frames over FIFO links that live as long as both processes (a kept link may hold frames
// of older epochs when a rollback comes), and check:
//  * a frame is delivered only to an engine of its own epoch, and a frame is never dropped whose stamp is
//    the receiver's epoch or a newer one (no loss in the current epoch);
//  * both ends of every link agree whether it is kept or rebuilt (the failed list vs. who is new), also
//    for a process that resumed in an epoch the coordinator never committed.
// Ranks publish their set-up cards with fence 1 (epoch_change.h, "cards travel with fence 1"); checks:
//  * the release of fence 1 of E hands every member the card of every member it builds a link with
//    (either of the two is new in E), published by that member's current process for E, never a card of
//    another epoch or of a dead process, and no per-rank card of a link that is kept.
// Board mode (models/reinit/fence_board.h; mpiexec's single-host jobs): fence 1 is released by the pure
// board word (the coordinator writes (E, members, 0) before telling anyone; members write their slot and
// count themselves in) and each member reads its cards from the others' slots; the coordinator hears of
// fence 1 only through fence 2's line and sends no fence_out seq=1. The same checks apply to what a
// member reads.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>

#include <deque>
#include <map>
#include <random>
#include <set>
#include <tuple>

#include "models/reinit/epoch_change.h"
#include "models/reinit/fence_board.h"
#include "models/reinit/kept_links.h"

namespace {
using ftmpi::reinit::CoordAction;
using ftmpi::reinit::EpochCoordinator;
using ftmpi::reinit::EpochMember;
using ftmpi::reinit::LinkFate;

// One rank process: the member state machine plus where its application thread is in a change.
struct Proc {
  EpochMember m{0};
  enum class Phase { running, to_fence1, in_fence1 } phase = Phase::running;
  int incarnation = 0;
  bool alive = true;
  std::deque<CoordAction> inbox;  // coordinator -> rank (FIFO)
  bool has_links = false;         // resumed in an epoch in this incarnation (has links)
  std::vector<int> failed;        // the failed list announced with the current target
};

struct Sim {
  int n;
  EpochCoordinator coord;
  std::vector<Proc> p;
  std::deque<std::tuple<int, int, int, int, std::vector<ftmpi::reinit::Card>>> to_coord;  // (rank, incarnation, epoch, seq, cards) fences
  std::mt19937 rng;
  bool fatal = false;
  int commits_checked = 0;
  // fence entries per epoch (index 1, 2), to check resumes and commits
  std::vector<std::set<int>> entered1, entered2;
  int resumes_before_commit = 0;  // a rank resumed in an epoch the coordinator had not committed yet
  int rebuilt_new_again = 0;      // a process with links counted as new (resumed in an uncommitted epoch)
  // Links: (src, src incarnation, dst, dst incarnation) -> frames (their stamps) in FIFO order. A link is
  // the same object for as long as both processes live: kept across rollbacks.
  std::map<std::tuple<int, int, int, int>, std::deque<int>> links;
  // per epoch, per rank: (survivor when it began building that epoch, its failed list)
  std::map<int, std::map<int, std::pair<bool, std::vector<int>>>> plans;
  long delivered = 0, dropped = 0;
  int traffic = 0;  // frames the running ranks may still send

  Sim(int n_, int max_restarts, unsigned seed, bool use_board = false)
      : n(n_), coord(n_, max_restarts), p(static_cast<size_t>(n_)), rng(seed), board(use_board) {
    for (int r = 0; r < n; ++r) coord.on_active(r, true);  // everyone inside MPI_Reinit
    // The first processes built their links in MPI_Init (epoch 0), as Runtime::enter_epoch sees them (a
    // router): a member that never resumed in an epoch since (on a board it may skip a released epoch it
    // saw superseded) still keeps its links to the other survivors.
    for (Proc& q : p) q.has_links = true;
    bword = ftmpi::reinit::board_begin(0, static_cast<std::uint16_t>(n));
  }
  // The board (fence_board.h): its word and each rank's slot (epoch, writer's incarnation, cards).
  bool board = false;
  std::uint64_t bword = 0;
  std::map<int, std::tuple<int, int, std::vector<ftmpi::reinit::Card>>> slots;
  long board_releases = 0, board_stale_reads = 0, board_superseded = 0;

  void apply(const std::vector<CoordAction>& acts) {
    bool new_epoch = false;
    for (const CoordAction& a : acts) new_epoch |= a.kind == CoordAction::Kind::reinit || a.kind == CoordAction::Kind::restart;
    if (board && new_epoch)  // ReinitDriver::run: the board before any notice or restart
      bword = ftmpi::reinit::board_begin(static_cast<std::uint32_t>(coord.epoch()),
                                         static_cast<std::uint16_t>(coord.members()));
    for (const CoordAction& a : acts) {
      switch (a.kind) {
        case CoordAction::Kind::restart: {
          Proc& q = p[static_cast<size_t>(a.rank)];
          q = Proc{};
          q.m = EpochMember(a.epoch - 1);
          q.m.on_reinit(a.epoch);
          q.incarnation = ++incarnations;
          q.failed = a.failed;
          q.phase = Proc::Phase::to_fence1;  // MPI_Init of a restarted process
          break;
        }
        case CoordAction::Kind::fence_out:
          if (board && a.seq == 1) break;  // not sent: the ranks released it on the board
          if (a.seq == 1) check_cards(a);
          p[static_cast<size_t>(a.rank)].inbox.push_back(a);
          break;
        case CoordAction::Kind::reinit:
          p[static_cast<size_t>(a.rank)].inbox.push_back(a);
          break;
        case CoordAction::Kind::committed: {
          check_link_agreement(a.epoch);
          // every member entered fence 2 of this epoch, i.e. resumed in it
          for (int r = 0; r < n; ++r)
            if (coord.member(r)) {
              EXPECT_TRUE(entered2.size() > static_cast<size_t>(a.epoch) && entered2[static_cast<size_t>(a.epoch)].count(r))
                  << "epoch " << a.epoch << " committed without rank " << r;
              const Proc& q = p[static_cast<size_t>(r)];
              EXPECT_TRUE(q.has_links && q.m.committed() >= a.epoch) << "rank " << r << " not resumed in " << a.epoch;
            }
          break;
        }
        case CoordAction::Kind::fatal: fatal = true; break;
      }
    }
  }
  int incarnations = 0;
  long cards_checked = 0;

  // The card rank r's process publishes for epoch e (what a segment name / TCP address stands for).
  std::string card_value(int r, int e) const {
    return std::to_string(r) + ":" + std::to_string(p[static_cast<size_t>(r)].incarnation) + ":" + std::to_string(e);
  }
  // Fence 1 of a.epoch released to a.rank: it holds exactly what the link rules need, all current.
  void check_cards(const CoordAction& a) {
    const int q = a.rank, e = a.epoch;
    auto pq = plans[e].find(q);
    ASSERT_NE(pq, plans[e].end()) << "fence 1 of " << e << " released to rank " << q << " before it entered";
    const std::vector<int>& failed = pq->second.second;
    auto is_new = [&](int k) { return std::find(failed.begin(), failed.end(), k) != failed.end(); };
    auto find = [&](const std::string& key) -> const std::string* {
      for (const auto& c : a.cards)
        if (c.first == key) return &c.second;
      return nullptr;
    };
    for (int x = 0; x < n; ++x) {
      if (!coord.member(x)) continue;
      const std::string* v = find("shm." + std::to_string(x));
      if (x != q && (is_new(q) || is_new(x))) {  // a link to build: the peer's current card for e
        ASSERT_NE(v, nullptr) << "epoch " << e << ": rank " << q << " got no card of rank " << x;
        EXPECT_EQ(*v, card_value(x, e)) << "epoch " << e << ": rank " << q << " got a stale card of rank " << x;
        ++cards_checked;
      } else if (x != q) {
        EXPECT_EQ(v, nullptr) << "epoch " << e << ": rank " << q << " got the card of a kept link's peer " << x;
      }
    }
    if (coord.member(0)) {
      const std::string* v = find("secret");
      ASSERT_NE(v, nullptr) << "a card for no rank reaches everybody";
      EXPECT_EQ(*v, "s" + std::to_string(e));
    }
    for (const auto& c : a.cards) EXPECT_TRUE(c.second.ends_with(":" + std::to_string(e)) || c.first == "secret") << c.second;
  }

  // Board mode: member r reads the cards of fence 1 of e from the slots (FenceBoard::fence1). False when a
  // slot shows a newer epoch (its owner died and was restarted): superseded.
  bool read_board_cards(int r, int e) {
    const std::vector<int>& failed = plans[e][r].second;
    auto is_new = [&](int k) { return std::find(failed.begin(), failed.end(), k) != failed.end(); };
    std::vector<ftmpi::reinit::Card> got;
    std::map<int, int> writer;  // card owner -> incarnation that wrote it
    for (const auto& [k, sl] : slots) {
      if (k == r) continue;
      const auto& [se, inc, cards] = sl;
      if (se > e) return false;
      if (se < e) continue;  // not a member of e
      for (const auto& c : cards)
        if (ftmpi::reinit::card_reaches(c.first, r, is_new)) {
          got.push_back(c);
          writer[k] = inc;
        }
    }
    ++board_releases;
    if (coord.epoch() != e) {  // a death since the release: the member will change again; cards may be stale
      ++board_stale_reads;
      return true;
    }
    // As check_cards: exactly the cards of the links to build, each of the current process, for e.
    for (int x = 0; x < n; ++x) {
      if (!coord.member(x) || x == r) continue;
      const std::string key = "shm." + std::to_string(x);
      const ftmpi::reinit::Card* v = nullptr;
      for (const auto& c : got)
        if (c.first == key) v = &c;
      if (is_new(r) || is_new(x)) {
        EXPECT_NE(v, nullptr) << "board: epoch " << e << ": rank " << r << " got no card of rank " << x;
        if (v) {
          EXPECT_EQ(v->second, card_value(x, e)) << "board: stale card of rank " << x;
          EXPECT_EQ(writer[x], p[static_cast<size_t>(x)].incarnation) << "board: card of a dead process";
        }
        ++cards_checked;
      } else {
        EXPECT_EQ(v, nullptr) << "board: rank " << r << " got the card of a kept link's peer " << x;
      }
    }
    if (r != 0 && coord.member(0)) {
      bool secret = false;
      for (const auto& c : got) secret |= c.first == "secret" && c.second == "s" + std::to_string(e);
      EXPECT_TRUE(secret) << "board: a card for no rank reaches everybody";
    }
    return true;
  }

  void kill(int r) {
    if (!p[static_cast<size_t>(r)].alive) return;
    p[static_cast<size_t>(r)].alive = false;
    p[static_cast<size_t>(r)].inbox.clear();
    apply(coord.on_death(r));
  }

  // One step of rank r: deliver one inbox message or advance its application thread.
  bool step_rank(int r) {
    Proc& q = p[static_cast<size_t>(r)];
    if (!q.alive) return false;
    // Either deliver the next notice or advance the application thread, in random order; if the chosen one
    // cannot move, try the other.
    if (rng() % 2 == 0) return deliver(q) || advance(r, q);
    return advance(r, q) || deliver(q);
  }

  bool deliver(Proc& q) {
    if (!q.inbox.empty()) {
      CoordAction a = q.inbox.front();
      q.inbox.pop_front();
      if (a.kind == CoordAction::Kind::reinit) {
        bool moved = q.m.on_reinit(a.epoch);
        if (moved) q.failed = a.failed;
        if (moved && q.phase == Proc::Phase::running) q.phase = Proc::Phase::to_fence1;
      } else {
        q.m.on_fence_out(a.epoch, a.seq);
      }
      return true;
    }
    return false;
  }

  bool advance(int r, Proc& q) {
    switch (q.phase) {
      case Proc::Phase::running: return rng() % 2 ? send(r, q) || receive(r, q) : receive(r, q) || send(r, q);
      case Proc::Phase::to_fence1: {
        // drop the old engine, then enter fence 1 (Runtime::enter_epoch)
        int e = q.m.begin();
        const bool survivor = ftmpi::reinit::survivor_for(q.has_links, q.failed, r);
        if (q.has_links && !survivor) ++rebuilt_new_again;
        plans[e][r] = {survivor, q.failed};
        std::vector<ftmpi::reinit::Card> cards{{"shm." + std::to_string(r), card_value(r, e)}};
        if (r == 0) cards.emplace_back("secret", "s" + std::to_string(e));
        if (board) {
          slots[r] = {e, q.incarnation, cards};
          if (auto w = ftmpi::reinit::board_arrive(bword, static_cast<std::uint32_t>(e))) bword = *w;
        } else {  // on a board, mpiexec hears of fence 1 only with fence 2's line (ReinitControl::fence)
          to_coord.emplace_back(r, q.incarnation, e, 1, std::move(cards));
        }
        if (entered1.size() <= static_cast<size_t>(e)) entered1.resize(static_cast<size_t>(e) + 1);
        entered1[static_cast<size_t>(e)].insert(r);
        q.phase = Proc::Phase::in_fence1;
        return true;
      }
      case Proc::Phase::in_fence1: {
        // A released fence 1 wins over a newer notice (ReinitControl::fence): the rank builds its links,
        // enters fence 2 without waiting, resumes (and changes again at once if a newer epoch came).
        if (board && !q.m.fence_released(1)) {
          const int eb = q.m.building();
          const auto st = ftmpi::reinit::board_state(bword, static_cast<std::uint32_t>(eb));
          if (st == ftmpi::reinit::BoardFence::superseded) ++board_superseded;
          if (st != ftmpi::reinit::BoardFence::released || !read_board_cards(r, eb)) {
            // superseded on the board: wait for the notice (it is on its way), then start over
            if (q.m.superseded()) { q.phase = Proc::Phase::to_fence1; return true; }
            return false;
          }
          q.m.on_fence_out(eb, 1);
        }
        if (!q.m.fence_released(1)) {
          if (q.m.superseded()) { q.phase = Proc::Phase::to_fence1; return true; }
          return false;
        }
        const int e = q.m.building();
        // every member of E (every live rank the coordinator counts) dropped its old engine before this
        for (int x = 0; x < n; ++x)
          if (coord.member(x) && p[static_cast<size_t>(x)].alive && coord.epoch() == e) {
            EXPECT_TRUE(entered1[static_cast<size_t>(e)].count(x)) << "rank " << r << " resumed in " << e
                                                                  << " before rank " << x << " dropped its old engine";
          }
        to_coord.emplace_back(r, q.incarnation, e, 2, std::vector<ftmpi::reinit::Card>{});
        if (entered2.size() <= static_cast<size_t>(e)) entered2.resize(static_cast<size_t>(e) + 1);
        entered2[static_cast<size_t>(e)].insert(r);
        if (coord.committed_epoch() < e) ++resumes_before_commit;
        q.m.commit();
        q.has_links = true;
        q.phase = q.m.rollback_due() ? Proc::Phase::to_fence1 : Proc::Phase::running;
        return true;
      }
    }
    return false;
  }

  // A running rank sends a frame stamped with its epoch to a random live peer (over the link between the
  // two current processes, kept or new).
  bool send(int r, Proc& q) {
    int d = static_cast<int>(rng() % static_cast<unsigned>(n));
    const Proc& to = p[static_cast<size_t>(d)];
    if (!to.alive || traffic <= 0) return false;
    --traffic;
    links[{r, q.incarnation, d, to.incarnation}].push_back(q.m.committed());
    return true;
  }

  // A running rank's engine reads the next frame of a random link into it from a live process.
  bool receive(int r, Proc& q) {
    int s = static_cast<int>(rng() % static_cast<unsigned>(n));
    const Proc& from = p[static_cast<size_t>(s)];
    auto it = links.find({s, from.incarnation, r, q.incarnation});
    if (!from.alive || it == links.end() || it->second.empty()) return false;
    int stamp = it->second.front();
    it->second.pop_front();
    if (ftmpi::reinit::deliverable(static_cast<std::uint32_t>(stamp), static_cast<std::uint32_t>(q.m.committed()))) {
      ++delivered;
      EXPECT_EQ(stamp, q.m.committed());
    } else {
      ++dropped;
      EXPECT_LT(stamp, q.m.committed()) << "a frame of the receiver's epoch or a newer one was dropped (lost)";
    }
    return true;
  }

  // Epoch `e` committed: for every pair of members, both ends agree on keeping or rebuilding their link.
  void check_link_agreement(int e) {
    const auto& plan = plans[e];
    for (int x = 0; x < n; ++x) {
      if (!coord.member(x)) continue;
      auto px = plan.find(x);
      ASSERT_NE(px, plan.end()) << "rank " << x << " built epoch " << e << " without a plan";
      for (int y = 0; y < n; ++y) {
        if (y == x || !coord.member(y)) continue;
        auto py = plan.find(y);
        ASSERT_NE(py, plan.end());
        LinkFate fx = ftmpi::reinit::link_fate(px->second.first, px->second.second, y);
        LinkFate fy = ftmpi::reinit::link_fate(py->second.first, py->second.second, x);
        EXPECT_EQ(fx == LinkFate::keep, fy == LinkFate::keep)
            << "epoch " << e << ": rank " << x << " and rank " << y << " disagree on keeping their link";
        // a kept link joins two processes that both lived through the last commit
        if (fx == LinkFate::keep) {
          EXPECT_TRUE(py->second.first);
        }
      }
    }
  }

  bool step_coord() {
    if (to_coord.empty()) return false;
    auto [r, inc, e, seq, cards] = to_coord.front();
    to_coord.pop_front();
    if (!p[static_cast<size_t>(r)].alive || p[static_cast<size_t>(r)].incarnation != inc) return true;  // died since
    apply(coord.on_fence(r, e, seq, std::move(cards)));
    return true;
  }

  // Run until quiet; `kill_prob` per step of killing a random rank while kills remain.
  void run(int kills, double kill_prob) {
    std::uniform_real_distribution<double> u(0, 1);
    for (int guard = 0; guard < 200000 && !fatal; ++guard) {
      if (kills > 0 && u(rng) < kill_prob) {
        kill(static_cast<int>(rng() % static_cast<unsigned>(n)));
        --kills;
        continue;
      }
      bool any = false;
      // random order of actors
      int start = static_cast<int>(rng() % static_cast<unsigned>(n + 1));
      for (int k = 0; k <= n && !any; ++k) {
        int who = (start + k) % (n + 1);
        any = who == n ? step_coord() : step_rank(who);
      }
      if (!any && kills == 0) break;
      if (!any) {  // quiet: inject the next kill now
        kill(static_cast<int>(rng() % static_cast<unsigned>(n)));
        --kills;
      }
    }
  }

  void check_final() {
    if (fatal) return;
    EXPECT_FALSE(coord.changing()) << "change never completed";
    for (int r = 0; r < n; ++r) {
      const Proc& q = p[static_cast<size_t>(r)];
      ASSERT_TRUE(q.alive);
      EXPECT_EQ(q.phase, Proc::Phase::running) << "rank " << r;
      EXPECT_EQ(q.m.committed(), coord.epoch()) << "rank " << r;
    }
  }
};

TEST(ReinitSim, SingleFailureAtEveryPoint) {
  for (unsigned seed = 0; seed < 2000; ++seed) {
    Sim s(5, -1, seed);
    s.run(1, 0.2);
    s.check_final();
    EXPECT_EQ(s.coord.epoch(), 1);
  }
}

TEST(ReinitSim, ManyFailuresDuringRecovery) {
  long cards = 0;
  for (unsigned seed = 0; seed < 3000; ++seed) {
    int n = 2 + static_cast<int>(seed % 15);
    Sim s(n, -1, seed);
    s.run(1 + static_cast<int>(seed % 6), 0.05);
    s.check_final();
    EXPECT_GE(s.coord.epoch(), 1);
    cards += s.cards_checked;
  }
  EXPECT_GT(cards, 1000);  // fence 1 releases with cards really happened, and were checked
}

// The card rule by itself: per-rank cards reach the ranks that build a link with their owner.
TEST(ReinitSim, CardsReachOnlyWhoBuildsTheLink) {
  auto is_new = [](int k) { return k == 3; };
  EXPECT_TRUE(ftmpi::reinit::card_reaches("shm.3", 1, is_new));   // a survivor needs the new process's card
  EXPECT_TRUE(ftmpi::reinit::card_reaches("tcp.1", 3, is_new));   // the new process needs everybody's
  EXPECT_FALSE(ftmpi::reinit::card_reaches("shm.2", 1, is_new));  // two survivors keep their link
  EXPECT_TRUE(ftmpi::reinit::card_reaches("secret", 1, is_new));  // a card for no rank reaches everybody
  EXPECT_TRUE(ftmpi::reinit::card_reaches("PMI_process_mapping", 1, is_new));
  EXPECT_TRUE(ftmpi::reinit::card_reaches("x.", 1, is_new));
  EXPECT_TRUE(ftmpi::reinit::card_reaches("a.b2", 1, is_new));
  auto cards = ftmpi::reinit::parse_cards("cmd=fence_out epoch=2 seq=1 card.shm.3=/ftmpi-x card.secret=ab=c junk");
  ASSERT_EQ(cards.size(), 2u);
  EXPECT_EQ(cards[0], (ftmpi::reinit::Card{"shm.3", "/ftmpi-x"}));
  EXPECT_EQ(cards[1], (ftmpi::reinit::Card{"secret", "ab=c"}));
  // The coordinator keeps only the current epoch's cards: a card of an overtaken epoch is never handed out.
  EpochCoordinator c(2, -1);
  c.on_active(0, true);
  c.on_active(1, true);
  c.on_death(1);                                            // epoch 1
  c.on_fence(0, 1, 1, {{"shm.0", "old"}});
  c.on_death(1);                                            // epoch 2
  c.on_fence(0, 1, 1, {{"shm.0", "stale"}});                // a late fence of epoch 1: ignored
  c.on_fence(0, 2, 1, {{"shm.0", "new"}});
  auto acts = c.on_fence(1, 2, 1, {{"shm.1", "n1"}});
  ASSERT_EQ(acts.size(), 2u);
  for (const CoordAction& a : acts) {  // rank 0: the new process's card; rank 1 (new): everybody's
    const std::vector<ftmpi::reinit::Card> want0{{"shm.1", "n1"}}, want1{{"shm.0", "new"}, {"shm.1", "n1"}};
    EXPECT_EQ(a.cards, a.rank == 0 ? want0 : want1);
  }
}

// The same runs with fence 1 on the shared-memory board (fence_board.h).
TEST(ReinitSim, BoardSingleFailureAtEveryPoint) {
  for (unsigned seed = 0; seed < 2000; ++seed) {
    Sim s(5, -1, seed, true);
    s.run(1, 0.2);
    s.check_final();
    EXPECT_EQ(s.coord.epoch(), 1);
  }
}

TEST(ReinitSim, BoardManyFailuresDuringRecovery) {
  long cards = 0, releases = 0, stale = 0;
  for (unsigned seed = 0; seed < 3000; ++seed) {
    int n = 2 + static_cast<int>(seed % 15);
    Sim s(n, -1, seed, true);
    s.traffic = seed % 2 ? 200 : 0;
    s.run(1 + static_cast<int>(seed % 6), 0.05);
    s.check_final();
    if (::testing::Test::HasFailure()) {
      ADD_FAILURE() << "seed " << seed;
      return;
    }
    EXPECT_GE(s.coord.epoch(), 1);
    cards += s.cards_checked;
    releases += s.board_releases;
    stale += s.board_superseded;
  }
  EXPECT_GT(cards, 1000);
  EXPECT_GT(releases, 1000);
  EXPECT_GT(stale, 100);  // members really found their fence superseded on the board (a death meanwhile)
}

TEST(ReinitSim, BoardSimultaneousFailures) {
  for (unsigned seed = 0; seed < 1000; ++seed) {
    Sim s(8, -1, seed, true);
    s.kill(1);
    s.kill(2);
    s.kill(static_cast<int>(seed % 8));
    s.run(0, 0);
    s.check_final();
  }
}

// The board word by itself: arrivals of another epoch count for nothing; the last arrival releases.
TEST(ReinitSim, BoardWord) {
  using namespace ftmpi::reinit;
  std::uint64_t w = board_begin(3, 2);
  EXPECT_EQ(board_state(w, 3), BoardFence::waiting);
  EXPECT_EQ(board_state(w, 2), BoardFence::superseded);
  EXPECT_EQ(board_state(w, 4), BoardFence::behind);
  EXPECT_FALSE(board_arrive(w, 2).has_value());  // a stale arrival
  w = *board_arrive(w, 3);
  EXPECT_EQ(board_state(w, 3), BoardFence::waiting);
  w = *board_arrive(w, 3);
  EXPECT_EQ(board_state(w, 3), BoardFence::released);
  EXPECT_FALSE(board_arrive(w, 3).has_value());  // complete: nothing more counts
  EXPECT_EQ(unpack(pack({0xfffffffeu, 4095, 17})).epoch, 0xfffffffeu);
  EXPECT_EQ(unpack(pack({7, 4095, 17})).expected, 4095);
}

TEST(ReinitSim, SimultaneousFailures) {
  for (unsigned seed = 0; seed < 1000; ++seed) {
    Sim s(8, -1, seed);
    s.kill(1);
    s.kill(2);
    s.kill(static_cast<int>(seed % 8));
    s.run(0, 0);
    s.check_final();
  }
}

TEST(ReinitSim, KeptLinksNeverDeliverAnOldEpoch) {
  long delivered = 0, dropped = 0, early = 0, again = 0;
  for (unsigned seed = 0; seed < 3000; ++seed) {
    int n = 2 + static_cast<int>(seed % 9);
    Sim s(n, -1, seed);
    s.traffic = 400;
    s.run(1 + static_cast<int>(seed % 5), 0.03);
    s.check_final();
    delivered += s.delivered;
    dropped += s.dropped;
    early += s.resumes_before_commit;
    again += s.rebuilt_new_again;
  }
  EXPECT_GT(delivered, 0);
  EXPECT_GT(dropped, 0);  // old-epoch frames were really left in kept links, and dropped
  EXPECT_GT(early, 0);    // ranks really ran before the coordinator committed (fence 2 not waited for)
  EXPECT_GT(again, 0);    // and a process that resumed in an uncommitted epoch was really rebuilt as new
}

// A failure at every step of a change in which ranks already resumed (after fence 1, before fence 2 is
// released): the restarted process of the uncommitted epoch is new again for everyone.
TEST(ReinitSim, FailureAfterResumeBeforeCommit) {
  long hit = 0;
  for (unsigned seed = 0; seed < 2000; ++seed) {
    const int n = 3 + static_cast<int>(seed % 6);
    Sim s(n, -1, seed);
    s.traffic = 100;
    s.kill(static_cast<int>(seed % static_cast<unsigned>(n)));
    // run until some rank resumed in epoch 1 but the coordinator has not committed it, then kill again
    for (int guard = 0; guard < 100000; ++guard) {
      bool resumed = false;
      for (const Proc& q : s.p) resumed = resumed || (q.alive && q.m.committed() == 1);
      if (resumed && s.coord.committed_epoch() == 0) {
        ++hit;
        s.kill(static_cast<int>((seed / 7) % static_cast<unsigned>(n)));
        break;
      }
      int who = static_cast<int>(s.rng() % static_cast<unsigned>(n + 1));
      if (who == n) s.step_coord(); else s.step_rank(who);
      if (!s.coord.changing()) break;
    }
    s.run(0, 0);
    s.check_final();
  }
  EXPECT_GT(hit, 500);
}

TEST(ReinitSim, RestartLimitIsFatalNeverAHang) {
  for (unsigned seed = 0; seed < 500; ++seed) {
    Sim s(4, 2, seed);
    s.run(3, 0.1);
    EXPECT_TRUE(s.fatal);
    EXPECT_EQ(s.coord.restarts(), 2);
  }
}

TEST(ReinitSim, HostLossCountsOnceAgainstTheLimit) {
  // Every rank of a one-host job lost at once (a rank's kill(getppid(), SIGTERM)): one failure against
  // --max-restarts, however many processes it restarts; the next failure past the limit is fatal.
  EpochCoordinator c(6, 2);
  for (int r = 0; r < 6; ++r) c.on_active(r, true);
  for (int loss = 1; loss <= 2; ++loss) {
    auto acts = c.on_deaths({0, 1, 2, 3, 4, 5});
    EXPECT_EQ(c.epoch(), loss);
    EXPECT_EQ(c.restarts(), 6 * loss);
    EXPECT_TRUE(std::none_of(acts.begin(), acts.end(),
                             [](const CoordAction& a) { return a.kind == CoordAction::Kind::fatal; }));
  }
  auto acts = c.on_death(3);
  ASSERT_EQ(acts.size(), 1u);
  EXPECT_EQ(acts[0].kind, CoordAction::Kind::fatal);
}

TEST(ReinitSim, FailureWithoutActiveLocationIsFatal) {
  EpochCoordinator c(3, -1);
  c.on_active(0, true);
  c.on_active(1, true);  // rank 2 not inside MPI_Reinit
  auto acts = c.on_death(0);
  ASSERT_EQ(acts.size(), 1u);
  EXPECT_EQ(acts[0].kind, CoordAction::Kind::fatal);
}

TEST(ReinitSim, StaleFencesAreIgnored) {
  EpochCoordinator c(2, -1);
  c.on_active(0, true);
  c.on_active(1, true);
  c.on_death(1);                         // epoch 1
  EXPECT_TRUE(c.on_fence(0, 1, 1).empty());
  c.on_death(1);                         // the restarted rank 1 dies again: epoch 2
  EXPECT_TRUE(c.on_fence(1, 1, 1).empty());  // a fence of epoch 1 completes nothing
  EXPECT_TRUE(c.on_fence(0, 2, 1).empty());
  auto acts = c.on_fence(1, 2, 1);
  ASSERT_EQ(acts.size(), 2u);
  EXPECT_EQ(acts[0].kind, CoordAction::Kind::fence_out);
  EXPECT_EQ(acts[0].epoch, 2);
}

TEST(ReinitSim, HostLossIsOneEpochChange) {
  // A lost host's ranks die together: one epoch, both restarted with the full failed list, the others
  // told once; then the change commits when every member passed both fences of that epoch.
  EpochCoordinator c(4, -1);
  for (int r = 0; r < 4; ++r) c.on_active(r, true);
  auto acts = c.on_deaths({2, 3});
  EXPECT_EQ(c.epoch(), 1);
  EXPECT_EQ(c.restarts(), 2);
  int restarts = 0, reinits = 0;
  for (const CoordAction& a : acts) {
    if (a.kind == CoordAction::Kind::restart) {
      ++restarts;
      EXPECT_EQ(a.failed, (std::vector<int>{2, 3}));
    }
    if (a.kind == CoordAction::Kind::reinit) {
      ++reinits;
      EXPECT_LT(a.rank, 2);
    }
  }
  EXPECT_EQ(restarts, 2);
  EXPECT_EQ(reinits, 2);
  for (int seq = 1; seq <= 2; ++seq)
    for (int r = 0; r < 4; ++r) c.on_fence(r, 1, seq);
  EXPECT_EQ(c.committed_epoch(), 1);
  // The restart limit counts failures: the lost host is one (both its ranks restart), the next is fatal.
  EpochCoordinator d(4, 1);
  for (int r = 0; r < 4; ++r) d.on_active(r, true);
  auto acts2 = d.on_deaths({2, 3});
  EXPECT_TRUE(std::none_of(acts2.begin(), acts2.end(),
                           [](const CoordAction& a) { return a.kind == CoordAction::Kind::fatal; }));
  auto fatal = d.on_death(0);
  ASSERT_EQ(fatal.size(), 1u);
  EXPECT_EQ(fatal[0].kind, CoordAction::Kind::fatal);
}

}  // namespace
