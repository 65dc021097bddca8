// Intercommunicator collectives (coll/inter.h) checked without processes: every process of two groups gets a
// fake intercommunicator (with its hidden local_comm) and builds its InterPlan; a small interpreter runs all
// plans together, building each phase only when the previous one finished, as InterPlan::advance does.
// Sends are synchronous (complete only when matched), the strictest buffering model. Several plans per
// process may be outstanding at once, and odd processes advance them in the opposite order: the tags that
// plans reserve when they are made must keep their messages apart anyway.
#include <gtest/gtest.h>

#include <deque>
#include <map>
#include <memory>
#include <numeric>
#include <tuple>
#include <vector>

#include "coll/inter.h"
#include "coll/inter_plan.h"
#include "coll/schedule.h"
#include "comm/group.h"
#include "datatype/datatype.h"
#include "mpi.h"

using namespace ftmpi;
using coll::InterPlan;
using coll::Schedule;
using Kind = Schedule::Step::Kind;

namespace {

struct Pending {
  const Schedule::Step* step;
  int peer_id;  // global id of the other side
  int ctx;      // 0: intercommunicator, 1 + g: local_comm of group g
  int tag;
  bool done = false;
};

// One plan of one process being run.
struct Runner {
  std::unique_ptr<InterPlan> plan;
  std::unique_ptr<Schedule> cur;
  std::size_t pc = 0;
  std::deque<std::unique_ptr<Pending>> pend;
  bool done = false;
};

struct Proc {
  int g = 0, r = 0;
  std::unique_ptr<ftmpi_comm_s> inter, local;
  std::vector<Runner> runners;
};

class InterSim {
 public:
  InterSim(int a, int b) : n_{a, b} {
    for (int g = 0; g < 2; ++g)
      for (int r = 0; r < n_[g]; ++r) {
        Proc p;
        p.g = g, p.r = r;
        p.local = std::make_unique<ftmpi_comm_s>();
        p.local->rank = r, p.local->size = n_[g];
        p.inter = std::make_unique<ftmpi_comm_s>();
        p.inter->rank = r, p.inter->size = n_[g];
        std::vector<int> remote(static_cast<std::size_t>(n_[1 - g]));
        std::iota(remote.begin(), remote.end(), g == 0 ? a : 0);
        p.inter->remote_group = comm::make_group(std::move(remote), -1);
        p.inter->local_comm = p.local.get();
        procs_.push_back(std::move(p));
      }
  }
  ~InterSim() {
    for (Proc& p : procs_) comm::group_release(p.inter->remote_group);
  }
  int size(int g) const { return n_[g]; }

  // Make one more plan on every process with `f(plan, g, r)` (in the same order everywhere, as MPI requires).
  template <class F>
  void plan(F&& f) {
    for (Proc& p : procs_) {
      Runner run;
      run.plan = std::make_unique<InterPlan>(p.inter.get());
      f(*run.plan, p.g, p.r);
      p.runners.push_back(std::move(run));
    }
  }

  // Run every plan to the end; false on deadlock or a size mismatch.
  bool run() {
    std::map<std::tuple<int, int, int, int>, std::deque<Pending*>> chan;  // (ctx, src, dst, tag) -> sends
    for (;;) {
      bool progress = false, all_done = true;
      for (Proc& p : procs_) {
        const int me = id(p.g, p.r);
        const std::size_t nr = p.runners.size();
        for (std::size_t k = 0; k < nr; ++k) {
          Runner& run = p.runners[me % 2 ? nr - 1 - k : k];
          if (!step(p, run, chan, progress)) return false;
          all_done &= run.done;
        }
      }
      if (all_done) return true;
      if (!progress) {
        ADD_FAILURE() << "deadlock with groups of " << n_[0] << " and " << n_[1];
        return false;
      }
    }
  }

 private:
  int id(int g, int r) const { return g * n_[0] + r; }

  using Chan = std::map<std::tuple<int, int, int, int>, std::deque<Pending*>>;

