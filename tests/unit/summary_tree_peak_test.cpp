// The tree's peak memory: the highest sum over the tree at a tick, or a process's own
// peak when that is higher. A tree that ended before a tick could sample it read 0 B,
// and --max-peak then passed whatever it held.
#include <gtest/gtest.h>

#include "analyze/budget.h"
#include "analyze/summary.h"
#include "report/summary_format.h"
#include "store/reader.h"
#include "store/writer.h"
#include "support/process_rows.h"
#include "support/temp_dir.h"

namespace canopy::analyze {
namespace {

using canopy::testing::add_started_process;
using canopy::testing::TempDir;

constexpr int64_t kTreePeakMiB = 1 << 20;

// From 1000 to 1500, ticks every 100 ms whose sums are `tick_sum` (from 1100, one
// interval after the start; none with 0):
//   make (100)   alive throughout, `tick_sum` at each tick
//   └─ ld (101)  forked at 1250, gone at 1260, between two ticks: its exit record
//                says 26 MiB
std::string tree_peak_recording(const TempDir& dir, int64_t tick_sum) {
  std::string path = dir.file("tree.canopy");
  auto writer = store::Writer::create(path, false);
  EXPECT_TRUE(writer) << writer.error().message;
  writer->set_meta({.start_ms = 1000});
  writer->set_meta({.end_ms = 1500});
  writer->set_meta({.interval_ms = 100});
  store::ProcessRow make = add_started_process(*writer, 100, std::nullopt, "make", 1000);
  store::ProcessRow ld = add_started_process(*writer, 101, make.id, "ld", 1250);
  ld.end_ms = 1260;
  ld.exit_code = 0;
  ld.hwm_bytes = 26 * kTreePeakMiB;
  writer->update_process_end(ld);
  make.last_seen_ms = 1500;
  make.end_ms = 1500;
  make.exit_code = 0;
  make.peak_rss_bytes = tick_sum;
  make.peak_rss_t_ms = tick_sum ? 1100 : std::optional<int64_t>();
  writer->update_process_end(make);
  for (int64_t t = 1100; t <= 1500 && tick_sum > 0; t += 100) {
    store::TickRow tick;
    tick.t_ms = t;
    tick.processes = 1;
    tick.rss_bytes = tick_sum;
    writer->add_tick(tick);
  }
  EXPECT_TRUE(writer->finish());
  return path;
}

struct TreePeakRead {
  Summary summary;
  std::vector<BudgetVerdict> budgets;
};

TreePeakRead read_tree_peak(const std::string& path, int64_t max_peak) {
  auto reader = store::Reader::open(path);
  EXPECT_TRUE(reader) << reader.error().message;
  auto summary = summarize(*reader);
  EXPECT_TRUE(summary) << summary.error().message;
  Budget budget;
  budget.limit = max_peak;
  budget.flag = "--max-peak " + std::to_string(max_peak);
  auto budgets = check_budgets(*reader, *summary, {budget});
  EXPECT_TRUE(budgets) << budgets.error().message;
  return {*summary, *budgets};
}

TEST(SummaryTreePeak, AProcessThatPeakedBetweenTicksIsAFloorForTheTree) {
  TempDir dir;
  auto [s, budgets] = read_tree_peak(tree_peak_recording(dir, 20 * kTreePeakMiB), 25 * kTreePeakMiB);
  EXPECT_EQ(s.sampled_peak_tree_rss_bytes, 20 * kTreePeakMiB);
  EXPECT_EQ(s.peak_tree_rss_bytes, 26 * kTreePeakMiB);
  EXPECT_EQ(s.peak_tree_t_ms, 260) << "by its end: an exit record's peak has no time of its own";
  ASSERT_TRUE(s.peak_tree_process);
  EXPECT_EQ(s.peak_tree_process->name, "ld");
  EXPECT_NE(report::summary_text(s, "tree.canopy")
                .find("peak memory        at least 26.0 MiB resident, whole tree: ld's own (pid 101) by +0.260 s, "
                      "between ticks (sampled every 100 ms; the highest sum 20.0 MiB)\n"),
            std::string::npos)
      << report::summary_text(s, "tree.canopy");
  // The budget is held to the same figure: 26 MiB is over 25 MiB, though no tick was.
  ASSERT_EQ(budgets.size(), 1u);
  EXPECT_TRUE(budgets[0].over);
  EXPECT_EQ(budgets[0].used, 26 * kTreePeakMiB);
  ASSERT_TRUE(budgets[0].culprit);
  EXPECT_EQ(budgets[0].culprit->name, "ld");
}

TEST(SummaryTreePeak, ATreeThatEndedBeforeATickIsNotAtZero) {
  TempDir dir;
  auto [s, budgets] = read_tree_peak(tree_peak_recording(dir, 0), 25 * kTreePeakMiB);
  EXPECT_EQ(s.peak_tree_rss_bytes, 26 * kTreePeakMiB);
  EXPECT_NE(report::summary_text(s, "tree.canopy")
                .find("peak memory        at least 26.0 MiB resident, whole tree: ld's own (pid 101) by +0.260 s; "
                      "the tree ended before a tick could sample it (sampled every 100 ms)\n"),
            std::string::npos)
      << report::summary_text(s, "tree.canopy");
  ASSERT_EQ(budgets.size(), 1u);
  EXPECT_TRUE(budgets[0].over) << "used " << budgets[0].used;
}

TEST(SummaryTreePeak, TicksAboveEveryProcesssOwnPeakAreTheFigure) {
  TempDir dir;
  auto [s, budgets] = read_tree_peak(tree_peak_recording(dir, 30 * kTreePeakMiB), 25 * kTreePeakMiB);
  EXPECT_EQ(s.peak_tree_rss_bytes, 30 * kTreePeakMiB);
  EXPECT_EQ(s.peak_tree_t_ms, 100);
  EXPECT_FALSE(s.peak_tree_process);
  EXPECT_NE(report::summary_text(s, "tree.canopy")
                .find("peak memory        30.0 MiB resident, whole tree, at +0.100 s (sampled every 100 ms)\n"),
            std::string::npos)
      << report::summary_text(s, "tree.canopy");
  EXPECT_EQ(report::summary_json_object(s, "tree.canopy")["peak_tree_at_least"], false);
}

}  // namespace
}  // namespace canopy::analyze
