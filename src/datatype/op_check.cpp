// Which predefined op applies to which basic kind: the table of MPI-3.1 §5.9.2, widened to what BOTH Open MPI
// 4.1 and MPICH 4.0 accept (probed for every predefined op x predefined type, see docs/api.md "Reductions"):
//   MAX, MIN            C integer, floating point, multi-language (AINT, OFFSET, COUNT)
//   SUM, PROD           C integer, floating point, complex, multi-language
//   LAND, LOR, LXOR     C integer, logical (C_BOOL, CXX_BOOL, Fortran LOGICAL), multi-language [multi-language: peers]
//   BAND, BOR, BXOR     C integer, byte, multi-language
//   MAXLOC, MINLOC      the pair types (FLOAT_INT, DOUBLE_INT, LONG_INT, 2INT, SHORT_INT, LONG_DOUBLE_INT;
//                       Fortran 2INTEGER, 2REAL, 2DOUBLE_PRECISION)
//   REPLACE, NO_OP      any type
// MPI_CHAR counts as a C integer (the standard calls it text, but both peers reduce it as `char`);
// MPI_WCHAR is text: only REPLACE/NO_OP (and user ops) accept it, as in both peers.
// A derived type qualifies when all its basic elements have one kind (dt::Datatype::basic != none).
#include "datatype/op.h"

namespace ftmpi::dt {
namespace {

enum class Class { c_integer, floating, complex, logical, byte, multi_language, pair, other };

Class class_of(Basic b) {
  switch (b) {
    case Basic::char_: case Basic::schar: case Basic::uchar: case Basic::short_: case Basic::ushort: case Basic::int_:
    case Basic::uint: case Basic::long_: case Basic::ulong: case Basic::llong: case Basic::ullong:
    case Basic::i8: case Basic::i16: case Basic::i32: case Basic::i64:
    case Basic::u8: case Basic::u16: case Basic::u32: case Basic::u64:
      return Class::c_integer;
    case Basic::float_: case Basic::double_: case Basic::ldouble:
      return Class::floating;
    case Basic::cfloat: case Basic::cdouble: case Basic::cldouble:
      return Class::complex;
    case Basic::bool_: case Basic::flogical:
      return Class::logical;
    case Basic::byte:
      return Class::byte;
    case Basic::aint: case Basic::offset: case Basic::count:
      return Class::multi_language;
    case Basic::float_int: case Basic::double_int: case Basic::long_int: case Basic::int_int:
    case Basic::short_int: case Basic::ldouble_int: case Basic::float_float: case Basic::double_double:
      return Class::pair;
    default:
      return Class::other;
  }
}

bool allowed(OpKind op, Class c) {
  switch (op) {
    case OpKind::max:
    case OpKind::min:
      return c == Class::c_integer || c == Class::floating || c == Class::multi_language;
    case OpKind::sum:
    case OpKind::prod:
      return c == Class::c_integer || c == Class::floating || c == Class::complex || c == Class::multi_language;
    case OpKind::land:
    case OpKind::lor:
    case OpKind::lxor:
      return c == Class::c_integer || c == Class::logical || c == Class::multi_language;
    case OpKind::band:
    case OpKind::bor:
    case OpKind::bxor:
      return c == Class::c_integer || c == Class::byte || c == Class::multi_language;
    case OpKind::maxloc:
    case OpKind::minloc:
      return c == Class::pair;
    case OpKind::replace:
    case OpKind::no_op:
    case OpKind::user:
      return true;
  }
  return false;
}

const char* op_name(OpKind op) {
  static constexpr const char* kNames[] = {"MPI_MAX",  "MPI_MIN",  "MPI_SUM",    "MPI_PROD",    "MPI_LAND",
                                           "MPI_BAND", "MPI_LOR",  "MPI_BOR",    "MPI_LXOR",    "MPI_BXOR",
                                           "MPI_MAXLOC", "MPI_MINLOC", "MPI_REPLACE", "MPI_NO_OP", "user op"};
  return kNames[static_cast<int>(op)];
}

}  // namespace

Status check_op(const Op* op, const Datatype* t) {
  if (op->kind == OpKind::user || op->kind == OpKind::replace || op->kind == OpKind::no_op) return {};
  if (t->basic != Basic::none && allowed(op->kind, class_of(t->basic))) return {};
  std::string msg = op_name(op->kind);
  msg += " is not defined for datatype ";
  msg += t->name.empty() ? std::string("(derived)") : t->name;
  return Status(Errc::op, std::move(msg));
}

}  // namespace ftmpi::dt
