// MPI-IO independent data access (MPI-3.1 §13.4): explicit offsets (read_at/write_at), the individual file
// pointer (read/write), the shared file pointer (read_shared/write_shared), blocking and non-blocking (the
// non-blocking forms do the access at initiation and return a complete request: docs/io.md). The data
// stream of an access and the independent I/O every access kind (also the collectives' fallback) ends in.
#include <sys/stat.h>

#include <cstring>

#include "api/file_common.h"
#include "api/file_repr.h"
#include "api/grequest.h"
#include "datatype/datatype.h"
#include "datatype/external32.h"
#include "io/posix.h"
#include "io/sieve.h"

using ftmpi::Errc;
using ftmpi::Status;
using ftmpi::api::file_ret;

namespace ftmpi::api {

Status check_position(const ftmpi_file_s* f, bool shared, bool at, MPI_Offset offset) {
  if (!shared && (f->amode & MPI_MODE_SEQUENTIAL))
    return Status(Errc::unsupported, "a MPI_MODE_SEQUENTIAL file allows shared file pointer accesses only");
  if (at && offset < 0) return Status(Errc::arg, "negative offset");
  if (shared && f->shared_fd < 0) return Status(Errc::unsupported, "no shared file pointer for this file (docs/io.md)");
  return Status();
}

Status check_access(ftmpi_file_s* f, int count, MPI_Datatype type, const void* buf, bool write) {
  if (f->invalidated) return Status(Errc::revoked, "the file was invalidated (MPI_File_invalidate)");
  if (count < 0) return Status(Errc::count, "negative count");
  if (!dt::usable(type)) return Status(Errc::type, "invalid or uncommitted datatype");
  if (count > 0 && type->size > 0 && !buf && type->true_lb == 0) return Status(Errc::buffer, "buffer is NULL");
  if (write && (f->amode & MPI_MODE_RDONLY)) return Status(Errc::read_only, "write to a file opened MPI_MODE_RDONLY");
  if (!write && (f->amode & MPI_MODE_WRONLY)) return Status(Errc::access, "read from a file opened MPI_MODE_WRONLY");
  return Status::Ok();
}

namespace {
bool native(const ftmpi_file_s* f) {
  if (f->rep == io::Datarep::user) return f->user_rep == nullptr || f->user_rep->write == nullptr;
  return f->rep != io::Datarep::external32;
}
bool native_read(const ftmpi_file_s* f) {
  if (f->rep == io::Datarep::user) return f->user_rep == nullptr || f->user_rep->read == nullptr;
  return f->rep != io::Datarep::external32;
}
bool user_rep(const ftmpi_file_s* f) { return f->rep == io::Datarep::user && f->user_rep != nullptr; }
}  // namespace

Status make_write_stream(ftmpi_file_s* f, const void* buf, int count, MPI_Datatype type, Stream* out) {
  const std::uint64_t n = static_cast<std::uint64_t>(count) * type->size;
  if (native(f)) {
    out->len = n;
    if (type->contiguous) {
      out->data = static_cast<const char*>(buf);
    } else {
      out->own.resize(n);
      dt::pack(buf, static_cast<std::size_t>(count), type, out->own.data());
      out->data = out->own.data();
    }
  } else if (user_rep(f)) {  // the user's write conversion, chunk by chunk (api/file_repr.h)
    const RepSizes sizes(f->user_rep);
    FTMPI_TRY(user_stream_size(sizes, type, static_cast<std::size_t>(count), &out->len));
    out->own.resize(out->len);
    FTMPI_TRY(user_write_convert(*f->user_rep, sizes, buf, type, count, out->own.data()));
    out->data = out->own.data();
  } else {
    std::vector<char> packed(n);
    dt::pack(buf, static_cast<std::size_t>(count), type, packed.data());
    out->len = dt::external32_size(type, static_cast<std::size_t>(count));
    out->own.resize(out->len);
    FTMPI_TRY(dt::to_external32(packed.data(), static_cast<std::size_t>(count), type, out->own.data()));
    out->data = out->own.data();
  }
  if (out->len % f->esize != 0) return Status(Errc::type, "the data is not a whole number of etypes of the view");
  return Status::Ok();
}

Status make_read_target(ftmpi_file_s* f, void* buf, int count, MPI_Datatype type, ReadTarget* out) {
  if (user_rep(f) && !native_read(f)) {
    FTMPI_TRY(user_stream_size(RepSizes(f->user_rep), type, static_cast<std::size_t>(count), &out->len));
    out->own.resize(out->len);
    out->data = out->own.data();
  } else if (native_read(f)) {
    out->len = static_cast<std::uint64_t>(count) * type->size;
    if (type->contiguous) {
      out->data = static_cast<char*>(buf);
    } else {
      out->own.resize(out->len);
      out->data = out->own.data();
    }
  } else {
    out->len = dt::external32_size(type, static_cast<std::size_t>(count));
    out->own.resize(out->len);
    out->data = out->own.data();
  }
  if (out->len % f->esize != 0) return Status(Errc::type, "the data is not a whole number of etypes of the view");
  return Status::Ok();
}

Status finish_read(ftmpi_file_s* f, ReadTarget& t, std::uint64_t got, void* buf, int count, MPI_Datatype type,
                   std::uint64_t* bytes) {
  if (user_rep(f) && !native_read(f))  // the user's read conversion, on the whole data items read
    return user_read_convert(*f->user_rep, RepSizes(f->user_rep), buf, type, count, t.own.data(), got, bytes);
  if (native_read(f)) {
    if (!type->contiguous && got > 0) dt::unpack(t.own.data(), got, type, buf);
    *bytes = got;
    return Status::Ok();
  }
  const std::size_t per = dt::external32_size(type, 1);
  const std::size_t whole = per == 0 ? 0 : static_cast<std::size_t>(got / per);
  (void)count;
  std::vector<char> packed(whole * type->size);
  FTMPI_TRY(dt::from_external32(t.own.data(), whole, type, packed.data()));
  if (whole > 0) dt::unpack(packed.data(), packed.size(), type, buf);
  *bytes = packed.size();
  return Status::Ok();
}

Status write_stream(ftmpi_file_s* f, std::uint64_t pos, const char* data, std::uint64_t len) {
  return write_stream(f, f->view, pos, data, len);
}

Status write_stream(ftmpi_file_s* f, const io::View& view, std::uint64_t pos, const char* data, std::uint64_t len) {
  if (len == 0) return Status::Ok();
  auto ex = extents_of(view, pos, len);
  if (ex.empty()) return Status(Errc::io, "the view has no data bytes");
  std::unique_ptr<io::RangeLock> lock;
  if (f->atomic) {
    const std::uint64_t lo = ex.front().file_off, hi = ex.back().file_off + ex.back().len;
    lock = std::make_unique<io::RangeLock>(f->fd, lo, hi - lo, true);
    if (!lock->status().ok()) return lock->status();
  }
  // Data sieving (io/sieve.h): never on a write-only file (no read access for the read-modify-write). In
  // atomic mode the lock above covers the whole access: no span locks.
  io::SieveOptions so{f->ind_wr_buffer_size, f->ds_write, !f->atomic};
  if (f->amode & MPI_MODE_WRONLY) so.mode = io::CbMode::disable;
  f->dirty = true;
  Status st = io::sieve_write(f->fd, ex, pos, data, so);
  if (!st.ok()) f->write_failed = true;
  return st;
}

Status read_stream(ftmpi_file_s* f, std::uint64_t pos, char* data, std::uint64_t len, std::uint64_t* got) {
  return read_stream(f, f->view, pos, data, len, got);
}

Status read_stream(ftmpi_file_s* f, const io::View& view, std::uint64_t pos, char* data, std::uint64_t len,
                   std::uint64_t* got) {
  *got = 0;
  if (len == 0) return Status::Ok();
  auto ex = extents_of(view, pos, len);
  std::unique_ptr<io::RangeLock> lock;
  if (f->atomic && !ex.empty()) {
    const std::uint64_t lo = ex.front().file_off, hi = ex.back().file_off + ex.back().len;
    lock = std::make_unique<io::RangeLock>(f->fd, lo, hi - lo, false);
    if (!lock->status().ok()) return lock->status();
  }
  return io::sieve_read(f->fd, ex, pos, data, io::SieveOptions{f->ind_rd_buffer_size, f->ds_read, false}, got);
}

void set_status(MPI_Status* st, std::uint64_t bytes) {
  if (!st) return;
  st->MPI_SOURCE = MPI_ANY_SOURCE;
  st->MPI_TAG = MPI_ANY_TAG;
  st->ftmpi_cancelled = 0;
  st->ftmpi_count = static_cast<MPI_Count>(bytes);
}

Status transfer(ftmpi_file_s* f, std::int64_t start, bool individual, bool write, const Stream& ws, ReadTarget& rt,
                void* rbuf, int count, MPI_Datatype type, MPI_Status* status, WriteFn write_fn, ReadFn read_fn) {
  const std::uint64_t pos = static_cast<std::uint64_t>(start) * f->esize;
  std::uint64_t bytes = 0;
  if (write) {
    FTMPI_TRY(write_fn(f, pos, ws.data, ws.len));
    bytes = static_cast<std::uint64_t>(count) * type->size;
    if (individual) f->pos = start + static_cast<std::int64_t>(ws.len / f->esize);
  } else {
    std::uint64_t got = 0;
    FTMPI_TRY(read_fn(f, pos, rt.data, rt.len, &got));
    got -= got % f->esize;
    FTMPI_TRY(finish_read(f, rt, got, rbuf, count, type, &bytes));
    if (individual) f->pos = start + static_cast<std::int64_t>(got / f->esize);
  }
  set_status(status, bytes);
  return Status::Ok();
}

namespace {
struct Done {
  MPI_Status status;
  int rc;
};
int done_query(void* extra, MPI_Status* st) {
  auto* d = static_cast<Done*>(extra);
  const int err = st->MPI_ERROR;
  *st = d->status;
  st->MPI_ERROR = err;
  return d->rc;
}
int done_free(void* extra) {
  delete static_cast<Done*>(extra);
  return MPI_SUCCESS;
}
int done_cancel(void*, int) { return MPI_SUCCESS; }
}  // namespace

int completed_request(const MPI_Status& status, int rc, MPI_Request* req) {
  auto* d = new Done{status, rc};
  int r = PMPI_Grequest_start(done_query, done_free, done_cancel, d, req);
  if (r != MPI_SUCCESS) {
    delete d;
    return r;
  }
  return PMPI_Grequest_complete(*req);
}

}  // namespace ftmpi::api

