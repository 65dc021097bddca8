// The agreement board (ft/agree_board.h) over a communicator's shared-memory collective area
// (coll/shm_area.h: each member's agree_done word and its kShmAgreeRing entries). Owned by the
// communicator's FT state (CommFt::board); the area outlives it (a zombie keeps the area while it keeps the
// FT state: FtManager::unregister_comm).
//
// When a communicator has a board (FtManager::board_for): its area is mapped here. The set-up's argument
// (coll/shm_area.cpp): if the set-up succeeded at any member, every member had mapped the segment before
// contributing to the set-up's Allreduce, and keeps it mapped (a member whose set-up then failed keeps the
// area, marked broken). So a member that may go fast (setup_ok) only waits for members that can write their
// entries; a member without the area (set-up failed before mapping) exists only when nobody's set-up
// succeeded, and then nobody goes fast — every member with the area closes its own entry at once.
#pragma once
#include <cstdint>
#include <vector>

#include "coll/shm_area.h"
#include "ft/agree_board.h"

namespace ftmpi::ft {

class ShmBoard final : public AgreeBoard {
 public:
  // `counted`: this member's choice of kind (ft/agree_board.h "Two kinds"); the first member's is stored in
  // the area and taken by everyone.
  ShmBoard(coll::ShmArea& area, bool counted);
  coll::ShmArea& area() { return a_; }

  std::uint64_t state(int r, std::uint64_t j) override {
    return e(r, j).state.load(std::memory_order_seq_cst);  // (a plain load on x86)
  }
  bool cas(int r, std::uint64_t j, std::uint64_t& expected, std::uint64_t desired) override {
    // seq_cst: of two members that CAS and then scan, the later one's scan sees the earlier CAS (the last
    // contributor sees every state contributed and rings the others: ft/agreement.cpp).
    return e(r, j).state.compare_exchange_strong(expected, desired, std::memory_order_seq_cst, std::memory_order_seq_cst);
  }
  BoardEntry entry(int r, std::uint64_t j) override {
    const coll::ShmAgreeEntry& x = e(r, j);
    return BoardEntry{x.total, x.off, x.len, x.words};
  }
  void write(std::uint64_t j, std::uint32_t total, std::uint32_t off, std::span<const std::uint64_t> words) override;
  bool window_open(std::uint64_t j, const RankSet& failed) override;
  void begin(std::uint64_t j) override;
  void finish(std::uint64_t j) override;
  void ring() override;
  void ring_after_cas() override;
  bool counted() const override { return counted_; }
  void step(Agreement& a) override;
  bool arrive(std::uint64_t j, bool closed, bool* any_closed) override;
  void publish(std::uint64_t j, std::uint64_t tag, std::uint32_t total, std::uint32_t off,
               std::span<const std::uint64_t> words, std::uint32_t repeat) override;
  std::uint64_t outcome(std::uint64_t j) override { return o(j).outcome.load(std::memory_order_acquire); }
  BoardEntry result(std::uint64_t j) override {
    const coll::ShmAgreeOutcome& x = o(j);
    if (x.total == kBoardNoResult) return BoardEntry{0, 0, kBoardNoResult, nullptr};
    return BoardEntry{x.total, x.off, x.len, x.words, x.repeated != 0};
  }

 private:
  coll::ShmAgreeEntry& e(int r, std::uint64_t j) { return a_.of(r).agree[j % coll::kShmAgreeRing]; }
  coll::ShmAgreeOutcome& o(std::uint64_t j) { return a_.header().agree_outcome[j % coll::kShmAgreeRing]; }
  void publish_done();
  void prefetch_own(std::uint64_t j);

  coll::ShmArea& a_;
  bool counted_ = false;
  std::vector<std::uint64_t> open_;  // instances begun and not finished here
  std::uint64_t next_ = 0;           // 1 + the last instance begun here
  std::uint64_t min_done_ = 0;       // a lower bound of every live member's done
};

}  // namespace ftmpi::ft
