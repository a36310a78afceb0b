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
constexpr const char* kExpected = "expected an object of {\"milliseconds\": [messages]}";
constexpr const char* kMember = "a \"milliseconds\": [messages] member";

// The scanner's faults, in words about a log.
std::string describe(const JsonStreamFault& fault) {
  using Kind = JsonStreamFault::Kind;
  switch (fault.kind) {
    case Kind::kNotTheContainer:
      return std::string(kExpected) + ", found " + shown_byte(fault.byte);
    case Kind::kNoContainer:
      return std::string(kExpected) + ", found nothing";
    case Kind::kMissingPiece:
      return "expected " + std::string(kMember) + (fault.after_comma ? " after ','" : "") + ", found " +
             shown_byte(fault.byte);
    case Kind::kMissingComma:  // a member ends only at ',' or '}': not met
      return "expected ',' or '}' after " + std::string(kMember) + ", found " + shown_byte(fault.byte);
    case Kind::kAfterEnd:
      return "unexpected " + shown_byte(fault.byte) + " after the log's object";
    case Kind::kNotClosed:
      return "unexpected end of input: the log's object is not closed";
    case Kind::kPieceTooLong:
      return "one member is longer than 64 MiB";
  }
  return "unexpected JSON";
}

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
  JsonStreamFile log;
  log.path = input.path;
  log.container = JsonContainer::kObject;
  log.max_piece_bytes = kMaxMemberBytes;
  log.describe = describe;
  log.progress = input.progress;
  return for_each_json_piece(log, [&](const JsonPiece& member) { return members.parse(member); });
}

}  // namespace canopy::logs
