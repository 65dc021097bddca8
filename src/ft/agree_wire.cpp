#include "ft/agree_wire.h"

#include <cstring>

namespace ftmpi::ft {
namespace {
struct Reader {
  std::span<const std::byte> in;
  std::size_t pos = 0;
  template <class T>
  bool get(T* v) {
    if (in.size() - pos < sizeof(T)) return false;
    std::memcpy(v, in.data() + pos, sizeof(T));
    pos += sizeof(T);
    return true;
  }
  bool get_set(RankSet* s, int comm_size) {
    std::uint32_t n;
    if (!get(&n) || n > static_cast<std::uint32_t>(comm_size)) return false;
    if (n == 0) {  // the common case (no failure known): no allocation
      s->clear();
      return true;
    }
    std::vector<int> v(n);
    for (auto& r : v) {
      std::int32_t x;
      if (!get(&x) || x < 0 || x >= comm_size) return false;
      r = x;
    }
    *s = RankSet(std::move(v));
    return true;
  }
};
}  // namespace

static_assert(sizeof(int) == sizeof(std::int32_t), "rank sets are sent as i32");

std::vector<std::byte> encode(std::uint64_t instance, const AgreeMsg& m) {
  std::vector<std::byte> out;
  encode_into(out, instance, m);
  return out;
}

void encode_into(std::vector<std::byte>& out, std::uint64_t instance, const AgreeMsg& m) {
  // Sized exactly, fields copied in place (this runs once per agreement message).
  const std::size_t n = sizeof(std::uint64_t) + 3 + 3 * sizeof(std::uint32_t) + sizeof(std::int32_t) * (m.view.size() + m.failed.size()) +
                        sizeof(std::uint64_t) * m.value.size();
  out.resize(n);
  std::byte* p = out.data();
  auto put = [&p](const void* src, std::size_t len) {
    if (len != 0) std::memcpy(p, src, len);
    p += len;
  };
  auto put_set = [&](const RankSet& set) {
    const auto k = static_cast<std::uint32_t>(set.size());
    put(&k, sizeof k);
    put(set.ranks().data(), sizeof(std::int32_t) * set.size());
  };
  const auto kind = static_cast<std::uint8_t>(m.kind);
  const std::uint8_t decided = m.decided ? 1 : 0;
  put(&instance, sizeof instance);
  put(&kind, 1);
  put(&decided, 1);
  put(&m.step, 1);
  put_set(m.view);
  const auto words = static_cast<std::uint32_t>(m.value.size());
  put(&words, sizeof words);
  put(m.value.data(), sizeof(std::uint64_t) * m.value.size());
  put_set(m.failed);
}

bool decode(std::span<const std::byte> in, std::uint64_t* instance, AgreeMsg* m, int comm_size) {
  Reader r{in};
  std::uint8_t kind, decided, step;
  if (!r.get(instance) || !r.get(&kind) || !r.get(&decided) || !r.get(&step)) return false;
  if (kind != static_cast<std::uint8_t>(AgreeMsg::Kind::up) && kind != static_cast<std::uint8_t>(AgreeMsg::Kind::down) &&
      kind != static_cast<std::uint8_t>(AgreeMsg::Kind::fast))
    return false;
  m->kind = static_cast<AgreeMsg::Kind>(kind);
  m->decided = decided != 0;
  m->step = step;
  if (!r.get_set(&m->view, comm_size)) return false;
  std::uint32_t words;
  if (!r.get(&words) || words > 4096) return false;
  if (r.in.size() - r.pos < std::size_t{words} * sizeof(std::uint64_t)) return false;
  m->value.resize(words);
  if (words != 0) std::memcpy(m->value.data(), in.data() + r.pos, std::size_t{words} * sizeof(std::uint64_t));
  r.pos += std::size_t{words} * sizeof(std::uint64_t);
  if (!r.get_set(&m->failed, comm_size)) return false;
  return r.pos == in.size();
}

}  // namespace ftmpi::ft
