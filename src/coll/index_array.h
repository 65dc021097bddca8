// The per-rank count and displacement arrays of the v/w collectives as the builders read them: either the
// int arrays of the MPI-3.1 functions or the 64-bit arrays (MPI_Count counts, MPI_Aint displacements) of the
// MPI-4.0 large-count _c forms, so one builder serves both and a single entry may exceed INT_MAX (elements,
// or bytes for Alltoallw). A view, not a copy: the caller's array must outlive the build (builders read
// their arrays at build time only; persistent requests keep copies, api/coll_persistent.h).
#pragma once
#include <cstddef>

namespace ftmpi::coll {

class IndexArray {
 public:
  IndexArray() = default;
  IndexArray(std::nullptr_t) {}  // NOLINT(google-explicit-constructor): NULL stays NULL
  IndexArray(const int* a) : p_(a), kind_(a ? Kind::i32 : Kind::none) {}                // NOLINT
  IndexArray(const long* a) : p_(a), kind_(a ? Kind::l64 : Kind::none) {}               // NOLINT
  IndexArray(const long long* a) : p_(a), kind_(a ? Kind::ll64 : Kind::none) {}         // NOLINT

  // Entry i (the array must not be null).
  long long operator[](std::size_t i) const {
    switch (kind_) {
      case Kind::i32: return static_cast<const int*>(p_)[i];
      case Kind::l64: return static_cast<const long*>(p_)[i];
      case Kind::ll64: return static_cast<const long long*>(p_)[i];
      case Kind::none: break;
    }
    return 0;
  }
  long long operator[](int i) const { return (*this)[static_cast<std::size_t>(i)]; }
  bool null() const { return kind_ == Kind::none; }
  explicit operator bool() const { return !null(); }

 private:
  enum class Kind : unsigned char { none, i32, l64, ll64 };
  const void* p_ = nullptr;
  Kind kind_ = Kind::none;
};

}  // namespace ftmpi::coll
