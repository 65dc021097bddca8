// A POSIX shared-memory segment mapped into this process (RAII). Knows nothing of rings; shm_layout.h
// says what the bytes mean.
#pragma once
#include <cstddef>
#include <string>

#include "util/status.h"

namespace ftmpi::transport::shm {

class Segment {
 public:
  Segment() = default;
  ~Segment();
  Segment(Segment&& o) noexcept;
  Segment& operator=(Segment&& o) noexcept;
  Segment(const Segment&) = delete;
  Segment& operator=(const Segment&) = delete;

  // Create a new segment `name` ("/..." as shm_open wants) of `bytes` bytes, zero-filled and unpopulated
  // (pages are allocated on first touch). Fails (Errc::other, message) if the name exists already.
  // The created segment owns its name: the destructor unlinks it unless unlink_name() ran before.
  static Result<Segment> create(const std::string& name, std::size_t bytes);
  // Map an existing segment read-write. Its size must be at least `min_bytes`.
  static Result<Segment> open(const std::string& name, std::size_t min_bytes);

  // Remove the name from /dev/shm (the mapping stays valid). Idempotent; only for created segments.
  void unlink_name();

  // Allocate the backing pages of [offset, offset + len) now (fallocate), so that a full /dev/shm is an
  // error here instead of a SIGBUS at the first store into those pages. Errc::no_mem when it is full.
  Status reserve(std::size_t offset, std::size_t len);

  std::byte* base() const { return base_; }
  std::size_t size() const { return size_; }
  const std::string& name() const { return name_; }

 private:
  void release();

  std::byte* base_ = nullptr;
  std::size_t size_ = 0;
  std::string name_;
  bool owns_name_ = false;
  int fd_ = -1;  // kept open for reserve()
};

// "/ftmpi-<job>-<rank>", with characters other than [A-Za-z0-9_.-] in the job id replaced by '_'.
std::string segment_name(const std::string& job_id, int rank);

}  // namespace ftmpi::transport::shm