  // Match, then issue what can be issued; builds the next phase when the current one is over.
  bool step(Proc& p, Runner& run, Chan& chan, bool& progress) {
    const int me = id(p.g, p.r);
    for (;;) {
      for (auto& pr : run.pend) {
        if (pr->done || pr->step->kind != Kind::recv) continue;
        auto& q = chan[{pr->ctx, pr->peer_id, me, pr->tag}];
        if (q.empty()) continue;
        Pending* s = q.front();
        q.pop_front();
        // A send_spec step's buffer, count and type are set by the local steps before it: read them now.
        const Schedule::Step& ss = *s->step;
        const void* sbuf = ss.spec != nullptr ? ss.spec->buf : ss.sbuf;
        const std::size_t scount = ss.spec != nullptr ? ss.spec->count : ss.count;
        const auto* stype = ss.spec != nullptr ? ss.spec->type : ss.type;
        const std::size_t sbytes = dt::packed_size(stype, scount);
        const std::size_t rbytes = dt::packed_size(pr->step->type, pr->step->count);
        if (sbytes != rbytes) {
          ADD_FAILURE() << "size mismatch " << sbytes << " vs " << rbytes;
          return false;
        }
        std::vector<std::byte> wire(sbytes + 1);
        dt::pack(sbuf, scount, stype, wire.data());
        dt::unpack(wire.data(), sbytes, pr->step->type, pr->step->rbuf);
        if (pr->step->out != nullptr) *pr->step->out = Schedule::RecvOutcome{rbytes, false};  // recv_exact
        pr->done = s->done = true;
        progress = true;
      }
      if (run.done) return true;
      if (!run.cur) {
        run.cur = run.plan->next_phase();
        run.pc = 0;
        progress = true;
        if (!run.cur) {
          run.done = true;
          return true;
        }
      }
      const bool on_inter = run.cur->comm() == p.inter.get();
      const int ctx = on_inter ? 0 : 1 + p.g, peer_group = on_inter ? 1 - p.g : p.g;
      auto& steps = run.cur->steps();
      while (run.pc < steps.size()) {
        const auto& st = steps[run.pc];
        if (st.kind == Kind::send || st.kind == Kind::recv) {
          run.pend.push_back(std::make_unique<Pending>(Pending{&st, id(peer_group, st.peer), ctx, run.cur->tag()}));
          if (st.kind == Kind::send) chan[{ctx, me, id(peer_group, st.peer), run.cur->tag()}].push_back(run.pend.back().get());
        } else {
          bool blocked = false;
          for (auto& pr : run.pend) blocked |= !pr->done;
          if (blocked) break;
          run.pend.clear();
          if (st.kind == Kind::local) (*st.fn)();
        }
        ++run.pc;
        progress = true;
      }
      bool over = run.pc == steps.size();
      for (auto& pr : run.pend) over &= pr->done;
      if (!over) return true;
      run.pend.clear();
      run.cur.reset();  // next phase on the next turn of this loop (matching first)
    }
  }

  int n_[2];
  std::vector<Proc> procs_;
};

const std::vector<std::pair<int, int>> kGroups = {{1, 1}, {1, 2}, {2, 1}, {2, 3}, {3, 5}, {4, 4}, {1, 7}, {6, 2}};

int w(int g, int from, int to, int k) { return 1 + g * 10000000 + from * 100000 + to * 1000 + k; }
int cnt(int from, int to) { return (from + 2 * to + 1) % 3; }  // 0, 1 or 2

// Non-commutative, associative: 2x2 matrix product mod 1009 on 4 ints (inout = in * inout).
void matmul(void* in, void* inout, int* len, ftmpi_datatype_s**) {
  const int* a = static_cast<const int*>(in);
  int* b = static_cast<int*>(inout);
  for (int k = 0; k + 4 <= *len; k += 4) {
    const int c0 = (a[k] * b[k] + a[k + 1] * b[k + 2]) % 1009, c1 = (a[k] * b[k + 1] + a[k + 1] * b[k + 3]) % 1009;
    const int c2 = (a[k + 2] * b[k] + a[k + 3] * b[k + 2]) % 1009,
              c3 = (a[k + 2] * b[k + 1] + a[k + 3] * b[k + 3]) % 1009;
    b[k] = c0, b[k + 1] = c1, b[k + 2] = c2, b[k + 3] = c3;
  }
}

std::size_t z(int n) { return static_cast<std::size_t>(n); }

}  // namespace

