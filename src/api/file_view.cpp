// MPI-IO views and positions (MPI-3.1 §13.3, §13.4.2-§13.4.4 positioning, §13.5 data representations):
// MPI_File_set_view/get_view, seek/get_position/get_byte_offset (individual and shared pointer),
// get_type_extent. The mapping itself: io/view.h.
#include <cstring>

#include "api/file_common.h"
#include "api/file_repr.h"
#include "datatype/datatype.h"
#include "datatype/external32.h"
#include "io/posix.h"

#include <sys/stat.h>

using ftmpi::Errc;
using ftmpi::Status;
using ftmpi::api::file_ret;

namespace {
// The runs of one element of `t` (a filetype or its file image) and its extent, for io::View. §13.3: the
// displacements must be non-negative and monotonically nondecreasing; regions may overlap only when the file
// is not open for writing (`writable`).
Status layout_of(const ftmpi::dt::Datatype* t, bool writable, std::vector<ftmpi::io::Run>* runs,
                 std::uint64_t* extent) {
  if (t->lb < 0 || t->true_lb < 0) return Status(Errc::type, "the filetype has negative displacements");
  if (t->contiguous) {
    runs->push_back({0, t->size});
    *extent = t->size;
    return Status::Ok();
  }
  for (const auto& b : ftmpi::dt::flatten(t)) {
    if (b.offset < 0) return Status(Errc::type, "the filetype has negative displacements");
    if (!runs->empty() && static_cast<std::uint64_t>(b.offset) < runs->back().offset)
      return Status(Errc::type, "the filetype's displacements are not monotonically nondecreasing");
    if (writable && !runs->empty() && static_cast<std::uint64_t>(b.offset) < runs->back().offset + runs->back().length)
      return Status(Errc::type, "the filetype has overlapping regions and the file is open for writing");
    runs->push_back({static_cast<std::uint64_t>(b.offset), b.length});
  }
  *extent = static_cast<std::uint64_t>(t->extent);
  return Status::Ok();
}
}  // namespace

namespace ftmpi::api {

std::vector<io::Extent> extents_of(const ftmpi_file_s* f, std::uint64_t pos, std::uint64_t len) {
  return extents_of(f->view, pos, len);
}

std::vector<io::Extent> extents_of(const io::View& view, std::uint64_t pos, std::uint64_t len) {
  std::vector<io::Extent> ex;
  view.for_each_extent(pos, len, [&](std::uint64_t off, std::uint64_t s, std::uint64_t l) { ex.push_back({off, s, l}); });
  return ex;
}

}  // namespace ftmpi::api

