// MPI-IO file manipulation (MPI-3.1 §13.2), consistency (§13.6: atomicity, sync), file error handlers
// (§8.3.3, §13.7) and the failure semantics of files (seed 000 §1.2.4, §1.3.3): MPI_File_open/close/delete,
// set_size/preallocate/get_size, get_group/get_amode, set_info/get_info, set/get_atomicity, sync,
// invalidate (MPIX_File_revoke), create/set/get/call_errhandler. Model and failure rules: io/file.h,
// docs/io.md.
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "api/errors.h"
#include "api/file_common.h"
#include "api/info_object.h"
#include "comm/errhandler.h"
#include "io/posix.h"
#include "util/log.h"

using ftmpi::Errc;
using ftmpi::Status;
using ftmpi::api::file_ret;
using ftmpi::api::valid_file;

namespace ftmpi::api {

ftmpi_errhandler_s*& file_null_errhandler() {
  static ftmpi_errhandler_s* eh = &ftmpi_errors_return;
  return eh;
}

int file_raise(ftmpi_file_s* f, int code, const std::string& detail, const char* fn) {
  ftmpi_errhandler_s* eh = valid_file(f) ? f->errhandler : file_null_errhandler();
  auto kind = eh ? eh->kind : ftmpi_errhandler_s::Kind::return_;
  if (kind == ftmpi_errhandler_s::Kind::return_) return code;
  if (kind == ftmpi_errhandler_s::Kind::user && eh->fn) {
    MPI_File handle = valid_file(f) ? f : MPI_FILE_NULL;
    int c = code;
    reinterpret_cast<MPI_File_errhandler_function*>(eh->fn)(&handle, &c);
    return code;
  }
  char line[MPI_MAX_ERROR_STRING + 512];
  std::snprintf(line, sizeof line, "%s: %s (%s)", fn, detail.c_str(), error_class_sentence(code));
  log::error("%s; aborting the job (%s on file %s)", line,
             kind == ftmpi_errhandler_s::Kind::abort ? "MPI_ERRORS_ABORT" : "MPI_ERRORS_ARE_FATAL",
             valid_file(f) ? f->path.c_str() : "MPI_FILE_NULL");
  abort_job(code, line);
}

int file_ret(ftmpi_file_s* f, const Status& st, const char* fn) {
  if (st.ok()) return MPI_SUCCESS;
  if ((st.code() == Errc::proc_failed || st.code() == Errc::revoked) && g_api.rt) g_api.rt->progress().poll();
  const int code = error_class_of(st.code());
  log::debug("%s: %s", fn, st.message().c_str());  // the detail is lost under MPI_ERRORS_RETURN otherwise
  return file_raise(f, code, st.message().empty() ? std::string(error_class_sentence(code)) : st.message(), fn);
}

Status status_of_rc(int rc, const char* what) {
  if (rc == MPI_SUCCESS) return Status::Ok();
  int cls = rc;
  PMPI_Error_class(rc, &cls);
  Errc e = Errc::other;
  if (cls == MPI_ERR_PROC_FAILED) e = Errc::proc_failed;
  else if (cls == MPI_ERR_REVOKED) e = Errc::revoked;
  else if (cls == MPI_ERR_PROC_FAILED_PENDING) e = Errc::proc_failed;
  else if (cls == MPI_ERR_NO_MEM) e = Errc::no_mem;
  return Status(e, std::string(what) + ": " + error_class_sentence(cls));
}

}  // namespace ftmpi::api

