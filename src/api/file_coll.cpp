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

#include "api/file_common.h"
#include "datatype/datatype.h"
#include "io/posix.h"

using ftmpi::Errc;
using ftmpi::Status;
using ftmpi::api::file_ret;
using ftmpi::io::Extent;

namespace ftmpi::api {
namespace {

constexpr std::uint64_t kNone = ~0ULL;

struct Span {
  std::uint64_t lo, hi;
};

// Everyone's [lo, hi) (kNone for an empty access).
Status gather_spans(ftmpi_file_s* f, const std::vector<Extent>& ex, std::vector<Span>* all) {
  Span mine{kNone, 0};
  for (const Extent& e : ex) mine.lo = std::min(mine.lo, e.file_off), mine.hi = std::max(mine.hi, e.file_off + e.len);
  all->resize(static_cast<std::size_t>(f->size));
  int rc = PMPI_Allgather(&mine, 2, MPI_UINT64_T, all->data(), 2, MPI_UINT64_T, f->comm);
  return status_of_rc(rc, "collective access: exchange of ranges");
}

bool interleaved(std::vector<Span> s) {
  s.erase(std::remove_if(s.begin(), s.end(), [](const Span& x) { return x.lo == kNone; }), s.end());
  std::sort(s.begin(), s.end(), [](const Span& a, const Span& b) { return a.lo < b.lo; });
  for (std::size_t i = 1; i < s.size(); ++i)
    if (s[i].lo < s[i - 1].hi) return true;
  return false;
}

int aggregators(const ftmpi_file_s* f) {
  return f->cb_nodes > 0 ? std::min(f->cb_nodes, f->size) : std::min(f->size, 4);
}

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

void put_u64(std::vector<char>& b, std::uint64_t v) {
  const char* p = reinterpret_cast<const char*>(&v);
  b.insert(b.end(), p, p + 8);
}
std::uint64_t get_u64(const char* p) {
  std::uint64_t v;
  std::memcpy(&v, p, 8);
  return v;
}

// One round's all-to-allv of byte blocks (one per member) on the file's communicator.
Status exchange(ftmpi_file_s* f, std::vector<std::vector<char>>& out, std::vector<char>* in,
                std::vector<int>* rdispl, std::vector<int>* rcount) {
  const std::size_t n = static_cast<std::size_t>(f->size);
  std::vector<int> scount(n), sdispl(n);
  rcount->assign(n, 0);
  rdispl->assign(n, 0);
  std::size_t total = 0;
  for (std::size_t i = 0; i < n; ++i) {
    if (out[i].size() > static_cast<std::size_t>(INT32_MAX - 64)) return Status(Errc::intern, "two-phase piece too large");
    scount[i] = static_cast<int>(out[i].size());
    sdispl[i] = static_cast<int>(total);
    total += out[i].size();
  }
  std::vector<char> sbuf(total);
  for (std::size_t i = 0; i < n; ++i)
    if (!out[i].empty()) std::memcpy(sbuf.data() + sdispl[i], out[i].data(), out[i].size());
  int rc = PMPI_Alltoall(scount.data(), 1, MPI_INT, rcount->data(), 1, MPI_INT, f->comm);
  if (rc != MPI_SUCCESS) return status_of_rc(rc, "two-phase: exchange of counts");
  std::size_t rtotal = 0;
  for (std::size_t i = 0; i < n; ++i) (*rdispl)[i] = static_cast<int>(rtotal), rtotal += static_cast<std::size_t>((*rcount)[i]);
  in->resize(rtotal);
  rc = PMPI_Alltoallv(sbuf.data(), scount.data(), sdispl.data(), MPI_BYTE, in->data(), rcount->data(), rdispl->data(),
                      MPI_BYTE, f->comm);
  return status_of_rc(rc, "two-phase: exchange of data");
}

Status two_phase_write(ftmpi_file_s* f, const std::vector<Extent>& ex, const std::vector<Span>& spans,
                       std::uint64_t pos, const char* data) {
  std::uint64_t lo = kNone, hi = 0;
  for (const Span& s : spans)
    if (s.lo != kNone) lo = std::min(lo, s.lo), hi = std::max(hi, s.hi);
  if (lo == kNone) return Status::Ok();
  io::TwoPhasePlan plan(lo, hi, aggregators(f), f->cb_buffer_size);
  int my_aggr = -1;
  for (int a = 0; a < plan.naggr; ++a)
    if (io::TwoPhasePlan::aggregator_rank(a, plan.naggr, f->size) == f->rank) my_aggr = a;
  std::vector<char> window;
  Status local;
  for (int r = 0; r < plan.rounds; ++r) {
    std::vector<std::vector<char>> out(static_cast<std::size_t>(f->size));
    for (int a = 0; a < plan.naggr; ++a) {
      auto [wlo, whi] = plan.window(a, r);
      auto& b = out[static_cast<std::size_t>(io::TwoPhasePlan::aggregator_rank(a, plan.naggr, f->size))];
      io::clip(ex, wlo, whi, [&](std::uint64_t off, std::uint64_t s, std::uint64_t len) {
        put_u64(b, off);
        put_u64(b, len);
        b.insert(b.end(), data + (s - pos), data + (s - pos) + len);
      });
    }
    std::vector<char> in;
    std::vector<int> rd, rc;
    FTMPI_TRY(exchange(f, out, &in, &rd, &rc));
    if (my_aggr < 0 || in.empty()) continue;
    auto [wlo, whi] = plan.window(my_aggr, r);
    window.resize(static_cast<std::size_t>(whi - wlo));
    std::vector<std::pair<std::uint64_t, std::uint64_t>> runs;
    for (std::size_t p = 0; p + 16 <= in.size();) {
      const std::uint64_t off = get_u64(in.data() + p), len = get_u64(in.data() + p + 8);
      std::memcpy(window.data() + (off - wlo), in.data() + p + 16, len);
      runs.emplace_back(off, len);
      p += 16 + len;
    }
    for (const auto& [off, len] : io::merge_runs(std::move(runs))) {
      if (!local.ok()) break;
      local = io::write_at(f->fd, off, window.data() + (off - wlo), len);
    }
  }
  if (!local.ok()) f->write_failed = true;
  return local;
}

Status two_phase_read(ftmpi_file_s* f, const std::vector<Extent>& ex, const std::vector<Span>& spans,
                      std::uint64_t pos, char* data, std::uint64_t* got) {
  std::uint64_t lo = kNone, hi = 0;
  for (const Span& s : spans)
    if (s.lo != kNone) lo = std::min(lo, s.lo), hi = std::max(hi, s.hi);
  std::uint64_t first_short = kNone;
  std::uint64_t total = 0;
  for (const Extent& e : ex) total += e.len;
  if (lo == kNone) {
    *got = 0;
    return Status::Ok();
  }
  io::TwoPhasePlan plan(lo, hi, aggregators(f), f->cb_buffer_size);
  int my_aggr = -1;
  for (int a = 0; a < plan.naggr; ++a)
    if (io::TwoPhasePlan::aggregator_rank(a, plan.naggr, f->size) == f->rank) my_aggr = a;
  std::vector<char> window;
  Status local;
  for (int r = 0; r < plan.rounds; ++r) {
    // requests: (off, len) to each aggregator; remember where each answer goes
    std::vector<std::vector<char>> out(static_cast<std::size_t>(f->size));
    std::vector<std::vector<Extent>> asked(static_cast<std::size_t>(f->size));
    for (int a = 0; a < plan.naggr; ++a) {
      auto [wlo, whi] = plan.window(a, r);
      const auto ar = static_cast<std::size_t>(io::TwoPhasePlan::aggregator_rank(a, plan.naggr, f->size));
      io::clip(ex, wlo, whi, [&](std::uint64_t off, std::uint64_t s, std::uint64_t len) {
        put_u64(out[ar], off);
        put_u64(out[ar], len);
        asked[ar].push_back({off, s, len});
      });
    }
    std::vector<char> in;
    std::vector<int> rd, rc;
    FTMPI_TRY(exchange(f, out, &in, &rd, &rc));
    // aggregator: one pread of the requests' span (data sieving), then the answers [valid][bytes] per request
    std::vector<std::vector<char>> answers(static_cast<std::size_t>(f->size));
    if (my_aggr >= 0 && !in.empty()) {
      std::uint64_t rlo = kNone, rhi = 0;
      for (std::size_t p = 0; p + 16 <= in.size(); p += 16) {
        const std::uint64_t off = get_u64(in.data() + p), len = get_u64(in.data() + p + 8);
        rlo = std::min(rlo, off), rhi = std::max(rhi, off + len);
      }
      window.resize(static_cast<std::size_t>(rhi - rlo));
      std::uint64_t n = 0;
      if (local.ok()) local = io::read_at(f->fd, rlo, window.data(), rhi - rlo, &n);
      const std::uint64_t valid_end = rlo + n;
      for (std::size_t src = 0; src < static_cast<std::size_t>(f->size); ++src) {
        for (int p = rd[src]; p + 16 <= rd[src] + rc[src]; p += 16) {
          const std::uint64_t off = get_u64(in.data() + p), len = get_u64(in.data() + p + 8);
          const std::uint64_t valid = off >= valid_end ? 0 : std::min(len, valid_end - off);
          put_u64(answers[src], valid);
          answers[src].insert(answers[src].end(), window.data() + (off - rlo), window.data() + (off - rlo) + valid);
        }
      }
    }
    std::vector<char> back;
    FTMPI_TRY(exchange(f, answers, &back, &rd, &rc));
    for (std::size_t src = 0; src < static_cast<std::size_t>(f->size); ++src) {
      std::size_t p = static_cast<std::size_t>(rd[src]);
      for (const Extent& e : asked[src]) {
        const std::uint64_t valid = get_u64(back.data() + p);
        std::memcpy(data + (e.stream_off - pos), back.data() + p + 8, valid);
        if (valid < e.len) first_short = std::min(first_short, e.stream_off - pos + valid);
        p += 8 + valid;
      }
    }
  }
  *got = std::min(total, first_short);
  return local;
}

}  // namespace

Status collective_write(ftmpi_file_s* f, std::uint64_t pos, const char* data, std::uint64_t len) {
  const auto ex = extents_of(f, pos, len);
  std::vector<Span> spans;
  FTMPI_TRY(gather_spans(f, ex, &spans));
  const bool two_phase = !f->atomic && f->cb_write != io::CbMode::disable &&
                         (f->cb_write == io::CbMode::enable || interleaved(spans));
  Status st = two_phase ? two_phase_write(f, ex, spans, pos, data) : write_stream(f, pos, data, len);
  return combine(f, std::move(st), "collective write");
}

Status collective_read(ftmpi_file_s* f, std::uint64_t pos, char* data, std::uint64_t len, std::uint64_t* got) {
  const auto ex = extents_of(f, pos, len);
  std::vector<Span> spans;
  FTMPI_TRY(gather_spans(f, ex, &spans));
  const bool two_phase = !f->atomic && f->cb_read != io::CbMode::disable &&
                         (f->cb_read == io::CbMode::enable || interleaved(spans));
  Status st = two_phase ? two_phase_read(f, ex, spans, pos, data, got) : read_stream(f, pos, data, len, got);
  return combine(f, std::move(st), "collective read");
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
