// Which way the bytes of a shared-memory rendezvous take, chosen per peer and size by measurement.
//
// Model. Once a receive matched a request-to-send, the receiver can move the data two ways:
//   single copy (Way::cma)  — it reads the sender's buffer itself with process_vm_readv and answers fin:
//                             one copy, made by the receiver's core alone, plus a fixed cost per call
//                             (syscall, pinning the pages);
//   pipelined (Way::ring)   — it answers cts and the sender streams data frames through the shared ring:
//                             two copies, but made at the same time on both cores (the sender fills cell
//                             k+1 while the receiver empties cell k), through cells that stay in cache.
//   split (Way::split)      — the receiver reads the first half while the sender writes the second half into
//                             the receiver's buffer (process_vm_writev): one copy, both cores at once, each
//                             inside its own cache (p2p/rndv_split.h, with its safety argument).
// Which is faster depends on where the two cores are. When they share a cache (one L3), a cell passes
// from one core to the other at cache speed and the pipeline, with both cores copying, runs 2-3x faster
// than the single copy. When they do not (two CCDs or sockets, or a VM whose vCPUs the host moves), every
// cell crosses the interconnect while the single copy, whose source a streaming sender does not rewrite,
// reads from the receiver's own cache: there the single copy is 1.5-2x faster. On this project's 2-vCPU
// VM both happen, switching within minutes (core-to-core latency 60 ns vs 250 ns; docs/performance.md,
// "Streaming bandwidth"), and the guest's cache topology does not tell which. So the receiver measures.
//
// Algorithm. Per peer:
//   * cma:  time per byte of each process_vm_readv, per size class (powers of two from 16 KiB; the fixed
//           cost per call weighs on small messages), the receiver's own clock around the call;
//   * ring: time per byte of each pipelined message, up to its last data frame, from the completion of
//           the previous one when earlier pipelined messages from that peer were still arriving at its
//           clear-to-send (the sender streams them in order, so the pipeline was busy until then), else
//           from its first data frame. End to end on purpose: in a stream the receiver's own copy out of a
//           cell is not the limit when the cells cross the interconnect (it measured 13 GB/s where the
//           pipeline gave 5). A lone message is timed from its first frame, not from the clear-to-send:
//           a message tried while the single copy wins has its frames behind the other messages' requests
//           to send (each read by the receiver first), which would make the ring look many times slower
//           than it is and never win back. Timed so, a lone message may look faster than a stream (its
//           frames can all be in the ring already): then the ring wins, its stream samples come in, and
//           it loses again within kWindow/2 + 1 messages if it really is slower. Each such lost trial
//           doubles that class's exploration period (kExplore up to kExploreMax), so where the ring is
//           slower the trials soon cost nothing, and a change of placement is still noticed within a few
//           thousand messages.
//   * split: time per byte of each split message, per size class: the longer of the receiver's read of its
//           part (its clock around the call) and the sender's write of the other (the sender's clock around
//           its call, reported in its answer). Not timed from clear-to-send to answer: the receiver handles
//           the answers in bursts, behind the other messages' requests to send, so that time says little.
//           What the split way costs a receiver that later reads its data (half of it is in the sender's
//           cache) is not timed either; kSplitOverRing keeps the ring where the ring wins.
//   Each estimate is the median of the last kWindow samples (a copy interrupted by the scheduler gives
//   one huge sample, which the median ignores). choose(n): a way without any sample is tried first
//   (single copy first: it needs nothing from the sender), once, in a burst (below), while the others
//   go on with what is known until its samples come in; otherwise the lower estimate wins (the ring's
//   weighted by kRingHandicap), and the
//   losers are taken in turn once every `period` decisions of the size class so that their estimates
//   follow a change of placement; the period starts at kExplore and doubles with every exploration up to
//   kExploreMax (a lone ring message in slow placement costs ten split ones), and falls back to kExplore
//   when the winner's own estimate moves by more than kShift (the placement changed). Every try of a way
//   is a burst of consecutive decisions (kBurst; the ring kRingBurst): a way's first message after
//   messages of another way pays for the other's placement of the buffers in the caches (kBurst's
//   comment), so only a burst's later samples, which the median keeps, say what the way streams at.
// Safety: none needed here — every way is a complete protocol (engine_recv.cpp; the split way's own
// argument is in rndv_split.h); this only picks one. A wrong pick costs speed, never data.
// Cost: two or three timestamp reads per rendezvous message, a sort of kWindow values per sample.
#pragma once
#include <array>
#include <chrono>
#include <cstddef>
#include <cstdint>

#if defined(__x86_64__) || defined(__i386__)
#include <x86intrin.h>
#endif

