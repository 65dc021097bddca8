// Shared helpers of the MPI-IO C API (api/file_*.cpp): handle checks, the file error path, the data stream of
// an access (user buffer <-> file representation) and the independent I/O every access kind ends in.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "api/common.h"
#include "io/file.h"
#include "io/two_phase.h"

namespace ftmpi::api {

inline bool valid_file(const ftmpi_file_s* f) { return f != nullptr && f->magic == io::kMagicFile; }

// The error handler of MPI_FILE_NULL: used for MPI_File_open / MPI_File_delete and inherited by new files
// (MPI_ERRORS_RETURN by default, §13.7).
ftmpi_errhandler_s*& file_null_errhandler();

// MPI_SUCCESS, or `st` raised on the file's error handler (the MPI_FILE_NULL one when f is null).
int file_ret(ftmpi_file_s* f, const Status& st, const char* fn);
// An error code raised on the file's error handler.
int file_raise(ftmpi_file_s* f, int code, const std::string& detail, const char* fn);

// An MPI return code of an internal MPI call as a Status (for the file's own collective steps).
Status status_of_rc(int rc, const char* what);

// The data stream of an access: the file-representation bytes of `count` elements of `type` at `buf`.
// For a native contiguous buffer it is the user's memory itself (no copy).
struct Stream {
  const char* data = nullptr;
  std::uint64_t len = 0;  // file-side bytes
  std::vector<char> own;
};
Status make_write_stream(ftmpi_file_s* f, const void* buf, int count, MPI_Datatype type, Stream* out);
// Where a read lands before it is unpacked: the user's buffer itself when it can (native, contiguous).
struct ReadTarget {
  char* data = nullptr;
  std::uint64_t len = 0;
  std::vector<char> own;
};
Status make_read_target(ftmpi_file_s* f, void* buf, int count, MPI_Datatype type, ReadTarget* out);
// `got` file-side bytes of the target into the user's buffer; *bytes = native bytes delivered (for the status).
Status finish_read(ftmpi_file_s* f, ReadTarget& t, std::uint64_t got, void* buf, int count, MPI_Datatype type,
                   std::uint64_t* bytes);

// The file extents of stream bytes [pos, pos + len) of the current view (or of `view`).
std::vector<io::Extent> extents_of(const ftmpi_file_s* f, std::uint64_t pos, std::uint64_t len);
std::vector<io::Extent> extents_of(const io::View& view, std::uint64_t pos, std::uint64_t len);

// Independent I/O of the stream bytes starting at stream position `pos` (bytes), under a byte-range lock in
// atomic mode. A read reports in *got the stream bytes read before the end of file.
Status write_stream(ftmpi_file_s* f, std::uint64_t pos, const char* data, std::uint64_t len);
Status read_stream(ftmpi_file_s* f, std::uint64_t pos, char* data, std::uint64_t len, std::uint64_t* got);
// The same through `view` instead of the file's current one (a pending non-blocking collective access keeps
// the view of its initiation).
Status write_stream(ftmpi_file_s* f, const io::View& view, std::uint64_t pos, const char* data, std::uint64_t len);
Status read_stream(ftmpi_file_s* f, const io::View& view, std::uint64_t pos, char* data, std::uint64_t len,
                   std::uint64_t* got);

// Common argument checks of a data access: file valid and not invalidated, count, type, buffer, access mode.
Status check_access(ftmpi_file_s* f, int count, MPI_Datatype type, const void* buf, bool write);

// Which file position an access uses, and whether the file allows it: `shared` (the shared file pointer) or
// not (explicit offset `offset` when `at`, else the individual pointer); MPI_MODE_SEQUENTIAL allows only the
// shared one, an explicit offset must not be negative.
Status check_position(const ftmpi_file_s* f, bool shared, bool at, MPI_Offset offset);

// The status of a completed access of `bytes` native bytes.
void set_status(MPI_Status* st, std::uint64_t bytes);

// A request that is already complete, reporting `status` and `rc` at its completion call (non-blocking
// accesses are done at initiation: docs/io.md).
int completed_request(const MPI_Status& status, int rc, MPI_Request* req);

// MPI_Register_datarep's representation called `name`, or null (api/file_datarep.cpp).
const io::UserDatarep* find_datarep(const char* name);
// Does every basic value of `t` take as many bytes in representation `rep` as natively (required when a
// conversion function is MPI_CONVERSION_FN_NULL)? Errc::unsupported_datarep saying why not, or the error the
// extent function returned.
Status check_user_extents(const io::UserDatarep& rep, MPI_Datatype t);

// Collective accesses (api/file_coll.cpp): every member calls with its own stream position and data.
Status collective_write(ftmpi_file_s* f, std::uint64_t pos, const char* data, std::uint64_t len);
Status collective_read(ftmpi_file_s* f, std::uint64_t pos, char* data, std::uint64_t len, std::uint64_t* got);

// The tail every data access shares, independent (write_stream/read_stream) or collective
// (collective_write/collective_read): move the access's stream at etype `start`, unpack what a read got
// into `rbuf`, advance the individual file pointer when `individual`, and fill `status`.
using WriteFn = Status (*)(ftmpi_file_s*, std::uint64_t, const char*, std::uint64_t);
using ReadFn = Status (*)(ftmpi_file_s*, std::uint64_t, char*, std::uint64_t, std::uint64_t*);
Status transfer(ftmpi_file_s* f, std::int64_t start, bool individual, bool write, const Stream& ws, ReadTarget& rt,
                void* rbuf, int count, MPI_Datatype type, MPI_Status* status, WriteFn write_fn, ReadFn read_fn);

}  // namespace ftmpi::api

#define FTMPI_CHECK_FILE(f_, fn)                  \
  if (!::ftmpi::api::valid_file(f_))              \
  return ::ftmpi::api::file_ret(nullptr, ::ftmpi::Status(::ftmpi::Errc::file, "invalid file handle"), fn)
