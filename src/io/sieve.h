// Data sieving for independent noncontiguous accesses (ROMIO's ind_rd_buffer_size / ind_wr_buffer_size,
// romio_ds_read / romio_ds_write hints; docs/io.md).
//
// Model. An independent access through a view with holes touches many small file extents, in increasing file
// order (§13.3 makes filetype displacements non-decreasing). Without sieving each extent is one pread/pwrite.
// With sieving, consecutive extents are grouped while the group's span [first.off, last.off + last.len) fits
// the buffer size; a group of two or more extents is moved as one span:
//   * read: one pread of the span into a buffer, then each extent's bytes copied out. Bytes past the end of
//     the file are not there: the read stops at the first extent that is not whole (as without sieving).
//   * write: read-modify-write of the span — under an exclusive fcntl lock of the span (so that a
//     concurrent writer's bytes in our holes are neither lost nor overwritten with stale data: the lock is
//     what makes RMW correct, as in ROMIO), pread the span, copy each extent in, pwrite the span, unlock.
//     In atomic mode the caller already holds an exclusive lock over the whole access and no lock is taken
//     here (an fcntl unlock of the span would drop part of the caller's lock). The span ends at the last
//     extent's end, so the file never grows past where the plain writes would have made it.
// A write extent moved on its own (not sieved) takes a *shared* lock of its bytes while sieving is possible
// on the file, so that it never lands inside another process's read-modify-write span between that
// process's read and write-back (writes to disjoint bytes must both survive, §13.6.1); shared locks do not
// exclude each other, so plain writers still run in parallel.
// `automatic` (the default for both) sieves a group only when its data fills at least 1/16 of its span (a
// very sparse view reads less with separate calls); `enable` always groups, `disable` never does. Writes on a
// file opened MPI_MODE_WRONLY are never sieved (no read access for the RMW). A single extent larger than the
// buffer is moved on its own, as is a group of one.
//
// Cost. Reads: one system call per group instead of one per extent, at the price of reading the holes.
// Writes: two system calls and a lock/unlock per group. Memory: one buffer of the hint's size, per call.
#pragma once
#include <cstdint>
#include <vector>

#include "io/file.h"
#include "io/two_phase.h"
#include "util/status.h"

namespace ftmpi::io {

struct SieveOptions {
  std::uint64_t buffer = 4u << 20;  // ind_rd_buffer_size / ind_wr_buffer_size
  CbMode mode = CbMode::automatic;  // romio_ds_read / romio_ds_write
  bool lock = true;                 // writes: lock each span (false: the caller holds a lock over everything)
};

// Groups of extents [first, last) for one access, per the options (pure; exposed for unit tests).
struct SieveGroup {
  std::size_t first, last;
  bool sieve;  // move the span as one (false: each extent on its own)
};
std::vector<SieveGroup> sieve_groups(const std::vector<Extent>& ex, const SieveOptions& o);

// The data stream bytes starting at stream position `pos` (data[0] is stream byte pos) to or from the
// extents `ex` of fd. read: *got = stream bytes read before the end of the file.
Status sieve_write(int fd, const std::vector<Extent>& ex, std::uint64_t pos, const char* data, const SieveOptions& o);
Status sieve_read(int fd, const std::vector<Extent>& ex, std::uint64_t pos, char* data, const SieveOptions& o,
                  std::uint64_t* got);

}  // namespace ftmpi::io
