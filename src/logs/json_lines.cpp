#include "logs/json_lines.h"

#include <nlohmann/json.hpp>

#include "logs/line_reader.h"

namespace canopy::logs {
namespace {

// Only where and why the text is not JSON.
struct ErrorOnlySax : nlohmann::json_sax<nlohmann::json> {
  bool null() override { return true; }
  bool boolean(bool) override { return true; }
  bool number_integer(number_integer_t) override { return true; }
  bool number_unsigned(number_unsigned_t) override { return true; }
  bool number_float(number_float_t, const string_t&) override { return true; }
  bool string(string_t&) override { return true; }
  bool binary(binary_t&) override { return true; }
  bool start_object(std::size_t) override { return true; }
  bool key(string_t&) override { return true; }
  bool end_object() override { return true; }
  bool start_array(std::size_t) override { return true; }
  bool end_array() override { return true; }
  bool parse_error(std::size_t position, const std::string&, const nlohmann::detail::exception& e) override {
    error = JsonSyntaxError{position, json_error_reason(e)};
    return false;
  }
  std::optional<JsonSyntaxError> error;
};

}  // namespace

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

std::optional<JsonSyntaxError> json_syntax_error(std::string_view text) {
  ErrorOnlySax sax;
  nlohmann::json::sax_parse(text, &sax);
  return sax.error;
}

std::string json_type_words(simdjson::dom::element value) {
  switch (value.type()) {
    case simdjson::dom::element_type::NULL_VALUE:
      return "null";
    case simdjson::dom::element_type::OBJECT:
      return "an object";
    case simdjson::dom::element_type::ARRAY:
      return "an array";
    case simdjson::dom::element_type::STRING:
      return "a string";
    case simdjson::dom::element_type::BOOL:
      return "a boolean";
    default:
      return "a number";
  }
}

namespace {

// Why simdjson rejected the line, in nlohmann's words and with its column.
Error syntax_error(const ParseInput& input, int64_t line_number, std::string_view line, simdjson::error_code code) {
  std::string prefix = input.path + ":" + std::to_string(line_number) + ":";
  if (auto error = json_syntax_error(line)) {
    // The 1-based offset in the line where parsing failed is the column.
    return Error{prefix + std::to_string(error->byte) + ": " + error->reason};
  }
  return Error{prefix + " " + simdjson::error_message(code)};
}

}  // namespace

Status for_each_json_line(const ParseInput& input, const JsonLineVisitor& visit) {
  ASSIGN_OR_RETURN(auto reader, LineReader::open(input.path));
  simdjson::dom::parser parser;
  std::string_view line;
  while (reader.next(line)) {
    if (line.find_first_not_of(" \t") == line.npos) {
      continue;
    }
    simdjson::dom::element element;
    if (auto code = parser.parse(line.data(), line.size()).get(element); code != simdjson::SUCCESS) {
      return syntax_error(input, reader.line_number(), line, code);
    }
    simdjson::dom::object object;
    if (element.get(object) != simdjson::SUCCESS) {
      return line_error(input, reader.line_number(), "expected a JSON object, found " + json_type_words(element));
    }
    if (auto status = visit({object, line, reader.line_number()}); !status) {
      return status;
    }
    if (input.progress && (reader.line_number() & 0x3FFF) == 0) {
      input.progress(reader.bytes_consumed(), reader.file_size_bytes());
    }
  }
  if (reader.error()) {
    return *reader.error();
  }
  return Ok{};
}

}  // namespace canopy::logs