TEST(CollInterPlan, BarrierAndAllreduceOutstandingTogether) {
  for (auto [a, b] : kGroups) {
    InterSim sim(a, b);
    std::vector<std::vector<int>> in(z(a + b), std::vector<int>(3)), out(z(a + b), std::vector<int>(3, -1));
    int n[2] = {a, b};
    sim.plan([](InterPlan& p, int, int) { coll::inter_barrier(p); });
    sim.plan([&](InterPlan& p, int g, int r) {
      auto& x = in[z(g * a + r)];
      for (int k = 0; k < 3; ++k) x[z(k)] = w(g, r, 0, k);
      coll::inter_allreduce(p, x.data(), out[z(g * a + r)].data(), 3, &ftmpi_dt_int, &ftmpi_op_sum);
    });
    sim.plan([](InterPlan& p, int, int) { coll::inter_barrier(p); });
    ASSERT_TRUE(sim.run()) << a << "+" << b;
    for (int g = 0; g < 2; ++g)
      for (int r = 0; r < n[g]; ++r)
        for (int k = 0; k < 3; ++k) {
          int want = 0;
          for (int i = 0; i < n[1 - g]; ++i) want += w(1 - g, i, 0, k);
          EXPECT_EQ(out[z(g * a + r)][z(k)], want) << a << "+" << b << " g" << g << " r" << r;
        }
  }
}

TEST(CollInterPlan, GathervScattervEveryRoot) {
  for (auto [a, b] : kGroups) {
    int n[2] = {a, b};
    for (int rg = 0; rg < 2; ++rg)
      for (int rr = 0; rr < n[rg]; ++rr) {
        InterSim sim(a, b);
        const int rs = n[1 - rg];  // the root talks to the other group
        // Gatherv: cnt(i, root) ints from remote rank i; Scatterv: cnt(root, i) to it. Reverse order, gaps.
        std::vector<int> counts(z(rs)), displs(z(rs)), scounts(z(rs)), sdispls(z(rs));
        int total = 0, stotal = 0;
        for (int i = rs - 1; i >= 0; --i) {
          counts[z(i)] = cnt(i, rr), displs[z(i)] = total + 1, total += counts[z(i)] + 1;
          scounts[z(i)] = cnt(rr, i), sdispls[z(i)] = stotal + 1, stotal += scounts[z(i)] + 1;
        }
        std::vector<int> gathered(z(total + 1), -1), spread(z(stotal + 1), -7);
        for (int i = 0; i < rs; ++i)
          for (int k = 0; k < scounts[z(i)]; ++k) spread[z(sdispls[z(i)] + k)] = w(rg, rr, i, k);
        std::vector<std::vector<int>> mine(z(a + b), std::vector<int>(2)), got(z(a + b), std::vector<int>(2, -1));
        auto root_of = [&](int g, int r) { return g == rg ? (r == rr ? coll::kInterRootHere : coll::kInterRootIdle) : rr; };
        sim.plan([&](InterPlan& p, int g, int r) {
          auto& x = mine[z(g * a + r)];
          for (int k = 0; k < 2; ++k) x[z(k)] = w(g, r, rr, k);
          const int root = root_of(g, r);
          coll::inter_gatherv(p, x.data(), root >= 0 ? z(cnt(r, rr)) : 0, &ftmpi_dt_int, gathered.data(),
                              root == coll::kInterRootHere ? counts.data() : nullptr,
                              root == coll::kInterRootHere ? displs.data() : nullptr, &ftmpi_dt_int, root);
        });
        sim.plan([&](InterPlan& p, int g, int r) {
          const int root = root_of(g, r);
          coll::inter_scatterv(p, spread.data(), root == coll::kInterRootHere ? scounts.data() : nullptr,
                               root == coll::kInterRootHere ? sdispls.data() : nullptr, &ftmpi_dt_int,
                               got[z(g * a + r)].data(), root >= 0 ? z(cnt(rr, r)) : 0, &ftmpi_dt_int, root);
        });
        ASSERT_TRUE(sim.run()) << a << "+" << b << " root g" << rg << " r" << rr;
        std::vector<int> want(z(total + 1), -1);
        for (int i = 0; i < rs; ++i)
          for (int k = 0; k < counts[z(i)]; ++k) want[z(displs[z(i)] + k)] = w(1 - rg, i, rr, k);
        EXPECT_EQ(gathered, want) << a << "+" << b << " root g" << rg << " r" << rr;
        for (int r = 0; r < rs; ++r) {
          const int g = 1 - rg;
          for (int k = 0; k < 2; ++k)
            EXPECT_EQ(got[z(g * a + r)][z(k)], k < cnt(rr, r) ? w(rg, rr, r, k) : -1) << a << "+" << b << " r" << r;
        }
      }
  }
}

