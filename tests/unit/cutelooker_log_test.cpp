#include <gtest/gtest.h>

#include <fstream>
#include <utility>
#include <vector>

#include "logs/log_parser.h"
#include "support/temp_dir.h"

namespace canopy::logs {
namespace {

struct Parsed {
  std::vector<std::pair<int64_t, std::string>> events;
  std::string error;  // empty when the parse succeeded
  int64_t bytes_total = 0;
};

class CutelookerLog : public ::testing::Test {
 protected:
  Parsed parse(const std::string& content) {
    std::ofstream(path_, std::ios::binary | std::ios::trunc) << content;
    Parsed parsed;
    ParseInput input;
    input.path = path_;
    input.progress = [&](int64_t, int64_t bytes_total) { parsed.bytes_total = bytes_total; };
    auto status = parse_cutelooker_log(input, [&](int64_t t_ms, std::string_view text) -> Status {
      parsed.events.emplace_back(t_ms, std::string(text));
      return Ok{};
    });
    if (!status) {
      parsed.error = status.error().message;
    }
    return parsed;
  }

  testing::TempDir dir_;
  const std::string path_ = dir_.file("log.json");
};

using Events = std::vector<std::pair<int64_t, std::string>>;

TEST_F(CutelookerLog, MembersAcrossLinesWithEscapes) {
  Parsed parsed = parse("{\"1000\": [\"a \\\"quoted\\\" }, ]\"],\n \"2000\" : [\"b\", \"c\"]\n}\n");
  EXPECT_EQ(parsed.error, "");
  EXPECT_EQ(parsed.events, (Events{{1000, "a \"quoted\" }, ]"}, {2000, "b"}, {2000, "c"}}));
}

TEST_F(CutelookerLog, AMissingMemberIsAnError) {
  // Once taken for an empty member and passed over.
  EXPECT_EQ(parse("{,\"1000\": [\"a\"]}").error,
            path_ + ":1:2: expected a \"milliseconds\": [messages] member, found ','");
  EXPECT_EQ(parse("{\"1000\": [\"a\"],\n,\"2000\": [\"b\"]}").error,
            path_ + ":2:1: expected a \"milliseconds\": [messages] member after ',', found ','");
  EXPECT_EQ(parse("{\"1000\": [\"a\"],}").error,
            path_ + ":1:16: expected a \"milliseconds\": [messages] member after ',', found '}'");
}

TEST_F(CutelookerLog, AByteOrderMarkIsNotPartOfTheLog) {
  Parsed parsed = parse("\xEF\xBB\xBF{\"1000\": [\"a\"]}");
  EXPECT_EQ(parsed.error, "");
  EXPECT_EQ(parsed.events, (Events{{1000, "a"}}));
}

TEST_F(CutelookerLog, AnUnprintableByteIsShownByItsValue) {
  EXPECT_EQ(parse("\x89PNG").error,
            path_ + ":1:1: expected an object of {\"milliseconds\": [messages]}, found byte 0x89");
  EXPECT_EQ(parse("{}\x01").error, path_ + ":1:3: unexpected byte 0x01 after the log's object");
}

TEST_F(CutelookerLog, ProgressKnowsTheFileSize) {
  std::string content = "{\"1000\": [\"a\"]}\n";
  EXPECT_EQ(parse(content).bytes_total, static_cast<int64_t>(content.size()));
}

}  // namespace
}  // namespace canopy::logs
