// Collective algorithms checked without processes: every rank's schedule is built against a fake
// communicator, and a small in-process interpreter runs all of them together. Sends are synchronous
// (complete only when matched; the receiver copies from the sender's buffer at that moment), which is
// the strictest model: an algorithm that relied on buffering or reused a buffer too early fails here.
#include <gtest/gtest.h>

#include <cstring>
#include <deque>
#include <map>
#include <memory>
#include <vector>

#include "coll/builders.h"
#include "coll/schedule.h"
#include "mpi.h"

using namespace ftmpi;
using coll::Schedule;
using Kind = Schedule::Step::Kind;

namespace {

struct Sim {
  explicit Sim(int p) : p(p) {
    for (int r = 0; r < p; ++r) {
      auto c = std::make_unique<ftmpi_comm_s>();
      c->rank = r;
      c->size = p;
      c->magic = kMagicComm;
      comms.push_back(std::move(c));
    }
  }
  // Build one schedule per rank with `build(schedule, rank)`.
  template <class F>
  void build(F&& f) {
    scheds.clear();
    for (int r = 0; r < p; ++r) {
      scheds.push_back(std::make_unique<Schedule>(comms[static_cast<size_t>(r)].get()));
      f(*scheds.back(), r);
    }
  }

  struct Pending {
    const Schedule::Step* step;
    bool done = false;
  };
  struct InFlight {  // a send as posted (a send_spec step's buffer, count and type are read at post time)
    const void* buf;
    size_t bytes;
    Pending* sender;
  };

  // Run every schedule to the end; false on deadlock or a size mismatch.
  bool run() {
    const auto n = static_cast<size_t>(p);
    std::vector<size_t> pc(n, 0);
    std::vector<std::deque<std::unique_ptr<Pending>>> pend(n);
    std::map<std::pair<int, int>, std::deque<InFlight>> chan;  // (src, dst) -> sends in order
    for (;;) {
      bool progress = false, all_done = true;
      for (int r = 0; r < p; ++r) {
        auto& steps = scheds[static_cast<size_t>(r)]->steps();
        auto& my = pend[static_cast<size_t>(r)];
        // Match posted receives in order against the channels.
        for (auto& pr : my) {
          if (pr->done || pr->step->kind != Kind::recv) continue;
          auto& q = chan[{pr->step->peer, r}];
          if (q.empty()) continue;
          InFlight m = q.front();
          q.pop_front();
          const size_t sbytes = m.bytes;
          const size_t rbytes = pr->step->count * pr->step->type->size;
          if (sbytes != rbytes) {
            ADD_FAILURE() << "size mismatch " << sbytes << " vs " << rbytes << " at rank " << r;
            return false;
          }
          if (sbytes) std::memcpy(pr->step->rbuf, m.buf, sbytes);
          if (pr->step->out != nullptr) *pr->step->out = Schedule::RecvOutcome{rbytes, false};  // recv_exact
          pr->done = true;
          m.sender->done = true;
          progress = true;
        }
        while (!my.empty() && my.front()->done) my.pop_front();
        while (pc[static_cast<size_t>(r)] < steps.size()) {
          const auto& st = steps[pc[static_cast<size_t>(r)]];
          if (st.kind == Kind::send || st.kind == Kind::recv) {
            my.push_back(std::make_unique<Pending>(Pending{&st}));
            if (st.kind == Kind::send) {
              const void* buf = st.spec != nullptr ? st.spec->buf : st.sbuf;
              const size_t count = st.spec != nullptr ? st.spec->count : st.count;
              const auto* type = st.spec != nullptr ? st.spec->type : st.type;
              chan[{r, st.peer}].push_back({buf, count * type->size, my.back().get()});
            }
          } else {
            bool blocked = false;
            for (auto& pr : my) blocked |= !pr->done;
            if (blocked) break;
            my.clear();
            if (st.kind == Kind::local) (*st.fn)();
          }
          ++pc[static_cast<size_t>(r)];
          progress = true;
        }
        bool rank_done = pc[static_cast<size_t>(r)] == steps.size();
        for (auto& pr : my) rank_done &= pr->done;
        all_done &= rank_done;
      }
      if (all_done) return true;
      if (!progress) {
        ADD_FAILURE() << "deadlock with " << p << " ranks";
        return false;
      }
    }
  }

