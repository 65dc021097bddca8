// boot_probe: exercises the bootstrap exactly as libmpi uses it (make_bootstrap, put, fence, get,
// finalize), linked only against ftmpi_core_static, so it runs under our mpiexec, under MPICH's Hydra
// (mpiexec.mpich) and alone (singleton).
//
// PASS: every rank prints "boot_probe: rank R of N ok (...)" and exits 0.
// Options (for launcher tests):
//   --no-finalize      exit 0 without PMI finalize (mpiexec must treat it as a failure)
//   --abort R:CODE     rank R calls abort(CODE) after the first fence
//   --token X          ignored (tests use it to look for leftover processes)
//   --leak-shm         rank 0 creates /dev/shm/ftmpi-<job_id>-probe and leaves it (mpiexec must remove it)
#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

#include "boot/bootstrap.h"
#include "boot/pmi_client.h"

using ftmpi::boot::Bootstrap;

namespace {

int fail(int rank, const char* what, const ftmpi::Status& st) {
  fprintf(stderr, "boot_probe: rank %d: %s failed: %s\n", rank, what, st.message().c_str());
  return 1;
}

}  // namespace

int main(int argc, char** argv) {
  bool finalize = true, leak_shm = false;
  int abort_rank = -1, abort_code = 0;
  for (int i = 1; i < argc; ++i) {
    if (!strcmp(argv[i], "--no-finalize")) finalize = false;
    else if (!strcmp(argv[i], "--leak-shm")) leak_shm = true;
    else if (!strcmp(argv[i], "--token") && i + 1 < argc) ++i;  // ignored: lets tests find leftovers
    else if (!strcmp(argv[i], "--abort") && i + 1 < argc) sscanf(argv[++i], "%d:%d", &abort_rank, &abort_code);
    else {
      fprintf(stderr, "boot_probe: unknown argument %s\n", argv[i]);
      return 2;
    }
  }
  auto made = ftmpi::boot::make_bootstrap();
  if (!made.ok()) return fail(-1, "make_bootstrap", made.status());
  Bootstrap& b = *made.value();
  const int rank = b.rank(), size = b.size();

  // Round 1: everybody publishes a card, fence, everybody reads every card.
  std::string key = "card-" + std::to_string(rank);
  auto card = [](int r) { return "r" + std::to_string(r) + "-" + std::string(200 + r, 'x'); };
  if (auto st = b.put(key, card(rank)); !st.ok()) return fail(rank, "put", st);
  if (auto st = b.fence(); !st.ok()) return fail(rank, "fence 1", st);
  int cards_ok = 0;
  for (int r = 0; r < size; ++r) {
    auto v = b.get("card-" + std::to_string(r));
    if (!v.ok()) return fail(rank, "get", v.status());
    if (*v != card(r)) {
      fprintf(stderr, "boot_probe: rank %d: bad card from rank %d: %.40s\n", rank, r, v->c_str());
      return 1;
    }
    ++cards_ok;
  }
  if (b.get("no-such-key").ok()) {
    fprintf(stderr, "boot_probe: rank %d: get of a missing key succeeded\n", rank);
    return 1;
  }
  if (rank == abort_rank) b.abort(abort_code, "boot_probe asked to abort");

  if (leak_shm && rank == 0) {
    std::string name = "/ftmpi-" + b.job_id() + "-probe";
    int fd = shm_open(name.c_str(), O_CREAT | O_RDWR, 0600);
    if (fd >= 0) close(fd);
  }

  // Round 2: keys published after a fence become visible after the next one.
  if (auto st = b.put("round2-" + std::to_string(rank), std::to_string(rank * 7)); !st.ok()) return fail(rank, "put 2", st);
  if (auto st = b.fence(); !st.ok()) return fail(rank, "fence 2", st);
  int peer = (rank + 1) % size;
  auto v2 = b.get("round2-" + std::to_string(peer));
  if (!v2.ok() || *v2 != std::to_string(peer * 7)) {
    fprintf(stderr, "boot_probe: rank %d: round 2 value of rank %d wrong\n", rank, peer);
    return 1;
  }
  if (auto st = b.fence(); !st.ok()) return fail(rank, "fence 3", st);

  if (finalize)
    if (auto st = b.finalize(); !st.ok()) return fail(rank, "finalize", st);
  printf("boot_probe: rank %d of %d ok (job %s, %d cards, launcher %s)\n", rank, size, b.job_id().c_str(),
         cards_ok, b.launched_by_ftmpi() ? "ftmpi" : "other");
  return 0;
}