TEST(CollInterPlan, AllgathervAlltoallv) {
  for (auto [a, b] : kGroups) {
    InterSim sim(a, b);
    int n[2] = {a, b};
    const int np = a + b;
    // Allgatherv: process i of a group contributes cnt(i, i) + 1 ints; blocks in reverse order with gaps.
    std::vector<std::vector<int>> gcounts(2), gdispls(2), alltoall_sc(z(np)), alltoall_sd(z(np)), alltoall_rc(z(np)),
        alltoall_rd(z(np));
    std::vector<std::vector<int>> send(z(np)), out(z(np)), a2a_send(z(np)), a2a_out(z(np));
    for (int g = 0; g < 2; ++g) {
      const int rs = n[1 - g];
      int pos = 0;
      gcounts[z(g)].resize(z(rs)), gdispls[z(g)].resize(z(rs));
      for (int i = rs - 1; i >= 0; --i) gcounts[z(g)][z(i)] = cnt(i, i) + 1, gdispls[z(g)][z(i)] = ++pos, pos += cnt(i, i) + 1;
      for (int r = 0; r < n[g]; ++r) {
        const std::size_t me = z(g * a + r);
        out[me].assign(z(pos + 1), -1);
        for (int k = 0; k < cnt(r, r) + 1; ++k) send[me].push_back(w(g, r, 0, k));
        // Alltoallv: cnt(me, j) to remote j, cnt(i, me) from remote i
        auto& sc = alltoall_sc[me];
        auto& sd = alltoall_sd[me];
        auto& rc = alltoall_rc[me];
        auto& rd = alltoall_rd[me];
        int spos = 0, rpos = 0;
        for (int j = 0; j < rs; ++j) {
          sc.push_back(cnt(r, j)), sd.push_back(spos), spos += cnt(r, j);
          rc.push_back(cnt(j, r)), rd.push_back(rpos + 1), rpos += cnt(j, r) + 1;
          for (int k = 0; k < cnt(r, j); ++k) a2a_send[me].push_back(w(g, r, j, k));
        }
        a2a_send[me].push_back(0);
        a2a_out[me].assign(z(rpos + 1), -1);
      }
    }
    sim.plan([&](InterPlan& p, int g, int r) {
      const std::size_t me = z(g * a + r);
      coll::inter_allgatherv(p, send[me].data(), send[me].size(), &ftmpi_dt_int, out[me].data(), gcounts[z(g)].data(),
                             gdispls[z(g)].data(), &ftmpi_dt_int);
    });
    sim.plan([&](InterPlan& p, int g, int r) {
      const std::size_t me = z(g * a + r);
      coll::inter_alltoallv(p, a2a_send[me].data(), alltoall_sc[me].data(), alltoall_sd[me].data(), &ftmpi_dt_int,
                            a2a_out[me].data(), alltoall_rc[me].data(), alltoall_rd[me].data(), &ftmpi_dt_int);
    });
    ASSERT_TRUE(sim.run()) << a << "+" << b;
    for (int g = 0; g < 2; ++g)
      for (int r = 0; r < n[g]; ++r) {
        const std::size_t me = z(g * a + r);
        std::vector<int> want(out[me].size(), -1);
        for (int i = 0; i < n[1 - g]; ++i)
          for (int k = 0; k < gcounts[z(g)][z(i)]; ++k) want[z(gdispls[z(g)][z(i)] + k)] = w(1 - g, i, 0, k);
        EXPECT_EQ(out[me], want) << "allgatherv " << a << "+" << b << " g" << g << " r" << r;
        std::vector<int> want2(a2a_out[me].size(), -1);
        for (int i = 0; i < n[1 - g]; ++i)
          for (int k = 0; k < cnt(i, r); ++k) want2[z(alltoall_rd[me][z(i)] + k)] = w(1 - g, i, r, k);
        EXPECT_EQ(a2a_out[me], want2) << "alltoallv " << a << "+" << b << " g" << g << " r" << r;
      }
  }
}

