// The file object of MPI-IO (MPI-3.1 chapter 13): what an open MPI_File is. The operations are written in the
// C API (src/api/file_*.cpp) over the pieces of this directory: view.h (view <-> file offsets), posix.h (system
// calls, locks, the shared pointer's counter), two_phase.h (collective buffering plans).
//
// Model (docs/io.md). Every member opens the same path of a file system they all see; each keeps its own
// descriptor and does its own pread/pwrite. A file has a private duplicate of the user's communicator (error
// handler MPI_ERRORS_RETURN) for its collective steps, so nothing it sends can match a user message and a
// revoke of the file (MPI_File_invalidate) revokes that duplicate only.
//
// Failures (seed 000 §1.2.4). A write returns success only once its bytes are in the kernel (pwrite done at
// whichever process wrote them: the caller, or the aggregator of a collective write, whose completion the
// collective's final reduction carries back), so a success survives the death of any process. MPI_File_sync
// and MPI_File_close end with a fault-tolerant agreement on "fsync and every write since the last sync
// succeeded here", so every survivor returns the same outcome: success, MPI_ERR_PROC_FAILED (a member failed),
// or MPI_ERR_IO.
#pragma once
#include <cstdint>
#include <map>
#include <string>

#include "io/view.h"
#include "mpi.h"

namespace ftmpi::io {
inline constexpr std::uint32_t kMagicFile = 0xF11E0009;
enum class Datarep : std::uint8_t { native, internal, external32, user };
// A representation of MPI_Register_datarep (api/file_datarep.cpp): the user's functions, for the process's
// lifetime. Null conversion functions (MPI_CONVERSION_FN_NULL) mean the file holds native bytes.
struct UserDatarep {
  std::string name;
  MPI_Datarep_conversion_function* read = nullptr;
  MPI_Datarep_conversion_function* write = nullptr;
  MPI_Datarep_extent_function* extent = nullptr;
  void* extra = nullptr;
};
enum class CbMode : std::uint8_t { automatic, enable, disable };
}  // namespace ftmpi::io

struct ftmpi_errhandler_s;

struct ftmpi_file_s {
  std::uint32_t magic = ftmpi::io::kMagicFile;
  MPI_Comm comm = MPI_COMM_NULL;  // private duplicate of the communicator given to MPI_File_open
  int rank = 0, size = 1;
  int fd = -1;
  int shared_fd = -1;  // the shared file pointer's counter (io/posix.h), unlinked once every member opened it
  std::string path;
  int amode = 0;
  ftmpi_errhandler_s* errhandler = nullptr;
  bool atomic = false;
  bool invalidated = false;
  bool write_failed = false;  // a write failed since the last sync (part of the sync/close agreement)
  // This process wrote bytes or changed the size (its own pwrite/ftruncate/fallocate, including those it does as
  // a two-phase aggregator) since its last successful fsync. MPI_File_sync fsyncs only then (ROMIO's dirty_write):
  // sync covers the calling process's own writes (§13.6.1) and is collective, so whoever did a write fsyncs it.
  bool dirty = false;
  int nb_pending = 0;         // non-blocking collective accesses not completed yet (close refuses then)

  // view (MPI_File_set_view); etype/filetype are our own duplicates of derived types (predefined as given)
  MPI_Offset disp = 0;
  MPI_Datatype etype = MPI_BYTE, filetype = MPI_BYTE;
  ftmpi::io::Datarep rep = ftmpi::io::Datarep::native;
  const ftmpi::io::UserDatarep* user_rep = nullptr;  // rep == user
  std::uint64_t esize = 1;  // bytes of one etype in the file
  ftmpi::io::View view;
  std::int64_t pos = 0;  // individual file pointer, in etypes

  // collective buffering hints (docs/io.md)
  std::uint64_t cb_buffer_size = 16u << 20;
  int cb_nodes = 0;  // aggregators; 0 = min(size, 4)
  ftmpi::io::CbMode cb_write = ftmpi::io::CbMode::automatic, cb_read = ftmpi::io::CbMode::automatic;
  // data sieving of independent noncontiguous accesses (io/sieve.h): ind_rd_buffer_size, ind_wr_buffer_size,
  // romio_ds_read, romio_ds_write (ROMIO's defaults)
  std::uint64_t ind_rd_buffer_size = 4u << 20, ind_wr_buffer_size = 512u << 10;
  ftmpi::io::CbMode ds_read = ftmpi::io::CbMode::automatic, ds_write = ftmpi::io::CbMode::automatic;

  // split collective (one at a time per file, §13.4.5): the outcome of the begin, reported by the end
  bool split_active = false;
  bool split_write = false;
  const void* split_buf = nullptr;
  int split_rc = MPI_SUCCESS;
  MPI_Status split_status{};
};