extern "C" int PMPI_File_set_view(MPI_File fh, MPI_Offset disp, MPI_Datatype etype, MPI_Datatype filetype,
                                  const char* datarep, MPI_Info info) {
  static const char* fn = "MPI_File_set_view";
  FTMPI_ENTER(fn);
  FTMPI_CHECK_FILE(fh, fn);
  if (fh->invalidated) return file_ret(fh, Status(Errc::revoked, "the file was invalidated"), fn);
  if (!ftmpi::dt::usable(etype) || !ftmpi::dt::usable(filetype))
    return file_ret(fh, Status(Errc::type, "etype or filetype is not a committed datatype"), fn);
  if (!datarep) return file_ret(fh, Status(Errc::arg, "datarep is NULL"), fn);
  ftmpi::io::Datarep rep;
  const ftmpi::io::UserDatarep* user = ftmpi::api::find_datarep(datarep);
  if (user) rep = ftmpi::io::Datarep::user;
  else if (std::strcmp(datarep, "native") == 0) rep = ftmpi::io::Datarep::native;
  else if (std::strcmp(datarep, "internal") == 0) rep = ftmpi::io::Datarep::internal;
  else if (std::strcmp(datarep, "external32") == 0) rep = ftmpi::io::Datarep::external32;
  else return file_ret(fh, Status(Errc::unsupported_datarep, std::string("unknown data representation '") + datarep + "'"), fn);
  if (disp == MPI_DISPLACEMENT_CURRENT) {
    if (!(fh->amode & MPI_MODE_SEQUENTIAL))
      return file_ret(fh, Status(Errc::arg, "MPI_DISPLACEMENT_CURRENT needs MPI_MODE_SEQUENTIAL"), fn);
    std::int64_t cur = 0;
    if (fh->shared_fd >= 0) (void)ftmpi::io::shared_load(fh->shared_fd, &cur);
    disp = static_cast<MPI_Offset>(fh->view.byte_offset(static_cast<std::uint64_t>(cur) * fh->esize));
  }
  if (disp < 0) return file_ret(fh, Status(Errc::arg, "negative displacement"), fn);
  if (etype->size == 0) return file_ret(fh, Status(Errc::type, "the etype has no data"), fn);
  if (filetype->size % etype->size != 0)
    return file_ret(fh, Status(Errc::type, "the filetype is not a whole number of etypes"), fn);
  if (filetype->lb < 0 || filetype->true_lb < 0)
    return file_ret(fh, Status(Errc::type, "the filetype has negative displacements"), fn);
  // Non-native sizes (external32, a user representation with conversion functions): the view is laid out by
  // the types' file images (api/file_repr.h); otherwise by the types themselves.
  const bool imaged = rep == ftmpi::io::Datarep::external32 || (user && user->read && user->write);
  if (user && !imaged) {  // null conversion functions: the file holds native bytes, so native sizes only
    if (Status st = ftmpi::api::check_user_extents(*user, etype); !st.ok()) return file_ret(fh, st, fn);
    if (Status st = ftmpi::api::check_user_extents(*user, filetype); !st.ok()) return file_ret(fh, st, fn);
  }
  std::uint64_t esize = etype->size;
  const bool writable = (fh->amode & (MPI_MODE_WRONLY | MPI_MODE_RDWR)) != 0;
  std::vector<ftmpi::io::Run> runs;
  std::uint64_t extent = 0;
  if (imaged) {
    const ftmpi::api::RepSizes sizes(user);
    ftmpi::api::FileImage image(sizes);
    MPI_Datatype ei = MPI_DATATYPE_NULL, fi = MPI_DATATYPE_NULL;
    if (Status st = image.build(etype, &ei); !st.ok()) return file_ret(fh, st, fn);
    if (Status st = image.build(filetype, &fi); !st.ok()) return file_ret(fh, st, fn);
    esize = ei->size;
    if (esize == 0 || fi->size % esize != 0)
      return file_ret(fh, Status(Errc::type, "the filetype is not a whole number of etypes in the file representation"),
                      fn);
    if (Status st = layout_of(fi, writable, &runs, &extent); !st.ok()) return file_ret(fh, st, fn);
  } else {
    if (Status st = layout_of(filetype, writable, &runs, &extent); !st.ok()) return file_ret(fh, st, fn);
  }
  if (extent == 0) return file_ret(fh, Status(Errc::type, "the filetype has extent 0"), fn);
  // collective: everyone gets here before the shared pointer is reset
  int rc = PMPI_Barrier(fh->comm);
  if (rc != MPI_SUCCESS) return file_ret(fh, ftmpi::api::status_of_rc(rc, fn), fn);
  MPI_Datatype e = etype, t = filetype;
  if (!etype->predefined) PMPI_Type_dup(etype, &e);
  if (!filetype->predefined) PMPI_Type_dup(filetype, &t);
  if (!fh->etype->predefined) PMPI_Type_free(&fh->etype);
  if (!fh->filetype->predefined) PMPI_Type_free(&fh->filetype);
  fh->etype = e;
  fh->filetype = t;
  fh->disp = disp;
  fh->rep = rep;
  fh->user_rep = user;
  fh->esize = esize;
  fh->view = ftmpi::io::View(static_cast<std::uint64_t>(disp), std::move(runs), extent);
  fh->pos = 0;
  if (info != MPI_INFO_NULL) (void)PMPI_File_set_info(fh, info);
  if (fh->rank == 0 && fh->shared_fd >= 0) (void)ftmpi::io::shared_store(fh->shared_fd, 0);
  rc = PMPI_Barrier(fh->comm);
  return file_ret(fh, ftmpi::api::status_of_rc(rc, fn), fn);
}
FTMPI_ALIAS(File_set_view)