namespace ftmpi::p2p {

// A cheap monotonic tick count (the TSC on x86; nanoseconds elsewhere). Only ratios of tick counts taken
// in the same process are compared, so the unit does not matter.
inline std::uint64_t rndv_ticks() {
#if defined(__x86_64__) || defined(__i386__)
  return __rdtsc();
#else
  return static_cast<std::uint64_t>(std::chrono::steady_clock::now().time_since_epoch().count());
#endif
}

enum class Way : std::uint8_t { cma, ring, split };

class RndvPath {
 public:
  static constexpr int kWindow = 5;              // samples per estimate (median)
  // Where the ring wins over the single copy (the cores share a cache), the split way must be this much
  // faster than the ring to replace it: the ring leaves the whole message in the receiver's cache, the
  // split way half of it in the sender's, and a receiver that reads its data pays for that (bandwidth.c
  // with BW_READ=1, fast placement: ring 22 GB/s, split 11; docs/performance.md), which no timing of the
  // transfer shows.
  static constexpr double kSplitOverRing = 2.0;
  static constexpr int kExplore = 32;            // decisions of a class between two tries of the loser
  static constexpr int kExploreMax = 4096;       // ... at most, after repeated lost trials of the ring
  // The ring wins only when its estimate times this is still below the single copy's: a lone pipelined
  // message (how the ring is explored while the single copy wins) measured 20-30 % faster than the same
  // messages streamed; and the single copy needs nothing from the sender, so it keeps ties.
  static constexpr double kRingHandicap = 1.4;
  static constexpr double kShift = 1.5;          // a change of the winner's estimate that resets the period
  // A way is tried for kBurst consecutive decisions of its class (the ring kRingBurst), not one: a lone
  // message of a way among messages of another measures the other's state of the caches, not its own. A
  // lone split message in a stream of single copies finds the receiver's buffer in the receiver's cache,
  // and the sender's write pulls every line across (slow placement: 0.5 ticks/byte measured against 0.13
  // for the same way streamed, which then lost to the single copy's 0.2 although it moves 1.7x its rate);
  // from the second message of a burst on, the sender's part is where the previous one left it. The median
  // of kWindow then holds only the burst's later samples. The ring's burst is shorter: in slow placement a
  // ring message costs ten split ones.
  static constexpr int kBurst = 8;
  static constexpr int kRingBurst = 4;
  // The single copy's burst is longer for small messages: its reads made in one poll share one system call
  // and one timing (Engine::Impl::flush_reads: up to 16 reads or 512 KiB), so a burst's first batch, timed
  // together with the cold reads at its start, says nothing, and only a batch that began after an earlier
  // single copy is taken as a sample (cma_run()); the burst leaves room for one more batch: 24 at 32 KiB,
  // 12 at 64 KiB, kBurst from 128 KiB.
  static constexpr int kCmaBurst = 24;
  static constexpr int cma_burst(int cls) {
    if (cls <= 1) return kCmaBurst;
    const int per_batch = cls >= 6 ? 1 : 16 >> (cls - 1);  // reads of 512 KiB
    const int b = per_batch + per_batch / 2;
    return b > kBurst ? b : kBurst;
  }
  static constexpr int kClasses = 10;            // size classes: 16 KiB, 32 KiB, ... 8 MiB and more
  static constexpr std::size_t kMinRingSample = 4096;  // smaller messages say little about the rate

  // The way for a message of `bytes` bytes (the receive's length); `split_ok`: the split way may be taken
  // (the transport writes remotely, the receive is contiguous and large enough).
  Way choose(std::size_t bytes, bool split_ok = false) {
    const Way w = decide(bytes, split_ok);
    ++classes_[class_of(bytes)].picks[static_cast<std::size_t>(w)];
    if (w != Way::cma)
      cma_run_ = 0;
    else if (cma_run_ < (1 << 30))
      ++cma_run_;
    return w;
  }
  // Consecutive single copies chosen from this peer up to and including the last choice (any size class).
  // A batch of reads whose first was chosen with cma_run() > 1 began behind an earlier single copy, whose
  // read put the buffers where a stream of single copies keeps them: its timing is a sample; a batch that
  // opens a burst (the caches as another way left them) is not recorded.
  int cma_run() const { return cma_run_; }
  // How often choose() returned `w` for the size class of `bytes` (diagnostics: FTMPI_RNDV_DEBUG).
  std::uint64_t picks(std::size_t bytes, Way w) const {
    return classes_[class_of(bytes)].picks[static_cast<std::size_t>(w)];
  }
  // A split receive of `bytes` found no free gate slot and took the single copy (diagnostics).
  void note_split_fallback(std::size_t bytes) { ++classes_[class_of(bytes)].split_fallbacks; }
  std::uint64_t split_fallbacks(std::size_t bytes) const { return classes_[class_of(bytes)].split_fallbacks; }
  std::uint64_t resets(std::size_t bytes) const { return classes_[class_of(bytes)].resets; }
  // Gate words of this sender given back before the answer (rndv_gate.h returned(); diagnostics).
  void note_gates_returned(std::uint64_t n) { gates_returned_ += n; }
  std::uint64_t gates_returned() const { return gates_returned_; }
  // One batched single-copy call read `n` messages (Engine::Impl::flush_reads; diagnostics).
  void note_read_batch(std::uint64_t n) {
    ++read_batches_;
    batched_reads_ += n;
  }
  std::uint64_t read_batches() const { return read_batches_; }
  std::uint64_t batched_reads() const { return batched_reads_; }

