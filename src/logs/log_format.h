// The log formats `canopy log add` reads, and telling them apart from a file's start.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "common/result.h"
#include "logs/timestamp.h"

namespace canopy::logs {

enum class LogFormat { kCutelooker, kCmakeTrace, kLines, kJsonl };

inline constexpr const char* kLogFormatNames = "cutelooker, cmake-trace, lines, jsonl";
std::optional<LogFormat> log_format_from_name(std::string_view name);
const char* log_format_name(LogFormat format);

// From the file's first bytes (`head`, up to 64 KiB): a JSON object whose first key
// is a number of milliseconds, with an array value, is a Cutelooker log; a first line {"version":{"major":...}} is a
// CMake trace; other one-line objects are jsonl; text with a timestamp at the start of
// a line is `lines`. Otherwise an error that says what was seen.
Result<LogFormat> detect_log_format(const std::string& path, std::string_view head, const TimestampContext& context);

}  // namespace canopy::logs
