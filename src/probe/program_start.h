// What a process's program was handed as it started: the kernel's auxiliary vector
// (/proc/PID/auxv) and the environment (/proc/PID/environ). Both are fixed at exec:
// what the program does to its environment afterwards (setenv, unsetenv) moves
// pointers, not the text the kernel shows. record --heap reads them once per program
// to tell whether the dynamic loader could preload the heap profiler into it.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace canopy::probe {

// How a read of a process's file went. kDenied: the process runs with credentials the
// reader lacks (a setuid program, for a reader that is not root): the kernel refuses
// another user's auxv and environ. kGone: it has exited (or its memory is gone, as a
// zombie's is).
enum class Access { kRead, kDenied, kGone };

// /proc/PID/auxv: pairs of words (type, value) up to AT_NULL, in the word size of the
// program: 64-bit pairs, or 32-bit ones for a 32-bit program on a 64-bit kernel.
// e.g. (x86-64) 33 0x7ffd...  51 3632  16 0x178bfbff  6 4096  ... 7 0x7f12...  ... 0 0
struct AuxvFields {
  int word_bits = 0;              // 64 or 32
  uint64_t interpreter_base = 0;  // AT_BASE: where the dynamic loader is; 0 when there is none
  bool secure = false;            // AT_SECURE: setuid, setgid or file capabilities
  std::optional<uint64_t> effective_uid = std::nullopt;  // AT_EUID: the user it started as
};
// nullopt when the bytes are neither word size's vector: AT_PAGESZ (a power of two of
// at least 4096, on every Linux) is how the word size is told.
std::optional<AuxvFields> parse_auxv(std::string_view bytes);

struct AuxvRead {
  Access access = Access::kGone;
  AuxvFields fields;  // when kRead
};

struct EnvironmentRead {
  Access access = Access::kGone;
  // One per name asked for, in their order: nullopt when the environment has none.
  std::vector<std::optional<std::string>> values;
};

// The entries of an environment "NAME=value\0NAME=value\0...", one at a time, as reads
// bring its bytes in pieces: an entry split between two pieces is joined. Stops taking
// bytes once every name asked for is found.
class EnvironmentScan {
 public:
  explicit EnvironmentScan(std::span<const std::string_view> names);
  // False once every name is found: the rest of the environment need not be read.
  bool take(std::string_view bytes);
  // The end of the environment: a last entry without its NUL is complete too.
  void finish();
  std::vector<std::optional<std::string>> values() && { return std::move(values_); }

 private:
  void entry(std::string_view text);
  std::span<const std::string_view> names_;
  std::vector<std::optional<std::string>> values_;
  size_t found_ = 0;
  std::string partial_;  // the start of an entry whose NUL has not come yet
};

}  // namespace canopy::probe
