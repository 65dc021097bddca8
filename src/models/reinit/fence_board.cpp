#include "models/reinit/fence_board.h"

#include <fcntl.h>
#include <linux/futex.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <climits>
#include <cstring>
#include <ctime>

#include "util/futex.h"
#include "util/spin_wait.h"

namespace ftmpi::reinit {

struct FenceBoard::Header {
  std::uint32_t magic;
  std::uint32_t n;
  std::atomic<std::uint64_t> word;  // BoardWord
  std::atomic<std::uint32_t> seq;   // futex: bumped at every release and every new epoch
  std::uint32_t pad[11];
};
struct FenceBoard::Slot {
  std::atomic<std::uint32_t> version;  // seqlock: odd while the owner writes
  std::atomic<std::uint32_t> epoch;
  std::uint32_t len;
  std::uint32_t pad;
  char text[kBoardSlotText];
};
static_assert(sizeof(std::atomic<std::uint64_t>) == 8 && std::atomic<std::uint64_t>::is_always_lock_free);

namespace {
constexpr std::uint32_t kMagic = 0x52424431;  // "RBD1"
std::size_t slots_end(int n) {
  return sizeof(FenceBoard::Header) + static_cast<std::size_t>(n) * sizeof(FenceBoard::Slot);
}
constexpr std::size_t kLifeAlign = 64;
std::size_t life_offset(int n) { return (slots_end(n) + kLifeAlign - 1) / kLifeAlign * kLifeAlign; }
std::size_t life_stride() { return (sizeof(LifeSlot) + kLifeAlign - 1) / kLifeAlign * kLifeAlign; }
std::size_t bytes_for(int n) { return life_offset(n) + static_cast<std::size_t>(n) * life_stride(); }
using util::futex;
std::string shm_path(const std::string& name) { return name.starts_with('/') ? name : "/" + name; }
}  // namespace

FenceBoard::Header& FenceBoard::hdr() const { return *static_cast<Header*>(base_); }
FenceBoard::Slot& FenceBoard::slot(int r) const {
  return reinterpret_cast<Slot*>(static_cast<char*>(base_) + sizeof(Header))[r];
}
int FenceBoard::size() const { return static_cast<int>(hdr().n); }
LifeSlot* FenceBoard::life(int r) const {
  if (r < 0 || r >= size()) return nullptr;
  return reinterpret_cast<LifeSlot*>(static_cast<char*>(base_) + life_offset(size()) +
                                     static_cast<std::size_t>(r) * life_stride());
}

Result<FenceBoard> FenceBoard::create(const std::string& name, int n) {
  if (n <= 0 || n > kBoardMaxRanks) return Status(Errc::arg, "reinit board: unsupported size");
  const std::string path = shm_path(name);
  int fd = ::shm_open(path.c_str(), O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
  if (fd < 0) return Status(Errc::other, "reinit board: shm_open " + path + ": " + std::strerror(errno));
  const std::size_t bytes = bytes_for(n);
  if (::ftruncate(fd, static_cast<off_t>(bytes)) != 0) {
    int e = errno;
    ::close(fd);
    ::shm_unlink(path.c_str());
    return Status(Errc::other, std::string("reinit board: ftruncate: ") + std::strerror(e));
  }
  void* p = ::mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
  ::close(fd);
  if (p == MAP_FAILED) {
    ::shm_unlink(path.c_str());
    return Status(Errc::other, std::string("reinit board: mmap: ") + std::strerror(errno));
  }
  FenceBoard b(p, bytes);
  b.hdr().n = static_cast<std::uint32_t>(n);
  b.hdr().word.store(board_begin(0, static_cast<std::uint16_t>(n)));
  b.hdr().seq.store(0);
  for (int r = 0; r < n; ++r)
    if (!init_life_slot(*b.life(r))) {
      ::shm_unlink(path.c_str());
      return Status(Errc::other, "reinit board: cannot make a robust process-shared mutex");
    }
  std::atomic_thread_fence(std::memory_order_seq_cst);
  b.hdr().magic = kMagic;
  return b;
}

Result<FenceBoard> FenceBoard::attach(const std::string& name) {
  const std::string path = shm_path(name);
  int fd = ::shm_open(path.c_str(), O_RDWR | O_CLOEXEC, 0);
  if (fd < 0) return Status(Errc::other, "reinit board: shm_open " + path + ": " + std::strerror(errno));
  struct stat st {};
  if (::fstat(fd, &st) != 0 || static_cast<std::size_t>(st.st_size) < sizeof(Header)) {
    ::close(fd);
    return Status(Errc::other, "reinit board: " + path + " is too small");
  }
  const std::size_t bytes = static_cast<std::size_t>(st.st_size);
  void* p = ::mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
  ::close(fd);
  if (p == MAP_FAILED) return Status(Errc::other, std::string("reinit board: mmap: ") + std::strerror(errno));
  FenceBoard b(p, bytes);
  if (b.hdr().magic != kMagic || b.hdr().n == 0 || bytes < bytes_for(static_cast<int>(b.hdr().n)))
    return Status(Errc::other, "reinit board: " + path + " is not a Reinit board");
  return b;
}

FenceBoard::~FenceBoard() {
  if (base_) ::munmap(base_, bytes_);
}

void FenceBoard::wake_all() {
  hdr().seq.fetch_add(1, std::memory_order_seq_cst);
  futex(&hdr().seq, FUTEX_WAKE, INT_MAX, nullptr);
}

void FenceBoard::begin(int e, int members) {
  hdr().word.store(board_begin(static_cast<std::uint32_t>(e), static_cast<std::uint16_t>(members)),
                   std::memory_order_seq_cst);
  wake_all();
}

void FenceBoard::write_slot(int rank, int e, const std::vector<Card>& cards) {
  Slot& s = slot(rank);
  std::string text;
  for (const Card& c : cards) text += " card." + c.first + "=" + c.second;
  if (text.size() > kBoardSlotText) text.clear();  // cannot happen (EpochBootstrap keeps cards < 2 KiB)
  std::uint32_t v = s.version.load(std::memory_order_relaxed);
  if (v & 1u) ++v;  // a process of this rank died while writing: start from an even version again
  s.version.store(v + 1, std::memory_order_relaxed);  // odd: being written
  std::atomic_thread_fence(std::memory_order_release);
  s.epoch.store(static_cast<std::uint32_t>(e), std::memory_order_relaxed);
  s.len = static_cast<std::uint32_t>(text.size());
  std::memcpy(s.text, text.data(), text.size());
  s.version.store(v + 2, std::memory_order_release);
}

std::optional<std::string> FenceBoard::read_slot(int r, int e, bool* newer) const {
  const Slot& s = slot(r);
  util::SpinWait wait;  // the shared back-off rule (util/spin_wait.h): the writer may be off its core for long
  for (;;) {
    const std::uint32_t v1 = s.version.load(std::memory_order_acquire);
    if (v1 & 1u) {
      // Its owner is writing, or died while writing: then a newer epoch is (or soon is) on the word.
      if (board_state(hdr().word.load(std::memory_order_seq_cst), static_cast<std::uint32_t>(e)) ==
          BoardFence::superseded) {
        *newer = true;
        return std::nullopt;
      }
      wait.idle();
      continue;
    }
    const std::uint32_t ep = s.epoch.load(std::memory_order_relaxed);
    std::uint32_t len = s.len;
    if (len > kBoardSlotText) len = 0;
    std::string text(s.text, len);
    std::atomic_thread_fence(std::memory_order_acquire);
    if (s.version.load(std::memory_order_relaxed) != v1) continue;
    if (ep > static_cast<std::uint32_t>(e)) {
      *newer = true;
      return std::nullopt;
    }
    if (ep < static_cast<std::uint32_t>(e)) return std::string();  // not a member of e (finalized)
    return text;
  }
}

bool FenceBoard::arrive(int e) {
  std::uint64_t w = hdr().word.load(std::memory_order_seq_cst);
  for (;;) {
    std::optional<std::uint64_t> next = board_arrive(w, static_cast<std::uint32_t>(e));
    if (!next) return false;
    if (hdr().word.compare_exchange_weak(w, *next, std::memory_order_seq_cst, std::memory_order_seq_cst))
      return board_state(*next, static_cast<std::uint32_t>(e)) == BoardFence::released;
  }
}

BoardFence FenceBoard::state(int e, std::uint32_t* seq) const {
  *seq = hdr().seq.load(std::memory_order_seq_cst);
  return board_state(hdr().word.load(std::memory_order_seq_cst), static_cast<std::uint32_t>(e));
}

void FenceBoard::wait(std::uint32_t seen, int timeout_ms) const {
  timespec ts{timeout_ms / 1000, (timeout_ms % 1000) * 1000000L};
  futex(&hdr().seq, FUTEX_WAIT, seen, &ts);  // EAGAIN when the sequence moved meanwhile: re-check
}

}  // namespace ftmpi::reinit
