// Short blocking-style exchanges on a non-blocking socket, bounded by a deadline (the dpm handshakes: mpiexec's
// private ports and the process-owned ports of the name service).
#pragma once
#include <chrono>
#include <cstddef>

namespace ftmpi::dpm {

// Writes (write = true) or reads exactly `n` bytes of `buf` on non-blocking `fd`, polling until `deadline`.
// Returns false on EOF (read), a socket error or the deadline; the socket is then unusable for this exchange.
bool io_fully(int fd, std::byte* buf, std::size_t n, bool write, std::chrono::steady_clock::time_point deadline);

}  // namespace ftmpi::dpm
