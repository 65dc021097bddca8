// C API: MPI_X_c2f / MPI_X_f2c (MPI-3.1 §17.2.4). Our handles are pointers and MPI_Fint is 32 bits, so a
// handle gets a small integer the first time it is converted: a per-process table, never shrunk (a pointer
// keeps its number even after its object is freed; a new object at the same address reuses it, which is what
// Fortran would see with integer handles anyway). The null handle is 0; an unknown integer converts to the
// null handle. These work before MPI_Init and after MPI_Finalize.
#include <mutex>
#include <unordered_map>
#include <vector>

#include "api/common.h"

namespace {

class HandleTable {
 public:
  MPI_Fint to_int(const void* h) {
    if (h == nullptr) return 0;
    std::lock_guard<std::mutex> g(mu_);
    auto [it, added] = index_.try_emplace(h, static_cast<MPI_Fint>(slots_.size() + 1));
    if (added) slots_.push_back(h);
    return it->second;
  }
  const void* to_handle(MPI_Fint f) {
    std::lock_guard<std::mutex> g(mu_);
    if (f <= 0 || static_cast<std::size_t>(f) > slots_.size()) return nullptr;
    return slots_[static_cast<std::size_t>(f) - 1];
  }

 private:
  std::mutex mu_;
  std::unordered_map<const void*, MPI_Fint> index_;
  std::vector<const void*> slots_;
};

// The C API's one conversion table (a handle table, like the predefined handle objects).
HandleTable& table() {
  static HandleTable t;
  return t;
}

template <class H>
H from_int(MPI_Fint f) {
  return static_cast<H>(const_cast<void*>(table().to_handle(f)));
}

}  // namespace

#define FTMPI_HANDLE_CONVERSION(Kind, Handle)                                                  \
  extern "C" MPI_Fint PMPI_##Kind##_c2f(Handle h) { return table().to_int(h); }                \
  FTMPI_ALIAS(Kind##_c2f)                                                                       \
  extern "C" Handle PMPI_##Kind##_f2c(MPI_Fint f) { return from_int<Handle>(f); }              \
  FTMPI_ALIAS(Kind##_f2c)

FTMPI_HANDLE_CONVERSION(Comm, MPI_Comm)
FTMPI_HANDLE_CONVERSION(Type, MPI_Datatype)
FTMPI_HANDLE_CONVERSION(Group, MPI_Group)
FTMPI_HANDLE_CONVERSION(Request, MPI_Request)
FTMPI_HANDLE_CONVERSION(Op, MPI_Op)
FTMPI_HANDLE_CONVERSION(Info, MPI_Info)
FTMPI_HANDLE_CONVERSION(Errhandler, MPI_Errhandler)
FTMPI_HANDLE_CONVERSION(Win, MPI_Win)
FTMPI_HANDLE_CONVERSION(File, MPI_File)
FTMPI_HANDLE_CONVERSION(Message, MPI_Message)
FTMPI_HANDLE_CONVERSION(Session, MPI_Session)