  int p;
  std::vector<std::unique_ptr<ftmpi_comm_s>> comms;
  std::vector<std::unique_ptr<Schedule>> scheds;
};

// Non-commutative but associative: 2x2 matrix product mod 1009 on 4 ints (inout = in * inout).
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

ftmpi_op_s make_matmul_op() {
  ftmpi_op_s op;
  op.kind = dt::OpKind::user;
  op.commutative = false;
  op.user_fn = matmul;
  return op;
}

std::vector<int> mat_of(int r) { return {r + 2, 1, 3, r}; }

std::vector<int> mat_product(int p) {
  std::vector<int> acc = {1, 0, 0, 1};
  for (int r = 0; r < p; ++r) {
    std::vector<int> x = mat_of(r);
    int len = 4;
    matmul(acc.data(), x.data(), &len, nullptr);  // x = acc * x
    acc = x;
  }
  return acc;
}

const std::vector<int> kSizes = {1, 2, 3, 4, 5, 6, 7, 8, 9, 12, 13, 16, 17, 31, 32};

}  // namespace

TEST(CollSchedule, BarrierCompletes) {
  for (int p : kSizes) {
    Sim sim(p);
    sim.build([](Schedule& s, int) { coll::build_barrier(s); });
    EXPECT_TRUE(sim.run()) << p;
  }
}

TEST(CollSchedule, BcastEveryRoot) {
  for (int p : kSizes) {
    for (int root = 0; root < p; root += (p > 8 ? 5 : 1)) {
      Sim sim(p);
      std::vector<std::vector<int>> buf(static_cast<size_t>(p), std::vector<int>(3, -1));
      buf[static_cast<size_t>(root)] = {root, 7, 9};
      sim.build([&](Schedule& s, int r) { coll::build_bcast(s, buf[static_cast<size_t>(r)].data(), 3, &ftmpi_dt_int, root); });
      ASSERT_TRUE(sim.run());
      for (int r = 0; r < p; ++r) EXPECT_EQ(buf[static_cast<size_t>(r)], (std::vector<int>{root, 7, 9})) << p << " " << r;
    }
  }
}

TEST(CollSchedule, ReduceSumAndNonCommutative) {
  ftmpi_op_s mm = make_matmul_op();
  for (int p : kSizes) {
    for (int root = 0; root < p; root += (p > 8 ? 3 : 1)) {
      Sim sim(p);
      std::vector<std::vector<int>> in(static_cast<size_t>(p)), out(static_cast<size_t>(p), std::vector<int>(4, 0));
      for (int r = 0; r < p; ++r) in[static_cast<size_t>(r)] = mat_of(r);
      sim.build([&](Schedule& s, int r) {
        coll::build_reduce(s, in[static_cast<size_t>(r)].data(), out[static_cast<size_t>(r)].data(), 4, &ftmpi_dt_int,
                           &ftmpi_op_sum, root);
      });
      ASSERT_TRUE(sim.run());
      std::vector<int> sum(4, 0);
      for (int r = 0; r < p; ++r)
        for (int i = 0; i < 4; ++i) sum[static_cast<size_t>(i)] += mat_of(r)[static_cast<size_t>(i)];
      EXPECT_EQ(out[static_cast<size_t>(root)], sum) << p << " root " << root;

      Sim sim2(p);
      sim2.build([&](Schedule& s, int r) {
        coll::build_reduce(s, in[static_cast<size_t>(r)].data(), out[static_cast<size_t>(r)].data(), 4, &ftmpi_dt_int,
                           &mm, root);
      });
      ASSERT_TRUE(sim2.run());
      EXPECT_EQ(out[static_cast<size_t>(root)], mat_product(p)) << p << " root " << root;
    }
  }
}

