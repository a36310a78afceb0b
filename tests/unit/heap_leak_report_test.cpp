// Which process images the summary's "no leak" covers (analyze::heap_leak_report): an
// image whose heap at its end was mostly in stacks with too few sampled allocations or
// snapshots to judge, holding enough samples between them for one verdict, is not
// judged, and its largest such stack is named; on hand-made profiles.
#include <gtest/gtest.h>

#include <algorithm>
#include <tuple>
#include <vector>

#include "analyze/heap_history.h"
#include "analyze/heap_leaks.h"

namespace canopy::analyze {
namespace {

constexpr int64_t kReportMiB = 1024 * 1024;
constexpr int kReportSnapshots = 4;  // one a second, the last the image's exit

// A profile of one image (pid 100, of process row 1) with kReportSnapshots snapshots.
store::HeapProfile one_image_of_snapshots() {
  store::HeapProfile profile;
  profile.images.push_back({.id = 1, .process_id = 1, .pid = 100, .rate_bytes = 4096});
  for (int i = 0; i < kReportSnapshots; ++i) {
    profile.snapshots.push_back(
        {.id = i + 1, .image_id = 1, .t_ms = 1000 * i, .reason = i + 1 == kReportSnapshots ? "exit" : "interval"});
  }
  return profile;
}

// `blocks[i]` blocks of `block_bytes` each (sampled for sure) born at snapshot i and kept.
void add_kept_stack(store::HeapProfile& profile, int64_t stack_id, int64_t block_bytes, std::vector<int> blocks) {
  int64_t allocated = 0;
  for (size_t i = 0; i < blocks.size(); ++i) {
    if (blocks[i] == 0) {
      continue;
    }
    allocated += blocks[i];
    profile.totals.push_back({.snapshot_id = static_cast<int64_t>(i) + 1,
                              .stack_id = stack_id,
                              .allocated_bytes = allocated * block_bytes,
                              .allocated_count = allocated});
    for (int k = 0; k < blocks[i]; ++k) {
      profile.allocations.push_back({.id = static_cast<int64_t>(profile.allocations.size()) + 1,
                                     .image_id = 1,
                                     .stack_id = stack_id,
                                     .size_bytes = block_bytes,
                                     .probability = 1,
                                     .born_ms = 1000 * static_cast<int64_t>(i)});
    }
  }
  std::sort(profile.totals.begin(), profile.totals.end(), [](const auto& a, const auto& b) {
    return std::tie(a.snapshot_id, a.stack_id) < std::tie(b.snapshot_id, b.stack_id);
  });
}

// Built once at the start and held flat: bounded, 10 MiB in 10 samples.
constexpr int64_t kBoundedStack = 1;
void add_bounded(store::HeapProfile& profile) { add_kept_stack(profile, kBoundedStack, 1 * kReportMiB, {10, 0, 0, 0}); }

HeapLeakReport report_of(const store::HeapProfile& profile) {
  store::ProcessRow process;
  process.id = 1;
  process.pid = 100;
  process.name = "worker";
  return heap_leak_report(heap_histories(profile), {process});
}

// The image's report, which must count it judged and list it nowhere else.
void expect_judged_without_a_leak(const store::HeapProfile& profile) {
  HeapLeakReport report = report_of(profile);
  EXPECT_EQ(report.images_judged, 1);
  EXPECT_TRUE(report.leaks.empty());
  EXPECT_TRUE(report.unjudged.empty());
}

TEST(HeapLeakReport, AHeapMostlyInStacksTooThinToJudgeIsNotJudged) {
  store::HeapProfile profile = one_image_of_snapshots();
  add_bounded(profile);
  // Born at the exit's snapshot, each too few for a verdict: 3 + 2 samples, 15 MiB.
  add_kept_stack(profile, 2, 3 * kReportMiB, {0, 0, 0, 3});
  add_kept_stack(profile, 3, 3 * kReportMiB, {0, 0, 0, 2});
  HeapLeakReport report = report_of(profile);
  EXPECT_EQ(report.images, 1);
  EXPECT_EQ(report.images_judged, 0);
  EXPECT_TRUE(report.leaks.empty());
  ASSERT_EQ(report.unjudged.size(), 1u);
  const HeapLeak& largest = report.unjudged[0];
  EXPECT_EQ(largest.pid, 100);
  EXPECT_EQ(largest.name, "worker");
  EXPECT_EQ(largest.stack_id, 2);
  EXPECT_EQ(largest.verdict.reason, HeapVerdict::Reason::kTooFewSamples);
  EXPECT_EQ(largest.verdict.held_bytes, 9 * kReportMiB);
  EXPECT_EQ(largest.verdict.held_sampled, 3);
}

TEST(HeapLeakReport, StacksTooThinToJudgeHoldingLessThanHalfLeaveItJudged) {
  store::HeapProfile profile = one_image_of_snapshots();
  add_bounded(profile);
  // 9 MiB and 2 KiB in 5 samples, against the bounded stack's 10 MiB.
  add_kept_stack(profile, 2, 3 * kReportMiB, {0, 0, 0, 3});
  for (int64_t stack = 3; stack <= 4; ++stack) {
    add_kept_stack(profile, stack, 1024, {0, 0, 0, 1});
  }
  expect_judged_without_a_leak(profile);
}

TEST(HeapLeakReport, AHeapOfFewerSamplesThanAVerdictNeedsIsJudged) {
  // 4 samples, 64 MiB, and nothing else: fewer than one verdict needs, even pooled, so
  // counted judged as a build's short processes are (heap_leaks.h says why).
  store::HeapProfile profile = one_image_of_snapshots();
  add_kept_stack(profile, 2, 16 * kReportMiB, {0, 0, 0, 4});
  expect_judged_without_a_leak(profile);
}

TEST(HeapLeakReport, AnImageThatLeaksIsJudgedWhateverElseItHolds) {
  store::HeapProfile profile = one_image_of_snapshots();
  // Grew at three snapshots and kept it all: a leak, 8 MiB in 8 samples.
  add_kept_stack(profile, 1, 1 * kReportMiB, {2, 3, 3, 0});
  // 30 MiB in 5 samples too few to judge, more than half of the heap.
  add_kept_stack(profile, 2, 6 * kReportMiB, {0, 0, 0, 3});
  add_kept_stack(profile, 3, 6 * kReportMiB, {0, 0, 0, 2});
  HeapLeakReport report = report_of(profile);
  EXPECT_EQ(report.images_judged, 1);
  EXPECT_EQ(report.images_leaking, 1);
  ASSERT_EQ(report.leaks.size(), 1u);
  EXPECT_EQ(report.leaks[0].stack_id, 1);
  EXPECT_TRUE(report.unjudged.empty());
}

}  // namespace
}  // namespace canopy::analyze
