#include "record/output_lines.h"

#include <gtest/gtest.h>

#include <vector>

namespace canopy::record {
namespace {

struct Line {
  int64_t t_ms;
  std::string text;
  bool operator==(const Line&) const = default;
};

std::ostream& operator<<(std::ostream& os, const Line& line) { return os << line.t_ms << ":" << line.text; }

TEST(OutputLines, LinesKeepTheTimeOfTheirFirstByte) {
  std::vector<Line> lines;
  OutputLines splitter([&](int64_t t, const std::string& text) { lines.push_back({t, text}); });
  splitter.feed("first\nsec", 100);
  splitter.feed("ond\nthird", 250);
  splitter.feed(" part\n\n", 400);
  splitter.feed("no newline at exit", 500);
  splitter.flush();
  EXPECT_EQ(lines, (std::vector<Line>{
                       {100, "first"}, {100, "second"}, {250, "third part"}, {400, ""}, {500, "no newline at exit"}}));
}

TEST(OutputLines, WhatATerminalWouldShow) {
  EXPECT_EQ(displayed_text("crlf\r"), "crlf");
  EXPECT_EQ(displayed_text("downloading 10%\rdownloading 55%\rdownloading 100%"), "downloading 100%");
  EXPECT_EQ(displayed_text("\033[1;31merror:\033[0m bad"), "error: bad");
  EXPECT_EQ(displayed_text("\033]0;window title\007prompt"), "prompt");
  EXPECT_EQ(displayed_text("caf\xE9 latin-1"), "caf\xEF\xBF\xBD latin-1");
}

TEST(OutputLines, OutputWithoutNewlinesIsCut) {
  std::vector<Line> lines;
  OutputLines splitter([&](int64_t t, const std::string& text) { lines.push_back({t, text}); });
  std::string blob(OutputLines::kMaxLineBytes * 2 + 10, 'x');
  splitter.feed(blob, 7);
  splitter.flush();
  ASSERT_EQ(lines.size(), 3u);
  EXPECT_EQ(lines[0].text.size(), OutputLines::kMaxLineBytes);
  EXPECT_EQ(lines[2].text.size(), 10u);
}

}  // namespace
}  // namespace canopy::record