namespace {

using ftmpi::api::ReadTarget;
using ftmpi::api::Stream;

enum class Where { at, individual, shared };

// One independent access. `offset` (etypes) for Where::at.
Status access(ftmpi_file_s* f, Where where, MPI_Offset offset, void* rbuf, const void* wbuf, int count,
              MPI_Datatype type, bool write, MPI_Status* status) {
  FTMPI_TRY(ftmpi::api::check_access(f, count, type, write ? wbuf : rbuf, write));
  FTMPI_TRY(ftmpi::api::check_position(f, where == Where::shared, where == Where::at, offset));
  Stream ws;
  ReadTarget rt;
  std::uint64_t len;
  if (write) {
    FTMPI_TRY(ftmpi::api::make_write_stream(f, wbuf, count, type, &ws));
    len = ws.len;
  } else {
    FTMPI_TRY(ftmpi::api::make_read_target(f, rbuf, count, type, &rt));
    len = rt.len;
  }
  const std::int64_t n_etypes = static_cast<std::int64_t>(len / f->esize);
  std::int64_t start = 0;
  switch (where) {
    case Where::at: start = offset; break;
    case Where::individual: start = f->pos; break;
    case Where::shared: FTMPI_TRY(ftmpi::io::shared_fetch_add(f->shared_fd, n_etypes, &start)); break;
  }
  return ftmpi::api::transfer(f, start, where == Where::individual, write, ws, rt, rbuf, count, type, status,
                              ftmpi::api::write_stream, ftmpi::api::read_stream);
}

int blocking(MPI_File fh, Where where, MPI_Offset off, void* rbuf, const void* wbuf, int count, MPI_Datatype type,
             bool write, MPI_Status* status, const char* fn) {
  FTMPI_CHECK_FILE(fh, fn);
  return file_ret(fh, access(fh, where, off, rbuf, wbuf, count, type, write, status), fn);
}

int nonblocking(MPI_File fh, Where where, MPI_Offset off, void* rbuf, const void* wbuf, int count, MPI_Datatype type,
                bool write, MPI_Request* req, const char* fn) {
  FTMPI_CHECK_FILE(fh, fn);
  if (!req) return file_ret(fh, Status(Errc::arg, "request is NULL"), fn);
  MPI_Status st{};
  Status s = access(fh, where, off, rbuf, wbuf, count, type, write, &st);
  // errors of the access itself are reported at completion (the request's status), argument errors now
  if (!s.ok() && (s.code() == Errc::count || s.code() == Errc::type || s.code() == Errc::buffer ||
                  s.code() == Errc::arg || s.code() == Errc::revoked))
    return file_ret(fh, s, fn);
  const int rc = s.ok() ? MPI_SUCCESS : ftmpi::api::error_class_of(s.code());
  return ftmpi::api::completed_request(st, rc, req);
}

}  // namespace