namespace {

std::atomic<int> g_shared_counter{0};

Status check_amode(int amode) {
  const int rw = (amode & MPI_MODE_RDONLY ? 1 : 0) + (amode & MPI_MODE_WRONLY ? 1 : 0) + (amode & MPI_MODE_RDWR ? 1 : 0);
  if (rw != 1) return Status(Errc::amode, "amode needs exactly one of MPI_MODE_RDONLY, MPI_MODE_WRONLY, MPI_MODE_RDWR");
  if ((amode & MPI_MODE_RDONLY) && (amode & (MPI_MODE_CREATE | MPI_MODE_EXCL)))
    return Status(Errc::amode, "MPI_MODE_RDONLY with MPI_MODE_CREATE or MPI_MODE_EXCL");
  if ((amode & MPI_MODE_RDWR) && (amode & MPI_MODE_SEQUENTIAL))
    return Status(Errc::amode, "MPI_MODE_RDWR with MPI_MODE_SEQUENTIAL");
  const int known = MPI_MODE_CREATE | MPI_MODE_RDONLY | MPI_MODE_WRONLY | MPI_MODE_RDWR | MPI_MODE_DELETE_ON_CLOSE |
                    MPI_MODE_UNIQUE_OPEN | MPI_MODE_EXCL | MPI_MODE_APPEND | MPI_MODE_SEQUENTIAL;
  if (amode & ~known) return Status(Errc::amode, "unknown bits in amode");
  return Status::Ok();
}

// Hints (docs/io.md): cb_buffer_size, cb_nodes, romio_cb_write, romio_cb_read, and data sieving's
// ind_rd_buffer_size, ind_wr_buffer_size, romio_ds_read, romio_ds_write. Other keys are ignored: MPI_File_get_info
// returns the hints actually used (MPI-4.0 §14.2.8), those eight with their current values.
void apply_hints(ftmpi_file_s* f, MPI_Info info) {
  if (info == MPI_INFO_NULL || !ftmpi::api::valid_info(info)) return;
  for (const auto& [k, v] : info->info.entries()) {
    if (k == "cb_buffer_size") {
      long long n = std::atoll(v.c_str());
      if (n >= 4096) f->cb_buffer_size = static_cast<std::uint64_t>(std::min(n, 1LL << 30));
    } else if (k == "cb_nodes") {
      int n = std::atoi(v.c_str());
      if (n > 0) f->cb_nodes = n;
    } else if (k == "romio_cb_write" || k == "romio_cb_read") {
      auto m = v == "enable" ? ftmpi::io::CbMode::enable
               : v == "disable" ? ftmpi::io::CbMode::disable
                                : ftmpi::io::CbMode::automatic;
      (k == "romio_cb_write" ? f->cb_write : f->cb_read) = m;
    } else if (k == "ind_rd_buffer_size" || k == "ind_wr_buffer_size") {  // data sieving (io/sieve.h)
      long long n = std::atoll(v.c_str());
      if (n >= 64) (k == "ind_rd_buffer_size" ? f->ind_rd_buffer_size : f->ind_wr_buffer_size) =
          static_cast<std::uint64_t>(std::min(n, 1LL << 30));
    } else if (k == "romio_ds_read" || k == "romio_ds_write") {
      auto m = v == "enable" ? ftmpi::io::CbMode::enable
               : v == "disable" ? ftmpi::io::CbMode::disable
                                : ftmpi::io::CbMode::automatic;
      (k == "romio_ds_read" ? f->ds_read : f->ds_write) = m;
    }
  }
}

// The shared file pointer's counter file: next to the file (hidden) when its directory is writable, else in
// /dev/shm; created by rank 0, opened by all, unlinked once all did. A member that cannot open it leaves the
// shared pointer unavailable (shared accesses then fail with a clear error).
void open_shared_pointer(ftmpi_file_s* f) {
  char name[4096] = {0};
  if (f->rank == 0) {
    std::string dir = ".", base = f->path;
    if (auto slash = f->path.rfind('/'); slash != std::string::npos) {
      dir = f->path.substr(0, slash == 0 ? 1 : slash);
      base = f->path.substr(slash + 1);
    }
    const int n = g_shared_counter++;
    const std::string tries[2] = {dir + "/." + base + ".ftmpi-shfp-" + std::to_string(getpid()) + "-" + std::to_string(n),
                                  "/dev/shm/ftmpi-shfp-" + std::to_string(getpid()) + "-" + std::to_string(n)};
    for (const std::string& t : tries) {
      if (t.size() >= sizeof name) continue;
      int fd = ::open(t.c_str(), O_CREAT | O_EXCL | O_RDWR | O_CLOEXEC, 0600);
      if (fd < 0) continue;
      f->shared_fd = fd;
      std::snprintf(name, sizeof name, "%s", t.c_str());
      break;
    }
  }
  PMPI_Bcast(name, sizeof name, MPI_CHAR, 0, f->comm);
  if (f->rank != 0 && name[0]) f->shared_fd = ::open(name, O_RDWR | O_CLOEXEC);
  int ok = f->shared_fd >= 0 ? 1 : 0, all = 0;
  PMPI_Allreduce(&ok, &all, 1, MPI_INT, MPI_MIN, f->comm);
  if (f->rank == 0 && name[0]) ::unlink(name);
  if (!all && f->shared_fd >= 0) {
    ::close(f->shared_fd);
    f->shared_fd = -1;
  }
}

void release_file(ftmpi_file_s* f) {
  if (f->fd >= 0) ::close(f->fd);
  if (f->shared_fd >= 0) ::close(f->shared_fd);
  f->fd = f->shared_fd = -1;
  if (f->comm != MPI_COMM_NULL) PMPI_Comm_free(&f->comm);
  if (f->etype != MPI_DATATYPE_NULL && !f->etype->predefined) PMPI_Type_free(&f->etype);
  if (f->filetype != MPI_DATATYPE_NULL && !f->filetype->predefined) PMPI_Type_free(&f->filetype);
  if (f->errhandler && !f->errhandler->predefined && --f->errhandler->refs == 0) f->errhandler->magic = ftmpi::kMagicFreed;
  f->errhandler = nullptr;
  f->magic = ftmpi::kMagicFreed;  // the shell stays: a stale handle is detected (MPI_ERR_FILE)
}

bool file_revoked(ftmpi_file_s* f) {
  int flag = 0;
  if (f->invalidated) return true;
  if (PMPIX_Comm_is_revoked(f->comm, &flag) == MPI_SUCCESS && flag) f->invalidated = true;
  return f->invalidated;
}

// The uniform outcome of sync and close (seed 000 §1.2.4): a fault-tolerant agreement on two bits — bit 0
// "every write since the last sync and the fsync succeeded here", bit 1 "the file was not invalidated here" —
// whose result every survivor shares, as it shares the agreement's error (MPI_ERR_PROC_FAILED when a member
// failed).
Status agree_outcome(ftmpi_file_s* f, bool local_ok, const char* what) {
  int flag = (local_ok ? 1 : 0) | (file_revoked(f) ? 0 : 2);
  int rc = PMPIX_Comm_agree(f->comm, &flag);
  if (rc != MPI_SUCCESS) {
    Status st = ftmpi::api::status_of_rc(rc, what);
    return Status(st.code(), std::string(what) + ": a process of the file failed; the outcome is the same at every survivor");
  }
  if (!(flag & 2)) {
    f->invalidated = true;
    return Status(Errc::revoked, std::string(what) + ": the file was invalidated");
  }
  if (!(flag & 1)) return Status(Errc::io, std::string(what) + ": a write or the flush to storage failed at some process");
  return Status::Ok();
}

}  // namespace

