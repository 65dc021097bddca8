// Process ids across jobs (dynamic processes, src/dpm/dpm.h).
//
// A *universe* is everything one mpiexec started (its first job part and every spawned part). Its
// processes have ids slot·2^16 + i, i < 2^16: `slot` is 0 for an mpiexec without a name service, and
// 1..kMaxSlots-1 for one started with `--name-service DIR` (dpm/name_dir.h: the slot is claimed in DIR for
// mpiexec's lifetime, so two universes that meet through DIR never share an id). mpiexec itself numbers
// its processes 0..2^16-1 (the local id); a process translates at its boundary with mpiexec (dpm requests,
// failure notices) by adding or removing its universe's base.
#pragma once

namespace ftmpi::dpm {

inline constexpr int kSlotShift = 16;
inline constexpr int kIdsPerUniverse = 1 << kSlotShift;
inline constexpr int kMaxSlots = 64;
// Every process id of every universe that can meet: 0 .. kMaxProcesses-1.
inline constexpr int kMaxProcesses = kIdsPerUniverse * kMaxSlots;

inline constexpr int slot_of(int id) { return id >> kSlotShift; }
inline constexpr int universe_base(int slot) { return slot << kSlotShift; }

}  // namespace ftmpi::dpm