TEST(CollSchedule, AllreduceCommutativeNonCommutativeInPlace) {
  ftmpi_op_s mm = make_matmul_op();
  for (int p : kSizes) {
    Sim sim(p);
    std::vector<std::vector<int>> buf(static_cast<size_t>(p));
    for (int r = 0; r < p; ++r) buf[static_cast<size_t>(r)] = mat_of(r);
    sim.build([&](Schedule& s, int r) {
      coll::build_allreduce(s, MPI_IN_PLACE, buf[static_cast<size_t>(r)].data(), 4, &ftmpi_dt_int, &mm);
    });
    ASSERT_TRUE(sim.run());
    for (int r = 0; r < p; ++r) EXPECT_EQ(buf[static_cast<size_t>(r)], mat_product(p)) << p << " rank " << r;

    Sim sim2(p);
    std::vector<long> in(static_cast<size_t>(p)), out(static_cast<size_t>(p), 0);
    for (int r = 0; r < p; ++r) in[static_cast<size_t>(r)] = r * 3 + 1;
    sim2.build([&](Schedule& s, int r) {
      coll::build_allreduce(s, &in[static_cast<size_t>(r)], &out[static_cast<size_t>(r)], 1, &ftmpi_dt_long,
                            &ftmpi_op_max);
    });
    ASSERT_TRUE(sim2.run());
    for (int r = 0; r < p; ++r) EXPECT_EQ(out[static_cast<size_t>(r)], (p - 1) * 3 + 1);
  }
}

// MPI_DOUBLE_INT has holes (size 12, extent 16): intermediate values must keep the type's layout.
TEST(CollSchedule, MaxlocOnPairTypeWithHoles) {
  struct DI {
    double v;
    int i;
  };
  for (int p : kSizes) {
    Sim sim(p);
    std::vector<DI> in(static_cast<size_t>(p)), out(static_cast<size_t>(p));
    for (int r = 0; r < p; ++r) in[static_cast<size_t>(r)] = {static_cast<double>((r * 7) % p), r};
    sim.build([&](Schedule& s, int r) {
      coll::build_allreduce(s, &in[static_cast<size_t>(r)], &out[static_cast<size_t>(r)], 1, &ftmpi_dt_double_int,
                            &ftmpi_op_maxloc);
    });
    ASSERT_TRUE(sim.run());
    int best = 0;
    for (int r = 0; r < p; ++r)
      if (in[static_cast<size_t>(r)].v > in[static_cast<size_t>(best)].v) best = r;
    for (int r = 0; r < p; ++r) {
      EXPECT_EQ(out[static_cast<size_t>(r)].v, in[static_cast<size_t>(best)].v);
      EXPECT_EQ(out[static_cast<size_t>(r)].i, best);
    }
  }
}

TEST(CollSchedule, GatherScatterAllgather) {
  for (int p : kSizes) {
    const auto n = static_cast<size_t>(p);
    for (int root = 0; root < p; root += (p > 8 ? 7 : 1)) {
      Sim sim(p);
      std::vector<std::vector<int>> send(n), recv(n, std::vector<int>(2 * n, -1));
      for (size_t r = 0; r < n; ++r) send[r] = {static_cast<int>(r), static_cast<int>(r * r)};
      sim.build([&](Schedule& s, int r) {
        const auto i = static_cast<size_t>(r);
        coll::build_gather(s, send[i].data(), 2, &ftmpi_dt_int, recv[i].data(), 2, &ftmpi_dt_int, root);
      });
      ASSERT_TRUE(sim.run());
      for (size_t r = 0; r < n; ++r) {
        EXPECT_EQ(recv[static_cast<size_t>(root)][2 * r], static_cast<int>(r));
        EXPECT_EQ(recv[static_cast<size_t>(root)][2 * r + 1], static_cast<int>(r * r));
      }

      Sim sim2(p);
      std::vector<int> table(2 * n);
      for (size_t i = 0; i < 2 * n; ++i) table[i] = static_cast<int>(100 + i);
      std::vector<std::vector<int>> got(n, std::vector<int>(2, -1));
      sim2.build([&](Schedule& s, int r) {
        coll::build_scatter(s, r == root ? table.data() : nullptr, 2, &ftmpi_dt_int,
                            got[static_cast<size_t>(r)].data(), 2, &ftmpi_dt_int, root);
      });
      ASSERT_TRUE(sim2.run());
      for (size_t r = 0; r < n; ++r) EXPECT_EQ(got[r], (std::vector<int>{static_cast<int>(100 + 2 * r),
                                                                        static_cast<int>(101 + 2 * r)}));
    }
    Sim sim3(p);
    std::vector<std::vector<int>> all(n, std::vector<int>(n, -1));
    std::vector<int> mine(n);
    for (size_t r = 0; r < n; ++r) mine[r] = static_cast<int>(r * 11);
    sim3.build([&](Schedule& s, int r) {
      const auto i = static_cast<size_t>(r);
      coll::build_allgather(s, &mine[i], 1, &ftmpi_dt_int, all[i].data(), 1, &ftmpi_dt_int);
    });
    ASSERT_TRUE(sim3.run());
    for (size_t r = 0; r < n; ++r)
      for (size_t i = 0; i < n; ++i) EXPECT_EQ(all[r][i], static_cast<int>(i * 11));
  }
}

