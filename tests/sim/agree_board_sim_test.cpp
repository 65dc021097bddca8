// Deterministic simulation of the agreement's shared-memory board phase (src/ft/agree_board.h) and its
// fallback to the message-passing agreement (src/ft/agreement.h).
//
// The board is simulated memory shared by the simulated processes (each board operation atomic, as a CAS or
// an aligned load/store is). Every board operation is also a point where the simulator may (a) run another
// process's event first — so scans interleave with other processes' writes and freezes at the granularity of
// single words — or (b) kill the calling process in the middle of its step (the call is abandoned: what it
// wrote stays, nothing after it happens), besides the deaths between events. Each process runs `J`
// agreement instances in sequence on the same board (J > kBoardRing reuses entries: the window). Some
// members may not go fast (a caller with a timeout, a contribution too large): they close their entries.
//
// PASS, per instance: agreement (every survivor decides the same value and failed set), validity (the value
// is the AND of a superset of the survivors' contributions and contains the AND of all; the failed set holds
// only dead processes and every failure a survivor knew when it started), termination (every survivor
// decides; nothing left in flight). Fault-free with every member going fast: every decision is a board
// decision and no message is sent.
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cstdio>
#include <deque>
#include <optional>
#include <random>
#include <string>

#include "ft/agree_board.h"
#include "ft/agreement.h"

namespace {

using ftmpi::ft::AgreeBoard;
using ftmpi::ft::AgreeMsg;
using ftmpi::ft::Agreement;
using ftmpi::ft::Bits;
using ftmpi::ft::BoardEntry;
using ftmpi::ft::kBoardRing;
using ftmpi::ft::kBoardWords;
using ftmpi::ft::RankSet;

struct Killed {};  // thrown from a board operation: the calling process dies mid-step

struct SharedEntry {
  std::uint64_t state = 0;
  std::uint32_t total = 0, off = 0, len = 0;
  std::uint64_t words[kBoardWords] = {};
};

struct SharedOutcome {  // the arrivals word, the outcome word and the value of one ring slot
  std::uint64_t arrivals = 0, outcome = 0;
  std::uint32_t total = 0, off = 0, len = 0;
  bool repeated = false;  // the repeated form: [off, off+len) are all words[0]
  std::uint64_t words[ftmpi::ft::kBoardResultWords] = {};
};

struct World;

// Process `me`'s handle on the shared board (the library's ShmBoard has the same rules).
class SimBoard final : public AgreeBoard {
 public:
  SimBoard(World* w, int me) : w_(w), me_(me) {}
  std::uint64_t state(int r, std::uint64_t j) override;
  bool cas(int r, std::uint64_t j, std::uint64_t& expected, std::uint64_t desired) override;
  BoardEntry entry(int r, std::uint64_t j) override;
  void write(std::uint64_t j, std::uint32_t total, std::uint32_t off, std::span<const std::uint64_t> words) override;
  bool window_open(std::uint64_t j, const RankSet& failed) override;
  void begin(std::uint64_t j) override;
  void finish(std::uint64_t j) override;
  void ring() override {}
  bool counted() const override;
  bool arrive(std::uint64_t j, bool closed, bool* any_closed) override;
  void publish(std::uint64_t j, std::uint64_t tag, std::uint32_t total, std::uint32_t off,
               std::span<const std::uint64_t> words, std::uint32_t repeat) override;
  std::uint64_t outcome(std::uint64_t j) override;
  BoardEntry result(std::uint64_t j) override;