TEST(CollInterPlan, ReduceScatterNonCommutativeKeepsRankOrder) {
  ftmpi_op_s mm;
  mm.kind = dt::OpKind::user;
  mm.commutative = false;
  mm.user_fn = matmul;
  for (auto [a, b] : kGroups) {
    InterSim sim(a, b);
    int n[2] = {a, b};
    const int mats = 2 * a * b;  // matrices in each group's input vector (the same count in both groups)
    std::vector<std::vector<int>> counts(2), in(z(a + b)), out(z(a + b));
    for (int g = 0; g < 2; ++g) {
      counts[z(g)].assign(z(n[g]), 0);
      for (int m = 0; m < mats; ++m) counts[z(g)][z(m % n[g] == 1 ? 0 : m % n[g])] += 4;  // local rank 1 gets none
    }
    auto mat = [](int g, int r, int m) { return std::vector<int>{g + r + 2, m % 5, 3, r + m % 7}; };
    sim.plan([&](InterPlan& p, int g, int r) {
      const std::size_t me = z(g * a + r);
      for (int m = 0; m < mats; ++m) {
        auto x = mat(g, r, m);
        in[me].insert(in[me].end(), x.begin(), x.end());
      }
      out[me].assign(z(counts[z(g)][z(r)]) + 1, -1);
      coll::inter_reduce_scatter(p, in[me].data(), out[me].data(), counts[z(g)].data(), &ftmpi_dt_int, &mm);
    });
    ASSERT_TRUE(sim.run()) << a << "+" << b;
    for (int g = 0; g < 2; ++g) {
      // the other group's product, in its rank order, matrix by matrix
      std::vector<int> prod;
      for (int m = 0; m < mats; ++m) {
        std::vector<int> acc = {1, 0, 0, 1};
        for (int i = 0; i < n[1 - g]; ++i) {
          auto x = mat(1 - g, i, m);
          int len = 4;
          matmul(acc.data(), x.data(), &len, nullptr);  // x = acc * x
          acc = x;
        }
        prod.insert(prod.end(), acc.begin(), acc.end());
      }
      int off = 0;
      for (int r = 0; r < n[g]; ++r) {
        const int c = counts[z(g)][z(r)];
        std::vector<int> want(prod.begin() + off, prod.begin() + off + c);
        want.push_back(-1);
        EXPECT_EQ(out[z(g * a + r)], want) << a << "+" << b << " g" << g << " r" << r;
        off += c;
      }
    }
  }
}
