// One RAII template for every handle we own: fds, DIR*, sqlite3*, sqlite3_stmt*
// (STYLE.md: Perfetto's ScopedResource). Move-only.
#pragma once

#include <dirent.h>
#include <unistd.h>

#include <utility>

namespace canopy {

template <typename T, auto CloseFn, T kInvalid>
class ScopedResource {
 public:
  ScopedResource() = default;
  explicit ScopedResource(T t) : t_(t) {}
  ScopedResource(const ScopedResource&) = delete;
  ScopedResource& operator=(const ScopedResource&) = delete;
  ScopedResource(ScopedResource&& other) noexcept : t_(std::exchange(other.t_, kInvalid)) {}
  ScopedResource& operator=(ScopedResource&& other) noexcept {
    if (this != &other) {
      reset(std::exchange(other.t_, kInvalid));
    }
    return *this;
  }
  ~ScopedResource() { reset(); }

  T get() const { return t_; }
  explicit operator bool() const { return t_ != kInvalid; }
  T release() { return std::exchange(t_, kInvalid); }
  void reset(T t = kInvalid) {
    if (t_ != kInvalid) {
      CloseFn(t_);
    }
    t_ = t;
  }

 private:
  T t_ = kInvalid;
};

using ScopedFd = ScopedResource<int, ::close, -1>;
using ScopedDir = ScopedResource<DIR*, ::closedir, nullptr>;

}  // namespace canopy
