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

bool needs_quotes(const std::string& arg) {
  return arg.empty() || arg.find_first_of(" \t\r\n\"()#\\") != arg.npos;
}

// CMake's quoted-argument syntax: \" \\ and \n inside double quotes.
void append_argument(std::string& out, const std::string& arg) {
  if (!needs_quotes(arg)) {
    out += arg;
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
  auto version = line.object.find("version");
  if (version == line.object.end() || !version->is_object() || !version->contains("major")) {
    return line_error(input, line.line_number,
                      "not a CMake json-v1 trace: the first line should be {\"version\":{\"major\":1,...}}");
  }
  const auto& major = (*version)["major"];
  if (!major.is_number_integer() || major.get<int64_t>() != 1) {
    return line_error(input, line.line_number, "CMake trace format version " + major.dump() + " is not supported (json-v1 is)");
  }
  return Ok{};
}

// The field, or an error naming it and what was there instead.
template <typename Check>
Result<const nlohmann::json*> field(const ParseInput& input, const JsonLine& line, const char* name,
                                    const char* expected, Check is_expected) {
  auto it = line.object.find(name);
  if (it == line.object.end()) {
    return line_error(input, line.line_number, std::string("no \"") + name + "\" field");
  }
  if (!is_expected(*it)) {
    return line_error(input, line.line_number,
                      std::string("\"") + name + "\" should be " + expected + ", found " + json_type_words(*it));
  }
  return &*it;
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
    auto cmd = field(input, line, "cmd", "a string", [](const auto& v) { return v.is_string(); });
    auto args = field(input, line, "args", "an array", [](const auto& v) { return v.is_array(); });
    auto file = field(input, line, "file", "a string", [](const auto& v) { return v.is_string(); });
    auto line_no = field(input, line, "line", "a number", [](const auto& v) { return v.is_number_integer(); });
    auto time = field(input, line, "time", "a number", [](const auto& v) { return v.is_number(); });
    for (const Error* error : {cmd ? nullptr : &cmd.error(), args ? nullptr : &args.error(),
                               file ? nullptr : &file.error(), line_no ? nullptr : &line_no.error(),
                               time ? nullptr : &time.error()}) {
      if (error) {
        return *error;
      }
    }
    text.clear();
    const auto& file_name = (*file)->get_ref<const std::string&>();
    if (file_name != previous_file) {
      text += file_name + ":" + std::to_string((*line_no)->get<int64_t>()) + "\n";
      previous_file = file_name;
    }
    text += (*cmd)->get_ref<const std::string&>();
    text += '(';
    bool first_arg = true;
    for (const auto& arg : **args) {
      if (!arg.is_string()) {
        return line_error(input, line.line_number, "\"args\" should hold strings, found " + json_type_words(arg));
      }
      if (!first_arg) {
        text += ' ';
      }
      first_arg = false;
      append_argument(text, arg.get_ref<const std::string&>());
    }
    text += ')';
    double seconds = (*time)->get<double>();
    return sink(static_cast<int64_t>(std::llround(seconds * 1000.0)), text);
  });
}

}  // namespace canopy::logs