extern "C" int PMPI_File_open(MPI_Comm comm, const char* filename, int amode, MPI_Info info, MPI_File* fh) {
  static const char* fn = "MPI_File_open";
  FTMPI_ENTER(fn);
  if (!ftmpi::api::valid_comm(comm)) return file_ret(nullptr, Status(Errc::comm, "invalid communicator"), fn);
  if (comm->remote_group) return file_ret(nullptr, Status(Errc::comm, "files need an intracommunicator"), fn);
  if (!filename || !fh) return file_ret(nullptr, Status(Errc::arg, "filename or fh is NULL"), fn);
  if (info != MPI_INFO_NULL && !ftmpi::api::valid_info(info)) return file_ret(nullptr, Status(Errc::info, "invalid info"), fn);
  Status st = check_amode(amode);
  // a bad amode at some process is an error at all: the check travels with the open's first reduction
  MPI_Comm c = MPI_COMM_NULL;
  int rc = PMPI_Comm_dup(comm, &c);
  if (rc != MPI_SUCCESS) return file_ret(nullptr, ftmpi::api::status_of_rc(rc, "MPI_File_open: duplicating the communicator"), fn);
  PMPI_Comm_set_errhandler(c, MPI_ERRORS_RETURN);
  PMPI_Comm_set_name(c, "ftmpi-file");
  auto* f = new ftmpi_file_s;
  f->comm = c;
  PMPI_Comm_rank(c, &f->rank);
  PMPI_Comm_size(c, &f->size);
  f->amode = amode;
  f->path = filename;
  // Strip the "ufs:" / "nfs:" style prefixes other MPIs accept.
  if (auto colon = f->path.find(':'); colon != std::string::npos && colon >= 2 && f->path.find('/') > colon)
    f->path = f->path.substr(colon + 1);
  int modes[2] = {amode, -amode}, agreed[2] = {0, 0};
  rc = PMPI_Allreduce(modes, agreed, 2, MPI_INT, MPI_MAX, c);
  if (rc == MPI_SUCCESS && st.ok() && (agreed[0] != amode || -agreed[1] != amode))
    st = Status(Errc::amode, "the processes passed different amodes");
  if (rc != MPI_SUCCESS) st = ftmpi::api::status_of_rc(rc, fn);
  int flags = O_CLOEXEC;
  if (amode & MPI_MODE_RDONLY) flags |= O_RDONLY;
  if (amode & MPI_MODE_WRONLY) flags |= O_WRONLY;
  if (amode & MPI_MODE_RDWR) flags |= O_RDWR;
  // rank 0 creates (and checks EXCL), then the others open what exists
  int code = st.ok() ? 0 : static_cast<int>(st.code());
  int code0 = code;
  if (f->rank == 0 && code == 0) {
    int fl = flags | ((amode & MPI_MODE_CREATE) ? O_CREAT : 0) | ((amode & MPI_MODE_EXCL) ? O_EXCL : 0);
    f->fd = ::open(f->path.c_str(), fl, 0666);
    if (f->fd < 0) st = ftmpi::io::errno_status(errno, "open", f->path), code0 = static_cast<int>(st.code());
  }
  if (st.ok() || f->rank == 0) {
    rc = PMPI_Bcast(&code0, 1, MPI_INT, 0, c);
    if (rc != MPI_SUCCESS) st = ftmpi::api::status_of_rc(rc, fn);
  } else {
    rc = PMPI_Bcast(&code0, 1, MPI_INT, 0, c);
  }
  if (f->rank != 0 && st.ok() && code0 == 0) {
    f->fd = ::open(f->path.c_str(), flags, 0666);
    if (f->fd < 0) st = ftmpi::io::errno_status(errno, "open", f->path);
  }
  code = st.ok() ? 0 : static_cast<int>(st.code());
  if (code == 0 && code0 != 0) code = code0;
  int all = 0;
  rc = PMPI_Allreduce(&code, &all, 1, MPI_INT, MPI_MAX, c);
  if (rc != MPI_SUCCESS && st.ok()) st = ftmpi::api::status_of_rc(rc, fn);
  if (st.ok() && all != 0)
    st = Status(static_cast<Errc>(all), "MPI_File_open: another process could not open '" + f->path + "'");
  if (!st.ok()) {
    if (f->rank == 0 && f->fd >= 0 && (amode & MPI_MODE_CREATE) && code0 == 0 && all != 0 && (amode & MPI_MODE_EXCL))
      ::unlink(f->path.c_str());  // we created it for an open that failed elsewhere
    release_file(f);
    return file_ret(nullptr, st, fn);
  }
  apply_hints(f, info);
  open_shared_pointer(f);
  f->errhandler = ftmpi::api::file_null_errhandler();
  if (!f->errhandler->predefined) ++f->errhandler->refs;
  if (amode & MPI_MODE_APPEND) {
    struct stat sb {};
    if (::fstat(f->fd, &sb) == 0) {
      f->pos = sb.st_size;
      if (f->rank == 0 && f->shared_fd >= 0) (void)ftmpi::io::shared_store(f->shared_fd, sb.st_size);
    }
    PMPI_Barrier(c);
  }
  *fh = f;
  return MPI_SUCCESS;
}
FTMPI_ALIAS(File_open)

