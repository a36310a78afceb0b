#include "import/json_array_elements.h"

#include <algorithm>

#include "logs/json_lines.h"

namespace canopy::importers {
namespace {

// One process of a day-long Onlooker run at 10 Hz is about 300 MB of text; past this
// the file is not what we think it is.
constexpr size_t kMaxElementBytes = size_t{1} << 30;

static_assert(simdjson::SIMDJSON_PADDING <= kJsonPieceSlackBytes,
              "simdjson reads past the end of what it parses: the scanner must leave it room");

// The scanner's faults, in words about an array of `expected`.
std::string describe(const JsonStreamFault& fault, const std::string& expected) {
  using Kind = JsonStreamFault::Kind;
  switch (fault.kind) {
    case Kind::kNotTheContainer:
      return "expected " + expected + ", found " + shown_byte(fault.byte) +
             (fault.byte == '{' ? " (an object: a Cutelooker log? that is for canopy log add)" : "");
    case Kind::kNoContainer:
      return "expected " + expected + ", found " + (fault.empty_file ? "an empty file" : "only spaces");
    case Kind::kMissingPiece:
      return std::string("expected an element") + (fault.after_comma ? " after ','" : "") + ", found " +
             shown_byte(fault.byte);
    case Kind::kMissingComma:
      return "expected ',' or ']' after an element, found " + shown_byte(fault.byte);
    case Kind::kAfterEnd:
      return "unexpected " + shown_byte(fault.byte) + " after the array's end";
    case Kind::kNotClosed:
      return "unexpected end of input: the array is not closed";
    case Kind::kPieceTooLong:
      return "one element is longer than 1 GiB";
  }
  return "unexpected JSON";
}

class ElementParser {
 public:
  ElementParser(const ArrayFile& file, const ElementVisitor& visit) : file_(file), visit_(visit) {}

  Status parse(const JsonPiece& element) {
    // The scanner leaves room past the text for simdjson's reads: no copy.
    simdjson::dom::element value;
    if (!element.complete ||
        parser_.parse(element.text.data(), element.text.size(), /*realloc_if_needed=*/false).get(value) !=
            simdjson::SUCCESS) {
      return syntax_error(element);
    }
    return visit_({value, element.index, element.start});
  }

 private:
  // Where and why the element is not JSON, in nlohmann's words.
  Status syntax_error(const JsonPiece& element) const {
    auto error = logs::json_syntax_error(element.text);
    if (!error) {
      // nlohmann took it whole: the file ended right after a complete element.
      TextPosition end = element.start;
      end.advance(element.text);
      return error_at(file_.path, end, "unexpected end of input: the array is not closed");
    }
    TextPosition at = element.start;
    at.advance(element.text.substr(0, std::min(error->byte > 0 ? error->byte - 1 : 0, element.text.size())));
    return error_at(file_.path, at, error->reason);
  }

  const ArrayFile& file_;
  const ElementVisitor& visit_;
  simdjson::dom::parser parser_;
};

}  // namespace

Status for_each_array_element(const ArrayFile& file, const ElementVisitor& visit) {
  ElementParser elements(file, visit);
  JsonStreamFile stream;
  stream.path = file.path;
  stream.container = JsonContainer::kArray;
  stream.max_piece_bytes = kMaxElementBytes;
  stream.describe = [&](const JsonStreamFault& fault) { return describe(fault, file.expected); };
  stream.progress = file.progress;
  return for_each_json_piece(stream, [&](const JsonPiece& element) { return elements.parse(element); });
}

}  // namespace canopy::importers
