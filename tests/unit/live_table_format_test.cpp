// The table of `record --live` (report/live_table_format.h): the headline's figures,
// the biggest processes first, how many did not fit, and lines cut to the width.
#include "report/live_table_format.h"

#include <gtest/gtest.h>

namespace canopy::report {
namespace {

constexpr int64_t kLiveTableMiB = 1 << 20;

live::LiveFigures live_five_processes() {
  live::LiveFigures f;
  f.t_ms = 1'000'000 + 61'500;  // 1:01.5 after the start below
  f.rss_bytes = 700 * kLiveTableMiB;
  f.processes = 5;
  f.processes_started = 7;
  f.peak_rss_bytes = 900 * kLiveTableMiB;
  f.peak_t_ms = 1'000'000 + 30'000;
  f.each_process = {
      {101, "make", 10 * kLiveTableMiB, 1, 0.4},
      {205, "cc1plus", 300 * kLiveTableMiB, 1, 98.0},
      {203, "cc1plus", 300 * kLiveTableMiB, 1, 75.6},
      {210, "ld", 80 * kLiveTableMiB, 4, 12.0},
      {230, "evil\x1b[2Jname", 10 * kLiveTableMiB, 1, 0},
  };
  return f;
}

TEST(LiveTableFormat, HeadlineThenTheBiggestProcessesAndHowManyDidNotFit) {
  std::vector<std::string> lines = live_table_lines(live_five_processes(), 1'000'000, 3, 200);
  ASSERT_EQ(lines.size(), 7u);  // 2 headlines, column header, 3 processes, "… and 2 more"
  EXPECT_EQ(lines[0], "canopy 1:01.5 · 5 processes (7 started) · CPU 186%");
  EXPECT_EQ(lines[1], "resident 700.0 MiB · peak 900.0 MiB at 0:30.0");
  EXPECT_NE(lines[2].find("RESIDENT"), std::string::npos);
  // Largest resident first; equal ones by PID.
  EXPECT_NE(lines[3].find("203"), std::string::npos) << lines[3];
  EXPECT_NE(lines[3].find("300.0 MiB"), std::string::npos) << lines[3];
  EXPECT_NE(lines[3].find("76%"), std::string::npos) << lines[3];
  EXPECT_NE(lines[4].find("205"), std::string::npos) << lines[4];
  EXPECT_NE(lines[5].find(" ld"), std::string::npos) << lines[5];
  EXPECT_NE(lines[5].find("   4  "), std::string::npos) << "its threads: " << lines[5];
  EXPECT_EQ(lines[6], "   … and 2 more");
}

TEST(LiveTableFormat, CgroupPeakNamesAreSafeAndLinesFitTheWidth) {
  live::LiveFigures f = live_five_processes();
  f.cgroup_peak_bytes = 950 * kLiveTableMiB;
  std::vector<std::string> lines = live_table_lines(f, 1'000'000, 10, 200);
  EXPECT_EQ(lines[1], "resident 700.0 MiB · peak 900.0 MiB at 0:30.0 (cgroup 950.0 MiB)");
  ASSERT_EQ(lines.size(), 8u);  // every process fits: no "more" line
  for (const std::string& line : lines) {
    EXPECT_EQ(line.find('\x1b'), std::string::npos) << "a name cannot drive the terminal: " << line;
  }
  for (const std::string& line : live_table_lines(f, 1'000'000, 10, 40)) {
    EXPECT_LE(line.size(), 40u) << line;
  }
}

// With record --heap, a HEAP column: the heap in use a process's profiler last sent, or
// "-" before its first snapshot.
TEST(LiveTableFormat, WithHeapProfilingEachProcessShowsItsHeapInUse) {
  live::LiveFigures f = live_five_processes();
  f.heap_profiling = true;
  f.each_process[1].heap_in_use_bytes = 250 * kLiveTableMiB;  // PID 205
  std::vector<std::string> lines = live_table_lines(f, 1'000'000, 3, 200);
  ASSERT_EQ(lines.size(), 7u);
  EXPECT_EQ(lines[2], "      PID    RESIDENT        HEAP    CPU   THR  COMMAND");
  EXPECT_EQ(lines[3], "      203   300.0 MiB           -    76%     1  cc1plus");
  EXPECT_EQ(lines[4], "      205   300.0 MiB   250.0 MiB    98%     1  cc1plus");
  // Without --heap, no column.
  EXPECT_EQ(live_table_lines(live_five_processes(), 1'000'000, 3, 200)[2],
            "      PID    RESIDENT    CPU   THR  COMMAND");
}

}  // namespace
}  // namespace canopy::report