extern "C" int PMPI_File_close(MPI_File* fh) {
  static const char* fn = "MPI_File_close";
  FTMPI_ENTER(fn);
  if (!fh) return file_ret(nullptr, Status(Errc::arg, "fh is NULL"), fn);
  ftmpi_file_s* f = *fh;
  FTMPI_CHECK_FILE(f, fn);
  if (f->nb_pending > 0)  // §13.2.2: every request on the file must be complete before it is closed
    return file_ret(f, Status(Errc::request, "non-blocking collective accesses on this file are not complete"), fn);
  Status st = agree_outcome(f, !f->write_failed, fn);
  if (f->rank == 0 && (f->amode & MPI_MODE_DELETE_ON_CLOSE)) ::unlink(f->path.c_str());
  int rc = file_ret(f, st, fn);
  release_file(f);
  *fh = MPI_FILE_NULL;
  return rc;
}
FTMPI_ALIAS(File_close)

extern "C" int PMPI_File_delete(const char* filename, MPI_Info info) {
  static const char* fn = "MPI_File_delete";
  FTMPI_ENTER(fn);
  (void)info;
  if (!filename) return file_ret(nullptr, Status(Errc::arg, "filename is NULL"), fn);
  std::string p = filename;
  if (auto colon = p.find(':'); colon != std::string::npos && colon >= 2 && p.find('/') > colon) p = p.substr(colon + 1);
  if (::unlink(p.c_str()) != 0) return file_ret(nullptr, ftmpi::io::errno_status(errno, "delete", p), fn);
  return MPI_SUCCESS;
}
FTMPI_ALIAS(File_delete)

