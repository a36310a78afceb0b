// The Cutelooker/Onlooker log: one JSON object whose keys are milliseconds since the
// epoch (UTC) and whose values are the messages logged then:
//   {"1643811426000": ["first message", "second message"], "1643811426250": ["third"]}
// One object, possibly gigabytes long: the streaming scanner of common/json_stream.h
// cuts it into its members and each member is parsed on its own with simdjson, so
// memory stays bounded by the largest member. A member simdjson rejects is parsed
// again with nlohmann::json only to say where and why.
#include <algorithm>
#include <string_view>

#include "common/json_stream.h"
#include "common/text.h"
#include "logs/json_lines.h"

namespace canopy::logs {
namespace {

constexpr size_t kMaxMemberBytes = 64 << 20;

// For the scanner's errors: "expected an object of {\"milliseconds\": [messages]}, found 'x'".
const JsonStreamWords kLogWords{.expected = "an object of {\"milliseconds\": [messages]}",
                                .if_other_container = "",
                                .piece = "a \"milliseconds\": [messages] member",
                                .container = "the log's object",
                                .after_end = "the log's object",
                                .too_long = "one member is longer than 64 MiB"};
class MemberParser {
 public:
  MemberParser(const ParseInput& input, const EventSink& sink) : input_(input), sink_(sink) {}

  // `member` is `"KEY": [...]` as it appeared in the file; not complete when the file
  // ended inside it.
  Status parse(const JsonPiece& member) {
    wrapped_.assign("{");
    wrapped_.append(member.text);
    wrapped_.append(member.complete ? "}" : "");
    simdjson::dom::object object;
    if (parser_.parse(wrapped_).get(object) != simdjson::SUCCESS) {
      return syntax_error(member);
    }
    for (auto [key, value] : object) {
      auto ms = parse_int<int64_t>(key);
      if (!ms) {
        return fail(member, "key \"" + std::string(key) + "\" is not a time (milliseconds since the epoch)");
      }
      simdjson::dom::array messages;
      if (value.get(messages) != simdjson::SUCCESS) {
        return fail(member, "the value of \"" + std::string(key) + "\" should be an array of strings, found " +
                                json_type_words(value));
      }
      for (simdjson::dom::element message : messages) {
        std::string_view text;
        if (message.get(text) != simdjson::SUCCESS) {
          return fail(member, "messages of \"" + std::string(key) + "\" should be strings, found " +
                                  json_type_words(message));
        }
        RETURN_IF_ERROR(sink_(*ms, text));
      }
    }
    return Ok{};
  }

 private:
  Error fail(const JsonPiece& member, const std::string& reason) const {
    return error_at(input_.path, member.start, reason);
  }

  // nlohmann's reason and position, moved from the wrapped text back into the file.
  Error syntax_error(const JsonPiece& member) const {
    auto error = json_syntax_error(wrapped_);
    if (!error) {
      return fail(member, "not valid JSON");
    }
    // The byte is 1-based and counts our '{'. An error found only in our closing '}'
    // (an unclosed string, say) is reported at the member's last byte, as the file ends.
    size_t offset = error->byte > 1 ? error->byte - 2 : 0;
    offset = std::min(offset, member.text.empty() ? 0 : member.text.size() - 1);
    TextPosition at = member.start;
    at.advance(member.text.substr(0, offset));
    return error_at(input_.path, at, error->reason);
  }

  const ParseInput& input_;
  const EventSink& sink_;
  simdjson::dom::parser parser_;
  std::string wrapped_;
};

}  // namespace

Status parse_cutelooker_log(const ParseInput& input, const EventSink& sink) {
  MemberParser members(input, sink);
  JsonStreamFile log{.path = input.path,
                     .container = JsonContainer::kObject,
                     .max_piece_bytes = kMaxMemberBytes,
                     .words = kLogWords,
                     .progress = input.progress};
  return for_each_json_piece(log, [&](const JsonPiece& member) { return members.parse(member); });
}

}  // namespace canopy::logs
