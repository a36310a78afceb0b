// The summary's leak lines (report/heap_leaks_format.h): a pool's workers that leak at
// one place share a line, as do one process's stacks that one function names; what
// does not fit is counted in leaks, not lines.
#include <gtest/gtest.h>

#include <set>

#include "report/growth_format.h"
#include "report/heap_leaks_format.h"

namespace canopy::report {
namespace {

constexpr int64_t kLeakMiB = 1024 * 1024;

analyze::HeapLeak leak(int64_t pid, const std::string& name, int64_t stack_id, const std::string& where,
                       int64_t held_bytes) {
  analyze::HeapLeak leak;
  leak.pid = pid;
  leak.name = name;
  leak.stack_id = stack_id;
  leak.where = where;
  leak.verdict.kind = analyze::HeapVerdict::Kind::kLeak;
  leak.verdict.reason = analyze::HeapVerdict::Reason::kGrewAndKept;
  leak.verdict.held_bytes = held_bytes;
  leak.verdict.rises = 3;
  leak.verdict.last_rise_t_ms = 1500;
  leak.verdict.half_sampled = 10;
  leak.verdict.half_kept = 10;
  return leak;
}

analyze::HeapLeakReport report_of(std::vector<analyze::HeapLeak> leaks) {
  analyze::HeapLeakReport report;
  report.images = report.images_judged = 44;
  std::set<int64_t> pids;
  for (const analyze::HeapLeak& l : leaks) {
    pids.insert(l.pid);
  }
  report.images_leaking = static_cast<int64_t>(pids.size());
  report.leaks = std::move(leaks);  // the largest first, as heap_leak_report gives them
  return report;
}

TEST(HeapLeaksSummary, WorkersThatLeakAtOnePlaceShareALine) {
  auto report = report_of({leak(11, "python3", 1, "PyByteArray_Resize (bytearrayobject.c:233)", 12 * kLeakMiB),
                           leak(12, "python3", 2, "PyByteArray_Resize (bytearrayobject.c:233)", 11 * kLeakMiB),
                           leak(13, "python3", 3, "PyByteArray_Resize (bytearrayobject.c:233)", 10 * kLeakMiB)});
  std::string text = heap_leaks_summary_text(report, 0, "x.canopy");
  EXPECT_NE(text.find("python3          3 processes    33.0 MiB  PyByteArray_Resize (bytearrayobject.c:233): the "
                      "largest, pid 11, grew at 3 snapshots, the last at +1.500 s, and kept 100%\n"),
            std::string::npos)
      << text;
  EXPECT_EQ(text.find("pid 12"), std::string::npos) << text;
}

TEST(HeapLeaksSummary, StacksOfOneProcessAtOnePlaceShareALineThatCountsThem) {
  auto report = report_of({leak(16193, "cc1plus", 1, "save_target_globals() (cc1plus)", 45 * kLeakMiB),
                           leak(16193, "cc1plus", 7, "xrealloc (cc1plus)", 6 * kLeakMiB),
                           leak(16193, "cc1plus", 2, "save_target_globals() (cc1plus)", 3 * kLeakMiB)});
  std::string text = heap_leaks_summary_text(report, 0, "x.canopy");
  EXPECT_NE(text.find("cc1plus          pid 16193      48.0 MiB  save_target_globals() (cc1plus) in 2 stacks: the "
                      "largest grew at 3 snapshots"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("cc1plus          pid 16193       6.0 MiB  xrealloc (cc1plus): grew at 3 snapshots"),
            std::string::npos)
      << text;
  EXPECT_LT(text.find("save_target_globals"), text.find("xrealloc")) << text;
}

TEST(HeapLeaksSummary, WhatDoesNotFitIsCountedInLeaks) {
  std::vector<analyze::HeapLeak> leaks;
  for (int64_t i = 0; i < static_cast<int64_t>(kSummaryGrowthLines) + 1; ++i) {
    // Each place twice, in two processes: the lines left out hold twice as many leaks.
    for (int64_t pid : {100 + i, 200 + i}) {
      leaks.push_back(leak(pid, "worker", i * 2 + pid / 200, "site_" + std::to_string(i), (100 - i) * kLeakMiB));
    }
  }
  std::string text = heap_leaks_summary_text(report_of(leaks), 0, "x.canopy");
  EXPECT_NE(text.find("    and 4 more leaks: canopy report x.canopy --growth\n"), std::string::npos) << text;
  EXPECT_EQ(text.find("site_" + std::to_string(kSummaryGrowthLines - 1) + " "), std::string::npos) << text;
}

}  // namespace
}  // namespace canopy::report
