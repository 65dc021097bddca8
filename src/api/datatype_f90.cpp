// C API: MPI_Type_create_f90_integer / _real / _complex (MPI-3.1 §17.1.9).
//
// The result is the C type with the range (decimal exponent r) and precision (decimal digits p) asked for,
// as a gfortran SELECTED_INT_KIND / SELECTED_REAL_KIND would choose on x86-64:
//   integer  r <= 2: int8_t, r <= 4: int16_t, r <= 9: int32_t, r <= 18: int64_t
//   real     p <= 6 and r <= 37: float, p <= 15 and r <= 307: double, p <= 18 and r <= 4931: long double
//   complex  the complex type of that real type
// MPI_UNDEFINED for p or r means "no requirement" (not both). Anything larger (gfortran's REAL(16)) fails
// with MPI_ERR_ARG. The handle is cached per (combiner, p, r): repeated calls return the same type, whose
// envelope is MPI_COMBINER_F90_* with the arguments as given. Such a type must not be freed (MPI_Type_free
// refuses it with MPI_ERR_TYPE).
#include <map>
#include <tuple>

#include "api/common.h"
#include "api/datatype_common.h"
#include "datatype/derived.h"

namespace dt = ftmpi::dt;
using ftmpi::Errc;

namespace {

constexpr auto fail = ftmpi::api::fail_type_call;

// The cached types (process-wide, like the predefined ones; never freed).
std::map<std::tuple<int, int, int>, dt::Datatype*>& cache() {
  static std::map<std::tuple<int, int, int>, dt::Datatype*> types;
  return types;
}

int make(dt::Combiner c, int p, int r, MPI_Datatype base, MPI_Datatype* newtype, const char* fn) {
  auto key = std::make_tuple(static_cast<int>(c), p, r);
  auto& types = cache();
  if (auto it = types.find(key); it != types.end()) {
    *newtype = it->second;
    return MPI_SUCCESS;
  }
  ftmpi::Result<dt::Datatype*> t = dt::make_dup(base);
  if (!t.ok()) return ftmpi::api::ret(nullptr, t.status(), fn);
  dt::Contents how;
  how.combiner = c;
  how.ints = c == dt::Combiner::f90_integer ? std::vector<int>{r} : std::vector<int>{p, r};
  dt::record_contents(t.value(), std::move(how));
  t.value()->committed = true;
  types.emplace(key, t.value());
  *newtype = t.value();
  return MPI_SUCCESS;
}

// The real type for (p, r), or MPI_DATATYPE_NULL.
MPI_Datatype real_for(int p, int r, bool complex) {
  const bool any_p = p == MPI_UNDEFINED, any_r = r == MPI_UNDEFINED;
  if ((!any_p && p < 0) || (!any_r && r < 0)) return MPI_DATATYPE_NULL;
  auto fits = [&](int pmax, int rmax) { return (any_p || p <= pmax) && (any_r || r <= rmax); };
  if (fits(6, 37)) return complex ? MPI_C_FLOAT_COMPLEX : MPI_FLOAT;
  if (fits(15, 307)) return complex ? MPI_C_DOUBLE_COMPLEX : MPI_DOUBLE;
  if (fits(18, 4931)) return complex ? MPI_C_LONG_DOUBLE_COMPLEX : MPI_LONG_DOUBLE;
  return MPI_DATATYPE_NULL;
}

int real_or_complex(int p, int r, MPI_Datatype* newtype, bool complex, const char* fn) {
  if (newtype == nullptr) return fail(Errc::arg, "newtype is NULL", fn);
  if (p == MPI_UNDEFINED && r == MPI_UNDEFINED) return fail(Errc::arg, "p and r are both MPI_UNDEFINED", fn);
  MPI_Datatype base = real_for(p, r, complex);
  if (base == MPI_DATATYPE_NULL)
    return fail(Errc::arg, "no real type has that precision and range (the largest is long double: p 18, r 4931)",
                fn);
  return make(complex ? dt::Combiner::f90_complex : dt::Combiner::f90_real, p, r, base, newtype, fn);
}

}  // namespace

extern "C" int PMPI_Type_create_f90_integer(int r, MPI_Datatype* newtype) {
  FTMPI_ENTER("MPI_Type_create_f90_integer");
  const char* fn = "MPI_Type_create_f90_integer";
  if (newtype == nullptr) return fail(Errc::arg, "newtype is NULL", fn);
  MPI_Datatype base = MPI_DATATYPE_NULL;
  if (r >= 0 && r <= 2) base = MPI_INT8_T;
  else if (r >= 0 && r <= 4) base = MPI_INT16_T;
  else if (r >= 0 && r <= 9) base = MPI_INT32_T;
  else if (r >= 0 && r <= 18) base = MPI_INT64_T;
  if (base == MPI_DATATYPE_NULL)
    return fail(Errc::arg, "no integer type has that range (0 <= r <= 18: up to 64-bit integers)", fn);
  return make(dt::Combiner::f90_integer, 0, r, base, newtype, fn);
}
FTMPI_ALIAS(Type_create_f90_integer)

extern "C" int PMPI_Type_create_f90_real(int p, int r, MPI_Datatype* newtype) {
  FTMPI_ENTER("MPI_Type_create_f90_real");
  return real_or_complex(p, r, newtype, false, "MPI_Type_create_f90_real");
}
FTMPI_ALIAS(Type_create_f90_real)

extern "C" int PMPI_Type_create_f90_complex(int p, int r, MPI_Datatype* newtype) {
  FTMPI_ENTER("MPI_Type_create_f90_complex");
  return real_or_complex(p, r, newtype, true, "MPI_Type_create_f90_complex");
}
FTMPI_ALIAS(Type_create_f90_complex)
