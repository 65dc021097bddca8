// MPI-IO collective data access (MPI-3.1 §13.4): read/write_all and _at_all, their non-blocking forms
// (iread_all, iwrite_at_all, ...: done at initiation, docs/io.md), split collectives (_begin/_end: the access
// is done by the begin, which §13.4.5 allows), and the ordered shared-pointer accesses (read/write_ordered).
//
// A collective access is independent I/O when the members' byte ranges do not interleave (hint romio_cb_write /
// romio_cb_read "automatic"; "disable" always, "enable" never) and in atomic mode; otherwise two-phase
// collective buffering (io/two_phase.h: aggregators, windows of cb_buffer_size, one all-to-allv per round).
// Either way a collective write ends in a reduction of every member's outcome, so a write returns success only
// when every byte of every member is in the file (seed 000 §1.2.4: a success is never lost, whoever dies).
#include <algorithm>
#include <cstring>

#include "api/file_coll_task.h"
#include "api/file_common.h"
#include "datatype/datatype.h"
#include "io/posix.h"

using ftmpi::Errc;
using ftmpi::Status;
using ftmpi::api::file_ret;
using ftmpi::io::Extent;

namespace ftmpi::api {
namespace {

// The outcome of a collective step at every member: the worst error kind anywhere (a reduction, so a member's
// success implies every member got this far).
Status combine(ftmpi_file_s* f, Status st, const char* what) {
  int code = st.ok() ? 0 : static_cast<int>(st.code()), all = 0;
  int rc = PMPI_Allreduce(&code, &all, 1, MPI_INT, MPI_MAX, f->comm);
  if (rc != MPI_SUCCESS) return status_of_rc(rc, what);
  if (!st.ok()) return st;
  if (all != 0) return Status(static_cast<Errc>(all), std::string(what) + ": failed at another process");
  return Status::Ok();
}

}  // namespace

// The blocking collective accesses: the one algorithm (file_coll_task.h) on the file's communicator.
Status collective_write(ftmpi_file_s* f, std::uint64_t pos, const char* data, std::uint64_t len) {
  CollAccess a{f, f->comm, true, pos, data, nullptr, len, 0};
  return run_blocking(collective_rw(&a));
}

Status collective_read(ftmpi_file_s* f, std::uint64_t pos, char* data, std::uint64_t len, std::uint64_t* got) {
  CollAccess a{f, f->comm, false, pos, nullptr, data, len, 0};
  Status st = run_blocking(collective_rw(&a));
  *got = a.got;
  return st;
}

}  // namespace ftmpi::api

