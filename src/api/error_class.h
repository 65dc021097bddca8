// User-defined error classes and codes as the rest of the C API sees them (api/error_class.cpp).
#pragma once

namespace ftmpi::comm {
class ErrorClassRegistry;
}

namespace ftmpi::api {
comm::ErrorClassRegistry& error_classes();
// Class of a code added by MPI_Add_error_class/code, or -1 for any other value.
int user_error_class(int code);
// String of a user code ("" when none was attached), or nullptr for any other value.
const char* user_error_string(int code);
}  // namespace ftmpi::api
