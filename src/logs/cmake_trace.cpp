// CMake's `--trace-format=json-v1` output. The first line is a version object, then
// one object per command, e.g.
//   {"version":{"major":1,"minor":2}}
//   {"args":["demo","CXX"],"cmd":"project","file":"/src/CMakeLists.txt","frame":1,
//    "global_frame":1,"line":2,"line_end":2,"time":1700000000.1234}
// Each command becomes one event, `project(demo CXX)`, preceded by a `file:line` line
// whenever the file changes, as a user would write it by hand.
#include <cmath>

#include "logs/json_lines.h"

namespace canopy::logs {
namespace {

bool needs_quotes(std::string_view arg) {
  return arg.empty() || arg.find_first_of(" \t\r\n\"()#\\") != arg.npos;
}

// CMake's quoted-argument syntax: \" \\ and \n inside double quotes.
void append_argument(std::string& out, std::string_view arg) {
  if (!needs_quotes(arg)) {
    out.append(arg);
    return;
  }
  out += '"';
  for (char c : arg) {
    switch (c) {
      case '"':
        out += "\\\"";
        break;
      case '\\':
        out += "\\\\";
        break;
      case '\n':
        out += "\\n";
        break;
      case '\r':
        out += "\\r";
        break;
      case '\t':
        out += "\\t";
        break;
      default:
        out += c;
    }
  }
  out += '"';
}

Status check_version(const ParseInput& input, const JsonLine& line) {
  simdjson::dom::object version;
  int64_t major = 0;
  if (line.object["version"].get(version) != simdjson::SUCCESS) {
    return line_error(input, line.line_number,
                      "not a CMake json-v1 trace: the first line should be {\"version\":{\"major\":1,...}}");
  }
  if (version["major"].get(major) != simdjson::SUCCESS || major != 1) {
    return line_error(input, line.line_number,
                      "CMake trace format version " + simdjson::minify(version["major"]) + " is not supported (json-v1 is)");
  }
  return Ok{};
}

// The field as T, or an error naming it and what was there instead.
template <typename T>
Result<T> field(const ParseInput& input, const JsonLine& line, const char* name, const char* expected) {
  simdjson::dom::element element;
  if (line.object[name].get(element) != simdjson::SUCCESS) {
    return line_error(input, line.line_number, std::string("no \"") + name + "\" field");
  }
  T value;
  if (element.get(value) != simdjson::SUCCESS) {
    return line_error(input, line.line_number,
                      std::string("\"") + name + "\" should be " + expected + ", found " + json_type_words(element));
  }
  return value;
}

}  // namespace

Status parse_cmake_trace(const ParseInput& input, const EventSink& sink) {
  bool first = true;
  std::string previous_file;
  std::string text;
  return for_each_json_line(input, [&](const JsonLine& line) -> Status {
    if (first) {
      first = false;
      return check_version(input, line);
    }
    auto cmd = field<std::string_view>(input, line, "cmd", "a string");
    auto args = field<simdjson::dom::array>(input, line, "args", "an array");
    auto file = field<std::string_view>(input, line, "file", "a string");
    auto line_no = field<int64_t>(input, line, "line", "a number");
    auto time = field<double>(input, line, "time", "a number");
    for (const Error* error : {cmd ? nullptr : &cmd.error(), args ? nullptr : &args.error(),
                               file ? nullptr : &file.error(), line_no ? nullptr : &line_no.error(),
                               time ? nullptr : &time.error()}) {
      if (error) {
        return *error;
      }
    }
    text.clear();
    if (*file != previous_file) {
      text.append(*file).append(":").append(std::to_string(*line_no)).append("\n");
      previous_file = *file;
    }
    text.append(*cmd);
    text += '(';
    bool first_arg = true;
    for (simdjson::dom::element arg : *args) {
      std::string_view value;
      if (arg.get(value) != simdjson::SUCCESS) {
        return line_error(input, line.line_number, "\"args\" should hold strings, found " + json_type_words(arg));
      }
      if (!first_arg) {
        text += ' ';
      }
      first_arg = false;
      append_argument(text, value);
    }
    text += ')';
    return sink(static_cast<int64_t>(std::llround(*time * 1000.0)), text);
  });
}

}  // namespace canopy::logs
