// The values flags take, checked as CLI11 reads them: a value outside what its flag
// takes is refused in one line naming the flag, the value and the range, before
// anything runs ("canopy: --timeout '0s': must be at least 1ms"). CLI11's own checks
// say less well: its PositiveNumber names a double's whole range (309 digits), and its
// unit parser reads "-1M" as 18446744073709551615 M.
#pragma once

#include <CLI/CLI.hpp>
#include <cstdint>
#include <limits>
#include <string>

namespace canopy::cli {

// A check's refusal, whole. Thrown past CLI11's own catch (it catches only its
// ValidationError, to put the flag's name in front) to main, which prints it as it is.
class FlagValueError : public CLI::ParseError {
 public:
  explicit FlagValueError(const std::string& message) : CLI::ParseError(message, CLI::ExitCodes::ValidationError) {}
};

inline constexpr int64_t kNoMost = std::numeric_limits<int64_t>::max();
// The kernel's highest pid_max (PID_MAX_LIMIT, 2^22 on 64-bit): no PID is above it.
inline constexpr int64_t kPidMaxLimit = 4'194'304;

// Each adds its check to `option` and returns it, for the chain of add_option. A size
// or duration is handed to CLI11 converted, in bytes or milliseconds.
CLI::Option* take_integer(CLI::Option* option, int64_t least, int64_t most = kNoMost);
CLI::Option* take_number(CLI::Option* option, double least, double most);
CLI::Option* take_size(CLI::Option* option, int64_t least_bytes);
CLI::Option* take_duration(CLI::Option* option, int64_t least_ms);
// A duration, or a whole number of milliseconds (common/units.h, parse_interval_ms).
CLI::Option* take_interval(CLI::Option* option, int64_t least_ms, int64_t most_ms);
CLI::Option* take_ip_address(CLI::Option* option);
// A file to write: "" is refused, where taken as it is it would mean the default; so
// is "-" unless it means standard output (`dash_is_stdout`).
CLI::Option* take_path(CLI::Option* option, bool dash_is_stdout = false);
// A name or a word such as --at's "peak": "" is refused, where taken as it is it would
// read as the flag not given.
CLI::Option* take_text(CLI::Option* option);
// ADDR:PORT, :PORT or PORT (web/listen_address.h), kept as given.
CLI::Option* take_listen_address(CLI::Option* option, bool value_optional = false);

}  // namespace canopy::cli
