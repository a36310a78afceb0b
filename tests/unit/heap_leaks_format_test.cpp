// The summary's leak lines (report/heap_leaks_format.h): a pool's workers that leak at
// one place share a line, as do one process's stacks that one function names; what
// does not fit is counted in leaks, not lines.
#include <gtest/gtest.h>

#include <set>

#include <nlohmann/json.hpp>

#include "analyze/summary.h"
#include "report/growth_format.h"
#include "report/heap_leaks_format.h"
#include "report/summary_format.h"

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

analyze::GrowthFinding rss_growth(int64_t pid, const std::string& name, analyze::GrowthFinding::Verdict verdict) {
  analyze::GrowthFinding f;
  f.verdict = verdict;
  f.ending = analyze::GrowthFinding::Ending::kExited;
  f.pid = pid;
  f.name = name;
  f.span_ms = f.growth_ms = 4'000;
  f.max_bytes = f.end_bytes = 120 * kLeakMiB;
  f.slope_bytes_per_min = 1800.0 * kLeakMiB;
  f.r_squared = 0.99;
  f.monotonic = verdict == analyze::GrowthFinding::Verdict::kSteady;
  f.idle_after_max_ms = 2'000;
  return f;
}

// The resident memory findings beyond the heap profile (analyze::growth_beyond_heap)
// follow the leaks, under a line that says what they are, in the summary and the list.
TEST(HeapLeaksSummary, ResidentGrowthBeyondTheHeapProfileFollowsTheLeaks) {
  analyze::Summary s;
  s.mode = "run";
  s.command = {"make"};
  s.heap_leaks = report_of({leak(11, "python3", 1, "PyByteArray_Resize (bytearrayobject.c:233)", 12 * kLeakMiB)});
  s.heap_leaks->growth_beyond = {rss_growth(20, "java", analyze::GrowthFinding::Verdict::kSteady)};

  std::string text = summary_text(s, "x.canopy");
  size_t leaks =
      text.find("  memory growth      leaks in 1 of 44 process images profiled:\n    python3          pid 11");
  size_t beyond = text.find(
      "    but resident memory grew beyond what the heap profile sees (mmap, a runtime's heap, freed memory kept):\n"
      "    java             pid 20       grew steadily 1.8 GiB/min for 4.000 s (fit R² 0.99), to 120.0 MiB, and still "
      "held it when it exited, after 2.000 s idle\n");
  ASSERT_NE(leaks, std::string::npos) << text;
  ASSERT_NE(beyond, std::string::npos) << text;
  EXPECT_LT(leaks, beyond) << text;

  std::string list = heap_leaks_list_text(*s.heap_leaks, 0);
  EXPECT_NE(list.find("\n    but resident memory grew beyond what the heap profile sees"), std::string::npos) << list;
  EXPECT_NE(list.find("\n    java             pid 20       grew steadily"), std::string::npos) << list;
  EXPECT_EQ(heap_leaks_json(*s.heap_leaks)["growth_beyond"][0]["pid"], 20);

  s.heap_leaks->growth_beyond.clear();
  EXPECT_EQ(summary_text(s, "x.canopy").find("but resident memory"), std::string::npos);
  EXPECT_EQ(heap_leaks_json(*s.heap_leaks)["growth_beyond"], nlohmann::json::array());
}

// A stack of an image not judged (analyze::HeapLeakReport::unjudged): too few samples.
analyze::HeapLeak unjudged(int64_t pid, const std::string& name, const std::string& where, int64_t held_bytes) {
  analyze::HeapLeak stack = leak(pid, name, pid, where, held_bytes);
  stack.verdict.kind = analyze::HeapVerdict::Kind::kUnclear;
  stack.verdict.reason = analyze::HeapVerdict::Reason::kTooFewSamples;
  stack.verdict.half_sampled = 3;
  return stack;
}

constexpr const char* kUnjudgedWhy =
    "held most of their heap in stacks too thinly sampled or seen at too few snapshots (--heap=64K samples more):\n";

// With no image judged, the section says so first; no "no leak".
TEST(HeapLeaksSummary, WhenNoImageCouldBeJudgedTheSectionSaysSo) {
  analyze::HeapLeakReport report;
  report.images = 3;
  report.unjudged = {unjudged(11, "python3", "PyByteArray_Resize (bytearrayobject.c:233)", 16 * kLeakMiB),
                     unjudged(12, "python3", "PyByteArray_Resize (bytearrayobject.c:233)", 12 * kLeakMiB),
                     unjudged(10, "python3", "new_keys_object (dictobject.c:632)", kLeakMiB / 2)};
  std::string text = heap_leaks_summary_text(report, 0, "x.canopy");
  EXPECT_EQ(text, std::string("  memory growth      not judged: the heap profile's 3 process images ") + kUnjudgedWhy +
                      "    python3          2 processes    28.0 MiB  PyByteArray_Resize (bytearrayobject.c:233): the "
                      "largest, pid 11, unclear: too few sampled allocations to judge (3, needs 5)\n"
                      "    python3          pid 10        512.0 KiB  new_keys_object (dictobject.c:632): unclear: too "
                      "few sampled allocations to judge (3, needs 5)\n");
  auto json = heap_leaks_json(report);
  EXPECT_EQ(json["images_judged"], 0);
  ASSERT_EQ(json["unjudged"].size(), 3u);
  EXPECT_EQ(json["unjudged"][0]["verdict"]["reason"], "too-few-samples");
}

// Beside images judged, the ones not judged follow the leaks under a line of their own,
// in fewer lines than the leaks have; the list has every one.
TEST(HeapLeaksSummary, ImagesNotJudgedFollowTheLeaksInALineOrTwo) {
  auto report = report_of({leak(11, "cc1plus", 1, "save_target_globals() (cc1plus)", 45 * kLeakMiB)});
  for (int64_t i = 0; i < 4; ++i) {
    report.unjudged.push_back(unjudged(20 + i, "cc1", "site_" + std::to_string(i) + " (cc1)", (4 - i) * kLeakMiB));
  }
  std::string text = heap_leaks_summary_text(report, 0, "x.canopy");
  size_t leaks = text.find("  memory growth      leaks in 1 of 44 process images profiled:\n    cc1plus ");
  size_t caption = text.find(std::string("\n    not judged: 4 more process images ") + kUnjudgedWhy +
                             "    cc1              pid 20          4.0 MiB  site_0 (cc1): unclear: ");
  ASSERT_NE(leaks, std::string::npos) << text;
  ASSERT_NE(caption, std::string::npos) << text;
  EXPECT_LT(leaks, caption);
  EXPECT_NE(text.find("    and 2 more process images: canopy report x.canopy --growth\n"), std::string::npos) << text;
  EXPECT_EQ(text.find("site_2"), std::string::npos) << text;

  std::string list = heap_leaks_list_text(report, 0);
  EXPECT_NE(list.find("\n    not judged: 4 more process images "), std::string::npos) << list;
  EXPECT_NE(list.find("    cc1              pid 23          1.0 MiB  site_3 (cc1): unclear: "), std::string::npos)
      << list;

  // With no leak, the header is the images judged, and the line the others'.
  report.leaks.clear();
  report.images_leaking = 0;
  text = heap_leaks_summary_text(report, 0, "x.canopy");
  EXPECT_EQ(text.rfind("  memory growth      no leak in the heap profile of 44 process images: no stack kept growing "
                       "and kept what it allocated\n    not judged: 4 more process images ",
                       0),
            0u)
      << text;
}

}  // namespace
}  // namespace canopy::report