namespace {

// The common start of a collective call on a file: handle valid, not invalidated.
Status usable(ftmpi_file_s* f) {
  if (file_revoked(f)) return Status(Errc::revoked, "the file was invalidated (MPI_File_invalidate)");
  return Status::Ok();
}

// A collective step whose effect one process does: rank 0 runs `op`, everyone gets the same outcome.
template <class Op>
Status rank0_does(ftmpi_file_s* f, Op op, const char* fn) {
  Status st;
  if (f->rank == 0) st = op();
  int code = st.ok() ? 0 : static_cast<int>(st.code());
  int rc = PMPI_Bcast(&code, 1, MPI_INT, 0, f->comm);
  if (rc != MPI_SUCCESS) return ftmpi::api::status_of_rc(rc, fn);
  if (f->rank != 0 && code != 0) return Status(static_cast<Errc>(code), std::string(fn) + " failed at rank 0");
  return st;
}

}  // namespace

extern "C" int PMPI_File_set_size(MPI_File fh, MPI_Offset size) {
  static const char* fn = "MPI_File_set_size";
  FTMPI_ENTER(fn);
  FTMPI_CHECK_FILE(fh, fn);
  if (Status st = usable(fh); !st.ok()) return file_ret(fh, st, fn);
  if (size < 0) return file_ret(fh, Status(Errc::arg, "negative size"), fn);
  if (fh->amode & MPI_MODE_RDONLY) return file_ret(fh, Status(Errc::read_only, "the file was opened MPI_MODE_RDONLY"), fn);
  if (fh->amode & MPI_MODE_SEQUENTIAL) return file_ret(fh, Status(Errc::unsupported, "set_size on a MPI_MODE_SEQUENTIAL file"), fn);
  Status st = rank0_does(fh, [&] {
    fh->dirty = true;
    return ::ftruncate(fh->fd, size) == 0 ? Status::Ok() : ftmpi::io::errno_status(errno, "set_size", fh->path);
  }, fn);
  return file_ret(fh, st, fn);
}
FTMPI_ALIAS(File_set_size)

