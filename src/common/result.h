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
