#include "transport/shm/shm_segment.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <utility>

namespace ftmpi::transport::shm {

namespace {
Status sys_error(const char* what, const std::string& name, int err) {
  return Status(Errc::other, std::string("shm: ") + what + " " + name + ": " + std::strerror(err));
}
}  // namespace

Segment::~Segment() { release(); }

Segment::Segment(Segment&& o) noexcept
    : base_(std::exchange(o.base_, nullptr)),
      size_(std::exchange(o.size_, 0)),
      name_(std::move(o.name_)),
      owns_name_(std::exchange(o.owns_name_, false)),
      fd_(std::exchange(o.fd_, -1)) {}

Segment& Segment::operator=(Segment&& o) noexcept {
  if (this != &o) {
    release();
    base_ = std::exchange(o.base_, nullptr);
    size_ = std::exchange(o.size_, 0);
    name_ = std::move(o.name_);
    owns_name_ = std::exchange(o.owns_name_, false);
    fd_ = std::exchange(o.fd_, -1);
  }
  return *this;
}

void Segment::release() {
  unlink_name();
  if (base_ != nullptr) ::munmap(base_, size_);
  if (fd_ >= 0) ::close(fd_);
  fd_ = -1;
  base_ = nullptr;
  size_ = 0;
}

void Segment::unlink_name() {
  if (owns_name_) ::shm_unlink(name_.c_str());
  owns_name_ = false;
}

Result<Segment> Segment::create(const std::string& name, std::size_t bytes) {
  int fd = ::shm_open(name.c_str(), O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
  if (fd < 0) return sys_error("cannot create", name, errno);
  Segment s;
  s.name_ = name;
  s.owns_name_ = true;  // from here on, every failure path unlinks
  if (::ftruncate(fd, static_cast<off_t>(bytes)) != 0) {
    int err = errno;
    ::close(fd);
    return sys_error("cannot size", name, err);
  }
  s.fd_ = fd;
  void* p = ::mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
  if (p == MAP_FAILED) return sys_error("cannot map", name, errno);
  s.base_ = static_cast<std::byte*>(p);
  s.size_ = bytes;
  return s;
}

Result<Segment> Segment::open(const std::string& name, std::size_t min_bytes) {
  int fd = ::shm_open(name.c_str(), O_RDWR | O_CLOEXEC, 0);
  if (fd < 0) return sys_error("cannot open", name, errno);
  struct stat st {};
  if (::fstat(fd, &st) != 0 || static_cast<std::size_t>(st.st_size) < min_bytes) {
    ::close(fd);
    return Status(Errc::other, "shm: segment " + name + " is smaller than its header says");
  }
  std::size_t bytes = static_cast<std::size_t>(st.st_size);
  Segment s;
  s.fd_ = fd;
  s.name_ = name;
  void* p = ::mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
  if (p == MAP_FAILED) return sys_error("cannot map", name, errno);
  s.base_ = static_cast<std::byte*>(p);
  s.size_ = bytes;
  return s;
}

Status Segment::reserve(std::size_t offset, std::size_t len) {
  if (fd_ < 0 || offset + len > size_) return Status(Errc::intern, "shm: reserve outside the segment");
  int err = ::posix_fallocate(fd_, static_cast<off_t>(offset), static_cast<off_t>(len));
  if (err == 0 || err == EOPNOTSUPP || err == EINVAL) return Status::Ok();  // not supported: stay lazy
  if (err == ENOSPC)
    return Status(Errc::no_mem, "shm: /dev/shm is full (need " + std::to_string(len >> 10) +
                                    " KiB more for " + name_ + ")");
  return sys_error("cannot reserve memory in", name_, err);
}

std::string segment_name(const std::string& job_id, int rank) {
  std::string n = "/ftmpi-";
  for (char c : job_id) {
    bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' ||
              c == '.' || c == '-';
    n.push_back(ok ? c : '_');
  }
  n += "-" + std::to_string(rank);
  return n;
}

}  // namespace ftmpi::transport::shm
