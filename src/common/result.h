// Recoverable errors travel in the return value (STYLE.md: bpftrace). C++20 has no
// std::expected, so Result<T> is a small stand-in with the same shape; it can become
// std::expected<T, Error> when we move to C++23.
#pragma once

#include <string>
#include <utility>
#include <variant>

namespace canopy {

struct Error {
  std::string message;  // one line, names the input and the cause
};

template <typename T>
class [[nodiscard]] Result {
 public:
  Result(T value) : v_(std::move(value)) {}
  Result(Error error) : v_(std::move(error)) {}

  bool ok() const { return v_.index() == 0; }
  explicit operator bool() const { return ok(); }

  T& value() & { return std::get<0>(v_); }
  const T& value() const& { return std::get<0>(v_); }
  T&& value() && { return std::get<0>(std::move(v_)); }
  T& operator*() & { return value(); }
  const T& operator*() const& { return value(); }
  T* operator->() { return &value(); }
  const T* operator->() const { return &value(); }

  const Error& error() const { return std::get<1>(v_); }

 private:
  std::variant<T, Error> v_;
};

struct Ok {};
using Status = Result<Ok>;

}  // namespace canopy

// Passing an error up is most of what a caller does with one (Perfetto's
// status_macros.h). Both work in any function whose return type an Error converts to.
//
//   RETURN_IF_ERROR(writer.finish());          // a Status, or a Result whose value is unused
//   ASSIGN_OR_RETURN(auto reader, Reader::open(path));   // reader is the value itself
#define RETURN_IF_ERROR(...)                                      \
  do {                                                            \
    if (auto canopy_status_ = (__VA_ARGS__); !canopy_status_) {   \
      return canopy_status_.error();                              \
    }                                                             \
  } while (false)

#define CANOPY_CONCAT_INNER_(a, b) a##b
#define CANOPY_CONCAT_(a, b) CANOPY_CONCAT_INNER_(a, b)
#define ASSIGN_OR_RETURN(lhs, ...) \
  CANOPY_ASSIGN_OR_RETURN_(CANOPY_CONCAT_(canopy_result_, __LINE__), lhs, __VA_ARGS__)
#define CANOPY_ASSIGN_OR_RETURN_(result, lhs, ...) \
  auto result = (__VA_ARGS__);                     \
  if (!result) {                                   \
    return result.error();                         \
  }                                                \
  lhs = std::move(*result)