extern "C" int PMPI_File_preallocate(MPI_File fh, MPI_Offset size) {
  static const char* fn = "MPI_File_preallocate";
  FTMPI_ENTER(fn);
  FTMPI_CHECK_FILE(fh, fn);
  if (Status st = usable(fh); !st.ok()) return file_ret(fh, st, fn);
  if (size < 0) return file_ret(fh, Status(Errc::arg, "negative size"), fn);
  if (fh->amode & MPI_MODE_RDONLY) return file_ret(fh, Status(Errc::read_only, "the file was opened MPI_MODE_RDONLY"), fn);
  if (fh->amode & MPI_MODE_SEQUENTIAL) return file_ret(fh, Status(Errc::unsupported, "preallocate on a MPI_MODE_SEQUENTIAL file"), fn);
  Status st = rank0_does(fh, [&] {
    struct stat sb {};
    if (::fstat(fh->fd, &sb) != 0) return ftmpi::io::errno_status(errno, "preallocate", fh->path);
    if (sb.st_size >= size) return Status::Ok();
    fh->dirty = true;
    int err = ::posix_fallocate(fh->fd, 0, size);
    if (err == EOPNOTSUPP || err == EINVAL) err = ::ftruncate(fh->fd, size) == 0 ? 0 : errno;
    return err == 0 ? Status::Ok() : ftmpi::io::errno_status(err, "preallocate", fh->path);
  }, fn);
  return file_ret(fh, st, fn);
}
FTMPI_ALIAS(File_preallocate)

extern "C" int PMPI_File_get_size(MPI_File fh, MPI_Offset* size) {
  static const char* fn = "MPI_File_get_size";
  FTMPI_ENTER(fn);
  FTMPI_CHECK_FILE(fh, fn);
  if (!size) return file_ret(fh, Status(Errc::arg, "size is NULL"), fn);
  struct stat sb {};
  if (::fstat(fh->fd, &sb) != 0) return file_ret(fh, ftmpi::io::errno_status(errno, "get_size", fh->path), fn);
  *size = sb.st_size;
  return MPI_SUCCESS;
}
FTMPI_ALIAS(File_get_size)

extern "C" int PMPI_File_get_group(MPI_File fh, MPI_Group* group) {
  static const char* fn = "MPI_File_get_group";
  FTMPI_ENTER(fn);
  FTMPI_CHECK_FILE(fh, fn);
  if (!group) return file_ret(fh, Status(Errc::arg, "group is NULL"), fn);
  return PMPI_Comm_group(fh->comm, group);
}
FTMPI_ALIAS(File_get_group)

extern "C" int PMPI_File_get_amode(MPI_File fh, int* amode) {
  static const char* fn = "MPI_File_get_amode";
  FTMPI_ENTER(fn);
  FTMPI_CHECK_FILE(fh, fn);
  if (!amode) return file_ret(fh, Status(Errc::arg, "amode is NULL"), fn);
  *amode = fh->amode;
  return MPI_SUCCESS;
}
FTMPI_ALIAS(File_get_amode)

extern "C" int PMPI_File_set_info(MPI_File fh, MPI_Info info) {
  static const char* fn = "MPI_File_set_info";
  FTMPI_ENTER(fn);
  FTMPI_CHECK_FILE(fh, fn);
  if (info != MPI_INFO_NULL && !ftmpi::api::valid_info(info)) return file_ret(fh, Status(Errc::info, "invalid info"), fn);
  apply_hints(fh, info);
  return MPI_SUCCESS;
}
FTMPI_ALIAS(File_set_info)

