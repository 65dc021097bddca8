// File layouts and streams of representations whose sizes differ from the native ones (see file_repr.h).
#include "api/file_repr.h"

#include <algorithm>
#include <string>

#include "api/file_common.h"
#include "api/grequest.h"
#include "datatype/contents.h"
#include "datatype/external32.h"
#include "datatype/kinds.h"

namespace ftmpi::api {
namespace {

static_assert(static_cast<int>(dt::Basic::double_double) < 64, "RepSizes::cache_ is indexed by dt::Basic");

Status rc_status(int rc, const char* what) {
  if (rc == MPI_SUCCESS) return Status::Ok();
  return status_of_rc(rc, what);
}

}  // namespace

Status RepSizes::unit(dt::Basic b, std::size_t* out) const {
  const auto i = static_cast<std::size_t>(b);
  if (cache_[i] > 0) {
    *out = static_cast<std::size_t>(cache_[i]);
    return Status::Ok();
  }
  std::size_t n = 0;
  if (user_ == nullptr) {
    n = dt::external32_unit_size(b);
    if (n == 0) return Status(Errc::unsupported_datarep, "a basic kind without an external32 form");
  } else {
    MPI_Datatype t = predefined_of(b);
    if (t == nullptr)
      return Status(Errc::unsupported_datarep,
                    "data representation '" + user_->name + "': a basic kind with no predefined datatype");
    MPI_Aint ext = -1;
    const int rc = user_->extent(t, &ext, user_->extra);
    if (rc != MPI_SUCCESS) return status_of_callback_code(rc, "the data representation's extent function");
    if (ext <= 0)
      return Status(Errc::unsupported_datarep, "data representation '" + user_->name + "' gives a file extent of " +
                                                   std::to_string(ext) + " to " + t->name + " (must be positive)");
    n = static_cast<std::size_t>(ext);
  }
  cache_[i] = static_cast<std::int64_t>(n);
  *out = n;
  return Status::Ok();
}

FileImage::~FileImage() {
  for (MPI_Datatype& t : made_) (void)PMPI_Type_free(&t);
}

Status FileImage::build(MPI_Datatype t, MPI_Datatype* out) { return replay(t, out); }

Status FileImage::replay(const dt::Datatype* t, MPI_Datatype* out) {
  if (auto it = memo_.find(t); it != memo_.end()) {
    *out = it->second;
    return Status::Ok();
  }
  MPI_Datatype img = MPI_DATATYPE_NULL;
  int rc = MPI_SUCCESS;
  const dt::Combiner comb = dt::combiner_of(t);
  if (comb == dt::Combiner::named || comb == dt::Combiner::f90_integer || comb == dt::Combiner::f90_real ||
      comb == dt::Combiner::f90_complex) {
    if (t->basic == dt::Basic::lb || t->basic == dt::Basic::ub || t->size == 0) {
      *out = const_cast<MPI_Datatype>(t);  // markers and empty types are the same in every representation
      return Status::Ok();
    }
    const std::size_t native_unit = dt::unit_size(t->basic);
    if (native_unit == 0)
      return Status(Errc::unsupported_datarep, "a datatype with no constructor record in a non-native view");
    std::size_t unit = 0;
    FTMPI_TRY(sizes_.unit(t->basic, &unit));
    rc = PMPI_Type_contiguous(static_cast<int>(t->size / native_unit * unit), MPI_BYTE, &img);
  } else {
    const dt::Contents& c = *t->contents;
    if (!c.large.empty())
      return Status(Errc::unsupported_datarep,
                    "a type made by a large-count constructor beyond the int range in a non-native view");
    std::vector<MPI_Datatype> sub(c.types.size());
    for (std::size_t i = 0; i < c.types.size(); ++i) FTMPI_TRY(replay(c.types[i], &sub[i]));
    const int* in = c.ints.data();
    const MPI_Aint* ai = c.aints.data();
    switch (comb) {
      case dt::Combiner::dup: rc = PMPI_Type_dup(sub[0], &img); break;
      case dt::Combiner::contiguous: rc = PMPI_Type_contiguous(in[0], sub[0], &img); break;
      case dt::Combiner::vector: rc = PMPI_Type_vector(in[0], in[1], in[2], sub[0], &img); break;
      case dt::Combiner::hvector: rc = PMPI_Type_create_hvector(in[0], in[1], ai[0], sub[0], &img); break;
      case dt::Combiner::indexed: rc = PMPI_Type_indexed(in[0], in + 1, in + 1 + in[0], sub[0], &img); break;
      case dt::Combiner::hindexed: rc = PMPI_Type_create_hindexed(in[0], in + 1, ai, sub[0], &img); break;
      case dt::Combiner::indexed_block:
        rc = PMPI_Type_create_indexed_block(in[0], in[1], in + 2, sub[0], &img);
        break;
      case dt::Combiner::hindexed_block:
        rc = PMPI_Type_create_hindexed_block(in[0], in[1], ai, sub[0], &img);
        break;
      case dt::Combiner::struct_: rc = PMPI_Type_create_struct(in[0], in + 1, ai, sub.data(), &img); break;
      case dt::Combiner::subarray: {
        const int n = in[0];
        rc = PMPI_Type_create_subarray(n, in + 1, in + 1 + n, in + 1 + 2 * n, in[1 + 3 * n], sub[0], &img);
        break;
      }
      case dt::Combiner::darray: {
        const int n = in[2];
        const int* g = in + 3;
        rc = PMPI_Type_create_darray(in[0], in[1], n, g, g + n, g + 2 * n, g + 3 * n, g[4 * n], sub[0], &img);
        break;
      }
      case dt::Combiner::resized: rc = PMPI_Type_create_resized(sub[0], ai[0], ai[1], &img); break;
      default: return Status(Errc::unsupported_datarep, "a datatype constructor not known to non-native views");
    }
  }
  FTMPI_TRY(rc_status(rc, "building a datatype's file layout"));
  made_.push_back(img);
  img->align = 1;  // the file is byte aligned: no struct padding from this type (file_repr.h)
  memo_.emplace(t, img);
  *out = img;
  return Status::Ok();
}

namespace {

// Walks the data items of `count` elements of `type` (its type map entries, tiled), in chunks of at most
// kUserChunkBytes file bytes (at least one item), stopping before `limit` file bytes (whole items only):
// chunk(first_item, items, file_offset, file_bytes). *native = packed native bytes of the items walked.
template <class F>
Status walk_items(const RepSizes& sizes, const dt::Datatype* type, std::size_t count, std::uint64_t limit,
                  std::uint64_t* native, F&& chunk) {
  std::uint64_t first = 0, items = 0, off = 0, bytes = 0, nat = 0;
  bool full = false;
  Status st;
  auto flush = [&] {
    if (items > 0 && st.ok()) st = chunk(first, items, off, bytes);
    first += items, off += bytes, items = 0, bytes = 0;
  };
  dt::for_each_run(type, count, [&](dt::Basic kind, std::size_t units) {
    if (!st.ok() || full) return;
    std::size_t s = 0;
    if (st = sizes.unit(kind, &s); !st.ok()) return;
    const std::size_t ns = dt::unit_size(kind);
    while (units > 0) {
      const std::uint64_t fit = (limit - off - bytes) / s;  // items before the limit
      if (fit == 0) {
        full = true;
        return;
      }
      if (bytes > 0 && bytes + s > kUserChunkBytes) {
        flush();
        if (!st.ok()) return;
      }
      const std::uint64_t room = std::max<std::uint64_t>(1, (kUserChunkBytes - bytes) / s);
      const std::uint64_t take = std::min<std::uint64_t>({units, fit, room});
      items += take, bytes += take * s, nat += take * ns, units -= take;
    }
  });
  flush();
  *native = nat;
  return st;
}

}  // namespace

Status user_stream_size(const RepSizes& sizes, MPI_Datatype type, std::size_t count, std::uint64_t* out) {
  std::uint64_t total = 0, native = 0;
  FTMPI_TRY(walk_items(sizes, type, count, UINT64_MAX, &native,
                       [&](std::uint64_t, std::uint64_t, std::uint64_t, std::uint64_t b) {
                         total += b;
                         return Status::Ok();
                       }));
  *out = total;
  return Status::Ok();
}

Status user_write_convert(const io::UserDatarep& rep, const RepSizes& sizes, const void* buf, MPI_Datatype type,
                          int count, char* file) {
  std::uint64_t native = 0;
  return walk_items(sizes, type, static_cast<std::size_t>(count), UINT64_MAX, &native,
                    [&](std::uint64_t first, std::uint64_t items, std::uint64_t off, std::uint64_t) {
                      const int rc = rep.write(const_cast<void*>(buf), type, static_cast<int>(items), file + off,
                                               static_cast<MPI_Offset>(first), rep.extra);
                      if (rc != MPI_SUCCESS)
                        return status_of_callback_code(rc, "the data representation's write conversion");
                      return Status::Ok();
                    });
}

Status user_read_convert(const io::UserDatarep& rep, const RepSizes& sizes, void* buf, MPI_Datatype type, int count,
                         const char* file, std::uint64_t got, std::uint64_t* native_bytes) {
  return walk_items(sizes, type, static_cast<std::size_t>(count), got, native_bytes,
                    [&](std::uint64_t first, std::uint64_t items, std::uint64_t off, std::uint64_t) {
                      const int rc = rep.read(buf, type, static_cast<int>(items), const_cast<char*>(file) + off,
                                              static_cast<MPI_Offset>(first), rep.extra);
                      if (rc != MPI_SUCCESS)
                        return status_of_callback_code(rc, "the data representation's read conversion");
                      return Status::Ok();
                    });
}

}  // namespace ftmpi::api