namespace {

using ftmpi::api::ReadTarget;
using ftmpi::api::Stream;

enum class Where { at, individual, ordered };

// One collective access. Argument errors are still collective steps: a member with a bad argument joins the
// reduction with its error so that no member waits for it.
Status coll_access(ftmpi_file_s* f, Where where, MPI_Offset offset, void* rbuf, const void* wbuf, int count,
                   MPI_Datatype type, bool write, MPI_Status* status) {
  if (f->invalidated) return Status(Errc::revoked, "the file was invalidated (MPI_File_invalidate)");
  Status arg = ftmpi::api::check_access(f, count, type, write ? wbuf : rbuf, write);
  if (arg.ok() && where != Where::ordered && (f->amode & MPI_MODE_SEQUENTIAL))
    arg = Status(Errc::unsupported, "a MPI_MODE_SEQUENTIAL file allows shared file pointer accesses only");
  if (arg.ok() && where == Where::at && offset < 0) arg = Status(Errc::arg, "negative offset");
  if (arg.ok() && where == Where::ordered && f->shared_fd < 0)
    arg = Status(Errc::unsupported, "no shared file pointer for this file (docs/io.md)");
  Stream ws;
  ReadTarget rt;
  std::uint64_t len = 0;
  if (arg.ok()) {
    arg = write ? ftmpi::api::make_write_stream(f, wbuf, count, type, &ws)
                : ftmpi::api::make_read_target(f, rbuf, count, type, &rt);
    len = write ? ws.len : rt.len;
  }
  FTMPI_TRY(ftmpi::api::combine(f, arg, "collective access"));
  const std::int64_t n_etypes = static_cast<std::int64_t>(len / f->esize);
  std::int64_t start = 0;
  switch (where) {
    case Where::at: start = offset; break;
    case Where::individual: start = f->pos; break;
    case Where::ordered: {
      // rank order: prefix of the sizes; rank 0 takes the whole block from the shared pointer
      std::int64_t prefix = 0, total = 0, base = 0;
      int rc = PMPI_Exscan(&n_etypes, &prefix, 1, MPI_INT64_T, MPI_SUM, f->comm);
      if (f->rank == 0) prefix = 0;
      if (rc == MPI_SUCCESS) rc = PMPI_Allreduce(&n_etypes, &total, 1, MPI_INT64_T, MPI_SUM, f->comm);
      if (rc != MPI_SUCCESS) return ftmpi::api::status_of_rc(rc, "ordered access");
      Status st;
      if (f->rank == 0) st = ftmpi::io::shared_fetch_add(f->shared_fd, total, &base);
      FTMPI_TRY(ftmpi::api::combine(f, st, "ordered access: shared file pointer"));
      rc = PMPI_Bcast(&base, 1, MPI_INT64_T, 0, f->comm);
      if (rc != MPI_SUCCESS) return ftmpi::api::status_of_rc(rc, "ordered access");
      start = base + prefix;
      break;
    }
  }
  return ftmpi::api::transfer(f, start, where == Where::individual, write, ws, rt, rbuf, count, type, status,
                              ftmpi::api::collective_write, ftmpi::api::collective_read);
}

int blocking(MPI_File fh, Where where, MPI_Offset off, void* rbuf, const void* wbuf, int count, MPI_Datatype type,
             bool write, MPI_Status* status, const char* fn) {
  FTMPI_CHECK_FILE(fh, fn);
  return file_ret(fh, coll_access(fh, where, off, rbuf, wbuf, count, type, write, status), fn);
}

int nonblocking(MPI_File fh, Where where, MPI_Offset off, void* rbuf, const void* wbuf, int count, MPI_Datatype type,
                bool write, MPI_Request* req, const char* fn) {
  FTMPI_CHECK_FILE(fh, fn);
  if (!req) return file_ret(fh, Status(Errc::arg, "request is NULL"), fn);
  MPI_Status st{};
  Status s = coll_access(fh, where, off, rbuf, wbuf, count, type, write, &st);
  const int rc = s.ok() ? MPI_SUCCESS : ftmpi::api::error_class_of(s.code());
  return ftmpi::api::completed_request(st, rc, req);
}

int split_begin(MPI_File fh, Where where, MPI_Offset off, void* rbuf, const void* wbuf, int count,
                MPI_Datatype type, bool write, const char* fn) {
  FTMPI_CHECK_FILE(fh, fn);
  if (fh->split_active) return file_ret(fh, Status(Errc::other, "a split collective is already active on this file"), fn);
  Status s = coll_access(fh, where, off, rbuf, wbuf, count, type, write, &fh->split_status);
  fh->split_active = true;
  fh->split_write = write;
  fh->split_buf = write ? wbuf : rbuf;
  fh->split_rc = s.ok() ? MPI_SUCCESS : ftmpi::api::error_class_of(s.code());
  return MPI_SUCCESS;
}

int split_end(MPI_File fh, const void* buf, bool write, MPI_Status* status, const char* fn) {
  FTMPI_CHECK_FILE(fh, fn);
  if (!fh->split_active || fh->split_write != write)
    return file_ret(fh, Status(Errc::other, "no matching split collective was begun on this file"), fn);
  (void)buf;
  fh->split_active = false;
  if (status) *status = fh->split_status;
  if (fh->split_rc != MPI_SUCCESS)
    return ftmpi::api::file_raise(fh, fh->split_rc, "the split collective access failed", fn);
  return MPI_SUCCESS;
}

}  // namespace

