#include "dpm/name_dir.h"

#include <dirent.h>
#include <fcntl.h>
#include <sys/file.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>

#include "dpm/universe.h"

namespace ftmpi::dpm {
namespace {

constexpr const char* kDeparted = "-";  // a card's content once its process finalized

Status sys_error(const std::string& what) { return Status(Errc::other, what + ": " + std::strerror(errno)); }

Result<std::string> read_file(const std::string& path) {
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return Status(errno == ENOENT ? Errc::name : Errc::other, path + ": " + std::strerror(errno));
  std::string out;
  char buf[1024];
  for (;;) {
    ssize_t k = ::read(fd, buf, sizeof buf);
    if (k < 0 && errno == EINTR) continue;
    if (k <= 0) break;
    out.append(buf, static_cast<std::size_t>(k));
  }
  ::close(fd);
  return out;
}

// Create `path` holding `text`, atomically: written to a private file, then link()ed (EEXIST when taken).
// Errc::service when the path exists.
Status create_file(const std::string& path, const std::string& text, mode_t mode) {
  char tmp_suffix[64];
  std::snprintf(tmp_suffix, sizeof tmp_suffix, ".tmp.%d.%ld", static_cast<int>(getpid()), static_cast<long>(std::rand()));
  const std::string tmp = path + tmp_suffix;
  int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, mode);
  if (fd < 0) return sys_error("cannot create " + tmp);
  std::size_t done = 0;
  while (done < text.size()) {
    ssize_t k = ::write(fd, text.data() + done, text.size() - done);
    if (k < 0 && errno == EINTR) continue;
    if (k <= 0) {
      ::close(fd);
      ::unlink(tmp.c_str());
      return sys_error("cannot write " + tmp);
    }
    done += static_cast<std::size_t>(k);
  }
  ::close(fd);
  int rc = ::link(tmp.c_str(), path.c_str());
  int err = errno;
  ::unlink(tmp.c_str());
  if (rc == 0) return {};
  if (err == EEXIST) return Status(Errc::service, path + " exists");
  errno = err;
  return sys_error("cannot create " + path);
}

Status make_dir(const std::string& path) {
  if (::mkdir(path.c_str(), 0700) == 0 || errno == EEXIST) return {};
  return sys_error("name service: cannot create directory " + path);
}

std::string random_secret() {
  unsigned char raw[16] = {};
  if (getrandom(raw, sizeof raw, 0) != static_cast<ssize_t>(sizeof raw)) {
    unsigned long long x = static_cast<unsigned long long>(getpid()) ^ static_cast<unsigned long long>(time(nullptr));
    for (auto& b : raw) b = static_cast<unsigned char>(x = x * 6364136223846793005ull + 1442695040888963407ull);
  }
  char hex[33];
  for (int i = 0; i < 16; ++i) std::snprintf(hex + 2 * i, 3, "%02x", raw[i]);
  return std::string(hex, 32);
}

void sleep_ms(int ms) {
  timespec ts{ms / 1000, static_cast<long>(ms % 1000) * 1'000'000L};
  while (nanosleep(&ts, &ts) != 0 && errno == EINTR) {
  }
}

}  // namespace

Result<std::unique_ptr<JobSlot>> JobSlot::claim(const std::string& dir) {
  if (dir.empty()) return Status(Errc::arg, "name service: empty directory name");
  FTMPI_TRY(make_dir(dir));
  for (const char* sub : {"/jobs", "/cards", "/names"}) FTMPI_TRY(make_dir(dir + sub));
  // The secret: the first mpiexec makes it; the others read it.
  std::string secret;
  for (int tries = 0; secret.empty() && tries < 100; ++tries) {
    auto got = read_file(dir + "/secret");
    if (got.ok() && got.value().size() >= 16) {
      secret = got.value();
      while (!secret.empty() && (secret.back() == '\n' || secret.back() == ' ')) secret.pop_back();
      break;
    }
    if (!got.ok() && got.status().code() == Errc::name) {
      Status st = create_file(dir + "/secret", random_secret(), 0600);
      if (!st.ok() && st.code() != Errc::service) return st;
      continue;
    }
    sleep_ms(10);
  }
  if (secret.empty() || secret.size() > 128) return Status(Errc::other, "name service: unusable secret in " + dir + "/secret");
  for (int s = 1; s < kMaxSlots; ++s) {
    const std::string path = dir + "/jobs/" + std::to_string(s);
    int fd = ::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0600);
    if (fd < 0) return sys_error("name service: cannot create " + path);
    if (::flock(fd, LOCK_EX | LOCK_NB) != 0) {
      ::close(fd);
      continue;
    }
    // The file may have been unlinked by its previous holder between our open and our lock: then the lock
    // is on a file nobody else finds; take another turn.
    struct stat a{}, b{};
    if (::fstat(fd, &a) != 0 || ::stat(path.c_str(), &b) != 0 || a.st_ino != b.st_ino || a.st_dev != b.st_dev) {
      ::close(fd);
      --s;
      continue;
    }
    char pid[32];
    int n = std::snprintf(pid, sizeof pid, "%d\n", static_cast<int>(getpid()));
    if (::ftruncate(fd, 0) != 0 || ::write(fd, pid, static_cast<std::size_t>(n)) != n) {
      // Only informative: the lock is what counts.
    }
    remove_slot_entries(dir, s);  // what a killed predecessor on this slot left
    return std::unique_ptr<JobSlot>(new JobSlot(dir, s, fd, secret));
  }
  return Status(Errc::other, "name service: every job slot of " + dir + " is taken (at most " +
                                 std::to_string(kMaxSlots - 1) + " jobs at once)");
}

