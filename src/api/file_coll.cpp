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
#include <memory>
#include <optional>

#include "api/file_coll_task.h"
#include "api/file_common.h"
#include "datatype/datatype.h"
#include "io/posix.h"
#include "p2p/engine.h"
#include "p2p/request.h"

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
  if (arg.ok()) arg = ftmpi::api::check_position(f, where == Where::ordered, where == Where::at, offset);
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

// A non-blocking collective access (file_coll_task.h): initiation starts an idup of the file's communicator
// and returns; the progress loop then runs the argument agreement and the access on the duplicate.
class NbCollOp final : public ftmpi::p2p::GenericOp {
 public:
  NbCollOp(ftmpi_file_s* f, bool write, void* rbuf, int count, MPI_Datatype type)
      : f_(f), rbuf_(rbuf), count_(count), type_(type), view_(f->view), esize_(f->esize) {
    a_.f = f;
    a_.write = write;
    a_.view = &view_;
    ++f->nb_pending;
  }
  ~NbCollOp() override {
    if (dup_ != MPI_COMM_NULL) PMPI_Comm_free(&dup_);
    --f_->nb_pending;
  }
  // Initiation: the local argument outcome `arg` and the streams; false (nothing started) if the idup
  // could not be started.
  Status start(Status arg, std::int64_t start_etype, const void* wbuf) {
    arg_ = static_cast<int>(arg.ok() ? Errc::ok : arg.code());
    arg_status_ = arg;
    if (arg.ok()) {
      arg = a_.write ? ftmpi::api::make_write_stream(f_, wbuf, count_, type_, &ws_)
                     : ftmpi::api::make_read_target(f_, rbuf_, count_, type_, &rt_);
      arg_ = static_cast<int>(arg.ok() ? Errc::ok : arg.code());
      arg_status_ = arg;
    }
    a_.pos = static_cast<std::uint64_t>(start_etype) * f_->esize;
    a_.wdata = ws_.data;
    a_.rdata = rt_.data;
    a_.len = a_.write ? ws_.len : rt_.len;
    return ftmpi::api::status_of_rc(PMPI_Comm_idup(f_->comm, &dup_, &waiting_), "non-blocking collective access: MPI_Comm_idup");
  }
  std::uint64_t stream_len() const { return arg_status_.ok() ? a_.len : 0; }

  // GenericOp: one step at a time; a completed step's outcome goes back to the task (or, before the task
  // runs, ends the access when it failed).
  bool progress() override {
    for (;;) {
      Status e;
      if (waiting_ != MPI_REQUEST_NULL) {
        if (!waiting_->complete) return false;
        if (!waiting_->error.ok()) e = Status(waiting_->error.code(), std::string(what_) + ": " + waiting_->error.message());
        ftmpi::api::rt().engine().release(waiting_);
        waiting_ = MPI_REQUEST_NULL;
      }
      switch (phase_) {
        case Phase::idup: {  // the duplicate exists: agree on the arguments
          if (!e.ok()) return finish(e);
          a_.comm = dup_;
          phase_ = Phase::args;
          what_ = "collective access";
          const int rc = PMPI_Iallreduce(&arg_, &arg_all_, 1, MPI_INT, MPI_MAX, dup_, &waiting_);
          if (rc != MPI_SUCCESS) return finish(ftmpi::api::status_of_rc(rc, what_));
          continue;
        }
        case Phase::args:
          if (!e.ok()) return finish(e);
          if (!arg_status_.ok()) return finish(arg_status_);
          if (arg_all_ != 0)
            return finish(Status(static_cast<Errc>(arg_all_), "collective access: failed at another process"));
          task_.emplace(ftmpi::api::collective_rw(&a_));
          phase_ = Phase::run;
          break;
        case Phase::run:
          task_->handle().promise().step = e;
          break;
      }
      ftmpi::api::IoTask::Handle h = task_->handle();
      h.resume();
      if (h.done()) return finish(h.promise().result);
      waiting_ = std::exchange(h.promise().waiting, MPI_REQUEST_NULL);
      what_ = h.promise().what;
    }
  }

 private:
  enum class Phase { idup, args, run };
  bool finish(Status st) {
    std::uint64_t bytes = 0;
    if (st.ok() && a_.write) bytes = static_cast<std::uint64_t>(count_) * type_->size;
    if (st.ok() && !a_.write) {
      std::uint64_t got = a_.got - a_.got % esize_;
      st = ftmpi::api::finish_read(f_, rt_, got, rbuf_, count_, type_, &bytes);
    }
    status.bytes = static_cast<std::size_t>(bytes);
    status.source = MPI_ANY_SOURCE;
    status.tag = MPI_ANY_TAG;
    result = std::move(st);
    return true;
  }

  ftmpi_file_s* f_;
  void* rbuf_;
  int count_;
  MPI_Datatype type_;
  ftmpi::io::View view_;  // the view at initiation (CollAccess::view)
  std::uint64_t esize_;
  ftmpi::api::CollAccess a_;
  Stream ws_;
  ReadTarget rt_;
  int arg_ = 0, arg_all_ = 0;
  Status arg_status_;
  MPI_Comm dup_ = MPI_COMM_NULL;
  MPI_Request waiting_ = MPI_REQUEST_NULL;
  const char* what_ = "non-blocking collective access: MPI_Comm_idup";
  Phase phase_ = Phase::idup;
  std::optional<ftmpi::api::IoTask> task_;
};

int nonblocking(MPI_File fh, Where where, MPI_Offset off, void* rbuf, const void* wbuf, int count, MPI_Datatype type,
                bool write, MPI_Request* req, const char* fn) {
  FTMPI_CHECK_FILE(fh, fn);
  if (!req) return file_ret(fh, Status(Errc::arg, "request is NULL"), fn);
  if (fh->invalidated) return file_ret(fh, Status(Errc::revoked, "the file was invalidated (MPI_File_invalidate)"), fn);
  // Argument errors are agreed on collectively (the op's first step), as in the blocking access.
  Status arg = ftmpi::api::check_access(fh, count, type, write ? wbuf : rbuf, write);
  if (arg.ok()) arg = ftmpi::api::check_position(fh, false, where == Where::at, off);
  const std::int64_t start = where == Where::at ? off : fh->pos;
  auto op = std::make_unique<NbCollOp>(fh, write, rbuf, count, type);
  if (Status st = op->start(arg, start, wbuf); !st.ok()) return file_ret(fh, st, fn);
  // §13.4.3: the individual file pointer moves at initiation, by the amount asked for.
  if (where == Where::individual) fh->pos = start + static_cast<std::int64_t>(op->stream_len() / fh->esize);
  ftmpi::p2p::Request* r = ftmpi::api::rt().engine().start_generic(std::move(op));
  ftmpi::p2p::set_comm(r, fh->comm);
  *req = r;
  return MPI_SUCCESS;
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