 private:
  struct Class;
  Way decide(std::size_t bytes, bool split_ok) {
    Class& c = classes_[class_of(bytes)];
    ++c.decisions;
    if (c.burst_left > 0 && (c.burst_way != Way::split || split_ok)) {
      --c.burst_left;
      return c.burst_way;
    }
    if (c.cma.count == 0) return Way::cma;
    // A way without a sample is tried once; while that trial is in flight (its sample comes with its end,
    // possibly after a whole window of other messages was matched) the others go on with what is known —
    // not every message of the window the untried way (in slow placement a window of 64 ring messages of
    // 1 MiB cost 30 ms, a third of a benchmark's size step). A trial that ended without a sample (declined,
    // failed) is repeated after kExplore decisions.
    if (split_ok && c.split.count == 0 &&
        (c.split_trial_at == 0 || c.decisions - c.split_trial_at >= static_cast<std::uint64_t>(kExplore))) {
      c.split_trial_at = c.decisions;
      return burst(c, Way::split);
    }
    if (ring_.count == 0 && ring_inflight_ == 0) return burst(c, Way::ring);
    const bool have_ring = ring_.count > 0;
    const bool have_split = split_ok && c.split.count > 0;
    Way best = have_ring && ring_.estimate() * kRingHandicap < c.cma.estimate() ? Way::ring : Way::cma;
    const double split_cost = c.split.estimate();
    if (have_split && (best == Way::ring ? split_cost * kSplitOverRing < ring_.estimate() * kRingHandicap
                                         : split_cost < c.cma.estimate()))
      best = Way::split;
    if (best != Way::ring && c.last == Way::ring && c.period < kExploreMax) c.period *= 2;  // a trial lost
    c.last = best;
    // The winner (the ring or the split way: both copy across the two cores) got slower by more than kShift
    // since the last exploration: the placement changed, explore soon again. Not when it got faster (the
    // losers are further behind then), and not for the single copy, which copies within the receiver's
    // core whatever the placement: batched single copies (kCmaBurst's comment) swing by that much from
    // sample to sample — more so right after a burst of ring messages, whose frames still stream in — and
    // each restart cost a burst of ring messages every kExplore decisions: in slow placement, where a ring
    // message costs 7 single copies, 5-8 % of a 32 KiB stream went through the ring (7-27 restarts in
    // 17000 messages) and cost a fifth of its rate.
    const double now_est = best == Way::cma ? c.cma.estimate() : best == Way::ring ? ring_.estimate() : split_cost;
    if (best != Way::cma && c.explored_at > 0 && best == c.explored_best && now_est > c.explored_at * kShift) {
      c.period = kExplore;
      ++c.resets;
      c.explored_at = now_est;
      c.explored_best = best;
    }
    if (++c.since_explore >= c.period) {
      c.since_explore = 0;
      // Every exploration doubles the period (up to kExploreMax): a loser is tried ever more rarely while
      // nothing changes (a ring message in slow placement costs as much as 10 split ones).
      if (c.period < kExploreMax) c.period *= 2;
      c.explored_at = now_est;
      c.explored_best = best;
      // the losers in turn
      Way losers[2];
      int k = 0;
      for (Way w : {Way::cma, Way::ring, Way::split})
        if (w != best && (w != Way::split || split_ok)) losers[k++] = w;
      return burst(c, losers[(c.turn++) % k]);
    }
    return best;
  }
  // Try `w` for this and the next few decisions of the class (see kBurst, kRingBurst, kCmaBurst).
  Way burst(Class& c, Way w) {
    const int cls = static_cast<int>(&c - classes_.data());
    c.burst_way = w;
    c.burst_left = (w == Way::ring ? kRingBurst : w == Way::cma ? cma_burst(cls) : kBurst) - 1;
    return w;
  }

