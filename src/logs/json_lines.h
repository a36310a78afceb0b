// Shared by the line-per-object formats (jsonl, cmake-trace): reads the file line by
// line, parses each non-blank line as one JSON object, and turns the parser's
// complaint into "FILE:LINE:COLUMN: reason".
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <string_view>

#include "logs/log_parser.h"

namespace canopy::logs {

struct JsonLine {
  const nlohmann::json& object;
  std::string_view raw;  // the line's text
  int64_t line_number;   // from 1
};
using JsonLineVisitor = std::function<Status(const JsonLine& line)>;

Status for_each_json_line(const ParseInput& input, const JsonLineVisitor& visit);

// "app.jsonl:12: reason", for the visitors' own complaints.
Error line_error(const ParseInput& input, int64_t line_number, const std::string& reason);

// The reason in one of nlohmann's exception texts, without its "[json.exception...]"
// prefix and position (we print our own).
std::string json_error_reason(const std::exception& e);

// A JSON value's type in words: "a string", "an array", ...
std::string json_type_words(const nlohmann::json& value);

}  // namespace canopy::logs