TEST(CollSchedule, ConsecutiveCollectivesUseDistinctTags) {
  ftmpi_comm_s c;
  c.size = 4;
  c.rank = 0;
  Schedule a(&c), b(&c);
  EXPECT_NE(a.tag(), b.tag());
  EXPECT_GE(a.tag(), 0);
}

// ---- issue 4: v-variants, alltoall family, reduce-scatter, scans, algorithm variants ----------------

namespace {
using I = std::vector<int>;
size_t u(int v) { return static_cast<size_t>(v); }

// Left-to-right matmul product of mat_of(lo) ... mat_of(hi - 1) (identity for an empty range).
I mat_range(int lo, int hi) {
  I acc = {1, 0, 0, 1};
  for (int r = lo; r < hi; ++r) {
    I x = mat_of(r);
    int len = 4;
    matmul(acc.data(), x.data(), &len, nullptr);
    acc = x;
  }
  return acc;
}

// Irregular counts with zeros: rank i's count.
int vcount(int i, int salt) { return (i * 7 + salt) % 4 == 0 ? 0 : (i * 3 + salt) % 5 + 1; }
}  // namespace

TEST(CollSchedule, GatherScatterBinomialAndLinearEveryRoot) {
  using GatherFn = void (*)(Schedule&, const void*, std::size_t, const ftmpi_datatype_s*, void*, std::size_t,
                            const ftmpi_datatype_s*, int);
  for (GatherFn g : {&coll::build_gather_binomial, &coll::build_gather_linear}) {
    for (GatherFn sc : {&coll::build_scatter_binomial, &coll::build_scatter_linear}) {
      for (int p = 1; p <= 16; ++p) {
        for (int root = 0; root < p; ++root) {
          for (bool in_place : {false, true}) {
            Sim sim(p);
            std::vector<I> send(u(p)), recv(u(p), I(3 * u(p), -1));
            for (int r = 0; r < p; ++r) send[u(r)] = {r, r * r, -r};
            if (in_place)
              for (int k = 0; k < 3; ++k) recv[u(root)][u(3 * root + k)] = send[u(root)][u(k)];
            sim.build([&](Schedule& s, int r) {
              const void* sb = (in_place && r == root) ? MPI_IN_PLACE : send[u(r)].data();
              g(s, sb, 3, &ftmpi_dt_int, recv[u(r)].data(), 3, &ftmpi_dt_int, root);
            });
            ASSERT_TRUE(sim.run());
            for (int r = 0; r < p; ++r)
              for (int k = 0; k < 3; ++k) ASSERT_EQ(recv[u(root)][u(3 * r + k)], send[u(r)][u(k)]) << p << " " << root;

            Sim sim2(p);
            I table(3 * u(p));
            for (size_t i = 0; i < table.size(); ++i) table[i] = static_cast<int>(1000 + i);
            std::vector<I> got(u(p), I(3, -1));
            sim2.build([&](Schedule& s, int r) {
              void* rb = (in_place && r == root) ? MPI_IN_PLACE : got[u(r)].data();
              sc(s, r == root ? table.data() : nullptr, 3, &ftmpi_dt_int, rb, 3, &ftmpi_dt_int, root);
            });
            ASSERT_TRUE(sim2.run());
            for (int r = 0; r < p; ++r) {
              if (in_place && r == root) continue;
              for (int k = 0; k < 3; ++k) ASSERT_EQ(got[u(r)][u(k)], 1000 + 3 * r + k) << p << " " << root;
            }
          }
        }
      }
    }
  }
}

