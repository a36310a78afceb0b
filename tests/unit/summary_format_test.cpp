// What the summary prints: the command line as a shell would run it, a line for each
// log added, and where the JSON says a process's name came from.
#include "report/summary_format.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

namespace canopy::report {
namespace {

TEST(ShellJoin, QuotesWhatAShellWouldSplitOrExpand) {
  EXPECT_EQ(shell_join({"make", "-j8"}), "make -j8");
  EXPECT_EQ(shell_join({"sh", "-c", "a; b"}), "sh -c 'a; b'");
  EXPECT_EQ(shell_join({"echo", ""}), "echo ''");
  // A quote inside ends the quoting, is escaped, and the quoting starts again.
  EXPECT_EQ(shell_join({"sh", "-c", "'/bin/x' hold"}), "sh -c ''\\''/bin/x'\\'' hold'");
}

TEST(SummaryText, OneLineForEachLogAdded) {
  analyze::Summary s;
  s.mode = "run";
  s.command = {"make"};
  EXPECT_EQ(summary_text(s, "r.canopy").find("logs"), std::string::npos) << "no log, no line";
  s.logs.push_back({1, "app.log", "lines", 0, 11973, 0});
  s.logs.push_back({2, "trace.json", "cmake-trace", 0, 1, 1});
  EXPECT_NE(summary_text(s, "r.canopy")
                .find("  logs               app.log: 11973 events (lines)\n"
                      "                     trace.json: 1 event (cmake-trace), 1 outside the recording's time span\n"
                      "  recording          r.canopy\n"),
            std::string::npos)
      << summary_text(s, "r.canopy");
  nlohmann::json logs = summary_json_object(s, "r.canopy")["logs"];
  ASSERT_EQ(logs.size(), 2u);
  EXPECT_EQ(logs[1]["name"], "trace.json");
  EXPECT_EQ(logs[1]["events"], 1);
  EXPECT_EQ(logs[1]["outside_span"], 1);
}

TEST(SummaryJson, SaysWhereEachTopProcesssNameCameFrom) {
  analyze::Summary s;
  analyze::ProcessPeak read;
  read.name = "cc1";
  analyze::ProcessPeak gone;
  gone.name = "true";
  gone.named_from_exit_record = true;  // ended before canopy could read its own
  s.top = {read, gone};
  auto json = summary_json_object(s, "r.canopy");
  EXPECT_EQ(json["top"][0]["name_source"], "proc");
  EXPECT_EQ(json["top"][1]["name_source"], "exit record");
}

}  // namespace
}  // namespace canopy::report
