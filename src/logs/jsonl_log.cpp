// One JSON object per line, e.g. journald's `journalctl -o json`:
//   {"__REALTIME_TIMESTAMP":"1700000000123456","MESSAGE":"Started foo.service", ...}
// or a structured logger's:
//   {"ts":1700000000.123,"level":"info","msg":"listening","port":8080}
// The time is the first field found of --time-field or kTimeFields; the text is the
// first of --message-field or kMessageFields, else the whole line.
#include <cmath>
#include <span>

#include "common/utf8.h"
#include "logs/json_lines.h"
#include "logs/timestamp.h"

namespace canopy::logs {
namespace {

constexpr const char* kTimeFields[] = {"__REALTIME_TIMESTAMP", "ts", "time", "timestamp", "@timestamp"};
constexpr const char* kMessageFields[] = {"MESSAGE", "message", "msg", "text", "log"};

// A bare number's unit from its size: seconds until the year 5138, then milliseconds,
// microseconds (journald) and nanoseconds (Go's zap with epoch-nanos, OpenTelemetry).
int64_t epoch_number_to_ms(double value) {
  double magnitude = std::fabs(value);
  if (magnitude < 1e11) {
    return static_cast<int64_t>(std::llround(value * 1000.0));
  }
  if (magnitude < 1e14) {
    return static_cast<int64_t>(std::llround(value));
  }
  if (magnitude < 1e17) {
    return static_cast<int64_t>(std::llround(value / 1000.0));
  }
  return static_cast<int64_t>(std::llround(value / 1e6));
}

std::optional<int64_t> time_from_string(std::string_view text, const TimestampContext& context) {
  // A number in a string (journald's microseconds): the same rule as a bare number.
  if (!text.empty() && text.find_first_not_of("0123456789.") == text.npos) {
    std::string copy(text);
    char* end = nullptr;
    double value = std::strtod(copy.c_str(), &end);
    if (end == copy.c_str() + copy.size()) {
      return epoch_number_to_ms(value);
    }
    return std::nullopt;
  }
  auto stamp = parse_leading_timestamp(text, context, TimestampForm::kIso);
  if (!stamp || text.find_first_not_of(" \t", stamp->length) != text.npos) {
    return std::nullopt;
  }
  return stamp->epoch_ms;
}

// journald writes a MESSAGE that is not valid UTF-8 as an array of byte values.
std::optional<std::string> bytes_from_array(simdjson::dom::array array) {
  std::string bytes;
  for (simdjson::dom::element b : array) {
    uint64_t value = 0;
    if (b.get(value) != simdjson::SUCCESS || value > 255) {
      return std::nullopt;
    }
    bytes += static_cast<char>(value);
  }
  return bytes;
}

// The first of `names` the object has.
std::optional<std::pair<std::string_view, simdjson::dom::element>> first_field(
    simdjson::dom::object object, std::span<const char* const> names) {
  for (const char* name : names) {
    simdjson::dom::element element;
    if (object[name].get(element) == simdjson::SUCCESS) {
      return std::pair{std::string_view(name), element};
    }
  }
  return std::nullopt;
}

}  // namespace

Status parse_jsonl_log(const ParseInput& input, const EventSink& sink) {
  TimestampContext context{input.zone, input.reference_ms, std::nullopt};
  std::string text;
  std::string fields_tried;
  for (const char* name : kTimeFields) {
    fields_tried += fields_tried.empty() ? name : std::string(", ") + name;
  }
  const char* time_override[] = {input.time_field.c_str()};
  const char* message_override[] = {input.message_field.c_str()};
  using Names = std::span<const char* const>;
  Names time_names = input.time_field.empty() ? Names(kTimeFields) : Names(time_override);
  Names message_names = input.message_field.empty() ? Names(kMessageFields) : Names(message_override);
  return for_each_json_line(input, [&](const JsonLine& line) -> Status {
    auto time = first_field(line.object, time_names);
    if (!time) {
      return line_error(input, line.line_number,
                        input.time_field.empty()
                            ? "no time field (looked for " + fields_tried + "; name it with --time-field)"
                            : "no \"" + input.time_field + "\" field (--time-field)");
    }
    std::optional<int64_t> t_ms;
    double number = 0;
    std::string_view string;
    if (time->second.get(number) == simdjson::SUCCESS) {
      t_ms = epoch_number_to_ms(number);
    } else if (time->second.get(string) == simdjson::SUCCESS) {
      t_ms = time_from_string(string, context);
    }
    if (!t_ms) {
      return line_error(input, line.line_number,
                        "\"" + std::string(time->first) + "\" is not a time: " + simdjson::minify(time->second) +
                            " (expected epoch seconds, milliseconds, microseconds or an ISO-8601 string)");
    }
    context.previous_ms = t_ms;

    auto message = first_field(line.object, message_names);
    if (!message && !input.message_field.empty()) {
      return line_error(input, line.line_number, "no \"" + input.message_field + "\" field (--message-field)");
    }
    text.clear();
    simdjson::dom::array array;
    std::optional<std::string> bytes;
    if (!message) {
      text = line.raw;  // valid UTF-8: the JSON parser has checked it
    } else if (message->second.get(string) == simdjson::SUCCESS) {
      text = string;
    } else if (message->second.get(array) == simdjson::SUCCESS && (bytes = bytes_from_array(array))) {
      append_sanitized_utf8(text, *bytes);
    } else {
      text = simdjson::minify(message->second);
    }
    return sink(*t_ms, text);
  });
}

}  // namespace canopy::logs