extern "C" int PMPI_File_get_info(MPI_File fh, MPI_Info* info_used) {
  static const char* fn = "MPI_File_get_info";
  FTMPI_ENTER(fn);
  FTMPI_CHECK_FILE(fh, fn);
  if (!info_used) return file_ret(fh, Status(Errc::arg, "info_used is NULL"), fn);
  MPI_Info i = MPI_INFO_NULL;
  if (int rc = PMPI_Info_create(&i); rc != MPI_SUCCESS) return rc;
  const int naggr = fh->cb_nodes > 0 ? std::min(fh->cb_nodes, fh->size) : std::min(fh->size, 4);
  auto mode = [](ftmpi::io::CbMode m) {
    return m == ftmpi::io::CbMode::enable ? "enable" : m == ftmpi::io::CbMode::disable ? "disable" : "automatic";
  };
  PMPI_Info_set(i, "cb_buffer_size", std::to_string(fh->cb_buffer_size).c_str());
  PMPI_Info_set(i, "cb_nodes", std::to_string(naggr).c_str());
  PMPI_Info_set(i, "romio_cb_write", mode(fh->cb_write));
  PMPI_Info_set(i, "romio_cb_read", mode(fh->cb_read));
  PMPI_Info_set(i, "ind_rd_buffer_size", std::to_string(fh->ind_rd_buffer_size).c_str());
  PMPI_Info_set(i, "ind_wr_buffer_size", std::to_string(fh->ind_wr_buffer_size).c_str());
  PMPI_Info_set(i, "romio_ds_read", mode(fh->ds_read));
  PMPI_Info_set(i, "romio_ds_write", mode(fh->ds_write));
  *info_used = i;
  return MPI_SUCCESS;
}
FTMPI_ALIAS(File_get_info)

extern "C" int PMPI_File_set_atomicity(MPI_File fh, int flag) {
  static const char* fn = "MPI_File_set_atomicity";
  FTMPI_ENTER(fn);
  FTMPI_CHECK_FILE(fh, fn);
  if (Status st = usable(fh); !st.ok()) return file_ret(fh, st, fn);
  int mine[2] = {flag ? 1 : 0, flag ? -1 : 0}, all[2] = {0, 0};
  int rc = PMPI_Allreduce(mine, all, 2, MPI_INT, MPI_MAX, fh->comm);
  if (rc != MPI_SUCCESS) return file_ret(fh, ftmpi::api::status_of_rc(rc, fn), fn);
  if (all[0] != -all[1]) return file_ret(fh, Status(Errc::not_same, "the processes passed different flags"), fn);
  fh->atomic = flag != 0;
  return MPI_SUCCESS;
}
FTMPI_ALIAS(File_set_atomicity)

extern "C" int PMPI_File_get_atomicity(MPI_File fh, int* flag) {
  static const char* fn = "MPI_File_get_atomicity";
  FTMPI_ENTER(fn);
  FTMPI_CHECK_FILE(fh, fn);
  if (!flag) return file_ret(fh, Status(Errc::arg, "flag is NULL"), fn);
  *flag = fh->atomic ? 1 : 0;
  return MPI_SUCCESS;
}
FTMPI_ALIAS(File_get_atomicity)

extern "C" int PMPI_File_sync(MPI_File fh) {
  static const char* fn = "MPI_File_sync";
  FTMPI_ENTER(fn);
  FTMPI_CHECK_FILE(fh, fn);
  bool ok = !fh->write_failed;
  // fsync only what this process wrote since its last successful fsync (file.h, dirty); a sync without writes
  // is the agreement alone (IMB-IO's write+sync+barrier+sync loops, a 0-byte access: no device flush).
  if (!(fh->amode & MPI_MODE_RDONLY) && fh->dirty) {
    if (::fsync(fh->fd) == 0 || errno == EINVAL)
      fh->dirty = false;
    else
      ok = false;
  }
  Status st = agree_outcome(fh, ok, fn);
  if (st.ok()) fh->write_failed = false;
  return file_ret(fh, st, fn);
}
FTMPI_ALIAS(File_sync)

