#include "io/posix.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace ftmpi::io {

Status errno_status(int err, const char* what, const std::string& path) {
  Errc e = Errc::io;
  switch (err) {
    case ENOENT: e = Errc::no_such_file; break;
    case EACCES:
    case EPERM: e = Errc::access; break;
    case ENOSPC: e = Errc::no_space; break;
    case EDQUOT: e = Errc::quota; break;
    case EEXIST: e = Errc::file_exists; break;
    case EROFS: e = Errc::read_only; break;
    case ENOTDIR:
    case EISDIR:
    case ENAMETOOLONG:
    case ELOOP: e = Errc::bad_file; break;
    case ETXTBSY: e = Errc::file_in_use; break;
    default: break;
  }
  std::string msg = std::string(what);
  if (!path.empty()) msg += " '" + path + "'";
  msg += ": ";
  msg += std::strerror(err);
  return Status(e, msg);
}

Status write_at(int fd, std::uint64_t off, const void* buf, std::uint64_t len) {
  const char* p = static_cast<const char*>(buf);
  while (len > 0) {
    const std::size_t chunk = len > (1ULL << 30) ? (1ULL << 30) : static_cast<std::size_t>(len);
    ssize_t n = ::pwrite(fd, p, chunk, static_cast<off_t>(off));
    if (n < 0) {
      if (errno == EINTR) continue;
      return errno_status(errno, "write");
    }
    if (n == 0) return Status(Errc::io, "write: no progress");
    p += n, off += static_cast<std::uint64_t>(n), len -= static_cast<std::uint64_t>(n);
  }
  return Status::Ok();
}

Status read_at(int fd, std::uint64_t off, void* buf, std::uint64_t len, std::uint64_t* done) {
  char* p = static_cast<char*>(buf);
  *done = 0;
  while (len > 0) {
    const std::size_t chunk = len > (1ULL << 30) ? (1ULL << 30) : static_cast<std::size_t>(len);
    ssize_t n = ::pread(fd, p, chunk, static_cast<off_t>(off));
    if (n < 0) {
      if (errno == EINTR) continue;
      return errno_status(errno, "read");
    }
    if (n == 0) break;  // end of file
    p += n, off += static_cast<std::uint64_t>(n), len -= static_cast<std::uint64_t>(n);
    *done += static_cast<std::uint64_t>(n);
  }
  return Status::Ok();
}

namespace {
int lock_cmd(int fd, int cmd, short type, std::uint64_t off, std::uint64_t len) {
  struct flock fl {};
  fl.l_type = type;
  fl.l_whence = SEEK_SET;
  fl.l_start = static_cast<off_t>(off);
  fl.l_len = static_cast<off_t>(len);
  int rc;
  do rc = ::fcntl(fd, cmd, &fl);
  while (rc != 0 && errno == EINTR);
  return rc == 0 ? 0 : errno;
}
}  // namespace

RangeLock::RangeLock(int fd, std::uint64_t off, std::uint64_t len, bool write) : fd_(fd), off_(off), len_(len) {
  int err = lock_cmd(fd, F_SETLKW, write ? F_WRLCK : F_RDLCK, off, len);
  if (err == EBADF) err = lock_cmd(fd, F_SETLKW, write ? F_RDLCK : F_WRLCK, off, len);
  if (err != 0)
    st_ = errno_status(err, "atomic mode: byte-range lock");
  else
    held_ = true;
}

RangeLock::~RangeLock() {
  if (held_) (void)lock_cmd(fd_, F_SETLK, F_UNLCK, off_, len_);
}

Status shared_fetch_add(int fd, std::int64_t add, std::int64_t* before) {
  RangeLock lock(fd, 0, 8, true);
  if (!lock.status().ok()) return lock.status();
  FTMPI_TRY(shared_load(fd, before));
  return shared_store(fd, *before + add);
}

Status shared_store(int fd, std::int64_t value) { return write_at(fd, 0, &value, sizeof value); }

Status shared_load(int fd, std::int64_t* value) {
  std::uint64_t got = 0;
  *value = 0;
  FTMPI_TRY(read_at(fd, 0, value, sizeof *value, &got));
  if (got != sizeof *value) *value = 0;
  return Status::Ok();
}

}  // namespace ftmpi::io