#define FTMPI_FILE_COLL(Name, where)                                                                           \
  extern "C" int PMPI_File_read##Name(MPI_File fh, void* buf, int count, MPI_Datatype datatype,                 \
                                      MPI_Status* status) {                                                      \
    FTMPI_ENTER("MPI_File_read" #Name);                                                                         \
    return blocking(fh, where, 0, buf, nullptr, count, datatype, false, status, "MPI_File_read" #Name);         \
  }                                                                                                              \
  FTMPI_ALIAS(File_read##Name)                                                                                   \
  extern "C" int PMPI_File_write##Name(MPI_File fh, const void* buf, int count, MPI_Datatype datatype,          \
                                       MPI_Status* status) {                                                     \
    FTMPI_ENTER("MPI_File_write" #Name);                                                                        \
    return blocking(fh, where, 0, nullptr, buf, count, datatype, true, status, "MPI_File_write" #Name);         \
  }                                                                                                              \
  FTMPI_ALIAS(File_write##Name)                                                                                  \
  extern "C" int PMPI_File_read##Name##_begin(MPI_File fh, void* buf, int count, MPI_Datatype datatype) {       \
    FTMPI_ENTER("MPI_File_read" #Name "_begin");                                                                \
    return split_begin(fh, where, 0, buf, nullptr, count, datatype, false, "MPI_File_read" #Name "_begin");    \
  }                                                                                                              \
  FTMPI_ALIAS(File_read##Name##_begin)                                                                           \
  extern "C" int PMPI_File_write##Name##_begin(MPI_File fh, const void* buf, int count, MPI_Datatype datatype) { \
    FTMPI_ENTER("MPI_File_write" #Name "_begin");                                                               \
    return split_begin(fh, where, 0, nullptr, buf, count, datatype, true, "MPI_File_write" #Name "_begin");    \
  }                                                                                                              \
  FTMPI_ALIAS(File_write##Name##_begin)                                                                          \
  extern "C" int PMPI_File_read##Name##_end(MPI_File fh, void* buf, MPI_Status* status) {                       \
    FTMPI_ENTER("MPI_File_read" #Name "_end");                                                                  \
    return split_end(fh, buf, false, status, "MPI_File_read" #Name "_end");                                     \
  }                                                                                                              \
  FTMPI_ALIAS(File_read##Name##_end)                                                                             \
  extern "C" int PMPI_File_write##Name##_end(MPI_File fh, const void* buf, MPI_Status* status) {                \
    FTMPI_ENTER("MPI_File_write" #Name "_end");                                                                 \
    return split_end(fh, buf, true, status, "MPI_File_write" #Name "_end");                                     \
  }                                                                                                              \
  FTMPI_ALIAS(File_write##Name##_end)

FTMPI_FILE_COLL(_all, Where::individual)
FTMPI_FILE_COLL(_ordered, Where::ordered)

extern "C" int PMPI_File_iread_all(MPI_File fh, void* buf, int count, MPI_Datatype datatype, MPI_Request* req) {
  FTMPI_ENTER("MPI_File_iread_all");
  return nonblocking(fh, Where::individual, 0, buf, nullptr, count, datatype, false, req, "MPI_File_iread_all");
}
FTMPI_ALIAS(File_iread_all)
extern "C" int PMPI_File_iwrite_all(MPI_File fh, const void* buf, int count, MPI_Datatype datatype, MPI_Request* req) {
  FTMPI_ENTER("MPI_File_iwrite_all");
  return nonblocking(fh, Where::individual, 0, nullptr, buf, count, datatype, true, req, "MPI_File_iwrite_all");
}
FTMPI_ALIAS(File_iwrite_all)

extern "C" int PMPI_File_read_at_all(MPI_File fh, MPI_Offset offset, void* buf, int count, MPI_Datatype datatype,
                                     MPI_Status* status) {
  FTMPI_ENTER("MPI_File_read_at_all");
  return blocking(fh, Where::at, offset, buf, nullptr, count, datatype, false, status, "MPI_File_read_at_all");
}
FTMPI_ALIAS(File_read_at_all)
extern "C" int PMPI_File_write_at_all(MPI_File fh, MPI_Offset offset, const void* buf, int count,
                                      MPI_Datatype datatype, MPI_Status* status) {
  FTMPI_ENTER("MPI_File_write_at_all");
  return blocking(fh, Where::at, offset, nullptr, buf, count, datatype, true, status, "MPI_File_write_at_all");
}
FTMPI_ALIAS(File_write_at_all)
extern "C" int PMPI_File_iread_at_all(MPI_File fh, MPI_Offset offset, void* buf, int count, MPI_Datatype datatype,
                                      MPI_Request* req) {
  FTMPI_ENTER("MPI_File_iread_at_all");
  return nonblocking(fh, Where::at, offset, buf, nullptr, count, datatype, false, req, "MPI_File_iread_at_all");
}
FTMPI_ALIAS(File_iread_at_all)
extern "C" int PMPI_File_iwrite_at_all(MPI_File fh, MPI_Offset offset, const void* buf, int count,
                                       MPI_Datatype datatype, MPI_Request* req) {
  FTMPI_ENTER("MPI_File_iwrite_at_all");
  return nonblocking(fh, Where::at, offset, nullptr, buf, count, datatype, true, req, "MPI_File_iwrite_at_all");
}
FTMPI_ALIAS(File_iwrite_at_all)
extern "C" int PMPI_File_read_at_all_begin(MPI_File fh, MPI_Offset offset, void* buf, int count,
                                           MPI_Datatype datatype) {
  FTMPI_ENTER("MPI_File_read_at_all_begin");
  return split_begin(fh, Where::at, offset, buf, nullptr, count, datatype, false, "MPI_File_read_at_all_begin");
}
FTMPI_ALIAS(File_read_at_all_begin)
extern "C" int PMPI_File_write_at_all_begin(MPI_File fh, MPI_Offset offset, const void* buf, int count,
                                            MPI_Datatype datatype) {
  FTMPI_ENTER("MPI_File_write_at_all_begin");
  return split_begin(fh, Where::at, offset, nullptr, buf, count, datatype, true, "MPI_File_write_at_all_begin");
}
FTMPI_ALIAS(File_write_at_all_begin)
extern "C" int PMPI_File_read_at_all_end(MPI_File fh, void* buf, MPI_Status* status) {
  FTMPI_ENTER("MPI_File_read_at_all_end");
  return split_end(fh, buf, false, status, "MPI_File_read_at_all_end");
}
FTMPI_ALIAS(File_read_at_all_end)
extern "C" int PMPI_File_write_at_all_end(MPI_File fh, const void* buf, MPI_Status* status) {
  FTMPI_ENTER("MPI_File_write_at_all_end");
  return split_end(fh, buf, true, status, "MPI_File_write_at_all_end");
}
FTMPI_ALIAS(File_write_at_all_end)
