// Errors as values inside the library. Only src/api/ maps these to MPI error codes.
#pragma once
#include <memory>
#include <string>
#include <utility>

namespace ftmpi {

// Internal error kinds. Kept 1:1 with the MPI error classes the library can raise; the mapping to
// MPI_ERR_* lives in api/error_codes.cpp (the only place that knows MPI numbers).
enum class Errc : int {
  ok = 0,
  buffer, count, type, tag, comm, rank, root, group, op, arg, truncate, other, intern, request,
  pending, in_status, no_mem, unsupported, errhandler, info, keyval, topology, dims, not_same,
  proc_failed,          // seed 000 §1.2: a process involved in the operation failed
  proc_failed_pending,  // ANY_SOURCE receive not matched while a potential sender failed
  revoked,              // the communicator was revoked (seed: invalidated)
  info_key, info_value, info_nokey,  // Info objects (MPI-3.1 §9)
  conversion,           // a value does not fit its external data representation (MPI-3.1 §13.5.2)
  // one-sided communication (MPI-3.1 chapter 11)
  win, base, locktype, rma_conflict, rma_sync, size, disp, assert_, rma_range, rma_attach, rma_shared, rma_flavor,
  // FA-MPI (seed 001, src/models/famp): TryBlock outcomes and local timeouts
  timeout, local_error_injection, task_fault, communication_fault, unmodeled_fault, multiple_faults,
  group_shrunk, tryblock_found_errors,
  // MPI-IO (MPI-3.1 chapter 13, src/io)
  file, no_such_file, amode, access, no_space, quota, file_exists, file_in_use, read_only, bad_file, io,
  unsupported_datarep, dup_datarep,
  // dynamic processes (MPI-3.1 chapter 10, src/dpm)
  spawn, port, name, service,
};

// A cheap status: a kind plus an optional message for MPI_Error_string / logs. The message lives out of line,
// so the OK status that every operation of the send/receive path creates, copies and destroys is two words
// and no string bookkeeping; only errors pay for their text.
class [[nodiscard]] Status {
 public:
  Status() = default;
  Status(Errc code) : code_(code) {}                        // NOLINT: implicit on purpose
  Status(Errc code, std::string msg)
      : code_(code), msg_(msg.empty() ? nullptr : std::make_unique<std::string>(std::move(msg))) {}
  Status(const Status& o) : code_(o.code_), msg_(o.msg_ ? std::make_unique<std::string>(*o.msg_) : nullptr) {}
  Status(Status&&) noexcept = default;
  Status& operator=(const Status& o) {
    if (this != &o) {
      code_ = o.code_;
      msg_ = o.msg_ ? std::make_unique<std::string>(*o.msg_) : nullptr;
    }
    return *this;
  }
  Status& operator=(Status&&) noexcept = default;
  ~Status() = default;
  static Status Ok() { return {}; }

  bool ok() const { return code_ == Errc::ok; }
  explicit operator bool() const { return ok(); }
  Errc code() const { return code_; }
  const std::string& message() const { return msg_ ? *msg_ : no_message(); }

 private:
  static const std::string& no_message() {
    static const std::string empty;
    return empty;
  }
  Errc code_ = Errc::ok;
  std::unique_ptr<std::string> msg_;
};

// Result<T>: a value or a Status.
template <class T>
class [[nodiscard]] Result {
 public:
  Result(T v) : value_(std::move(v)) {}  // NOLINT
  Result(Status s) : status_(std::move(s)) {}  // NOLINT
  Result(Errc c) : status_(c) {}  // NOLINT
  bool ok() const { return status_.ok(); }
  const Status& status() const { return status_; }
  T& value() { return value_; }
  const T& value() const { return value_; }
  T* operator->() { return &value_; }
  T& operator*() { return value_; }

 private:
  T value_{};
  Status status_;
};

#define FTMPI_TRY(expr)                      \
  do {                                       \
    ::ftmpi::Status ftmpi_st_ = (expr);      \
    if (!ftmpi_st_.ok()) return ftmpi_st_;   \
  } while (0)

}  // namespace ftmpi
