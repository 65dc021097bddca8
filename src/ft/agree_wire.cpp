#include "ft/agree_wire.h"

#include <cstring>

namespace ftmpi::ft {
namespace {
template <class T>
void put(std::vector<std::byte>& out, T v) {
  const auto* p = reinterpret_cast<const std::byte*>(&v);
  out.insert(out.end(), p, p + sizeof v);
}
void put_set(std::vector<std::byte>& out, const RankSet& s) {
  put<std::uint32_t>(out, static_cast<std::uint32_t>(s.size()));
  for (int r : s.ranks()) put<std::int32_t>(out, r);
}

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

std::vector<std::byte> encode(std::uint64_t instance, const AgreeMsg& m) {
  std::vector<std::byte> out;
  out.reserve(32 + 4 * (m.view.size() + m.failed.size()) + 8 * m.value.size());
  put<std::uint64_t>(out, instance);
  put<std::uint8_t>(out, static_cast<std::uint8_t>(m.kind));
  put<std::uint8_t>(out, m.decided ? 1 : 0);
  put_set(out, m.view);
  put<std::uint32_t>(out, static_cast<std::uint32_t>(m.value.size()));
  for (std::uint64_t w : m.value) put<std::uint64_t>(out, w);
  put_set(out, m.failed);
  return out;
}

bool decode(std::span<const std::byte> in, std::uint64_t* instance, AgreeMsg* m, int comm_size) {
  Reader r{in};
  std::uint8_t kind, decided;
  if (!r.get(instance) || !r.get(&kind) || !r.get(&decided)) return false;
  if (kind != static_cast<std::uint8_t>(AgreeMsg::Kind::up) && kind != static_cast<std::uint8_t>(AgreeMsg::Kind::down) &&
      kind != static_cast<std::uint8_t>(AgreeMsg::Kind::fast))
    return false;
  m->kind = static_cast<AgreeMsg::Kind>(kind);
  m->decided = decided != 0;
  if (!r.get_set(&m->view, comm_size)) return false;
  std::uint32_t words;
  if (!r.get(&words) || words > 4096) return false;
  m->value.resize(words);
  for (auto& w : m->value)
    if (!r.get(&w)) return false;
  if (!r.get_set(&m->failed, comm_size)) return false;
  return r.pos == in.size();
}

}  // namespace ftmpi::ft