 private:
  World* w_;
  int me_;
  std::vector<std::uint64_t> open_;
  std::uint64_t next_ = 0;
};

struct InFlight {
  int src, dst, inst;
  AgreeMsg msg;
};

struct World {
  int n, J;
  std::mt19937_64 rng;
  std::vector<std::vector<SharedEntry>> entries;  // [member][ring index]
  std::vector<std::uint64_t> done;                // published `done` per member
  std::vector<SharedOutcome> outcomes;             // [ring index]
  std::vector<std::vector<int>> arrived;           // [instance]: how often each member arrived (at most once)
  std::vector<std::uint64_t> published;            // [instance]: outcome words published (at most one)
  std::vector<SimBoard> boards;
  std::vector<std::vector<Agreement>> procs;       // [process][instance]
  std::vector<bool> alive, in_call;
  std::vector<int> cur;                            // instance being worked on (-1: none started)
  std::vector<std::vector<Bits>> contribution;
  std::vector<std::vector<RankSet>> known_at_start;
  std::vector<std::vector<bool>> go_fast;
  std::vector<std::deque<int>> notices;
  std::vector<RankSet> noticed;
  std::vector<InFlight> net;
  std::uint64_t messages = 0, board_ops = 0, steps = 0;
  std::uint64_t repeated_publications = 0;  // decisions published in the repeated form
  int failures = 0, max_failures = 0;
  int interleave_pct = 20, midcall_kill_pct = 0;
  std::int64_t kill_at_op = -1;  // kill the process doing board operation number kill_at_op
  bool counted = true;           // the board's kind (ft/agree_board.h "Two kinds")

  World(int n_, int J_, std::uint64_t seed)
      : n(n_), J(J_), rng(seed), entries(n_, std::vector<SharedEntry>(kBoardRing)), done(n_, 0), outcomes(kBoardRing),
        arrived(J_, std::vector<int>(n_, 0)), published(J_, 0), alive(n_, true),
        in_call(n_, false), cur(n_, -1), contribution(n_, std::vector<Bits>(J_)), known_at_start(n_, std::vector<RankSet>(J_)),
        go_fast(n_, std::vector<bool>(J_, true)), notices(n_), noticed(n_) {
    boards.reserve(n_);
    for (int p = 0; p < n_; ++p) boards.emplace_back(this, p);
    procs.resize(n_);
    for (int p = 0; p < n_; ++p) {
      procs[p].reserve(J_);
      for (int j = 0; j < J_; ++j) procs[p].emplace_back(p, n_, n_ <= 16);
    }
  }

  void collect(int p, int j) {
    for (auto& o : procs[p][j].take_outgoing()) {
      ++messages;
      net.push_back(InFlight{p, o.dest, j, std::move(o.msg)});
    }
  }
  void kill(int p) {
    alive[p] = false;
    ++failures;
    for (int q = 0; q < n; ++q)
      if (q != p && alive[q]) notices[q].push_back(p);
  }

  // Run `f` as process p's step (a kill inside it ends the process).
  template <class F>
  void act(int p, F&& f) {
    in_call[p] = true;
    try {
      f();
      for (int j = 0; j < J; ++j) collect(p, j);
    } catch (const Killed&) {
      for (int j = 0; j < J; ++j) procs[p][j].clear_outgoing();  // never sent
      if (alive[p]) kill(p);
    }
    in_call[p] = false;
  }

  // A board operation by p: maybe die here, maybe let another process act first.
  void board_op(int p) {
    ++board_ops;
    if (!alive[p]) throw Killed{};
    if (kill_at_op >= 0 && static_cast<std::int64_t>(board_ops) == kill_at_op && failures < max_failures) throw Killed{};
    if (failures < max_failures && midcall_kill_pct > 0 && static_cast<int>(rng() % 1000) < midcall_kill_pct) throw Killed{};
    if (depth < 2 && static_cast<int>(rng() % 100) < interleave_pct) {  // bounded: a scan has n operations
      ++depth;
      random_event(p);
      --depth;
    }
  }
  int depth = 0;