JobSlot::~JobSlot() {
  remove_slot_entries(dir_, slot_);
  ::unlink((dir_ + "/jobs/" + std::to_string(slot_)).c_str());  // under our lock (claim() checks the inode)
  ::close(fd_);
}

void remove_slot_entries(const std::string& dir, int slot) {
  for (const char* sub : {"/cards/", "/failed/"})  // failed/: dpm/failure_board.h
    if (DIR* d = ::opendir((dir + sub).c_str())) {
      while (dirent* e = ::readdir(d)) {
        char* end = nullptr;
        long id = std::strtol(e->d_name, &end, 10);
        if (end != e->d_name && *end == '\0' && slot_of(static_cast<int>(id)) == slot)
          ::unlink((dir + sub + e->d_name).c_str());
      }
      ::closedir(d);
    }
  if (DIR* d = ::opendir((dir + "/names").c_str())) {
    while (dirent* e = ::readdir(d)) {
      if (e->d_name[0] == '.') continue;
      const std::string path = dir + "/names/" + e->d_name;
      auto text = read_file(path);
      if (text.ok() && std::atoi(text.value().c_str()) == slot) ::unlink(path.c_str());
    }
    ::closedir(d);
  }
}

bool NameDir::slot_alive(int slot) const {
  if (slot < 1 || slot >= kMaxSlots) return false;
  int fd = ::open((dir_ + "/jobs/" + std::to_string(slot)).c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return false;
  bool alive = ::flock(fd, LOCK_SH | LOCK_NB) != 0 && errno == EWOULDBLOCK;
  ::close(fd);  // releases a lock we may have taken
  return alive;
}

void NameDir::mark_departed(int id) const { (void)write_card(id, kDeparted); }

Status NameDir::write_card(int id, const std::string& card) const {
  const std::string path = dir_ + "/cards/" + std::to_string(id);
  ::unlink(path.c_str());  // an id is this process's for the slot's lifetime: anything there is stale
  Status st = create_file(path, card, 0644);
  return st.ok() ? st : Status(Errc::other, "name service: " + st.message());
}

Result<std::string> NameDir::read_card(int id, int wait_ms) const {
  const std::string path = dir_ + "/cards/" + std::to_string(id);
  int waited = 0, step = 1;
  for (;;) {
    auto text = read_file(path);
    if (text.ok() && text.value() == kDeparted)
      return Status(Errc::unsupported, "process " + std::to_string(id) + " has finalized");
    if (text.ok() && !text.value().empty()) return text.value();
    if (!slot_alive(slot_of(id)))
      return Status(Errc::proc_failed, "process " + std::to_string(id) + " is gone (its job ended)");
    if (waited >= wait_ms)
      return Status(Errc::proc_failed, "process " + std::to_string(id) + " of another job never published its address");
    sleep_ms(step);
    waited += step;
    step = std::min(step * 2, 50);
  }
}

std::string NameDir::name_path(const std::string& service) const {
  static const char* hex = "0123456789ABCDEF";
  std::string enc;
  for (unsigned char c : service) {
    if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == '-' ||
        (c == '.' && !enc.empty())) {
      enc.push_back(static_cast<char>(c));
    } else {
      enc.push_back('%');
      enc.push_back(hex[c >> 4]);
      enc.push_back(hex[c & 15]);
    }
  }
  return dir_ + "/names/" + enc;
}

Status NameDir::publish(const std::string& service, const std::string& port, int my_slot) const {
  if (service.empty() || service.size() > 80) return Status(Errc::arg, "MPI_Publish_name: the service name must have 1 to 80 characters");
  const std::string path = name_path(service);
  const std::string text = std::to_string(my_slot) + "\n" + port + "\n";
  for (int tries = 0; tries < 3; ++tries) {
    Status st = create_file(path, text, 0644);
    if (st.ok() || st.code() != Errc::service) return st;
    auto old = read_file(path);
    if (old.ok() && slot_alive(std::atoi(old.value().c_str())))
      return Status(Errc::service, "service '" + service + "' is already published");
    ::unlink(path.c_str());  // stale: its job ended without unpublishing
  }
  return Status(Errc::service, "service '" + service + "' is already published");
}

Status NameDir::unpublish(const std::string& service) const {
  if (::unlink(name_path(service).c_str()) == 0) return {};
  return Status(Errc::service, "service '" + service + "' is not published");
}

Result<std::string> NameDir::lookup(const std::string& service) const {
  auto text = read_file(name_path(service));
  if (!text.ok() || service.empty()) return Status(Errc::name, "service '" + service + "' is not published");
  const std::string& t = text.value();
  const auto nl = t.find('\n');
  if (nl == std::string::npos || !slot_alive(std::atoi(t.c_str())))
    return Status(Errc::name, "service '" + service + "' is not published (a stale entry of a job that ended)");
  std::string port = t.substr(nl + 1);
  while (!port.empty() && port.back() == '\n') port.pop_back();
  return port;
}

}  // namespace ftmpi::dpm
