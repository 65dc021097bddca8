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
  struct InFlight {
    const Schedule::Step* send;
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
          const size_t sbytes = m.send->count * m.send->type->size;
          const size_t rbytes = pr->step->count * pr->step->type->size;
          if (sbytes != rbytes) {
            ADD_FAILURE() << "size mismatch " << sbytes << " vs " << rbytes << " at rank " << r;
            return false;
          }
          if (sbytes) std::memcpy(pr->step->rbuf, m.send->sbuf, sbytes);
          pr->done = true;
          m.sender->done = true;
          progress = true;
        }
        while (!my.empty() && my.front()->done) my.pop_front();
        while (pc[static_cast<size_t>(r)] < steps.size()) {
          const auto& st = steps[pc[static_cast<size_t>(r)]];
          if (st.kind == Kind::send || st.kind == Kind::recv) {
            my.push_back(std::make_unique<Pending>(Pending{&st}));
            if (st.kind == Kind::send) chan[{r, st.peer}].push_back({&st, my.back().get()});
          } else {
            bool blocked = false;
            for (auto& pr : my) blocked |= !pr->done;
            if (blocked) break;
            my.clear();
            if (st.kind == Kind::local) st.fn();
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