TEST(CollSchedule, GathervScattervAllgathervZeroCountsInPlace) {
  for (int p = 1; p <= 16; ++p) {
    I counts(u(p)), displs(u(p));
    int total = 0;
    for (int i = 0; i < p; ++i) {
      counts[u(i)] = vcount(i, p);
      displs[u(i)] = total + 1;  // a one-element gap before each block
      total += counts[u(i)] + 1;
    }
    auto val = [](int r, int k) { return r * 100 + k; };
    for (int root = 0; root < p; ++root) {
      Sim sim(p);
      std::vector<I> send(u(p)), recv(u(p), I(u(total), -1));
      for (int r = 0; r < p; ++r)
        for (int k = 0; k < counts[u(r)]; ++k) send[u(r)].push_back(val(r, k));
      sim.build([&](Schedule& s, int r) {
        coll::build_gatherv(s, send[u(r)].data(), u(counts[u(r)]), &ftmpi_dt_int, recv[u(r)].data(), counts.data(),
                            displs.data(), &ftmpi_dt_int, root);
      });
      ASSERT_TRUE(sim.run());
      for (int r = 0; r < p; ++r) {
        ASSERT_EQ(recv[u(root)][u(displs[u(r)] - 1)], -1);
        for (int k = 0; k < counts[u(r)]; ++k) ASSERT_EQ(recv[u(root)][u(displs[u(r)] + k)], val(r, k));
      }

      Sim sim2(p);
      I table(u(total));
      for (int i = 0; i < total; ++i) table[u(i)] = 5000 + i;
      std::vector<I> got(u(p), I(8, -1));
      sim2.build([&](Schedule& s, int r) {
        coll::build_scatterv(s, r == root ? table.data() : nullptr, counts.data(), displs.data(), &ftmpi_dt_int,
                             got[u(r)].data(), u(counts[u(r)]), &ftmpi_dt_int, root);
      });
      ASSERT_TRUE(sim2.run());
      for (int r = 0; r < p; ++r)
        for (int k = 0; k < counts[u(r)]; ++k) ASSERT_EQ(got[u(r)][u(k)], 5000 + displs[u(r)] + k);
    }
    for (bool in_place : {false, true}) {
      Sim sim3(p);
      std::vector<I> send(u(p)), all(u(p), I(u(total), -1));
      for (int r = 0; r < p; ++r)
        for (int k = 0; k < counts[u(r)]; ++k) {
          send[u(r)].push_back(val(r, k));
          if (in_place) all[u(r)][u(displs[u(r)] + k)] = val(r, k);
        }
      sim3.build([&](Schedule& s, int r) {
        coll::build_allgatherv(s, in_place ? MPI_IN_PLACE : send[u(r)].data(), u(counts[u(r)]), &ftmpi_dt_int,
                               all[u(r)].data(), counts.data(), displs.data(), &ftmpi_dt_int);
      });
      ASSERT_TRUE(sim3.run());
      for (int me = 0; me < p; ++me)
        for (int r = 0; r < p; ++r)
          for (int k = 0; k < counts[u(r)]; ++k) ASSERT_EQ(all[u(me)][u(displs[u(r)] + k)], val(r, k));
    }
  }
}

TEST(CollSchedule, AllgatherRecursiveDoublingAndRing) {
  for (int p = 1; p <= 16; ++p) {
    for (bool rd : {false, true}) {
      if (rd && (p & (p - 1)) != 0) continue;
      for (bool in_place : {false, true}) {
        Sim sim(p);
        std::vector<I> all(u(p), I(2 * u(p), -1));
        I mine(2 * u(p));
        for (int r = 0; r < p; ++r) {
          mine[2 * u(r)] = r * 11, mine[2 * u(r) + 1] = -r;
          if (in_place) all[u(r)][2 * u(r)] = r * 11, all[u(r)][2 * u(r) + 1] = -r;
        }
        sim.build([&](Schedule& s, int r) {
          const void* sb = in_place ? MPI_IN_PLACE : &mine[2 * u(r)];
          if (rd)
            coll::build_allgather_recursive_doubling(s, sb, 2, &ftmpi_dt_int, all[u(r)].data(), 2, &ftmpi_dt_int);
          else
            coll::build_allgather_ring(s, sb, 2, &ftmpi_dt_int, all[u(r)].data(), 2, &ftmpi_dt_int);
        });
        ASSERT_TRUE(sim.run());
        for (int r = 0; r < p; ++r) ASSERT_EQ(all[u(r)], mine) << p << " rd " << rd;
      }
    }
  }
}

