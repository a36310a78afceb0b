#include "logs/json_lines.h"

#include "logs/line_reader.h"

namespace canopy::logs {

Error line_error(const ParseInput& input, int64_t line_number, const std::string& reason) {
  return Error{input.path + ":" + std::to_string(line_number) + ": " + reason};
}

std::string json_error_reason(const std::exception& e) {
  // "[json.exception.parse_error.101] parse error at line 1, column 5: syntax error
  // while parsing value - invalid literal; last read: 'x'"
  std::string_view what = e.what();
  if (size_t bracket = what.find("] "); what.starts_with("[json.exception") && bracket != what.npos) {
    what.remove_prefix(bracket + 2);
  }
  if (what.starts_with("parse error at line")) {
    if (size_t colon = what.find(": "); colon != what.npos) {
      what.remove_prefix(colon + 2);
    }
  }
  return std::string(what);
}

std::string json_type_words(const nlohmann::json& value) {
  switch (value.type()) {
    case nlohmann::json::value_t::null:
      return "null";
    case nlohmann::json::value_t::object:
      return "an object";
    case nlohmann::json::value_t::array:
      return "an array";
    case nlohmann::json::value_t::string:
      return "a string";
    case nlohmann::json::value_t::boolean:
      return "a boolean";
    default:
      return "a number";
  }
}

Status for_each_json_line(const ParseInput& input, const JsonLineVisitor& visit) {
  auto reader = LineReader::open(input.path);
  if (!reader) {
    return reader.error();
  }
  std::string_view line;
  nlohmann::json object;
  while (reader->next(line)) {
    if (line.find_first_not_of(" \t") == line.npos) {
      continue;
    }
    try {
      object = nlohmann::json::parse(line);
    } catch (const nlohmann::json::parse_error& e) {
      // e.byte is the 1-based offset in the line where parsing failed: the column.
      return Error{input.path + ":" + std::to_string(reader->line_number()) + ":" + std::to_string(e.byte) + ": " +
                   json_error_reason(e)};
    }
    if (!object.is_object()) {
      return line_error(input, reader->line_number(), "expected a JSON object, found " + json_type_words(object));
    }
    if (auto status = visit({object, line, reader->line_number()}); !status) {
      return status;
    }
    if (input.progress && (reader->line_number() & 0x3FFF) == 0) {
      input.progress(reader->bytes_consumed(), reader->file_size_bytes());
    }
  }
  if (reader->error()) {
    return *reader->error();
  }
  return Ok{};
}

}  // namespace canopy::logs
