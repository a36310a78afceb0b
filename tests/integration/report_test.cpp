// canopy report: the summary again, as text or JSON, and one clear line for files
// that are not (or no longer) recordings.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "integration/harness.h"

namespace canopy::testing {
namespace {

TEST(Report, JsonForScripts) {
  TempDir dir;
  std::string path = dir.file("tree.canopy");
  ASSERT_EQ(run({kCanopy, "record", "-q", "-o", path, kWorkload, "tree"}).exit_status, 0);
  auto result = run({kCanopy, "report", "--json", path});
  ASSERT_EQ(result.exit_status, 0) << result.err;
  auto json = nlohmann::json::parse(result.out);
  EXPECT_EQ(json["processes"], 7);
  EXPECT_EQ(json["exit_code"], 0);
  EXPECT_EQ(json["complete"], true);
  EXPECT_EQ(json["top"].size(), 5u);
  // Highest first: the 150 MiB child.
  EXPECT_GE(json["top"][0]["peak_rss_bytes"].get<int64_t>(), mib(150));
  EXPECT_LT(json["top"][0]["peak_rss_bytes"].get<int64_t>(), mib(160));
  EXPECT_GE(json["peak_tree_rss_bytes"].get<int64_t>(), mib(320));

  auto text = run({kCanopy, "report", path});
  ASSERT_EQ(text.exit_status, 0);
  EXPECT_NE(text.out.find("highest peaks:"), std::string::npos) << text.out;
  EXPECT_NE(text.out.find("processes          7"), std::string::npos) << text.out;
}

TEST(Report, AnOutputThatCannotBeWrittenFailsTheCommand) {
  // `canopy report --json > out.json` on a full disk: the JSON cut short must not exit 0.
  TempDir dir;
  std::string path = dir.file("full.canopy");
  ASSERT_EQ(run({kCanopy, "record", "-q", "-o", path, kWorkload, "exit", "0"}).exit_status, 0);
  for (const std::string command : {"report --json", "report --growth", "export --format csv"}) {
    auto result = run({"sh", "-c", kCanopy + " " + command + " " + path + " > /dev/full"});
    EXPECT_EQ(result.exit_status, 1) << command;
    EXPECT_EQ(result.err, "canopy: cannot write to stdout: No space left on device\n") << command;
  }
  // record's status stays its command's, whatever becomes of its own output.
  auto recorded =
      run({"sh", "-c", kCanopy + " record --capture-output -o " + dir.file("r.canopy") + " -- echo hi > /dev/full"});
  EXPECT_EQ(recorded.exit_status, 0) << recorded.err;
}

TEST(Report, NotARecording) {
  TempDir dir;
  std::string text = dir.file("notes.canopy");
  std::ofstream(text) << "just some text, not SQLite at all\n" << std::string(4096, '.');
  auto result = run({kCanopy, "report", text});
  EXPECT_EQ(result.exit_status, 1);
  EXPECT_EQ(result.err, "canopy: cannot open '" + text + "': not a canopy recording (not an SQLite file)\n");

  auto missing = run({kCanopy, "report", dir.file("missing.canopy")});
  EXPECT_EQ(missing.exit_status, 1);
  EXPECT_EQ(missing.err, "canopy: cannot open '" + dir.file("missing.canopy") + "': No such file or directory\n");
}

TEST(Report, TruncatedRecording) {
  TempDir dir;
  std::string path = dir.file("cut.canopy");
  ASSERT_EQ(run({kCanopy, "record", "-q", "-o", path, kWorkload, "tree"}).exit_status, 0);
  auto size = std::filesystem::file_size(path);
  std::filesystem::resize_file(path, size / 2);
  auto result = run({kCanopy, "report", path});
  EXPECT_EQ(result.exit_status, 1);
  EXPECT_EQ(std::count(result.err.begin(), result.err.end(), '\n'), 1) << result.err;
  EXPECT_EQ(result.err.rfind("canopy: cannot open '" + path + "': the recording is truncated or corrupt", 0), 0u)
      << result.err;
}

}  // namespace
}  // namespace canopy::testing
