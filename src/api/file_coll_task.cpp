// The collective access as a coroutine (file_coll_task.h): span exchange, then independent I/O or two-phase
// collective buffering (io/two_phase.h), then the reduction of every member's outcome.
#include "api/file_coll_task.h"

#include <algorithm>
#include <cstring>

#include "io/posix.h"

namespace ftmpi::api {
namespace {

using io::Extent;

constexpr std::uint64_t kNone = ~0ULL;

struct Span {
  std::uint64_t lo, hi;
};

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

void put_u64(std::vector<char>& b, std::uint64_t v) {
  const char* p = reinterpret_cast<const char*>(&v);
  b.insert(b.end(), p, p + 8);
}
std::uint64_t get_u64(const char* p) {
  std::uint64_t v;
  std::memcpy(&v, p, 8);
  return v;
}

// One two-phase round's all-to-allv of byte blocks (one per member): counts first, then the data.
struct Exchange {
  std::vector<int> scount, sdispl, rcount, rdispl;
  std::vector<char> sbuf, in;
  Status prepare(const std::vector<std::vector<char>>& out) {
    const std::size_t n = out.size();
    scount.assign(n, 0);
    sdispl.assign(n, 0);
    rcount.assign(n, 0);
    rdispl.assign(n, 0);
    std::size_t total = 0;
    for (std::size_t i = 0; i < n; ++i) {
      if (out[i].size() > static_cast<std::size_t>(INT32_MAX - 64)) return Status(Errc::intern, "two-phase piece too large");
      scount[i] = static_cast<int>(out[i].size());
      sdispl[i] = static_cast<int>(total);
      total += out[i].size();
    }
    sbuf.resize(total);
    for (std::size_t i = 0; i < n; ++i)
      if (!out[i].empty()) std::memcpy(sbuf.data() + sdispl[i], out[i].data(), out[i].size());
    return Status::Ok();
  }
  int start_counts(MPI_Comm c, MPI_Request* r) {
    return PMPI_Ialltoall(scount.data(), 1, MPI_INT, rcount.data(), 1, MPI_INT, c, r);
  }
  int start_data(MPI_Comm c, MPI_Request* r) {
    std::size_t rtotal = 0;
    for (std::size_t i = 0; i < rcount.size(); ++i) rdispl[i] = static_cast<int>(rtotal), rtotal += static_cast<std::size_t>(rcount[i]);
    in.resize(rtotal);
    return PMPI_Ialltoallv(sbuf.data(), scount.data(), sdispl.data(), MPI_BYTE, in.data(), rcount.data(), rdispl.data(),
                           MPI_BYTE, c, r);
  }
};

}  // namespace

IoTask collective_rw(CollAccess* a) {
  ftmpi_file_s* f = a->f;
  const std::size_t n = static_cast<std::size_t>(f->size);
  const io::View& view = a->view ? *a->view : f->view;
  const std::vector<Extent> ex = extents_of(view, a->pos, a->len);
  MPI_Request rq = MPI_REQUEST_NULL;

  Span mine{kNone, 0};
  for (const Extent& e : ex) mine.lo = std::min(mine.lo, e.file_off), mine.hi = std::max(mine.hi, e.file_off + e.len);
  std::vector<Span> spans(n);
  Status st = co_await Step{PMPI_Iallgather(&mine, 2, MPI_UINT64_T, spans.data(), 2, MPI_UINT64_T, a->comm, &rq), rq,
                            "collective access: exchange of ranges"};
  if (!st.ok()) co_return st;

  const io::CbMode mode = a->write ? f->cb_write : f->cb_read;
  const bool two_phase = !f->atomic && mode != io::CbMode::disable && (mode == io::CbMode::enable || interleaved(spans));
  std::uint64_t lo = kNone, hi = 0;
  for (const Span& s : spans)
    if (s.lo != kNone) lo = std::min(lo, s.lo), hi = std::max(hi, s.hi);
  Status local;
  if (!two_phase) {
    local = a->write ? write_stream(f, view, a->pos, a->wdata, a->len)
                     : read_stream(f, view, a->pos, a->rdata, a->len, &a->got);
  } else if (lo != kNone) {
    io::TwoPhasePlan plan(lo, hi, aggregators(f), f->cb_buffer_size);
    int my_aggr = -1;
    for (int g = 0; g < plan.naggr; ++g)
      if (io::TwoPhasePlan::aggregator_rank(g, plan.naggr, f->size) == f->rank) my_aggr = g;
    std::vector<char> window;
    std::uint64_t first_short = kNone, total = 0;
    for (const Extent& e : ex) total += e.len;
    for (int r = 0; r < plan.rounds; ++r) {
      // Out: a write's pieces [off][len][bytes], a read's requests [off][len], to each aggregator.
      std::vector<std::vector<char>> out(n);
      std::vector<std::vector<Extent>> asked(n);
      for (int g = 0; g < plan.naggr; ++g) {
        auto [wlo, whi] = plan.window(g, r);
        const auto ar = static_cast<std::size_t>(io::TwoPhasePlan::aggregator_rank(g, plan.naggr, f->size));
        io::clip(ex, wlo, whi, [&](std::uint64_t off, std::uint64_t s, std::uint64_t len) {
          put_u64(out[ar], off);
          put_u64(out[ar], len);
          if (a->write) out[ar].insert(out[ar].end(), a->wdata + (s - a->pos), a->wdata + (s - a->pos) + len);
          else asked[ar].push_back({off, s, len});
        }, !view.overlapping());
      }
      Exchange x;
      if (st = x.prepare(out); !st.ok()) co_return st;
      st = co_await Step{x.start_counts(a->comm, &rq), rq, "two-phase: exchange of counts"};
      if (!st.ok()) co_return st;
      st = co_await Step{x.start_data(a->comm, &rq), rq, "two-phase: exchange of data"};
      if (!st.ok()) co_return st;
      const std::vector<char>& in = x.in;
      if (a->write) {
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
          f->dirty = true;
          local = io::write_at(f->fd, off, window.data() + (off - wlo), len);
        }
        continue;
      }
      // Read: an aggregator preads the requests' span once (data sieving) and answers [valid][bytes] each.
      std::vector<std::vector<char>> answers(n);
      if (my_aggr >= 0 && !in.empty()) {
        std::uint64_t rlo = kNone, rhi = 0;
        for (std::size_t p = 0; p + 16 <= in.size(); p += 16) {
          const std::uint64_t off = get_u64(in.data() + p), len = get_u64(in.data() + p + 8);
          rlo = std::min(rlo, off), rhi = std::max(rhi, off + len);
        }
        window.resize(static_cast<std::size_t>(rhi - rlo));
        std::uint64_t got = 0;
        if (local.ok()) local = io::read_at(f->fd, rlo, window.data(), rhi - rlo, &got);
        const std::uint64_t valid_end = rlo + got;
        for (std::size_t src = 0; src < n; ++src) {
          for (int p = x.rdispl[src]; p + 16 <= x.rdispl[src] + x.rcount[src]; p += 16) {
            const std::uint64_t off = get_u64(in.data() + p), len = get_u64(in.data() + p + 8);
            const std::uint64_t valid = off >= valid_end ? 0 : std::min(len, valid_end - off);
            put_u64(answers[src], valid);
            answers[src].insert(answers[src].end(), window.data() + (off - rlo), window.data() + (off - rlo) + valid);
          }
        }
      }
      Exchange back;
      if (st = back.prepare(answers); !st.ok()) co_return st;
      st = co_await Step{back.start_counts(a->comm, &rq), rq, "two-phase: exchange of counts"};
      if (!st.ok()) co_return st;
      st = co_await Step{back.start_data(a->comm, &rq), rq, "two-phase: exchange of data"};
      if (!st.ok()) co_return st;
      for (std::size_t src = 0; src < n; ++src) {
        std::size_t p = static_cast<std::size_t>(back.rdispl[src]);
        for (const Extent& e : asked[src]) {
          const std::uint64_t valid = get_u64(back.in.data() + p);
          std::memcpy(a->rdata + (e.stream_off - a->pos), back.in.data() + p + 8, valid);
          if (valid < e.len) first_short = std::min(first_short, e.stream_off - a->pos + valid);
          p += 8 + valid;
        }
      }
    }
    if (!a->write) a->got = std::min(total, first_short);
    if (a->write && !local.ok()) f->write_failed = true;
  }

  // The outcome at every member: the worst error kind anywhere (a member's success implies every member's
  // bytes are in the file).
  const char* what = a->write ? "collective write" : "collective read";
  int code = local.ok() ? 0 : static_cast<int>(local.code()), all = 0;
  st = co_await Step{PMPI_Iallreduce(&code, &all, 1, MPI_INT, MPI_MAX, a->comm, &rq), rq, what};
  if (!st.ok()) co_return st;
  if (!local.ok()) co_return local;
  if (all != 0) co_return Status(static_cast<Errc>(all), std::string(what) + ": failed at another process");
  co_return Status::Ok();
}

Status run_blocking(IoTask task) {
  IoTask::Handle h = task.handle();
  for (;;) {
    h.resume();
    if (h.done()) return h.promise().result;
    MPI_Request r = std::exchange(h.promise().waiting, MPI_REQUEST_NULL);
    h.promise().step = status_of_rc(PMPI_Wait(&r, MPI_STATUS_IGNORE), h.promise().what);
  }
}

}  // namespace ftmpi::api
