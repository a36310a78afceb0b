#include "logs/log_format.h"

#include <nlohmann/json.hpp>

#include "common/json_parse.h"
#include "common/text.h"

namespace canopy::logs {
namespace {

struct NamedFormat {
  const char* name;
  LogFormat format;
};
constexpr NamedFormat kFormats[] = {{"cutelooker", LogFormat::kCutelooker},
                                    {"cmake-trace", LogFormat::kCmakeTrace},
                                    {"lines", LogFormat::kLines},
                                    {"jsonl", LogFormat::kJsonl}};

// A Cutelooker log starts `{` then a quoted number.
bool starts_like_cutelooker(std::string_view head) {
  size_t brace = head.find_first_not_of(" \t\r\n");
  size_t quote = head.find_first_not_of(" \t\r\n", brace + 1);
  if (quote == head.npos || head[brace] != '{' || head[quote] != '"') {
    return false;
  }
  size_t digits_end = head.find_first_not_of("0123456789", quote + 1);
  return digits_end != head.npos && digits_end > quote + 1 && head[digits_end] == '"';
}

}  // namespace

std::optional<LogFormat> log_format_from_name(std::string_view name) {
  for (const auto& f : kFormats) {
    if (name == f.name) {
      return f.format;
    }
  }
  return std::nullopt;
}

const char* log_format_name(LogFormat format) {
  for (const auto& f : kFormats) {
    if (format == f.format) {
      return f.name;
    }
  }
  return "?";
}

Result<LogFormat> detect_log_format(const std::string& path, std::string_view head, const TimestampContext& context) {
  if (size_t nul = head.find('\0'); nul != head.npos) {
    return Error{"cannot tell the format of '" + path + "': it looks binary (a NUL byte at offset " +
                 std::to_string(nul) + ")"};
  }
  size_t start = head.find_first_not_of(" \t\r\n");
  if (start != head.npos && head[start] == '{') {
    std::string_view first_line = head.substr(start, head.find('\n', start) - start);
    auto object = json_parse_or_discarded(first_line);
    if (object.is_object()) {
      if (object.contains("version") && object["version"].is_object() && object["version"].contains("major")) {
        return LogFormat::kCmakeTrace;
      }
      // Decided by the first key, so that a bad key further on is reported by the
      // Cutelooker parser, with its line, rather than as a jsonl line without a time.
      return starts_like_cutelooker(head) && object.begin()->is_array() ? LogFormat::kCutelooker
                                                                          : LogFormat::kJsonl;
    }
    if (starts_like_cutelooker(head)) {
      return LogFormat::kCutelooker;
    }
  }
  // Text: a timestamp at the start of any of the first lines (a log may open with a
  // banner).
  std::string_view rest = head;
  for (int lines = 0; lines < 200 && !rest.empty(); ++lines) {
    size_t newline = rest.find('\n');
    if (parse_leading_timestamp(rest.substr(0, newline), context)) {
      return LogFormat::kLines;
    }
    rest = newline == rest.npos ? std::string_view{} : rest.substr(newline + 1);
  }
  return Error{"cannot tell the format of '" + path +
               "': not JSON, and no line in its first 64 KiB starts with a timestamp; name it with --format (" +
               kLogFormatNames + ")"};
}

}  // namespace canopy::logs