  void start(int p) {
    const int j = ++cur[p];
    known_at_start[p][j] = noticed[p];
    act(p, [&] { procs[p][j].start(contribution[p][j], noticed[p], &boards[p], static_cast<std::uint64_t>(j), go_fast[p][j]); });
  }
  void poll(int p) {
    act(p, [&] { procs[p][cur[p]].on_board(); });
  }
  void notice(int p) {
    const int f = notices[p].front();
    notices[p].pop_front();
    noticed[p].insert(f);
    act(p, [&] {
      for (int j = 0; j < J; ++j) procs[p][j].on_failure(f);
    });
  }
  void deliver(std::size_t i) {
    InFlight m = std::move(net[i]);
    net[i] = std::move(net.back());
    net.pop_back();
    if (!alive[m.dst]) return;
    act(m.dst, [&] { procs[m.dst][m.inst].on_message(m.src, m.msg); });
  }

  bool can_start(int p) const { return cur[p] + 1 < J && (cur[p] < 0 || procs[p][cur[p]].decided()); }
  bool can_poll(int p) const { return cur[p] >= 0 && procs[p][cur[p]].on_board_phase(); }

  // One random event of a process other than `busy` (and not in a call); false if none was possible.
  bool random_event(int busy = -1) {
    std::vector<int> starters, pollers, noticers;
    std::vector<std::size_t> msgs;
    for (int p = 0; p < n; ++p) {
      if (!alive[p] || in_call[p] || p == busy) continue;
      if (can_start(p)) starters.push_back(p);
      if (can_poll(p)) pollers.push_back(p);
      if (!notices[p].empty()) noticers.push_back(p);
    }
    for (std::size_t i = 0; i < net.size(); ++i)
      if (!in_call[net[i].dst] && net[i].dst != busy) msgs.push_back(i);
    const std::size_t total = starters.size() + pollers.size() + noticers.size() + msgs.size();
    if (total == 0) return false;
    ++steps;
    std::size_t k = rng() % total;
    if (k < starters.size()) return start(starters[k]), true;
    k -= starters.size();
    if (k < pollers.size()) return poll(pollers[k]), true;
    k -= pollers.size();
    if (k < noticers.size()) return notice(noticers[k]), true;
    k -= noticers.size();
    deliver(msgs[k]);
    return true;
  }

  bool done_all() const {
    for (int p = 0; p < n; ++p) {
      if (!alive[p]) continue;
      if (cur[p] != J - 1 || !procs[p][J - 1].decided() || !notices[p].empty()) return false;
    }
    return net.empty();
  }

