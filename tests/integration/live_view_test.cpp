// record --live on a terminal (a pseudo-terminal made by script(1), 24 lines when it is
// not told a size): the table shows the workload's process with the memory it holds,
// the scroll region is given back before the summary, and without a terminal --live
// draws nothing at all.
#include <gtest/gtest.h>

#include <regex>
#include <string>

#include "integration/harness.h"

namespace canopy::testing {
namespace {

// The terminal's control sequences taken out: CSI sequences and save/restore cursor.
std::string live_without_controls(const std::string& text) {
  return std::regex_replace(text, std::regex("\x1b\\[[0-9;?]*[A-Za-z]|\x1b[78]"), "");
}

std::string live_quoted(const std::string& word) { return "'" + word + "'"; }

TEST(LiveView, TheTableShowsTheWorkloadThenGivesTheScreenBack) {
  TempDir dir;
  const std::string recording = dir.file("live.canopy");
  // The workload holds 64 MiB for 2.5 s of wall time: the table is redrawn each second,
  // so it is drawn at least once while the memory is held, however loaded the machine.
  const std::string command = live_quoted(kCanopy) + " record --live -o " + live_quoted(recording) + " -- " +
                              live_quoted(kWorkload) + " hold 64 2500";
  Finished run_on_terminal = run({"script", "-qec", command, "/dev/null"});
  ASSERT_EQ(run_on_terminal.exit_status, 0) << run_on_terminal.out << run_on_terminal.err;
  const std::string& raw = run_on_terminal.out;

  // The table was drawn in a scroll region, which is reset before the summary.
  size_t region = raw.find("\x1b[1;");
  ASSERT_NE(region, std::string::npos) << "no scroll region set:\n" << raw;
  size_t reset = raw.rfind("\x1b[r");
  ASSERT_NE(reset, std::string::npos) << "the scroll region is never reset";
  EXPECT_LT(region, reset);
  size_t summary = raw.find("peak memory", reset);
  EXPECT_NE(summary, std::string::npos) << "the summary prints after the table is gone:\n" << live_without_controls(raw);

  // A row of the table: the workload with its resident memory, 64 MiB and its own.
  const std::string text = live_without_controls(raw.substr(0, reset));
  std::smatch row;
  std::regex workload_row(R"((\d+)\s+(\d+\.\d) MiB\s+\d+%\s+1\s+canopy_workload)");
  bool held = false;
  for (auto it = std::sregex_iterator(text.begin(), text.end(), workload_row); it != std::sregex_iterator(); ++it) {
    double mib = std::stod((*it)[2]);
    held = held || (mib >= 64 && mib < 80);
  }
  EXPECT_TRUE(held) << "no row showed the 64 MiB held:\n" << text;
  EXPECT_NE(text.find("canopy 0:0"), std::string::npos) << "the headline's elapsed time:\n" << text;
  EXPECT_NE(text.find("1 process (1 started)"), std::string::npos) << text;
}

TEST(LiveView, WithoutATerminalItDrawsNothing) {
  TempDir dir;
  Finished finished = run({kCanopy, "record", "--live", "-o", dir.file("plain.canopy"), "--", kWorkload, "hold", "8", "1200"});
  ASSERT_EQ(finished.exit_status, 0) << finished.err;
  EXPECT_EQ(finished.err.find('\x1b'), std::string::npos) << finished.err;
  EXPECT_EQ(finished.out.find('\x1b'), std::string::npos) << finished.out;
  EXPECT_NE(finished.err.find("peak memory"), std::string::npos) << "the summary as without --live:\n" << finished.err;
}

}  // namespace
}  // namespace canopy::testing
