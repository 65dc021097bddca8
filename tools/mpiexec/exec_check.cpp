#include "exec_check.h"

#include <dirent.h>
#include <elf.h>
#include <fcntl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <vector>

namespace ftmpi::mpiexec {
namespace {

Status bad(const std::string& msg) { return Status(Errc::arg, msg); }

bool read_at(int fd, void* buf, std::size_t n, off_t off) {
  return ::pread(fd, buf, n, off) == static_cast<ssize_t>(n);
}

bool runnable(const std::string& p) {
  struct stat st {};
  return ::stat(p.c_str(), &st) == 0 && S_ISREG(st.st_mode) && ::access(p.c_str(), X_OK) == 0;
}

Status check_script(int fd, const std::string& path) {
  char line[256] = {};
  ssize_t n = ::pread(fd, line, sizeof line - 1, 0);
  if (n < 2) return bad("'" + path + "' is too short to be a program");
  std::string s(line, static_cast<std::size_t>(n));
  std::size_t eol = s.find('\n');
  s = s.substr(2, eol == std::string::npos ? std::string::npos : eol - 2);
  std::size_t b = s.find_first_not_of(" \t");
  if (b == std::string::npos) return bad("'" + path + "' has an empty #! line");
  std::size_t e = s.find_first_of(" \t\r", b);
  std::string interp = s.substr(b, e == std::string::npos ? std::string::npos : e - b);
  if (!runnable(interp))
    return bad("the interpreter '" + interp + "' named by the #! line of '" + path +
               "' does not exist or is not executable");
  return Status::Ok();
}

// mpiexec's own ELF identity: what the kernel here runs.
bool own_elf(Elf64_Ehdr& out) {
  int fd = ::open("/proc/self/exe", O_RDONLY | O_CLOEXEC);
  if (fd < 0) return false;
  bool ok = read_at(fd, &out, sizeof out, 0);
  ::close(fd);
  return ok && memcmp(out.e_ident, ELFMAG, SELFMAG) == 0;
}

Status check_elf(int fd, const std::string& path) {
  struct stat st {};
  if (::fstat(fd, &st) != 0) return bad("cannot examine '" + path + "': " + strerror(errno));
  const auto size = static_cast<std::uint64_t>(st.st_size);
  unsigned char ident[EI_NIDENT] = {};
  if (!read_at(fd, ident, sizeof ident, 0)) return bad("'" + path + "' is a truncated ELF file");
  Elf64_Ehdr self{};
  const std::string broken = "'" + path + "' is not a valid ELF executable for this machine: ";
  if (own_elf(self)) {
    if (ident[EI_CLASS] != self.e_ident[EI_CLASS])
      return bad(broken + (ident[EI_CLASS] == ELFCLASS32 ? "32-bit" : "wrong ELF class") + " binary");
    if (ident[EI_DATA] != self.e_ident[EI_DATA]) return bad(broken + "wrong byte order");
  }
  if (ident[EI_CLASS] != ELFCLASS64) return Status::Ok();  // mpiexec itself is not 64-bit: leave it to execve
  Elf64_Ehdr h{};
  if (!read_at(fd, &h, sizeof h, 0)) return bad(broken + "truncated header");
  if (own_elf(self) && h.e_machine != self.e_machine)
    return bad(broken + "built for another architecture (e_machine " + std::to_string(h.e_machine) + ")");
  if (h.e_type != ET_EXEC && h.e_type != ET_DYN) return bad(broken + "not an executable (an object file or core?)");
  if (h.e_phentsize != sizeof(Elf64_Phdr) || h.e_phnum == 0 ||
      h.e_phoff + static_cast<std::uint64_t>(h.e_phnum) * sizeof(Elf64_Phdr) > size)
    return bad(broken + "truncated or corrupt program headers");
  for (unsigned i = 0; i < h.e_phnum; ++i) {
    Elf64_Phdr ph{};
    if (!read_at(fd, &ph, sizeof ph, static_cast<off_t>(h.e_phoff + i * sizeof ph)))
      return bad(broken + "truncated program headers");
    if (ph.p_type == PT_LOAD && ph.p_offset + ph.p_filesz > size) return bad(broken + "truncated (a segment lies past the end of the file)");
    if (ph.p_type != PT_INTERP) continue;
    if (ph.p_filesz == 0 || ph.p_filesz > 4096 || ph.p_offset + ph.p_filesz > size)
      return bad(broken + "corrupt interpreter entry");
    std::string interp(ph.p_filesz, '\0');
    if (!read_at(fd, interp.data(), ph.p_filesz, static_cast<off_t>(ph.p_offset))) return bad(broken + "truncated");
    interp.resize(strnlen(interp.c_str(), interp.size()));
    if (::access(interp.c_str(), X_OK) != 0)
      return bad("the ELF interpreter '" + interp + "' of '" + path + "' does not exist on this machine");
  }
  return Status::Ok();
}

long read_long_file(const char* file) {
  FILE* f = fopen(file, "re");
  if (!f) return -1;
  long v = -1;
  if (fscanf(f, "%ld", &v) != 1) v = -1;
  fclose(f);
  return v;
}

long mem_available_kib() {
  std::ifstream in("/proc/meminfo");
  std::string key;
  long v = 0;
  std::string unit;
  while (in >> key >> v >> unit)
    if (key == "MemAvailable:") return v;
  return -1;
}

}  // namespace

Status check_executable_format(const std::string& path) {
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    if (errno == EACCES) return Status::Ok();  // execute-only file: execve may still run it
    return bad("cannot open '" + path + "': " + strerror(errno));
  }
  unsigned char magic[4] = {};
  ssize_t n = ::pread(fd, magic, sizeof magic, 0);
  Status st = Status::Ok();
  if (n >= 2 && magic[0] == '#' && magic[1] == '!') st = check_script(fd, path);
  else if (n == 4 && memcmp(magic, ELFMAG, SELFMAG) == 0) st = check_elf(fd, path);
  else
    st = bad("'" + path + "' has no #! line and is not an ELF executable (a shell script needs a first line "
             "such as #!/bin/sh)");
  ::close(fd);
  return st;
}

