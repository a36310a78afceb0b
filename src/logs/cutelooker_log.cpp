// The Cutelooker/Onlooker log: one JSON object whose keys are milliseconds since the
// epoch (UTC) and whose values are the messages logged then:
//   {"1643811426000": ["first message", "second message"], "1643811426250": ["third"]}
// One object, possibly gigabytes long: a small scanner cuts it into its members
// (tracking strings and nesting, nothing else) and each member is parsed on its own
// with simdjson, so memory stays bounded by the largest member. A member simdjson
// rejects is parsed again with nlohmann::json only to say where and why.
#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <string_view>
#include <nlohmann/json.hpp>

#include "common/scoped_resource.h"
#include "common/text.h"
#include "logs/json_lines.h"

namespace canopy::logs {
namespace {

constexpr size_t kMaxMemberBytes = 64 << 20;
constexpr const char* kExpected = "expected an object of {\"milliseconds\": [messages]}";

struct Position {
  int64_t line = 1;
  int64_t column = 1;

  void advance(char c) {
    if (c == '\n') {
      ++line;
      column = 1;
    } else {
      ++column;
    }
  }
  void advance(std::string_view bytes) {
    const char* rest = bytes.data();
    const char* end = rest + bytes.size();
    while (const char* newline = static_cast<const char*>(std::memchr(rest, '\n', static_cast<size_t>(end - rest)))) {
      ++line;
      column = 1;
      rest = newline + 1;
    }
    column += end - rest;
  }
};

// The bytes at the start of `text` that are plain string content: before the next '"'
// or '\\'. Messages are most of a log's bytes; memchr skips them far faster than the
// byte-at-a-time state machine.
size_t plain_string_run(std::string_view text) {
  const void* quote = std::memchr(text.data(), '"', text.size());
  size_t until = quote ? static_cast<size_t>(static_cast<const char*>(quote) - text.data()) : text.size();
  const void* backslash = std::memchr(text.data(), '\\', until);
  return backslash ? static_cast<size_t>(static_cast<const char*>(backslash) - text.data()) : until;
}

class MemberParser {
 public:
  MemberParser(const ParseInput& input, const EventSink& sink) : input_(input), sink_(sink) {}

  Error error_at(const Position& at, const std::string& reason) const {
    return Error{input_.path + ":" + std::to_string(at.line) + ":" + std::to_string(at.column) + ": " + reason};
  }

  // `member` is `"KEY": [...]` as it appeared in the file, starting at `start`;
  // not `closed` when the file ended inside it.
  Status parse(std::string_view member, const Position& start, bool closed = true) {
    wrapped_.assign("{");
    wrapped_.append(member);
    wrapped_.append(closed ? "}" : "");
    simdjson::dom::object object;
    if (parser_.parse(wrapped_).get(object) != simdjson::SUCCESS) {
      return syntax_error(member, start);
    }
    for (auto [key, value] : object) {
      auto ms = parse_int<int64_t>(key);
      if (!ms) {
        return error_at(start, "key \"" + std::string(key) + "\" is not a time (milliseconds since the epoch)");
      }
      simdjson::dom::array messages;
      if (value.get(messages) != simdjson::SUCCESS) {
        return error_at(start, "the value of \"" + std::string(key) + "\" should be an array of strings, found " +
                                   json_type_words(value));
      }
      for (simdjson::dom::element message : messages) {
        std::string_view text;
        if (message.get(text) != simdjson::SUCCESS) {
          return error_at(start, "messages of \"" + std::string(key) + "\" should be strings, found " +
                                     json_type_words(message));
        }
        if (auto status = sink_(*ms, text); !status) {
          return status;
        }
      }
    }
    return Ok{};
  }

 private:
  // nlohmann's reason and position, moved from the wrapped text back into the file.
  Error syntax_error(std::string_view member, const Position& start) const {
    try {
      nlohmann::json ignored = nlohmann::json::parse(wrapped_);
    } catch (const nlohmann::json::parse_error& e) {
      Position at = start;
      // e.byte is 1-based and counts our '{'. An error found only in our closing '}'
      // (an unclosed string, say) is reported at the member's last byte, as the file ends.
      size_t offset = e.byte > 1 ? e.byte - 2 : 0;
      offset = std::min(offset, member.empty() ? 0 : member.size() - 1);
      for (size_t i = 0; i < offset && i < member.size(); ++i) {
        at.advance(member[i]);
      }
      return error_at(at, json_error_reason(e));
    }
    return error_at(start, "not valid JSON");
  }

