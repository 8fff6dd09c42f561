// Result<T>: expected failures as values (bad input, missing files, a workload
// that cannot run). Carries the message and the exit code DESIGN.md assigns.
#pragma once

#include <cstdio>
#include <cstdlib>
#include <optional>
#include <string>
#include <utility>
#include <variant>

namespace gpugate {

/// Exit codes, fixed by DESIGN.md. Never reused for anything else.
enum class ExitCode : int {
  kPass = 0,          ///< pass (improvements and warnings included)
  kRegression = 1,    ///< a regression the policy says fails
  kInputError = 2,    ///< usage, config or input error
  kToolError = 3,     ///< a workload failed to run or the tool failed
  kInconclusive = 4,  ///< inconclusive where the policy asks for certainty
};

/// An expected failure: a message that points at the input, plus the exit
/// code a command should end with if the error reaches it.
struct Error {
  std::string message;
  ExitCode code = ExitCode::kInputError;

  /// Prefixes context ("while loading baseline 'main.json': ...").
  Error WithContext(const std::string& context) const {
    return Error{context + ": " + message, code};
  }
};

inline Error InputError(std::string message) {
  return Error{std::move(message), ExitCode::kInputError};
}
inline Error ToolError(std::string message) {
  return Error{std::move(message), ExitCode::kToolError};
}

/// Either a value or an Error. Check ok() before value().
template <class T>
class [[nodiscard]] Result {
 public:
  Result(T value) : v_(std::move(value)) {}        // NOLINT: implicit by design
  Result(Error error) : v_(std::move(error)) {}    // NOLINT: implicit by design

  bool ok() const { return v_.index() == 0; }
  explicit operator bool() const { return ok(); }

  T& value() & { return std::get<0>(v_); }
  const T& value() const& { return std::get<0>(v_); }
  T&& value() && { return std::get<0>(std::move(v_)); }
  T* operator->() { return &value(); }
  const T* operator->() const { return &value(); }
  T& operator*() & { return value(); }
  const T& operator*() const& { return value(); }

  const Error& error() const { return std::get<1>(v_); }

 private:
  std::variant<T, Error> v_;
};

/// Result for operations with no value.
class [[nodiscard]] Status {
 public:
  Status() = default;
  Status(Error error) : error_(std::move(error)) {}  // NOLINT: implicit by design
  static Status Ok() { return Status(); }
  bool ok() const { return !error_.has_value(); }
  explicit operator bool() const { return ok(); }
  const Error& error() const { return *error_; }

 private:
  std::optional<Error> error_;
};

}  // namespace gpugate

/// Programmer-error check: aborts with file:line. Not for input validation.
#define GPUGATE_CHECK(cond)                                                   \
  do {                                                                        \
    if (!(cond)) {                                                            \
      std::fprintf(stderr, "gpugate: internal error: %s:%d: check failed: %s\n", \
                   __FILE__, __LINE__, #cond);                                \
      std::abort();                                                           \
    }                                                                         \
  } while (0)
