// The command line as the summary prints it: one a shell would run as it was recorded;
// and where the JSON says a process's name came from.
#include "report/summary_format.h"

#include <gtest/gtest.h>

namespace canopy::report {
namespace {

TEST(ShellJoin, QuotesWhatAShellWouldSplitOrExpand) {
  EXPECT_EQ(shell_join({"make", "-j8"}), "make -j8");
  EXPECT_EQ(shell_join({"sh", "-c", "a; b"}), "sh -c 'a; b'");
  EXPECT_EQ(shell_join({"echo", ""}), "echo ''");
  // A quote inside ends the quoting, is escaped, and the quoting starts again.
  EXPECT_EQ(shell_join({"sh", "-c", "'/bin/x' hold"}), "sh -c ''\\''/bin/x'\\'' hold'");
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