// Seed 000 §1.3.3: revokes the file's communicator, so every pending and later non-local call on the file, here
// and (through the revoke flood) at every member, fails with MPI_ERR_REVOKED (= MPI_ERR_INVALIDATED).
extern "C" int PMPI_File_invalidate(MPI_File fh) {
  static const char* fn = "MPI_File_invalidate";
  FTMPI_ENTER(fn);
  FTMPI_CHECK_FILE(fh, fn);
  fh->invalidated = true;
  int rc = PMPIX_Comm_revoke(fh->comm);
  if (rc != MPI_SUCCESS) return file_ret(fh, Status(Errc::other, "revoking the file's communicator failed"), fn);
  return MPI_SUCCESS;
}
FTMPI_ALIAS(File_invalidate)

extern "C" int PMPIX_File_revoke(MPI_File fh) { return PMPI_File_invalidate(fh); }
extern "C" __attribute__((weak, alias("PMPIX_File_revoke"), visibility("default"))) decltype(PMPIX_File_revoke)
    MPIX_File_revoke;

// ---- error handlers (§8.3.3) ----

extern "C" int PMPI_File_create_errhandler(MPI_File_errhandler_function* efn, MPI_Errhandler* errhandler) {
  static const char* fn = "MPI_File_create_errhandler";
  FTMPI_ENTER(fn);
  if (!efn || !errhandler) return file_ret(nullptr, Status(Errc::arg, "NULL function or handle"), fn);
  auto* e = new ftmpi_errhandler_s;
  e->kind = ftmpi_errhandler_s::Kind::user;
  e->fn = reinterpret_cast<ftmpi_comm_errhandler_fn*>(efn);
  *errhandler = e;
  return MPI_SUCCESS;
}
FTMPI_ALIAS(File_create_errhandler)

extern "C" int PMPI_File_set_errhandler(MPI_File fh, MPI_Errhandler errhandler) {
  static const char* fn = "MPI_File_set_errhandler";
  FTMPI_ENTER(fn);
  if (fh != MPI_FILE_NULL && !valid_file(fh)) return file_ret(nullptr, Status(Errc::file, "invalid file handle"), fn);
  if (!errhandler || errhandler->magic != ftmpi::kMagicErrhandler ||
      errhandler->kind == ftmpi_errhandler_s::Kind::reinit_async || errhandler->kind == ftmpi_errhandler_s::Kind::reinit_sync)
    return file_ret(fh, Status(Errc::arg, "invalid error handler"), fn);
  ftmpi_errhandler_s*& slot = fh == MPI_FILE_NULL ? ftmpi::api::file_null_errhandler() : fh->errhandler;
  if (!errhandler->predefined) ++errhandler->refs;
  ftmpi_errhandler_s* old = slot;
  slot = errhandler;
  if (old && !old->predefined && --old->refs == 0) old->magic = ftmpi::kMagicFreed;
  return MPI_SUCCESS;
}
FTMPI_ALIAS(File_set_errhandler)

extern "C" int PMPI_File_get_errhandler(MPI_File fh, MPI_Errhandler* errhandler) {
  static const char* fn = "MPI_File_get_errhandler";
  FTMPI_ENTER(fn);
  if (fh != MPI_FILE_NULL && !valid_file(fh)) return file_ret(nullptr, Status(Errc::file, "invalid file handle"), fn);
  if (!errhandler) return file_ret(fh, Status(Errc::arg, "errhandler is NULL"), fn);
  ftmpi_errhandler_s* e = fh == MPI_FILE_NULL ? ftmpi::api::file_null_errhandler() : fh->errhandler;
  if (!e->predefined) ++e->refs;
  *errhandler = e;
  return MPI_SUCCESS;
}
FTMPI_ALIAS(File_get_errhandler)

extern "C" int PMPI_File_call_errhandler(MPI_File fh, int errorcode) {
  static const char* fn = "MPI_File_call_errhandler";
  FTMPI_ENTER(fn);
  if (fh != MPI_FILE_NULL && !valid_file(fh)) return file_ret(nullptr, Status(Errc::file, "invalid file handle"), fn);
  (void)ftmpi::api::file_raise(fh, errorcode, "MPI_File_call_errhandler", fn);
  return MPI_SUCCESS;
}
FTMPI_ALIAS(File_call_errhandler)