extern "C" int PMPI_File_get_view(MPI_File fh, MPI_Offset* disp, MPI_Datatype* etype, MPI_Datatype* filetype,
                                  char* datarep) {
  static const char* fn = "MPI_File_get_view";
  FTMPI_ENTER(fn);
  FTMPI_CHECK_FILE(fh, fn);
  if (!disp || !etype || !filetype || !datarep) return file_ret(fh, Status(Errc::arg, "NULL argument"), fn);
  *disp = fh->disp;
  if (fh->etype->predefined) *etype = fh->etype;
  else PMPI_Type_dup(fh->etype, etype);
  if (fh->filetype->predefined) *filetype = fh->filetype;
  else PMPI_Type_dup(fh->filetype, filetype);
  const char* r = fh->rep == ftmpi::io::Datarep::native ? "native"
                  : fh->rep == ftmpi::io::Datarep::internal ? "internal"
                  : fh->rep == ftmpi::io::Datarep::user && fh->user_rep ? fh->user_rep->name.c_str() : "external32";
  std::strcpy(datarep, r);
  return MPI_SUCCESS;
}
FTMPI_ALIAS(File_get_view)

namespace {

// The stream position (etypes) of the end of the file under the current view.
std::int64_t end_position(ftmpi_file_s* f) {
  struct stat sb {};
  if (::fstat(f->fd, &sb) != 0) return 0;
  return static_cast<std::int64_t>(f->view.stream_before(static_cast<std::uint64_t>(sb.st_size)) / f->esize);
}

Status new_position(ftmpi_file_s* f, std::int64_t cur, MPI_Offset offset, int whence, std::int64_t* out) {
  std::int64_t p;
  switch (whence) {
    case MPI_SEEK_SET: p = offset; break;
    case MPI_SEEK_CUR: p = cur + offset; break;
    case MPI_SEEK_END: p = end_position(f) + offset; break;
    default: return Status(Errc::arg, "whence is not MPI_SEEK_SET, MPI_SEEK_CUR or MPI_SEEK_END");
  }
  if (p < 0) return Status(Errc::arg, "the new position is negative");
  *out = p;
  return Status::Ok();
}

}  // namespace

extern "C" int PMPI_File_seek(MPI_File fh, MPI_Offset offset, int whence) {
  static const char* fn = "MPI_File_seek";
  FTMPI_ENTER(fn);
  FTMPI_CHECK_FILE(fh, fn);
  if (fh->amode & MPI_MODE_SEQUENTIAL) return file_ret(fh, Status(Errc::unsupported, "seek on a MPI_MODE_SEQUENTIAL file"), fn);
  std::int64_t p = 0;
  if (Status st = new_position(fh, fh->pos, offset, whence, &p); !st.ok()) return file_ret(fh, st, fn);
  fh->pos = p;
  return MPI_SUCCESS;
}
FTMPI_ALIAS(File_seek)

extern "C" int PMPI_File_get_position(MPI_File fh, MPI_Offset* offset) {
  static const char* fn = "MPI_File_get_position";
  FTMPI_ENTER(fn);
  FTMPI_CHECK_FILE(fh, fn);
  if (!offset) return file_ret(fh, Status(Errc::arg, "offset is NULL"), fn);
  *offset = fh->pos;
  return MPI_SUCCESS;
}
FTMPI_ALIAS(File_get_position)

