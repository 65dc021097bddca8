// The POSIX side of MPI-IO: system errors as MPI-IO error kinds, whole-buffer pread/pwrite, byte-range locks
// (atomic mode) and the shared file pointer's counter file. No MPI here.
#pragma once
#include <cstdint>
#include <string>

#include "util/status.h"

namespace ftmpi::io {

// errno -> the MPI-IO error kind (§13.7): ENOENT no_such_file, EACCES/EPERM access, ENOSPC no_space, EDQUOT
// quota, EEXIST file_exists, EROFS read_only, ENOTDIR/EISDIR/ENAMETOOLONG/ELOOP bad_file, anything else io.
// The message names the call, the path when given, and strerror.
Status errno_status(int err, const char* what, const std::string& path = {});

// pwrite/pread of exactly `len` bytes at `off` (retrying short transfers and EINTR). A read stops at end of
// file: *done tells the bytes read.
Status write_at(int fd, std::uint64_t off, const void* buf, std::uint64_t len);
Status read_at(int fd, std::uint64_t off, void* buf, std::uint64_t len, std::uint64_t* done);

// An fcntl byte-range lock of [off, off + len) (len 0: to the end of the file), exclusive for writes, shared
// for reads, held for the scope (MPI_File_set_atomicity(true)). fcntl locks are released by the kernel when the
// process dies, so a survivor never waits on a dead holder. A lock that cannot be taken (fd not open for the
// mode, e.g. a shared lock on a write-only file) is retried in the other mode, which both allow.
class RangeLock {
 public:
  RangeLock(int fd, std::uint64_t off, std::uint64_t len, bool write);
  ~RangeLock();
  RangeLock(const RangeLock&) = delete;
  RangeLock& operator=(const RangeLock&) = delete;
  const Status& status() const { return st_; }

 private:
  int fd_;
  std::uint64_t off_, len_;
  bool held_ = false;
  Status st_;
};

// The shared file pointer (§13.4.4): one 8-byte counter, in etypes, in a small file every member of the file
// opened; fetch_add takes an exclusive fcntl lock on it, reads, adds, writes, unlocks.
Status shared_fetch_add(int fd, std::int64_t add, std::int64_t* before);
Status shared_store(int fd, std::int64_t value);
Status shared_load(int fd, std::int64_t* value);

}  // namespace ftmpi::io
