//===- Status.h - Errors of the Pipe runtime --------------------*- C++ -*-===//
//
// The runtime reports every failure as a value: a Status with a message that
// says what failed and why, or a Result<T> that holds either. A function
// that returns one throws nothing and never aborts the caller's process
// (host memory that runs out included); only HostTensor's constructor
// throws, as std::vector's does (HostTensor::allocate does not).
//
//===----------------------------------------------------------------------===//

#ifndef PIPE_RUNTIME_STATUS_H
#define PIPE_RUNTIME_STATUS_H

#include <optional>
#include <string>
#include <utility>

namespace pipert {

class [[nodiscard]] Status {
public:
  Status() = default;
  static Status error(std::string message) { return Status(std::move(message)); }
  /// A caller's tensor that does not fit the pipeline (its count, dtype,
  /// shape, memory), found before anything ran. The C API reports it as
  /// PIPE_ERROR_ARGUMENT, and other failures of a run as PIPE_ERROR_RUN.
  static Status badArgument(std::string message) {
    Status s(std::move(message));
    s.badArgument_ = true;
    return s;
  }
  bool ok() const { return !message_.has_value(); }
  bool isBadArgument() const { return badArgument_; }
  explicit operator bool() const { return ok(); }
  const std::string &message() const {
    static const std::string empty;
    return message_ ? *message_ : empty;
  }

private:
  explicit Status(std::string message) : message_(std::move(message)) {}
  std::optional<std::string> message_;
  bool badArgument_ = false;
};

/// A value or the Status that says why there is none.
template <typename T> class [[nodiscard]] Result {
public:
  Result(T value) : value_(std::move(value)) {}
  Result(Status status) : status_(std::move(status)) {}
  bool ok() const { return value_.has_value(); }
  explicit operator bool() const { return ok(); }
  const Status &status() const { return status_; }
  T &operator*() { return *value_; }
  const T &operator*() const { return *value_; }
  T *operator->() { return &*value_; }
  const T *operator->() const { return &*value_; }
  T take() { return std::move(*value_); }

private:
  std::optional<T> value_;
  Status status_;
};

} // namespace pipert

#endif // PIPE_RUNTIME_STATUS_H