Status check_job_fits(int np, bool ft) {
  const long per_rank_fds = ft ? 5 : 4;  // PMI socket, stdout, stderr (+ pty slave while starting), control
  const long need_fds = 32 + per_rank_fds * np;
  rlimit nofile{};
  if (getrlimit(RLIMIT_NOFILE, &nofile) == 0 && nofile.rlim_cur != RLIM_INFINITY &&
      static_cast<long>(nofile.rlim_cur) < need_fds) {
    rlimit raised = nofile;
    raised.rlim_cur = nofile.rlim_max == RLIM_INFINITY ? static_cast<rlim_t>(need_fds)
                                                       : std::min<rlim_t>(nofile.rlim_max, static_cast<rlim_t>(need_fds));
    setrlimit(RLIMIT_NOFILE, &raised);
    getrlimit(RLIMIT_NOFILE, &nofile);
    if (nofile.rlim_cur != RLIM_INFINITY && static_cast<long>(nofile.rlim_cur) < need_fds)
      return bad("-n " + std::to_string(np) + " needs " + std::to_string(need_fds) +
                 " open files in mpiexec, but the limit is " + std::to_string(nofile.rlim_cur) + " (ulimit -n)");
  }
  rlimit nproc{};
  if (getrlimit(RLIMIT_NPROC, &nproc) == 0 && nproc.rlim_cur != RLIM_INFINITY && geteuid() != 0 &&
      static_cast<long>(nproc.rlim_cur) < np)
    return bad("-n " + std::to_string(np) + " exceeds the user's process limit of " +
               std::to_string(nproc.rlim_cur) + " (ulimit -u)");
  for (const char* f : {"/proc/sys/kernel/pid_max", "/proc/sys/kernel/threads-max"}) {
    long lim = read_long_file(f);
    if (lim > 0 && np > lim / 2)
      return bad("-n " + std::to_string(np) + " is more processes than this machine can hold (" + f + " is " +
                 std::to_string(lim) + ")");
  }
  long avail = mem_available_kib();
  if (avail > 0 && static_cast<long long>(np) * 1024 > avail)
    return bad("-n " + std::to_string(np) + " needs at least " + std::to_string(np) + " MiB of memory (1 MiB per rank), but only " +
               std::to_string(avail / 1024) + " MiB are available");
  return Status::Ok();
}

}  // namespace ftmpi::mpiexec
