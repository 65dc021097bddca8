// byte_io.h — trivially copyable values appended to and read from a byte buffer in host order (the wire
// encodings of the agreement-channel and bridge keys, ft/channel_key.cpp and ft/bridge_key.cpp).
//
// Contract: `get_pod` reads sizeof(T) bytes at `at`; the caller has checked that they are inside `in`.
#pragma once

#include <cstddef>
#include <cstring>
#include <span>
#include <type_traits>
#include <vector>

namespace ftmpi::util {

template <class T>
void put_pod(std::vector<std::byte>& out, T v) {
  static_assert(std::is_trivially_copyable_v<T>);
  const auto* p = reinterpret_cast<const std::byte*>(&v);
  out.insert(out.end(), p, p + sizeof v);
}

template <class T>
T get_pod(std::span<const std::byte> in, std::size_t at) {
  static_assert(std::is_trivially_copyable_v<T>);
  T v;
  std::memcpy(&v, in.data() + at, sizeof v);
  return v;
}

}  // namespace ftmpi::util
