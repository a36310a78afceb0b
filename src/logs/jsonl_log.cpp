// One JSON object per line, e.g. journald's `journalctl -o json`:
//   {"__REALTIME_TIMESTAMP":"1700000000123456","MESSAGE":"Started foo.service", ...}
// or a structured logger's:
//   {"ts":1700000000.123,"level":"info","msg":"listening","port":8080}
// The time is the first field found of --time-field or kTimeFields; the text is the
// first of --message-field or kMessageFields, else the whole line.
#include <cmath>

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

std::optional<int64_t> time_from_string(const std::string& text, const TimestampContext& context) {
  // A number in a string (journald's microseconds): the same rule as a bare number.
  if (!text.empty() && text.find_first_not_of("0123456789.") == text.npos) {
    char* end = nullptr;
    double value = std::strtod(text.c_str(), &end);
    if (end == text.c_str() + text.size()) {
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
std::optional<std::string> bytes_from_array(const nlohmann::json& array) {
  std::string bytes;
  for (const auto& b : array) {
    if (!b.is_number_unsigned() || b.get<uint64_t>() > 255) {
      return std::nullopt;
    }
    bytes += static_cast<char>(b.get<uint64_t>());
  }
  return bytes;
}

}  // namespace

Status parse_jsonl_log(const ParseInput& input, const EventSink& sink) {
  TimestampContext context{input.zone, input.reference_ms, std::nullopt};
  std::string text;
  std::string fields_tried;
  for (const char* name : kTimeFields) {
    fields_tried += fields_tried.empty() ? name : std::string(", ") + name;
  }
  return for_each_json_line(input, [&](const JsonLine& line) -> Status {
    const nlohmann::json& object = line.object;
    nlohmann::json::const_iterator time = object.end();
    if (!input.time_field.empty()) {
      time = object.find(input.time_field);
      if (time == object.end()) {
        return line_error(input, line.line_number, "no \"" + input.time_field + "\" field (--time-field)");
      }
    } else {
      for (const char* name : kTimeFields) {
        if ((time = object.find(name)) != object.end()) {
          break;
        }
      }
      if (time == object.end()) {
        return line_error(input, line.line_number, "no time field (looked for " + fields_tried + "; name it with --time-field)");
      }
    }
    std::optional<int64_t> t_ms;
    if (time->is_number()) {
      t_ms = epoch_number_to_ms(time->get<double>());
    } else if (time->is_string()) {
      t_ms = time_from_string(time->get_ref<const std::string&>(), context);
    }
    if (!t_ms) {
      return line_error(input, line.line_number,
                        "\"" + time.key() + "\" is not a time: " + time->dump() +
                            " (expected epoch seconds, milliseconds, microseconds or an ISO-8601 string)");
    }
    context.previous_ms = t_ms;

    nlohmann::json::const_iterator message = object.end();
    if (!input.message_field.empty()) {
      message = object.find(input.message_field);
      if (message == object.end()) {
        return line_error(input, line.line_number, "no \"" + input.message_field + "\" field (--message-field)");
      }
    } else {
      for (const char* name : kMessageFields) {
        if ((message = object.find(name)) != object.end()) {
          break;
        }
      }
    }
    text.clear();
    if (message == object.end()) {
      text = line.raw;  // valid UTF-8: the JSON parser has checked it
    } else if (message->is_string()) {
      text = message->get_ref<const std::string&>();
    } else if (auto bytes = message->is_array() ? bytes_from_array(*message) : std::nullopt) {
      append_sanitized_utf8(text, *bytes);
    } else {
      text = message->dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
    }
    return sink(*t_ms, text);
  });
}

}  // namespace canopy::logs
