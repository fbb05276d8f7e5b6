// A small expected-style result for setup code (g++ 12 has no std::expected).
// Setup functions return Result<T>: either a value or an Error whose message
// names the flag, file or address at fault. Never used on the hot path.
#pragma once

#include <string>
#include <utility>
#include <variant>

namespace pacer {

// What kind of failure; the app maps these to exit codes (DESIGN.md section 2).
enum class ErrorKind {
  kBadArgument,   // user input: exit 2
  kBadInput,      // unreadable or malformed file given by the user: exit 2
  kRuntime,       // could not start or finish the run: exit 1
};

struct Error {
  ErrorKind kind = ErrorKind::kRuntime;
  std::string message;
};

inline Error bad_argument(std::string message) { return Error{ErrorKind::kBadArgument, std::move(message)}; }
inline Error bad_input(std::string message) { return Error{ErrorKind::kBadInput, std::move(message)}; }
inline Error runtime_error(std::string message) { return Error{ErrorKind::kRuntime, std::move(message)}; }

template <typename T>
class [[nodiscard]] Result {
 public:
  Result(T value) : state_(std::move(value)) {}        // NOLINT(google-explicit-constructor)
  Result(Error error) : state_(std::move(error)) {}    // NOLINT(google-explicit-constructor)

  bool ok() const { return std::holds_alternative<T>(state_); }
  explicit operator bool() const { return ok(); }

  T& value() & { return std::get<T>(state_); }
  const T& value() const& { return std::get<T>(state_); }
  T&& value() && { return std::get<T>(std::move(state_)); }
  T& operator*() & { return value(); }
  const T& operator*() const& { return value(); }
  T* operator->() { return &value(); }
  const T* operator->() const { return &value(); }

  const Error& error() const { return std::get<Error>(state_); }

 private:
  std::variant<T, Error> state_;
};

// Result<void> equivalent.
struct Ok {};
using Status = Result<Ok>;

}  // namespace pacer
