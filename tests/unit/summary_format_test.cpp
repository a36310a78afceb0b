// The command line as the summary prints it: one a shell would run as it was recorded.
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

}  // namespace
}  // namespace canopy::report