TEST(CollSchedule, AlltoallVariantsInPlace) {
  using A2A = void (*)(Schedule&, const void*, std::size_t, const ftmpi_datatype_s*, void*, std::size_t,
                       const ftmpi_datatype_s*);
  for (A2A f : {&coll::build_alltoall_post_all, &coll::build_alltoall_pairwise, &coll::build_alltoall_bruck,
                &coll::build_alltoall}) {
    for (int p = 1; p <= 16; ++p) {
      for (bool in_place : {false, true}) {
        for (int n : {0, 1, 3}) {
          Sim sim(p);
          std::vector<I> send(u(p), I(u(n * p))), recv(u(p), I(u(n * p), -1));
          for (int r = 0; r < p; ++r)
            for (int j = 0; j < p; ++j)
              for (int k = 0; k < n; ++k) send[u(r)][u(j * n + k)] = r * 10000 + j * 100 + k;
          if (in_place) recv = send;
          sim.build([&](Schedule& s, int r) {
            f(s, in_place ? MPI_IN_PLACE : send[u(r)].data(), u(n), &ftmpi_dt_int, recv[u(r)].data(), u(n),
              &ftmpi_dt_int);
          });
          ASSERT_TRUE(sim.run());
          for (int r = 0; r < p; ++r)
            for (int j = 0; j < p; ++j)
              for (int k = 0; k < n; ++k) ASSERT_EQ(recv[u(r)][u(j * n + k)], j * 10000 + r * 100 + k) << p;
        }
      }
    }
  }
}

TEST(CollSchedule, AlltoallvAndAlltoallw) {
  // Rank r sends cnt(r, j) ints to rank j.
  auto cnt = [](int r, int j) { return (r + 2 * j) % 3; };
  for (int p = 1; p <= 16; ++p) {
    for (bool in_place : {false, true}) {
      for (bool w : {false, true}) {
        Sim sim(p);
        std::vector<I> sc(u(p), I(u(p))), sd(u(p), I(u(p))), rc(u(p), I(u(p))), rd(u(p), I(u(p)));
        std::vector<I> send(u(p)), recv(u(p));
        for (int r = 0; r < p; ++r) {
          int so = 0, ro = 2;
          for (int j = 0; j < p; ++j) {
            sc[u(r)][u(j)] = cnt(in_place ? j : r, in_place ? r : j);  // in place: the pattern is symmetric
            rc[u(r)][u(j)] = cnt(in_place ? r : j, in_place ? j : r);
            if (in_place) sc[u(r)][u(j)] = rc[u(r)][u(j)] = cnt(std::min(r, j), std::max(r, j));
            sd[u(r)][u(j)] = so, so += sc[u(r)][u(j)];
            rd[u(r)][u(j)] = ro, ro += rc[u(r)][u(j)] + 1;
          }
          send[u(r)].resize(u(so) + 1);
          for (int j = 0; j < p; ++j)
            for (int k = 0; k < sc[u(r)][u(j)]; ++k) send[u(r)][u(sd[u(r)][u(j)] + k)] = r * 10000 + j * 100 + k;
          recv[u(r)].assign(u(ro) + 1, -1);
          if (in_place)
            for (int j = 0; j < p; ++j)
              for (int k = 0; k < rc[u(r)][u(j)]; ++k) recv[u(r)][u(rd[u(r)][u(j)] + k)] = r * 10000 + j * 100 + k;
        }
        std::vector<I> sdb(sd), rdb(rd);  // byte displacements for the w form
        for (auto* v : {&sdb, &rdb})
          for (auto& row : *v)
            for (int& x : row) x *= static_cast<int>(sizeof(int));
        std::vector<const ftmpi_datatype_s*> types(u(p), &ftmpi_dt_int);
        sim.build([&](Schedule& s, int r) {
          const void* sb = in_place ? MPI_IN_PLACE : send[u(r)].data();
          if (w)
            coll::build_alltoallw(s, sb, sc[u(r)].data(), sdb[u(r)].data(), types.data(), recv[u(r)].data(),
                                  rc[u(r)].data(), rdb[u(r)].data(), types.data());
          else
            coll::build_alltoallv(s, sb, sc[u(r)].data(), sd[u(r)].data(), &ftmpi_dt_int, recv[u(r)].data(),
                                  rc[u(r)].data(), rd[u(r)].data(), &ftmpi_dt_int);
        });
        ASSERT_TRUE(sim.run());
        for (int r = 0; r < p; ++r)
          for (int j = 0; j < p; ++j) {
            ASSERT_EQ(recv[u(r)][u(rd[u(r)][u(j)] - 1)], -1);
            for (int k = 0; k < rc[u(r)][u(j)]; ++k)
              ASSERT_EQ(recv[u(r)][u(rd[u(r)][u(j)] + k)], j * 10000 + r * 100 + k) << p << " w " << w;
          }
      }
    }
  }
}