  std::optional<std::string> check() const {
    for (int j = 0; j < J; ++j) {
      std::optional<int> ref;
      for (int p = 0; p < n; ++p) {
        if (!alive[p]) continue;
        const Agreement& a = procs[p][j];
        if (!a.decided()) return "survivor " + std::to_string(p) + " did not decide instance " + std::to_string(j);
        if (!ref) {
          ref = p;
          continue;
        }
        const Agreement& b = procs[*ref][j];
        if (a.value() != b.value()) return "instance " + std::to_string(j) + ": value differs between " + std::to_string(*ref) + " and " + std::to_string(p);
        if (!(a.failed() == b.failed())) return "instance " + std::to_string(j) + ": failed set differs";
      }
      if (!ref) continue;
      const Bits& v = procs[*ref][j].value();
      const RankSet& f = procs[*ref][j].failed();
      std::uint64_t all = ~std::uint64_t{0};
      for (int p = 0; p < n; ++p) all &= contribution[p][j][0];
      if (v.empty() || (v[0] & all) != all) return "instance " + std::to_string(j) + ": value misses bits every process contributed";
      for (int p = 0; p < n; ++p) {
        if (alive[p] && (v[0] & ~contribution[p][j][0])) return "instance " + std::to_string(j) + ": value has a bit survivor " + std::to_string(p) + " did not contribute";
        if (alive[p] && !f.includes(known_at_start[p][j])) return "instance " + std::to_string(j) + ": failed set misses a failure known to " + std::to_string(p);
      }
      for (int r : f.ranks())
        if (alive[r]) return "instance " + std::to_string(j) + ": failed set names live process " + std::to_string(r);
      if (failures == 0) {  // every word: the AND of the n contributions (all-ones beyond a shorter one)
        Bits want;
        for (int p = 0; p < n; ++p) {
          const Bits& c = contribution[p][j];
          if (want.size() < c.size()) want.resize(c.size(), ~std::uint64_t{0});
          for (std::size_t i = 0; i < c.size(); ++i) want[i] &= c[i];
        }
        if (v != want) return "instance " + std::to_string(j) + ": fault-free value is not the AND of the contributions";
      }
    }
    return std::nullopt;
  }
};

std::uint64_t SimBoard::state(int r, std::uint64_t j) {
  w_->board_op(me_);
  return w_->entries[r][j % kBoardRing].state;
}
bool SimBoard::cas(int r, std::uint64_t j, std::uint64_t& expected, std::uint64_t desired) {
  w_->board_op(me_);
  std::uint64_t& s = w_->entries[r][j % kBoardRing].state;
  if (s == expected) {
    s = desired;
    return true;
  }
  expected = s;
  return false;
}
BoardEntry SimBoard::entry(int r, std::uint64_t j) {
  w_->board_op(me_);
  const SharedEntry& e = w_->entries[r][j % kBoardRing];
  EXPECT_EQ(e.state, ftmpi::ft::board_state(j, ftmpi::ft::kBoardContributed)) << "entry read that is not j's contribution";
  return BoardEntry{e.total, e.off, e.len, e.words};
}
void SimBoard::write(std::uint64_t j, std::uint32_t total, std::uint32_t off, std::span<const std::uint64_t> words) {
  w_->board_op(me_);
  SharedEntry& e = w_->entries[me_][j % kBoardRing];
  // The window: nobody alive still reads this entry's previous use. (Another member may have closed it for j
  // already: then nobody reads these words.)
  EXPECT_TRUE(ftmpi::ft::board_empty(e.state, j) || e.state == ftmpi::ft::board_state(j, ftmpi::ft::kBoardClosed))
      << "entry of instance " << j << " written after its state " << e.state;
  e.total = total;
  e.off = off;
  e.len = static_cast<std::uint32_t>(words.size());
  std::copy(words.begin(), words.end(), e.words);
}
bool SimBoard::counted() const { return w_->counted; }
bool SimBoard::arrive(std::uint64_t j, bool closed, bool* any_closed) {
  EXPECT_TRUE(w_->counted) << "arrival on a scanned board";
  w_->board_op(me_);
  EXPECT_EQ(++w_->arrived[j][me_], 1) << "member " << me_ << " arrived twice at instance " << j;
  // The member's own state is written, and closed exactly when it says so.
  const std::uint64_t st = w_->entries[me_][j % kBoardRing].state;
  EXPECT_EQ(st, ftmpi::ft::board_state(j, closed ? ftmpi::ft::kBoardClosed : ftmpi::ft::kBoardContributed));
  std::uint64_t& a = w_->outcomes[j % kBoardRing].arrivals;
  const std::uint64_t mine = (a >> 8) == j ? a & 0xff : 0;
  a = (j << 8) | (mine & 0x80) | (closed ? 0x80 : 0) | ((mine & 0x7f) + 1);
  *any_closed = (a & 0x80) != 0;
  return static_cast<int>(a & 0x7f) == w_->n;
}
void SimBoard::publish(std::uint64_t j, std::uint64_t tag, std::uint32_t total, std::uint32_t off,
                       std::span<const std::uint64_t> words, std::uint32_t repeat) {
  w_->board_op(me_);
  SharedOutcome& o = w_->outcomes[j % kBoardRing];
  EXPECT_EQ(w_->published[j], 0u) << "instance " << j << " published twice";
  w_->published[j] = tag;
  // Every member arrived, and the outcome says what the states say (all contributed, or one closed).
  bool all = true;
  for (int r = 0; r < w_->n; ++r) {
    EXPECT_EQ(w_->arrived[j][r], 1) << "published before member " << r << " arrived";
    all = all && w_->entries[r][j % kBoardRing].state == ftmpi::ft::board_state(j, ftmpi::ft::kBoardContributed);
  }
  EXPECT_EQ(tag, ftmpi::ft::board_state(j, all ? ftmpi::ft::kBoardContributed : ftmpi::ft::kBoardClosed));
  o.total = total;
  o.off = off;
  o.len = static_cast<std::uint32_t>(words.size());
  o.repeated = repeat > 0;
  if (repeat > 0) {
    EXPECT_EQ(words.size(), 1u) << "the repeated form stores one word";
    o.len = repeat;
    ++w_->repeated_publications;
  }
  EXPECT_LE(words.size(), static_cast<std::size_t>(ftmpi::ft::kBoardResultWords));
  std::copy(words.begin(), words.end(), o.words);
  o.outcome = tag;
}
std::uint64_t SimBoard::outcome(std::uint64_t j) {
  EXPECT_TRUE(w_->counted) << "outcome read on a scanned board";
  w_->board_op(me_);
  return w_->outcomes[j % kBoardRing].outcome;
}
BoardEntry SimBoard::result(std::uint64_t j) {
  w_->board_op(me_);
  const SharedOutcome& o = w_->outcomes[j % kBoardRing];
  EXPECT_EQ(o.outcome, ftmpi::ft::board_state(j, ftmpi::ft::kBoardContributed)) << "result read that is not j's decision";
  if (o.total == ftmpi::ft::kBoardNoResult) return BoardEntry{0, 0, ftmpi::ft::kBoardNoResult, nullptr};
  return BoardEntry{o.total, o.off, o.len, o.words, o.repeated};
}
bool SimBoard::window_open(std::uint64_t j, const RankSet& failed) {
  w_->board_op(me_);
  if (j < kBoardRing) return true;
  for (int r = 0; r < w_->n; ++r)
    if (!failed.contains(r) && w_->done[r] <= j - kBoardRing) return false;
  return true;
}
void SimBoard::begin(std::uint64_t j) {
  if (next_ == 0) w_->done[me_] = j;
  next_ = std::max(next_, j + 1);
  open_.push_back(j);
}
void SimBoard::finish(std::uint64_t j) {
  open_.erase(std::find(open_.begin(), open_.end(), j));
  w_->done[me_] = open_.empty() ? next_ : *std::min_element(open_.begin(), open_.end());
}

struct Params {
  int n = 4, J = 1, max_failures = 1;
  int kill_pct = 5;           // per event, a death between events (per mille ×10: percent)
  int midcall_kill_pct = 0;   // per mille per board operation
  int slow_pct = 0;           // percent of (process, instance) that do not go fast
  int slot_words = 0;         // > 0: contributions shaped like a TryBlock commit's gather (n slots of this many
                              // words, one's own holding random bits, all-ones elsewhere): long values
  int zero_slot_pct = 0;      // with slot_words: percent of (process, instance) whose slot is all zeros (a
                              // fault-free commit's), so that values of zeros take the repeated form
  std::int64_t kill_at_op = -1;
  int interleave_pct = 20;
  bool counted = true;
};

struct Outcome {
  std::optional<std::string> error;
  std::uint64_t messages = 0, board_ops = 0, repeated_publications = 0;
  bool all_on_board = true;
  int failures = 0;
};

Outcome run(const Params& prm, std::uint64_t seed) {
  World w(prm.n, prm.J, seed);
  w.max_failures = prm.max_failures;
  w.midcall_kill_pct = prm.midcall_kill_pct;
  w.kill_at_op = prm.kill_at_op;
  w.interleave_pct = prm.interleave_pct;
  w.counted = prm.counted;
  for (int p = 0; p < prm.n; ++p)
    for (int j = 0; j < prm.J; ++j) {
      w.contribution[p][j] = Bits{w.rng() | w.rng()};
      if (w.rng() % 7 == 0) w.contribution[p][j].push_back(w.rng() | w.rng() | w.rng());  // 2 words
      if (prm.slot_words > 0) {
        Bits& c = w.contribution[p][j];
        c.assign(static_cast<std::size_t>(prm.n * prm.slot_words), ~std::uint64_t{0});
        const bool zero = static_cast<int>(w.rng() % 100) < prm.zero_slot_pct;
        for (int k = 0; k < prm.slot_words; ++k)
          c[static_cast<std::size_t>(p * prm.slot_words + k)] &= zero ? 0 : w.rng() | (w.rng() & 1);
      }
      w.go_fast[p][j] = static_cast<int>(w.rng() % 100) >= prm.slow_pct;
    }
  Outcome o;
  for (std::uint64_t ev = 0; !w.done_all(); ++ev) {
    if (ev > 2'000'000) {
      o.error = "no termination";
      break;
    }
    std::vector<int> live;
    for (int p = 0; p < prm.n; ++p)
      if (w.alive[p]) live.push_back(p);
    if (w.failures < prm.max_failures && live.size() > 1 && static_cast<int>(w.rng() % 100) < prm.kill_pct) {
      w.kill(live[w.rng() % live.size()]);
      continue;
    }
    if (!w.random_event()) {
      o.error = "stuck: no event possible but not done";
      break;
    }
  }
  if (!o.error) o.error = w.check();
  if (o.error) *o.error += " (n=" + std::to_string(prm.n) + ", J=" + std::to_string(prm.J) + ", seed " + std::to_string(seed) + ")";
  o.messages = w.messages;
  o.board_ops = w.board_ops;
  o.repeated_publications = w.repeated_publications;
  o.failures = w.failures;
  for (int p = 0; p < prm.n; ++p)
    for (int j = 0; j < prm.J; ++j)
      if (w.alive[p] && !w.procs[p][j].decided_on_board()) o.all_on_board = false;
  return o;
}

TEST(AgreeBoardSim, FaultFreeDecidesOnTheBoardWithoutMessages) {
  for (bool counted : {true, false}) {  // both kinds of board (ft/agree_board.h "Two kinds")
  for (int n : {1, 2, 3, 4, 7, 8, 16, 33, 64})
    for (std::uint64_t seed = 0; seed < 20; ++seed) {
      Params p;
      p.counted = counted;
      p.n = n;
      p.J = 12;  // > kBoardRing: entries reused through the window
      p.max_failures = 0;
      p.kill_pct = 0;
      const Outcome o = run(p, seed);
      ASSERT_FALSE(o.error) << *o.error << (counted ? " counted" : " scanned");
      EXPECT_TRUE(o.all_on_board) << "n=" << n << " seed " << seed << (counted ? " counted" : " scanned");
      EXPECT_EQ(o.messages, 0u) << "n=" << n << " seed " << seed << (counted ? " counted" : " scanned");
    }
  }
}

// Long values (a commit's gather): published by the last arriver when the decided value, trimmed, fits the
// outcome (n = 2..16 with 3-word slots), read from the entries by every member otherwise (n = 21, 33).
TEST(AgreeBoardSim, LongValuesThroughTheOutcomeOrTheEntries) {
  for (bool counted : {true, false}) {  // both kinds of board (ft/agree_board.h "Two kinds")
  for (int n : {2, 3, 8, 16, 21, 33})
    for (std::uint64_t seed = 0; seed < 20; ++seed) {
      Params p;
      p.counted = counted;
      p.n = n;
      p.J = 11;
      p.max_failures = seed % 2 == 0 ? 0 : 1;
      p.kill_pct = seed % 2 == 0 ? 0 : 3;
      p.midcall_kill_pct = seed % 4 == 1 ? 20 : 0;
      p.slot_words = 3;
      const Outcome o = run(p, seed);
      ASSERT_FALSE(o.error) << *o.error << (counted ? " counted" : " scanned");
      if (p.max_failures == 0) {
        EXPECT_TRUE(o.all_on_board) << "n=" << n << " seed " << seed << (counted ? " counted" : " scanned");
        EXPECT_EQ(o.messages, 0u) << "n=" << n << " seed " << seed << (counted ? " counted" : " scanned");
      }
    }
  }
}

// A fault-free commit's value is n slots of zeros: published in the repeated form (one word and a count,
// ft/agree_board.h "Cost without failures"), at any length (n = 33: 99 words, more than an outcome holds
// explicitly). Mixed with slots that are not all zeros (then the explicit form or the entries), with and
// without deaths, mid-call deaths included: every survivor decides the same value, the AND of all (checked
// by World::check).
TEST(AgreeBoardSim, ZeroValuesInTheRepeatedForm) {
  std::uint64_t repeated = 0;
  for (int zero_pct : {100, 90})
    for (int n : {2, 3, 8, 16, 21, 33})
      for (std::uint64_t seed = 0; seed < 30; ++seed) {
        Params p;
        p.counted = true;  // (a scanned board has no outcome)
        p.n = n;
        p.J = 11;
        p.max_failures = seed % 2 == 0 ? 0 : 1 + static_cast<int>(seed % 3);
        p.kill_pct = seed % 2 == 0 ? 0 : 3;
        p.midcall_kill_pct = seed % 4 == 1 ? 20 : 0;
        p.slot_words = 3;
        p.zero_slot_pct = zero_pct;
        const Outcome o = run(p, seed * 31 + static_cast<std::uint64_t>(n));
        ASSERT_FALSE(o.error) << *o.error;
        repeated += o.repeated_publications;
        if (p.max_failures == 0) {
          EXPECT_TRUE(o.all_on_board) << "n=" << n << " seed " << seed;
          EXPECT_EQ(o.messages, 0u) << "n=" << n << " seed " << seed;
          if (zero_pct == 100) {
            EXPECT_EQ(o.repeated_publications, static_cast<std::uint64_t>(p.J)) << "n=" << n;
          }
        }
      }
  EXPECT_GT(repeated, 0u);
}

TEST(AgreeBoardSim, MembersThatDoNotGoFastMakeEveryoneFallBack) {
  for (bool counted : {true, false}) {  // both kinds of board (ft/agree_board.h "Two kinds")
  for (int n : {2, 3, 5, 8, 16})
    for (std::uint64_t seed = 0; seed < 200; ++seed) {
      Params p;
      p.counted = counted;
      p.n = n;
      p.J = 10;
      p.max_failures = 0;
      p.kill_pct = 0;
      p.slow_pct = 20;
      const Outcome o = run(p, seed);
      ASSERT_FALSE(o.error) << *o.error << (counted ? " counted" : " scanned");
    }
  }
}

TEST(AgreeBoardSim, RandomSchedulesWithFailures) {
  for (bool counted : {true, false}) {  // both kinds of board (ft/agree_board.h "Two kinds")
  int runs = 0;
  for (int n : {2, 3, 4, 5, 8, 13, 16})
    for (std::uint64_t seed = 0; seed < 600; ++seed) {
      Params p;
      p.counted = counted;
      p.n = n;
      p.J = 1 + static_cast<int>(seed % 11);
      p.max_failures = 1 + static_cast<int>(seed % 3 == 0 ? n / 2 : seed % 2);
      p.kill_pct = static_cast<int>(std::array<int, 3>{1, 3, 10}[seed % 3]);
      p.midcall_kill_pct = static_cast<int>(seed % 4 == 0 ? 20 : 0);
      p.slow_pct = seed % 5 == 0 ? 15 : 0;
      const Outcome o = run(p, seed * 7919 + static_cast<std::uint64_t>(n));
      ASSERT_FALSE(o.error) << *o.error << (counted ? " counted" : " scanned");
      ++runs;
    }
  EXPECT_GT(runs, 0);
  }
}

// A death at every board operation of a fault-free run (the process doing it dies in the middle of its step),
// for several sizes, schedules and instance counts, with and without a second failure later.
TEST(AgreeBoardSim, DeathAtEveryBoardOperation) {
  for (bool counted : {true, false}) {  // both kinds of board (ft/agree_board.h "Two kinds")
  for (int n : {2, 3, 4, 6, 8})
    for (int J : {1, 3, 10})
      for (std::uint64_t seed = 0; seed < 6; ++seed) {
        Params base;
        base.counted = counted;
        base.n = n;
        base.J = J;
        base.max_failures = 0;
        base.kill_pct = 0;
        const Outcome clean = run(base, seed);
        ASSERT_FALSE(clean.error) << *clean.error;
        for (std::int64_t k = 1; k <= static_cast<std::int64_t>(clean.board_ops) + 2; ++k) {
          Params p = base;
          p.kill_at_op = k;
          p.max_failures = (seed % 2 == 0) ? 1 : 2;
          p.kill_pct = (seed % 2 == 0) ? 0 : 1;
          const Outcome o = run(p, seed);
          ASSERT_FALSE(o.error) << *o.error << " (death at board operation " << k << ")";
        }
      }
  }
}

// The same for a commit's all-zero values (the repeated form of the outcome): a death at every board
// operation, the last arriver's publication included, on a counted board.
TEST(AgreeBoardSim, DeathAtEveryBoardOperationZeroValues) {
  for (int n : {2, 3, 5, 8, 16})
    for (int J : {1, 3, 9})
      for (std::uint64_t seed = 0; seed < 3; ++seed) {
        Params base;
        base.counted = true;
        base.n = n;
        base.J = J;
        base.max_failures = 0;
        base.kill_pct = 0;
        base.slot_words = 3;
        base.zero_slot_pct = 100;
        const Outcome clean = run(base, seed);
        ASSERT_FALSE(clean.error) << *clean.error;
        EXPECT_EQ(clean.repeated_publications, static_cast<std::uint64_t>(J));
        for (std::int64_t k = 1; k <= static_cast<std::int64_t>(clean.board_ops) + 2; ++k) {
          Params p = base;
          p.kill_at_op = k;
          p.max_failures = (seed % 2 == 0) ? 1 : 2;
          p.kill_pct = (seed % 2 == 0) ? 0 : 1;
          const Outcome o = run(p, seed);
          ASSERT_FALSE(o.error) << *o.error << " (death at board operation " << k << ")";
        }
      }
}

// Deaths between events at every step of a fault-free run, one process at a time.
TEST(AgreeBoardSim, DeathAtEveryStepBetweenEvents) {
  for (bool counted : {true, false}) {  // both kinds of board (ft/agree_board.h "Two kinds")
  for (int n : {2, 3, 4, 8})
    for (std::uint64_t seed = 0; seed < 10; ++seed) {
      for (int victim = 0; victim < n; ++victim)
        for (int kill_event = 0; kill_event < 40; ++kill_event) {
          World w(n, 2, seed);
          w.counted = counted;
          for (int p = 0; p < n; ++p)
            for (int j = 0; j < 2; ++j) w.contribution[p][j] = Bits{w.rng() | w.rng()};
          w.max_failures = 1;
          int ev = 0;
          std::optional<std::string> err;
          while (!w.done_all()) {
            if (ev++ == kill_event && w.alive[victim]) {
              w.kill(victim);
              continue;
            }
            if (ev > 100000 || !w.random_event()) {
              err = "stuck or no termination";
              break;
            }
          }
          if (!err) err = w.check();
          ASSERT_FALSE(err) << *err << " (n=" << n << " seed " << seed << (counted ? " counted" : " scanned") << " victim " << victim << " at event " << kill_event << ")";
        }
    }
  }
}

}  // namespace
