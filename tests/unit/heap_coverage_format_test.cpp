// canopy heap's "not profiled" section (analyze/heap_coverage.h, report/
// heap_coverage_format.h): counts per reason, the first few processes of each, and
// what it says when the recording cannot say.
#include "report/heap_coverage_format.h"

#include <gtest/gtest.h>

namespace canopy::report {
namespace {

std::vector<store::ProcessRow> tree_of(int count) {
  std::vector<store::ProcessRow> processes;
  for (int i = 1; i <= count; ++i) {
    store::ProcessRow process;
    process.id = i;
    process.pid = 1000 + i;
    process.name = "p" + std::to_string(i);
    process.cmdline = {"/usr/bin/p" + std::to_string(i), "--flag"};
    processes.push_back(process);
  }
  return processes;
}

store::HeapProfile profile_with(std::vector<store::HeapUnprofiledRow> rows) {
  store::HeapProfile profile;
  profile.unprofiled = std::move(rows);
  profile.unprofiled_recorded = true;
  return profile;
}

TEST(HeapCoverageFormat, CountsEachReasonAndNamesTheFirstFew) {
  auto processes = tree_of(9);
  std::vector<store::HeapUnprofiledRow> rows;
  for (int64_t id : {2, 3, 4, 5, 6}) {
    rows.push_back({id, 1000 + id, "no samples", 65536});
  }
  rows.push_back({7, 1007, "static", 65536});
  rows.push_back({8, 1008, "trampoline", 65536});  // a newer canopy's reason
  auto coverage = analyze::summarize_heap_coverage(profile_with(rows), processes, true, 3);
  EXPECT_EQ(coverage.state, analyze::HeapCoverageSummary::State::kRecorded);
  EXPECT_EQ(coverage.processes, 9);
  EXPECT_EQ(coverage.unprofiled, 7);
  ASSERT_EQ(coverage.groups.size(), 3u);
  EXPECT_EQ(coverage.groups[0].reason, "no samples");
  EXPECT_EQ(coverage.groups[0].processes, 5);

  EXPECT_EQ(heap_coverage_text(coverage),
            "not profiled: 7 of 9 processes\n"
            "  no samples (5): the profiler loaded, sampled nothing (less than about 64.0 KiB allocated) and saw no "
            "exit() (_exit, a signal, or running at the end)\n"
            "    pid 1002  /usr/bin/p2 --flag\n"
            "    pid 1003  /usr/bin/p3 --flag\n"
            "    pid 1004  /usr/bin/p4 --flag\n"
            "    and 2 more\n"
            "  static (1): statically linked: no dynamic loader to preload the profiler\n"
            "    pid 1007  /usr/bin/p7 --flag\n"
            "  trampoline (1): as recorded by a newer canopy\n"
            "    pid 1008  /usr/bin/p8 --flag\n");

  auto json = heap_coverage_json(coverage);
  EXPECT_EQ(json["recorded"], true);
  EXPECT_EQ(json["unprofiled"], 7);
  EXPECT_EQ(json["rate_bytes"], 65536);
  ASSERT_EQ(json["reasons"].size(), 3u);
  EXPECT_EQ(json["reasons"][0]["processes"], 5);
  EXPECT_EQ(json["reasons"][0]["first"].size(), 3u);
  EXPECT_EQ(json["reasons"][1]["first"][0]["pid"], 1007);
}

TEST(HeapCoverageFormat, ALongCommandIsCutAndItsEscapesShown) {
  auto processes = tree_of(2);
  processes[1].cmdline = {"tool", std::string(100, 'x') + "\x1b[2J"};
  auto coverage = analyze::summarize_heap_coverage(profile_with({{2, 1002, "static", 4096}}), processes, true, 3);
  std::string text = heap_coverage_text(coverage);
  EXPECT_NE(text.find("    pid 1002  tool " + std::string(64, 'x') + "...\n"), std::string::npos) << text;
  processes[1].cmdline = {"tool", "\x1b[2J"};
  coverage = analyze::summarize_heap_coverage(profile_with({{2, 1002, "static", 4096}}), processes, true, 3);
  EXPECT_NE(heap_coverage_text(coverage).find("    pid 1002  tool \\e[2J\n"), std::string::npos);
}

TEST(HeapCoverageFormat, OnePidOfManyAndATreeProfiledWhole) {
  auto processes = tree_of(4);
  auto profile = profile_with({{3, 1003, "setuid", 4096}});
  std::vector<store::ProcessRow> just_three = {processes[2]};
  EXPECT_EQ(heap_coverage_text(analyze::summarize_heap_coverage(profile, just_three, true, 3)),
            "not profiled: 1 of 1 process\n"
            "  setuid (1): setuid, setgid or file capabilities: the loader ignores LD_PRELOAD for them\n"
            "    pid 1003  /usr/bin/p3 --flag\n");
  std::vector<store::ProcessRow> just_two = {processes[1]};
  EXPECT_EQ(heap_coverage_text(analyze::summarize_heap_coverage(profile, just_two, true, 3)),
            "not profiled: none of 1 process\n");
}

TEST(HeapCoverageFormat, TheSummaryLineCountsTheProfiledAndEachReason) {
  auto processes = tree_of(9);
  std::vector<store::HeapUnprofiledRow> rows = {{2, 1002, "no samples", 4096}, {3, 1003, "static", 4096},
                                                {4, 1004, "no samples", 4096}};
  auto coverage = analyze::summarize_heap_coverage(profile_with(rows), processes, true, 3);
  // The recording's word, not the images: an image from an earlier program of a process
  // does not make its last one profiled.
  EXPECT_EQ(heap_coverage_line(coverage, 8), "6 of 9 processes (not profiled: 2 no samples, 1 static)");
  store::HeapProfile whole = profile_with({});
  whole.images.push_back({.id = 1, .pid = 1001, .unwind = "auto"});
  coverage = analyze::summarize_heap_coverage(whole, processes, true, 3);
  EXPECT_EQ(heap_coverage_line(coverage, 9), "9 of 9 processes");
  // A recording made without --heap has the tables, empty: it has no such line.
  EXPECT_EQ(heap_coverage_line(analyze::summarize_heap_coverage(profile_with({}), processes, true, 3), 0), "");

  coverage = analyze::summarize_heap_coverage(whole, processes, false, 3);
  EXPECT_EQ(heap_coverage_line(coverage, 7),
            "images from 7 of 9 processes (the recording did not end: why the others sent none is unknown)");
  store::HeapProfile older;
  older.images.push_back({.id = 1, .pid = 1001, .unwind = "auto"});
  EXPECT_EQ(heap_coverage_line(analyze::summarize_heap_coverage(older, processes, true, 3), 1),
            "images from 1 of 9 processes (a canopy from before it said why the others sent none)");
  EXPECT_EQ(heap_coverage_line(analyze::summarize_heap_coverage(store::HeapProfile{}, processes, true, 3), 0), "");
}

TEST(HeapCoverageFormat, WhatTheRecordingCannotSayIsSaid) {
  auto processes = tree_of(2);
  store::HeapProfile older;  // a heap recording from before heap_unprofiled
  older.images.push_back({.id = 1, .pid = 1001, .unwind = "auto"});
  auto coverage = analyze::summarize_heap_coverage(older, processes, true, 3);
  EXPECT_EQ(coverage.state, analyze::HeapCoverageSummary::State::kNotRecorded);
  EXPECT_EQ(heap_coverage_text(coverage),
            "not profiled: not recorded (a canopy from before it said which processes went unprofiled)\n");
  EXPECT_EQ(heap_coverage_json(coverage)["recorded"], false);

  // The rows are written as the recording ends: one killed before has none.
  store::HeapProfile unfinished = profile_with({});
  unfinished.images = older.images;
  coverage = analyze::summarize_heap_coverage(unfinished, processes, false, 3);
  EXPECT_EQ(coverage.state, analyze::HeapCoverageSummary::State::kUnfinished);
  EXPECT_NE(heap_coverage_text(coverage).find("not profiled: unknown (the recording did not end"), std::string::npos);

  coverage = analyze::summarize_heap_coverage(store::HeapProfile{}, processes, true, 3);  // no --heap
  EXPECT_EQ(heap_coverage_text(coverage), "");
  EXPECT_TRUE(heap_coverage_json(coverage).is_null());
}

}  // namespace
}  // namespace canopy::report