TEST(CollSchedule, ReduceScatterBothAlgorithmsNonCommutativeInPlaceZero) {
  using RS = void (*)(Schedule&, const void*, void*, coll::IndexArray, const ftmpi_datatype_s*, const ftmpi_op_s*);
  ftmpi_op_s mm = make_matmul_op();
  for (RS f : {&coll::build_reduce_scatter_via_reduce, &coll::build_reduce_scatter_direct,
               &coll::build_reduce_scatter}) {
    for (int p = 1; p <= 16; ++p) {
      for (bool in_place : {false, true}) {
        // Block i holds counts[i]/4 matrices; matrix m of rank r's block i is mat_of(r + i + m).
        I counts(u(p));
        int total = 0;
        for (int i = 0; i < p; ++i) total += (counts[u(i)] = 4 * (vcount(i, 1) % 3));
        std::vector<I> in(u(p), I(u(total))), out(u(p), I(u(total), -7));
        for (int r = 0; r < p; ++r) {
          int off = 0;
          for (int i = 0; i < p; ++i)
            for (int m = 0; m < counts[u(i)] / 4; ++m, off += 4) {
              I x = mat_of(r + i + m);
              std::copy(x.begin(), x.end(), in[u(r)].begin() + off);
            }
          if (in_place) out[u(r)] = in[u(r)];
        }
        Sim sim(p);
        sim.build([&](Schedule& s, int r) {
          f(s, in_place ? MPI_IN_PLACE : in[u(r)].data(), out[u(r)].data(), counts.data(), &ftmpi_dt_int, &mm);
        });
        ASSERT_TRUE(sim.run());
        for (int i = 0; i < p; ++i)
          for (int m = 0; m < counts[u(i)] / 4; ++m) {
            // product over r of mat_of(r + i + m) = mat_range(i + m, i + m + p)
            I want = mat_range(i + m, i + m + p);
            for (int k = 0; k < 4; ++k) ASSERT_EQ(out[u(i)][u(4 * m + k)], want[u(k)]) << p << " block " << i;
          }
      }
    }
  }
  // Reduce_scatter_block with SUM.
  for (int p = 1; p <= 16; ++p) {
    Sim sim(p);
    std::vector<I> in(u(p), I(3 * u(p))), out(u(p), I(3, 0));
    for (int r = 0; r < p; ++r)
      for (int k = 0; k < 3 * p; ++k) in[u(r)][u(k)] = r + k;
    sim.build([&](Schedule& s, int r) {
      coll::build_reduce_scatter_block(s, in[u(r)].data(), out[u(r)].data(), 3, &ftmpi_dt_int, &ftmpi_op_sum);
    });
    ASSERT_TRUE(sim.run());
    for (int r = 0; r < p; ++r)
      for (int k = 0; k < 3; ++k) ASSERT_EQ(out[u(r)][u(k)], p * (p - 1) / 2 + p * (3 * r + k));
  }
}

TEST(CollSchedule, ScanExscanNonCommutativeInPlace) {
  ftmpi_op_s mm = make_matmul_op();
  for (int p = 1; p <= 16; ++p) {
    for (bool in_place : {false, true}) {
      for (bool ex : {false, true}) {
        Sim sim(p);
        std::vector<I> in(u(p)), out(u(p), I(4, -5));
        for (int r = 0; r < p; ++r) {
          in[u(r)] = mat_of(r);
          if (in_place) out[u(r)] = in[u(r)];
        }
        sim.build([&](Schedule& s, int r) {
          const void* sb = in_place ? MPI_IN_PLACE : in[u(r)].data();
          if (ex)
            coll::build_exscan(s, sb, out[u(r)].data(), 4, &ftmpi_dt_int, &mm);
          else
            coll::build_scan(s, sb, out[u(r)].data(), 4, &ftmpi_dt_int, &mm);
        });
        ASSERT_TRUE(sim.run());
        for (int r = ex ? 1 : 0; r < p; ++r) ASSERT_EQ(out[u(r)], mat_range(0, ex ? r : r + 1)) << p << " r " << r;
        if (ex && !in_place) {
          EXPECT_EQ(out[0], I(4, -5));  // rank 0's recvbuf untouched
        }
      }
      // Commutative SUM scan.
      Sim sim(p);
      std::vector<long> in(u(p)), out(u(p), 0);
      for (int r = 0; r < p; ++r) in[u(r)] = r * r + 1;
      sim.build([&](Schedule& s, int r) {
        coll::build_scan(s, &in[u(r)], &out[u(r)], 1, &ftmpi_dt_long, &ftmpi_op_sum);
      });
      ASSERT_TRUE(sim.run());
      long acc = 0;
      for (int r = 0; r < p; ++r) ASSERT_EQ(out[u(r)], acc += in[u(r)]);
    }
  }
}

