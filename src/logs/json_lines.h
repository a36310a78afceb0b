// Shared by the line-per-object formats (jsonl, cmake-trace): reads the file line by
// line and parses each non-blank line as one JSON object with simdjson (a DOM parse
// validates the whole line, at GB/s). A line simdjson rejects is parsed again with
// nlohmann::json only to say where and why: "FILE:LINE:COLUMN: reason".
#pragma once

#include <simdjson.h>

#include <optional>
#include <string>
#include <string_view>

#include "logs/log_parser.h"

namespace canopy::logs {

struct JsonLine {
  simdjson::dom::object object;  // valid until the visitor returns
  std::string_view raw;          // the line's text
  int64_t line_number;           // from 1
};
using JsonLineVisitor = std::function<Status(const JsonLine& line)>;

Status for_each_json_line(const ParseInput& input, const JsonLineVisitor& visit);

// "app.jsonl:12: reason", for the visitors' own complaints.
Error line_error(const ParseInput& input, int64_t line_number, const std::string& reason);

// Where and why nlohmann::json rejects `text`, or nullopt when it takes it: simdjson
// says only that a text is wrong. Found with nlohmann's SAX parser keeping nothing, as
// a DOM of a large text would cost gigabytes just to find its error.
struct JsonSyntaxError {
  size_t byte;  // where parsing stopped, from 1, as nlohmann counts
  std::string reason;
};
std::optional<JsonSyntaxError> json_syntax_error(std::string_view text);

// The reason in one of nlohmann's exception texts, without its "[json.exception...]"
// prefix and position (we print our own).
std::string json_error_reason(const std::exception& e);

// A JSON value's type in words: "a string", "an array", ...
std::string json_type_words(simdjson::dom::element value);

}  // namespace canopy::logs