#define FTMPI_FILE_RW(Name, where, write)                                                                   \
  extern "C" int PMPI_File_read##Name(MPI_File fh, void* buf, int count, MPI_Datatype datatype,              \
                                      MPI_Status* status) {                                                   \
    FTMPI_ENTER("MPI_File_read" #Name);                                                                      \
    return blocking(fh, where, 0, buf, nullptr, count, datatype, false, status, "MPI_File_read" #Name);      \
  }                                                                                                           \
  FTMPI_ALIAS(File_read##Name)                                                                                \
  extern "C" int PMPI_File_write##Name(MPI_File fh, const void* buf, int count, MPI_Datatype datatype,       \
                                       MPI_Status* status) {                                                  \
    FTMPI_ENTER("MPI_File_write" #Name);                                                                     \
    return blocking(fh, where, 0, nullptr, buf, count, datatype, true, status, "MPI_File_write" #Name);      \
  }                                                                                                           \
  FTMPI_ALIAS(File_write##Name)                                                                               \
  extern "C" int PMPI_File_iread##Name(MPI_File fh, void* buf, int count, MPI_Datatype datatype,             \
                                       MPI_Request* req) {                                                    \
    FTMPI_ENTER("MPI_File_iread" #Name);                                                                     \
    return nonblocking(fh, where, 0, buf, nullptr, count, datatype, false, req, "MPI_File_iread" #Name);     \
  }                                                                                                           \
  FTMPI_ALIAS(File_iread##Name)                                                                               \
  extern "C" int PMPI_File_iwrite##Name(MPI_File fh, const void* buf, int count, MPI_Datatype datatype,      \
                                        MPI_Request* req) {                                                   \
    FTMPI_ENTER("MPI_File_iwrite" #Name);                                                                    \
    return nonblocking(fh, where, 0, nullptr, buf, count, datatype, true, req, "MPI_File_iwrite" #Name);     \
  }                                                                                                           \
  FTMPI_ALIAS(File_iwrite##Name)

FTMPI_FILE_RW(, Where::individual, _)
FTMPI_FILE_RW(_shared, Where::shared, _)

extern "C" int PMPI_File_read_at(MPI_File fh, MPI_Offset offset, void* buf, int count, MPI_Datatype datatype,
                                 MPI_Status* status) {
  FTMPI_ENTER("MPI_File_read_at");
  return blocking(fh, Where::at, offset, buf, nullptr, count, datatype, false, status, "MPI_File_read_at");
}
FTMPI_ALIAS(File_read_at)
extern "C" int PMPI_File_write_at(MPI_File fh, MPI_Offset offset, const void* buf, int count, MPI_Datatype datatype,
                                  MPI_Status* status) {
  FTMPI_ENTER("MPI_File_write_at");
  return blocking(fh, Where::at, offset, nullptr, buf, count, datatype, true, status, "MPI_File_write_at");
}
FTMPI_ALIAS(File_write_at)
extern "C" int PMPI_File_iread_at(MPI_File fh, MPI_Offset offset, void* buf, int count, MPI_Datatype datatype,
                                  MPI_Request* req) {
  FTMPI_ENTER("MPI_File_iread_at");
  return nonblocking(fh, Where::at, offset, buf, nullptr, count, datatype, false, req, "MPI_File_iread_at");
}
FTMPI_ALIAS(File_iread_at)
extern "C" int PMPI_File_iwrite_at(MPI_File fh, MPI_Offset offset, const void* buf, int count, MPI_Datatype datatype,
                                   MPI_Request* req) {
  FTMPI_ENTER("MPI_File_iwrite_at");
  return nonblocking(fh, Where::at, offset, nullptr, buf, count, datatype, true, req, "MPI_File_iwrite_at");
}
FTMPI_ALIAS(File_iwrite_at)