extern "C" int PMPI_File_seek_shared(MPI_File fh, MPI_Offset offset, int whence) {
  static const char* fn = "MPI_File_seek_shared";
  FTMPI_ENTER(fn);
  FTMPI_CHECK_FILE(fh, fn);
  if (fh->shared_fd < 0) return file_ret(fh, Status(Errc::unsupported, "no shared file pointer for this file (docs/io.md)"), fn);
  // collective, same arguments everywhere: rank 0 computes and stores, a barrier orders it before later accesses
  Status st;
  if (fh->rank == 0) {
    std::int64_t cur = 0, p = 0;
    st = ftmpi::io::shared_load(fh->shared_fd, &cur);
    if (st.ok()) st = new_position(fh, cur, offset, whence, &p);
    if (st.ok()) st = ftmpi::io::shared_store(fh->shared_fd, p);
  }
  int code = st.ok() ? 0 : static_cast<int>(st.code());
  int rc = PMPI_Bcast(&code, 1, MPI_INT, 0, fh->comm);
  if (rc != MPI_SUCCESS) return file_ret(fh, ftmpi::api::status_of_rc(rc, fn), fn);
  if (code != 0 && st.ok()) st = Status(static_cast<Errc>(code), "MPI_File_seek_shared failed at rank 0");
  return file_ret(fh, st, fn);
}
FTMPI_ALIAS(File_seek_shared)

extern "C" int PMPI_File_get_position_shared(MPI_File fh, MPI_Offset* offset) {
  static const char* fn = "MPI_File_get_position_shared";
  FTMPI_ENTER(fn);
  FTMPI_CHECK_FILE(fh, fn);
  if (!offset) return file_ret(fh, Status(Errc::arg, "offset is NULL"), fn);
  if (fh->shared_fd < 0) return file_ret(fh, Status(Errc::unsupported, "no shared file pointer for this file (docs/io.md)"), fn);
  std::int64_t v = 0;
  if (Status st = ftmpi::io::shared_load(fh->shared_fd, &v); !st.ok()) return file_ret(fh, st, fn);
  *offset = v;
  return MPI_SUCCESS;
}
FTMPI_ALIAS(File_get_position_shared)

extern "C" int PMPI_File_get_byte_offset(MPI_File fh, MPI_Offset offset, MPI_Offset* disp) {
  static const char* fn = "MPI_File_get_byte_offset";
  FTMPI_ENTER(fn);
  FTMPI_CHECK_FILE(fh, fn);
  if (!disp) return file_ret(fh, Status(Errc::arg, "disp is NULL"), fn);
  if (offset < 0) return file_ret(fh, Status(Errc::arg, "negative offset"), fn);
  *disp = static_cast<MPI_Offset>(fh->view.byte_offset(static_cast<std::uint64_t>(offset) * fh->esize));
  return MPI_SUCCESS;
}
FTMPI_ALIAS(File_get_byte_offset)

extern "C" int PMPI_File_get_type_extent(MPI_File fh, MPI_Datatype datatype, MPI_Aint* extent) {
  static const char* fn = "MPI_File_get_type_extent";
  FTMPI_ENTER(fn);
  FTMPI_CHECK_FILE(fh, fn);
  if (!ftmpi::dt::live(datatype)) return file_ret(fh, Status(Errc::type, "invalid datatype"), fn);
  if (!extent) return file_ret(fh, Status(Errc::arg, "extent is NULL"), fn);
  const bool imaged = fh->rep == ftmpi::io::Datarep::external32 ||
                      (fh->rep == ftmpi::io::Datarep::user && fh->user_rep && fh->user_rep->read && fh->user_rep->write);
  if (imaged) {  // the extent of the type's file image (api/file_repr.h)
    const ftmpi::api::RepSizes sizes(fh->rep == ftmpi::io::Datarep::user ? fh->user_rep : nullptr);
    ftmpi::api::FileImage image(sizes);
    MPI_Datatype img = MPI_DATATYPE_NULL;
    if (Status st = image.build(datatype, &img); !st.ok()) return file_ret(fh, st, fn);
    *extent = static_cast<MPI_Aint>(img->extent);
  } else {
    *extent = datatype->extent;
  }
  return MPI_SUCCESS;
}
FTMPI_ALIAS(File_get_type_extent)
