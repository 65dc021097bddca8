// Reduce: binomial tree.
//  * Commutative ops: the tree is rooted at `root` (ranks renumbered relative to it); each rank folds its
//    children's partial results into its own and passes the sum up.
//  * Non-commutative ops: the tree is rooted at rank 0 without renumbering, so that every partial result
//    covers a contiguous range of ranks [r, r + 2^k) and operands are combined in rank order
//    (x0 op x1 op ... op x(p-1)); rank 0 then sends the result to `root` if that is another rank.
// Scratch buffers have the type's own layout (holes included), so pair types such as MPI_DOUBLE_INT
// reduce correctly.
#include "coll/builders.h"
#include "runtime/runtime.h"
#include "coll/coll.h"
#include "coll/local_copy.h"
#include "coll/schedule.h"
#include "coll/shm_coll.h"

namespace ftmpi::coll {

void build_reduce(Schedule& s, const void* sendbuf, void* recvbuf, std::size_t count, const ftmpi_datatype_s* type,
                  const ftmpi_op_s* op, int root) {
  const int p = s.comm()->size, me = s.comm()->rank;
  const bool am_root = me == root;
  const void* mine = (am_root && is_in_place(sendbuf)) ? recvbuf : sendbuf;
  const bool commute = op->commutative;
  const int tree_root = commute ? root : 0;
  const int rel = (me - tree_root + p) % p;
  // A leaf (no child: odd relative rank, or the last one) sends its own data as it is; the root combines in
  // recvbuf; only inner ranks need scratch. With gigabyte vectors that is what keeps the memory bounded.
  const bool leaf = rel == 0 ? p == 1 : (rel % 2 == 1 || rel + 1 >= p);
  if (leaf && !am_root) {
    s.send(((rel & (rel - 1)) + tree_root) % p, mine, count, type);  // parent: clear the lowest set bit
    return;
  }
  void* acc = am_root ? recvbuf : typed_scratch(s, count, type);
  if (acc != mine) copy_typed(mine, count, type, acc, count, type);
  void* tmp = leaf ? nullptr : typed_scratch(s, count, type);

  for (int mask = 1; mask < p; mask <<= 1) {
    if ((rel & mask) == 0) {
      const int child = rel | mask;
      if (child >= p) continue;
      s.recv((child + tree_root) % p, tmp, count, type);
      if (commute) {
        s.local([=] { dt::apply(op, tmp, acc, count, type); });
      } else {
        s.local([=] {  // acc covers lower ranks: acc = acc op tmp
          dt::apply(op, acc, tmp, count, type);
          copy_typed(tmp, count, type, acc, count, type);
        });
      }
    } else {
      s.send(((rel & ~mask) + tree_root) % p, acc, count, type);
      break;
    }
  }
  if (tree_root != root) {  // non-commutative with root != 0: hand the result from rank 0 to root
    s.fence();  // root's own partial result may still be on its way to its parent
    if (me == 0) s.send(root, acc, count, type);
    if (am_root) s.recv(0, acc, count, type);
  }
}

Status reduce(Runtime& rt, ftmpi_comm_s* comm, const void* sendbuf, void* recvbuf, std::size_t count,
              const Datatype* type, const Op* op, int root) {
  if (auto st = shm_reduce(rt, comm, sendbuf, recvbuf, count, type, op, root)) return *st;  // small, one host
  Schedule s(comm, &rt.scratch());
  s.run_immediately(rt);  // build-time copies come before the first step (or touch no pending buffer)
  build_reduce(s, sendbuf, recvbuf, count, type, op, root);
  return run(rt, s);
}

}  // namespace ftmpi::coll
