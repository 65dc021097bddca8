// Data representations whose file sizes differ from the native ones (MPI-3.1 §13.5): "external32" (MPI_LONG is
// 4 bytes, MPI_WCHAR 2, ...) and MPI_Register_datarep representations whose dtype_file_extent_fn gives other
// sizes. Two pieces:
//
//  * FileImage: the layout of a datatype in the file. §13.5.1: displacements given in bytes (hvector,
//    hindexed, hindexed_block, struct, resized) are file bytes, interpreted as is; those counted in elements of
//    a constituent type (contiguous, vector, indexed, indexed_block, subarray, darray, and dup) scale with that
//    type's *file* extent ("for etypes and filetypes that are portable datatypes, MPI will scale any
//    displacements"). The image is an ordinary datatype built by replaying the type's constructor calls
//    (MPI_Type_get_contents' record) over stand-ins: every predefined type becomes a run of its file size in
//    bytes. So its type map places every basic value at its file offset with its file size, its pack order is
//    the data stream's order, its size is the file size of one element and its extent the file extent
//    (MPI_File_get_type_extent). The file is byte aligned (§13.5.2: "all data is byte aligned"): a struct's
//    extent gets no alignment padding in the image; MPI_Type_create_resized fixes an extent explicitly.
//
//  * User representations' data streams: the bytes of an access in the file are the data items (type map
//    entries) of the memory type back to back, each of the file size the extent function gave for its basic
//    kind. write_conversion_fn / read_conversion_fn are called per chunk of at most kUserChunkBytes file bytes
//    (at least one item), with `position` the index of the chunk's first item in the tiled memory type and
//    `count` its items (§13.5.3: position and count are in data items, not bytes nor elements).
#pragma once
#include <array>
#include <cstddef>
#include <cstdint>
#include <map>
#include <vector>

#include "datatype/datatype.h"
#include "io/file.h"
#include "mpi.h"
#include "util/status.h"

namespace ftmpi::api {

// The predefined datatype of basic kind `b` (what a user representation's extent function is asked about), or
// null (api/file_datarep.cpp).
MPI_Datatype predefined_of(dt::Basic b);

// File bytes of one basic value of each kind, in one representation: external32's table (user == null) or a
// user representation's extent function (asked once per kind and per RepSizes object).
class RepSizes {
 public:
  explicit RepSizes(const io::UserDatarep* user) : user_(user) {}
  // Errc::unsupported_datarep for kinds the representation cannot hold; the extent function's error.
  Status unit(dt::Basic b, std::size_t* out) const;
  bool external32() const { return user_ == nullptr; }

 private:
  const io::UserDatarep* user_;
  mutable std::array<std::int64_t, 64> cache_{};  // 0: not asked yet
};

class FileImage {
 public:
  explicit FileImage(const RepSizes& sizes) : sizes_(sizes) {}
  ~FileImage();
  FileImage(const FileImage&) = delete;
  FileImage& operator=(const FileImage&) = delete;
  // The image of `t` (owned by this object, valid until its destruction). Errc::unsupported_datarep for types
  // made by large-count constructors beyond the int range (their call is not replayed).
  Status build(MPI_Datatype t, MPI_Datatype* out);

 private:
  Status replay(const dt::Datatype* t, MPI_Datatype* out);
  const RepSizes& sizes_;
  std::map<const dt::Datatype*, MPI_Datatype> memo_;
  std::vector<MPI_Datatype> made_;
};

// The stream of a user representation with conversion functions (file_repr.cpp), for `count` elements of `type`.
inline constexpr std::uint64_t kUserChunkBytes = 64u << 10;
// File bytes of the whole stream.
Status user_stream_size(const RepSizes& sizes, MPI_Datatype type, std::size_t count, std::uint64_t* out);
// Fills `file` (user_stream_size bytes) from the user's buffer with write_conversion_fn, chunk by chunk.
Status user_write_convert(const io::UserDatarep& rep, const RepSizes& sizes, const void* buf, MPI_Datatype type,
                          int count, char* file);
// Converts the whole items among the first `got` bytes of `file` into the user's buffer with read_conversion_fn;
// *native_bytes = the packed native bytes of those items (the status's count).
Status user_read_convert(const io::UserDatarep& rep, const RepSizes& sizes, void* buf, MPI_Datatype type, int count,
                         const char* file, std::uint64_t got, std::uint64_t* native_bytes);

}  // namespace ftmpi::api
