// Process names, executables and command lines are whatever bytes a program chose:
// invalid UTF-8, terminal escape sequences, newlines. canopy records them as they are,
// serves them as valid JSON, and never lets them reach a terminal raw.
#include <gtest/gtest.h>
#include <httplib.h>

#include <algorithm>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <regex>
#include <sstream>

#include "integration/harness.h"

namespace canopy::testing {
namespace {

using nlohmann::json;

// Executables named with the bytes that broke canopy: the kernel takes a process's name
// (comm) from the file it executes, so these names are in the recording from the exec.
const std::string kBadUtf8 = "bad\xff\xfe";
const std::string kEscapes = "\x1b[2J\x1b]0;pwn\x07";
const std::string kNewline = "two\nlines";
// How canopy shows them on a terminal.
const std::string kBadUtf8Shown = R"(bad\xff\xfe)";
const std::string kEscapesShown = R"(\e[2J\e]0;pwn\a)";
const std::string kNewlineShown = R"(two\nlines)";

bool has_control_bytes(const std::string& text) {
  // Newlines end lines; any other byte below 0x20, or DEL, is a control character.
  return std::any_of(text.begin(), text.end(), [](char c) {
    auto byte = static_cast<unsigned char>(c);
    return (byte < 0x20 && byte != '\n') || byte == 0x7f;
  });
}

// One recording of a shell whose three children run the workload under those names,
// each holding 40 MiB, so that all three are among the report's highest peaks.
class NamesTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    dir_ = new TempDir();
    recording_ = dir_->file("names.canopy");
    std::string script;
    for (const std::string& name : {kBadUtf8, kEscapes, kNewline}) {
      std::filesystem::copy_file(kWorkload, dir_->file(name));
      std::filesystem::permissions(dir_->file(name), std::filesystem::perms::owner_all);
      script += "\"$0/" + name + "\" hold 40 800 & ";
    }
    script += "wait";
    // Not -q: the summary `record` prints is terminal output too.
    recorded_ = new Finished(run({kCanopy, "record", "-o", recording_, "sh", "-c", script, dir_->path()}));
    ASSERT_EQ(recorded_->exit_status, 0) << recorded_->err;
  }
  static void TearDownTestSuite() {
    delete recorded_;
    delete dir_;
  }

  static inline TempDir* dir_ = nullptr;
  static inline std::string recording_;
  static inline Finished* recorded_ = nullptr;
};

TEST_F(NamesTest, ReportShowsNamesEscaped) {
  auto report = run({kCanopy, "report", recording_});
  ASSERT_EQ(report.exit_status, 0) << report.err;
  for (const std::string* text : {&recorded_->err, &report.out}) {
    EXPECT_FALSE(has_control_bytes(*text)) << *text;
    for (const std::string& shown : {kBadUtf8Shown, kEscapesShown, kNewlineShown}) {
      EXPECT_NE(text->find(shown), std::string::npos) << shown << " in\n" << *text;
    }
    EXPECT_EQ(text->find(kBadUtf8), std::string::npos) << *text;
  }
}

// The highest peaks are one line each, however many lines a name would make raw.
TEST_F(NamesTest, NewlineInANameKeepsOneRowPerProcess) {
  auto summary = json::parse(run({kCanopy, "report", "--json", recording_}).out);
  ASSERT_EQ(summary["top"].size(), 4u);  // the shell and its three children
  auto report = run({kCanopy, "report", recording_});
  ASSERT_EQ(report.exit_status, 0) << report.err;
  std::istringstream lines(report.out);
  std::string line;
  while (std::getline(lines, line) && line != "  highest peaks:") {
  }
  std::regex row(R"(    +[0-9.]+ [KMG]?i?B  \S.* pid \d+ +(at|by) \+.*)");
  std::vector<std::string> rows;
  while (std::getline(lines, line) && line.rfind("    ", 0) == 0) {
    rows.push_back(line);
    EXPECT_TRUE(std::regex_match(line, row)) << line;
  }
  EXPECT_EQ(rows.size(), 4u) << report.out;
}

TEST_F(NamesTest, DiffShowsNamesEscaped) {
  auto diff = run({kCanopy, "diff", recording_, recording_});
  ASSERT_EQ(diff.exit_status, 0) << diff.err;
  EXPECT_FALSE(has_control_bytes(diff.out)) << diff.out;
  EXPECT_NE(diff.out.find(kEscapesShown), std::string::npos) << diff.out;
}

// JSON replaces what is not UTF-8 (U+FFFD) and escapes control characters itself.
TEST_F(NamesTest, JsonCarriesTheNames) {
  auto report = run({kCanopy, "report", "--json", recording_});
  ASSERT_EQ(report.exit_status, 0) << report.err;
  json summary = json::parse(report.out);
  std::vector<std::string> names;
  for (const json& p : summary["top"]) {
    names.push_back(p["name"]);
  }
  EXPECT_NE(std::find(names.begin(), names.end(), "bad\xEF\xBF\xBD\xEF\xBF\xBD"), names.end());
  EXPECT_NE(std::find(names.begin(), names.end(), kEscapes), names.end());
  EXPECT_NE(std::find(names.begin(), names.end(), kNewline), names.end());
}

TEST_F(NamesTest, ViewServesTheNames) {
  Started view({kCanopy, "view", recording_});
  ASSERT_TRUE(view.wait_for_output("(Ctrl-C to stop)")) << view.output();
  std::smatch match;
  std::string printed = view.output();
  ASSERT_TRUE(std::regex_search(printed, match, std::regex(R"(http://127\.0\.0\.1:(\d+)/)"))) << printed;
  httplib::Client client("127.0.0.1", std::stoi(match[1]));
  auto recording = client.Get("/api/recording");
  ASSERT_TRUE(recording);
  ASSERT_EQ(recording->status, 200) << recording->body;
  json served = json::parse(recording->body);
  std::vector<std::string> names;
  for (const json& p : served["processes"]) {
    names.push_back(p["name"]);
  }
  EXPECT_NE(std::find(names.begin(), names.end(), "bad\xEF\xBF\xBD\xEF\xBF\xBD"), names.end());
  EXPECT_NE(std::find(names.begin(), names.end(), kNewline), names.end());
  // A metric that is not UTF-8: the error that names it is still JSON.
  auto bad_metric = client.Get("/api/series?metric=%FF");
  ASSERT_TRUE(bad_metric);
  EXPECT_EQ(bad_metric->status, 400);
  EXPECT_EQ(json::parse(bad_metric->body)["error"], "unknown metric '\xEF\xBF\xBD'");
  view.signal(SIGTERM);
  EXPECT_EQ(view.wait().exit_status, 0);
}

// A path with escape sequences in an error message is escaped too.
TEST_F(NamesTest, ErrorMessagesShowPathsEscaped) {
  std::string missing = dir_->file(kEscapes + ".canopy");
  auto report = run({kCanopy, "report", missing});
  EXPECT_EQ(report.exit_status, 1);
  EXPECT_EQ(report.err, "canopy: cannot open '" + dir_->path() + "/" + kEscapesShown +
                            ".canopy': No such file or directory\n");
}

}  // namespace
}  // namespace canopy::testing
