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

// Where and why an element simdjson rejected is not JSON, in nlohmann's words.
Error syntax_error(const std::string& path, const JsonPiece& element) {
  auto error = logs::json_syntax_error(element.text);
  if (!error) {
    // nlohmann took it whole: the file ended right after a complete element.
    TextPosition end = element.start;
    end.advance(element.text);
    return error_at(path, end, "unexpected end of input: the array is not closed");
  }
  TextPosition at = element.start;
  at.advance(element.text.substr(0, std::min(error->byte > 0 ? error->byte - 1 : 0, element.text.size())));
  return error_at(path, at, error->reason);
}

}  // namespace

Status for_each_array_element(const ArrayFile& file, const ElementVisitor& visit) {
  JsonStreamFile stream{.path = file.path,
                        .container = JsonContainer::kArray,
                        .max_piece_bytes = kMaxElementBytes,
                        .words = {.expected = file.expected,
                                  .if_other_container = " (an object: a Cutelooker log? that is for canopy log add)",
                                  .piece = "an element",
                                  .container = "the array",
                                  .after_end = "the array's end",
                                  .too_long = "one element is longer than 1 GiB"},
                        .progress = file.progress};
  simdjson::dom::parser parser;
  return for_each_json_piece(stream, [&](const JsonPiece& element) -> Status {
    // The scanner leaves room past the text for simdjson's reads: no copy.
    simdjson::dom::element value;
    if (!element.complete || parser.parse(element.text.data(), element.text.size(), /*realloc_if_needed=*/false)
                                     .get(value) != simdjson::SUCCESS) {
      return syntax_error(file.path, element);
    }
    return visit({value, element.index, element.start});
  });
}

}  // namespace canopy::importers