 public:
  // A single-copy read of `bytes` took `ticks`.
  void record_cma(std::size_t bytes, std::uint64_t ticks) {
    if (bytes > 0) classes_[class_of(bytes)].cma.add(per_byte(bytes, ticks));
  }
  // A split message of `bytes` bytes: the receiver's read of its part took `head_ticks`, the sender's write
  // of its part `tail_ticks` (the sender's clock, reported in its answer: the same tick rate on one host);
  // the two run at once, so the message cost the longer of them.
  void record_split(std::size_t bytes, std::uint64_t head_ticks, std::uint64_t tail_ticks) {
    if (bytes > 0) classes_[class_of(bytes)].split.add(per_byte(bytes, head_ticks > tail_ticks ? head_ticks : tail_ticks));
  }
  // A pipelined receive from this peer sent its clear-to-send at `now`.
  void ring_begin(std::uint64_t now) {
    if (ring_inflight_++ == 0) {
      ring_mark_ = now;
      ring_lone_ = true;  // timed from its first data frame
    }
  }
  // The first data frame of a pipelined receive from this peer arrived at `now` (before its copy).
  void ring_first_data(std::uint64_t now) {
    if (ring_lone_) ring_mark_ = now;
    ring_lone_ = false;
  }
  // That receive got its last byte (`bytes` in all) at `now`: one sample. Call ring_end() after it.
  void ring_complete(std::size_t bytes, std::uint64_t now) {
    if (ring_inflight_ == 0) return;
    if (bytes >= kMinRingSample && now > ring_mark_) ring_.add(per_byte(bytes, now - ring_mark_));
    ring_mark_ = now;
    ring_lone_ = false;
  }
  // A pipelined receive ended (completed, failed or aborted).
  void ring_end() {
    if (ring_inflight_ > 0) --ring_inflight_;
  }
  int ring_inflight() const { return ring_inflight_; }

  // Estimates in ticks per byte (tests, diagnostics); 0 when there is no sample.
  double cma_estimate(std::size_t bytes) const { return classes_[class_of(bytes)].cma.estimate(); }
  double ring_estimate() const { return ring_.estimate(); }
  double split_estimate(std::size_t bytes) const { return classes_[class_of(bytes)].split.estimate(); }

  static int class_of(std::size_t bytes) {
    int c = 0;
    for (std::size_t b = bytes >> 15; b != 0 && c < kClasses - 1; b >>= 1) ++c;  // < 32 KiB: class 0
    return c;
  }

 private:
  static double per_byte(std::size_t bytes, std::uint64_t ticks) {
    return static_cast<double>(ticks) / static_cast<double>(bytes);
  }
  struct Estimate {
    std::array<double, kWindow> v{};
    int count = 0;  // samples taken (saturates at kWindow)
    int next = 0;
    void add(double x) {
      v[static_cast<std::size_t>(next)] = x;
      next = next + 1 == kWindow ? 0 : next + 1;
      if (count < kWindow) ++count;
    }
    double estimate() const {
      if (count == 0) return 0;
      double s[kWindow] = {};
      for (int i = 0; i < count; ++i) {  // insertion sort of at most kWindow values
        int j = i;
        for (; j > 0 && s[j - 1] > v[static_cast<std::size_t>(i)]; --j) s[j] = s[j - 1];
        s[j] = v[static_cast<std::size_t>(i)];
      }
      return s[count / 2];
    }
  };
  struct Class {
    Estimate cma;
    Estimate split;
    unsigned turn = 0;      // which loser the next exploration tries
    int since_explore = 0;
    int period = kExplore;  // decisions between two tries of the loser (doubles when the ring lost again)
    Way last = Way::cma;    // the winner at the previous decision
    double explored_at = 0; // the winner's estimate at the last exploration
    Way explored_best = Way::cma;  // ... and which way it was
    std::array<std::uint64_t, 3> picks{};  // choose()'s answers by Way (diagnostics)
    std::uint64_t split_fallbacks = 0;     // split chosen, no gate slot free: single copy (diagnostics)
    std::uint64_t resets = 0;              // exploration periods restarted by kShift (diagnostics)
    std::uint64_t decisions = 0;           // decide() calls of this class
    Way burst_way = Way::cma;              // the way being tried ...
    int burst_left = 0;                    // ... for this many more decisions
    std::uint64_t split_trial_at = 0;      // `decisions` when the split way was last tried without a sample
  };
  std::array<Class, kClasses> classes_{};
  Estimate ring_;
  std::uint64_t gates_returned_ = 0;  // diagnostics (note_gates_returned)
  int cma_run_ = 0;                   // cma_run()
  std::uint64_t read_batches_ = 0;    // diagnostics (note_read_batch)
  std::uint64_t batched_reads_ = 0;
  int ring_inflight_ = 0;         // pipelined receives from this peer between cts and their end
  std::uint64_t ring_mark_ = 0;   // when the pipeline last became busy for the next one to complete
  bool ring_lone_ = false;        // the oldest in flight began with nothing ahead: mark at its first frame
};

}  // namespace ftmpi::p2p