TEST(CollSchedule, AllreduceRabenseifnerOddCounts) {
  for (int p = 1; p <= 16; ++p) {
    for (int n : {16, 17, 33, 100, 257}) {
      for (bool in_place : {false, true}) {
        int pof2 = 1;
        while (pof2 * 2 <= p) pof2 *= 2;
        if (n < pof2) continue;
        Sim sim(p);
        std::vector<I> in(u(p), I(u(n))), out(u(p), I(u(n), 0));
        for (int r = 0; r < p; ++r)
          for (int k = 0; k < n; ++k) in[u(r)][u(k)] = r * 1000 + k;
        if (in_place) out = in;
        sim.build([&](Schedule& s, int r) {
          coll::build_allreduce_rabenseifner(s, in_place ? MPI_IN_PLACE : in[u(r)].data(), out[u(r)].data(), u(n),
                                             &ftmpi_dt_int, &ftmpi_op_sum);
        });
        ASSERT_TRUE(sim.run());
        for (int r = 0; r < p; ++r)
          for (int k = 0; k < n; ++k) ASSERT_EQ(out[u(r)][u(k)], 1000 * p * (p - 1) / 2 + p * k) << p << " n " << n;
      }
    }
  }
}

// Persistent collectives' tag channels (coll::TagChannel, coll/persistent.h): while a scope is open the
// communicator's (and an intercommunicator's local_comm's) tags come from the request's channels, never
// equal an ordinary tag, and the ordinary sequence neither moves meanwhile nor depends on the channels.
TEST(TagChannel, ScopeRedirectsAndRestores) {
  ftmpi_comm_s comm, local;
  comm.magic = local.magic = kMagicComm;
  comm.local_comm = &local;
  EXPECT_EQ(coll::next_coll_tag(&comm), 0);
  coll::TagChannel a{5, 0}, a_local{5, 0}, b{6, 0};
  {
    coll::TagScope scope(&comm, &a, &a_local);
    const int t0 = coll::next_coll_tag(&comm), t1 = coll::next_coll_tag(&comm);
    EXPECT_EQ(t0, 0x40000000 | (5 << 12));
    EXPECT_EQ(t1, t0 + 1);
    EXPECT_EQ(coll::next_coll_tag(&local), t0);  // its own counter: local phases do not move `a`
    EXPECT_EQ(a.next, 2u);
    EXPECT_EQ(a_local.next, 1u);
  }
  EXPECT_EQ(comm.tag_channel, nullptr);
  EXPECT_EQ(local.tag_channel, nullptr);
  EXPECT_EQ(coll::next_coll_tag(&comm), 1);  // the ordinary sequence went on where it was
  // Every channel's tags stay in 0x40000000-0x5fffffff: partitioned communication owns 0x60000000 and up
  // on the same context (p2p/partitioned.h).
  coll::TagChannel last{0xffffffffu, 0xffffffffu};
  const int top = last.take();
  EXPECT_GE(top, 0x40000000);
  EXPECT_LT(top, 0x60000000);
  EXPECT_EQ(coll::next_coll_tag(&local), 0);
  {
    coll::TagScope scope(&comm, &b, &b);
    EXPECT_EQ(coll::next_coll_tag(&comm), 0x40000000 | (6 << 12));
  }
  {
    coll::TagScope scope(&comm, &a, &a_local);  // a later start of `a` continues its channel
    EXPECT_EQ(coll::next_coll_tag(&comm), (0x40000000 | (5 << 12)) + 2);
  }
  comm.coll_seq = 0x3fffffffu;  // ordinary tags wrap below bit 30
  EXPECT_EQ(coll::next_coll_tag(&comm), 0x3fffffff);
  EXPECT_EQ(coll::next_coll_tag(&comm), 0);
  comm.magic = local.magic = 0;
  comm.local_comm = nullptr;
}
