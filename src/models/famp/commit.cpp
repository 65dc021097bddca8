#include "models/famp/commit.h"

#include <algorithm>
#include <bit>
#include <cstring>

namespace ftmpi::famp {

namespace {
constexpr std::uint64_t kAbsent = std::uint64_t{1} << 63;  // top bit of a slot's first word
}

Bits encode(const CommitLayout& l, int me, const Contribution& c) {
  Bits v;
  encode_into(v, l, me, c);
  return v;
}

void encode_into(Bits& v, const CommitLayout& l, int me, const Contribution& c) {
  v.assign(l.words(), ~std::uint64_t{0});
  if (me < 0 || me >= l.size) return;
  const std::size_t base = static_cast<std::size_t>(me) * l.slot_words();
  v[base] = c.flags;  // present: top bit clear
  v[base + 1] = static_cast<std::uint32_t>(c.raised_code);
  if (l.rank_words() == 1)  // below 65 members (a store, not a memset call)
    v[base + 2] = 0;
  else
    std::fill_n(&v[base + 2], l.rank_words(), std::uint64_t{0});
  for (int r : c.declared_failed)
    if (r >= 0 && r < l.size)
      v[base + 2 + static_cast<std::size_t>(r) / 64] |= std::uint64_t{1} << (r % 64);
  const std::size_t ib = base + 2 + l.rank_words();
  if (l.inj_words() > 0) std::fill_n(&v[ib], l.inj_words(), std::uint64_t{0});
  if (l.inj_bytes > 0 && !c.injection.empty())
    std::memcpy(&v[ib], c.injection.data(), std::min(l.inj_bytes, c.injection.size()));
}

CommitOutcome decode(const CommitLayout& l, const Bits& value, const RankSet& agreed_failed) {
  CommitOutcome o;
  decode_into(o, l, value, agreed_failed);
  return o;
}

void decode_general(CommitOutcome& o, const CommitLayout& l, const Bits& value, const RankSet& agreed_failed) {
  o.flags = 0;
  const auto n = static_cast<std::size_t>(l.size);
  // Fault-free: every member contributed an all-zero slot (no flag, no code, no declared failure, zero
  // injection), so the value is all zeros and nobody failed — the general loop below would find the same.
  std::uint64_t any = 0;  // (an OR over the words: no early exit, the value is all zeros in the common case)
  for (const std::uint64_t w : value) any |= w;
  if (agreed_failed.empty() && value.size() == l.words() && any == 0) {
    if (o.clean_size != l.size || o.clean_inj != l.inj_bytes) {
      o.contributed.assign(n, true);
      o.raised_code.assign(n, 0);
      o.gathered.assign(n * l.inj_bytes, std::byte{0});
      o.clean_size = l.size;
      o.clean_inj = l.inj_bytes;
    }
    o.failed.clear();
    o.cls = CommitClass::success;
    o.try_flag = true;
    return;
  }
  o.clean_size = -1;
  o.contributed.assign(n, false);
  o.raised_code.assign(n, 0);
  o.gathered.assign(n * l.inj_bytes, std::byte{0});
  o.failed = agreed_failed;
  for (std::size_t r = 0; r < n; ++r) {
    const std::size_t base = r * l.slot_words();
    if (base + l.slot_words() > value.size() || (value[base] & kAbsent)) continue;
    o.contributed[r] = true;
    o.flags |= static_cast<std::uint32_t>(value[base]);
    o.raised_code[r] = static_cast<int>(static_cast<std::uint32_t>(value[base + 1]));
    for (std::size_t w = 0; w < l.rank_words(); ++w)
      for (std::uint64_t bits = value[base + 2 + w]; bits != 0; bits &= bits - 1) {  // set bits only
        const int fr = static_cast<int>(w * 64) + std::countr_zero(bits);
        if (fr < l.size) o.failed.insert(fr);
      }
    if (l.inj_bytes > 0) {
      std::memcpy(&o.gathered[r * l.inj_bytes], &value[base + 2 + l.rank_words()], l.inj_bytes);
      bool nonzero = false;
      for (std::size_t k = 0; k < l.inj_bytes; ++k) nonzero |= o.gathered[r * l.inj_bytes + k] != std::byte{0};
      if (nonzero) o.flags |= kFlagInjection;
    }
  }
  const bool task = !o.failed.empty() || (o.flags & kFlagProc);
  const bool comm = o.flags & kFlagComm;
  const bool inj = o.flags & (kFlagRaised | kFlagInner | kFlagInjection);
  const bool tmo = o.flags & kFlagTimeout;
  const bool unm = o.flags & kFlagUnmodeled;
  const int kinds = int{task} + int{comm} + int{inj} + int{tmo} + int{unm};
  if (kinds == 0)
    o.cls = CommitClass::success;
  else if (kinds > 1)
    o.cls = CommitClass::multiple_faults;
  else if (task)
    o.cls = CommitClass::task_fault;
  else if (comm)
    o.cls = CommitClass::communication_fault;
  else if (inj)
    o.cls = CommitClass::local_error_injection;
  else if (tmo)
    o.cls = CommitClass::timeout;
  else
    o.cls = CommitClass::unmodeled;
  o.try_flag = o.cls == CommitClass::success;
}

CommitOutcome to_view(const InterView& v, const CommitOutcome& o, std::size_t inj_bytes) {
  CommitOutcome out = o;
  const auto n = static_cast<std::size_t>(v.size());
  if (o.contributed.size() != n) return out;
  out.failed = RankSet();
  for (int r : o.failed.ranks())
    if (r >= 0 && r < v.size()) out.failed.insert(v.to_view(r));
  for (int s = 0; s < v.size(); ++s) {
    const auto w = static_cast<std::size_t>(v.to_view(s));
    const auto su = static_cast<std::size_t>(s);
    out.contributed[w] = o.contributed[su];
    out.raised_code[w] = o.raised_code[su];
    if (inj_bytes > 0)
      std::memcpy(&out.gathered[w * inj_bytes], &o.gathered[su * inj_bytes], inj_bytes);
  }
  return out;
}

Bits TryCommit::contribute(const Contribution& c) {
  Bits v;
  contribute_into(v, c);
  return v;
}

void TryCommit::contribute_into(Bits& out, const Contribution& c) {
  phase_ = Phase::agreeing;
  encode_into(out, layout_, me_, c);
}

void TryCommit::on_deadline() {
  if (phase_ == Phase::agreeing) phase_ = Phase::timed_out;
}

}  // namespace ftmpi::famp