  const ParseInput& input_;
  const EventSink& sink_;
  simdjson::dom::parser parser_;
  std::string wrapped_;
};

}  // namespace

Status parse_cutelooker_log(const ParseInput& input, const EventSink& sink) {
  ScopedFd fd(::open(input.path.c_str(), O_RDONLY | O_CLOEXEC));
  if (!fd) {
    return Error{"cannot read '" + input.path + "': " + std::strerror(errno)};
  }
  MemberParser members(input, sink);
  enum class State { kBeforeObject, kBetweenMembers, kInMember, kAfterObject } state = State::kBeforeObject;
  bool after_comma = false;
  int depth = 0;  // of [ and { inside the member
  bool in_string = false;
  bool escaped = false;
  Position position;
  Position member_start;
  std::string member;
  std::vector<char> buffer(1 << 20);
  int64_t bytes_done = 0;
  for (;;) {
    ssize_t n;
    while ((n = ::read(fd.get(), buffer.data(), buffer.size())) < 0 && errno == EINTR) {
    }
    if (n < 0) {
      return Error{"cannot read '" + input.path + "': " + std::strerror(errno)};
    }
    if (n == 0) {
      break;
    }
    for (size_t i = 0; i < static_cast<size_t>(n);) {
      if (state == State::kInMember && in_string && !escaped) {
        std::string_view run(buffer.data() + i, plain_string_run({buffer.data() + i, static_cast<size_t>(n) - i}));
        if (!run.empty()) {
          member.append(run);
          if (member.size() > kMaxMemberBytes) {
            return members.error_at(member_start, "one member is longer than 64 MiB");
          }
          position.advance(run);
          i += run.size();
          continue;
        }
      }
      char c = buffer[i];
      bool space = c == ' ' || c == '\n' || c == '\r' || c == '\t';
      switch (state) {
        case State::kBeforeObject:
          if (c == '{') {
            state = State::kBetweenMembers;
          } else if (!space) {
            return members.error_at(position, std::string(kExpected) + ", found '" + c + "'");
          }
          break;
        case State::kBetweenMembers:
          if (c == '}' && after_comma) {
            return members.error_at(position, "expected a \"milliseconds\": [messages] member after ',', found '}'");
          }
          if (c == '}') {
            state = State::kAfterObject;
          } else if (!space) {
            state = State::kInMember;
            member_start = position;
            member.clear();
            depth = 0;
            in_string = false;
            escaped = false;
            continue;  // this byte starts the member: read it again in that state
          }
          break;
        case State::kInMember:
          if (in_string) {
            in_string = escaped || c != '"';
            escaped = !escaped && c == '\\';
          } else if (c == '"') {
            in_string = true;
          } else if (c == '[' || c == '{') {
            ++depth;
          } else if ((c == ']' || c == '}') && depth > 0) {
            --depth;
          } else if (depth == 0 && (c == ',' || c == '}')) {
            if (auto status = members.parse(member, member_start); !status) {
              return status;
            }
            state = c == '}' ? State::kAfterObject : State::kBetweenMembers;
            after_comma = c == ',';
            break;
          }
          member.push_back(c);
          if (member.size() > kMaxMemberBytes) {
            return members.error_at(member_start, "one member is longer than 64 MiB");
          }
          break;
        case State::kAfterObject:
          if (!space) {
            return members.error_at(position, std::string("unexpected '") + c + "' after the log's object");
          }
          break;
      }
      position.advance(c);
      ++i;
    }
    bytes_done += n;
    if (input.progress) {
      input.progress(bytes_done, -1);
    }
  }
  if (state == State::kInMember && !member.empty()) {
    // Cut off inside a member: let the member parser say where its JSON ends.
    if (auto status = members.parse(member, member_start, /*closed=*/false); !status) {
      return status;
    }
  }
  if (state != State::kAfterObject) {
    return members.error_at(position, state == State::kBeforeObject
                                          ? std::string(kExpected) + ", found nothing"
                                          : "unexpected end of input: the log's object is not closed");
  }
  return Ok{};
}

}  // namespace canopy::logs
