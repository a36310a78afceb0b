// Which CPU figure the summary gives: the kernel's account of the waited-for children
// (getrusage, as `time` reports it) whenever every process of the tree ended, the sum
// of the processes' own figures otherwise; never the larger of the two.
#include <gtest/gtest.h>

#include "analyze/summary.h"
#include "store/reader.h"
#include "store/writer.h"
#include "support/temp_dir.h"
#include "support/units.h"

namespace canopy::analyze {
namespace {

using canopy::testing::TempDir;

using testing::kNsPerMs;
constexpr int64_t kSummaryStartMs = 1'000'000;

// A run-mode recording of two processes of 300 ms each (200 user, 100 system), whose
// per-process figures round a little above the kernel's own total of 590 ms.
std::string write(const TempDir& dir, bool second_still_running) {
  std::string path = dir.file("r.canopy");
  auto writer = store::Writer::create(path, false);
  EXPECT_TRUE(writer) << writer.error().message;
  writer->set_meta({.mode = "run"});
  writer->set_meta({.start_ms = kSummaryStartMs});
  writer->set_meta({.end_ms = kSummaryStartMs + 1000});
  writer->set_meta({.tree_cpu_user_ns = 395 * kNsPerMs});
  writer->set_meta({.tree_cpu_system_ns = 195 * kNsPerMs});
  for (int i = 0; i < 2; ++i) {
    store::ProcessRow row;
    row.pid = 100 + i;
    row.start_ticks = i;
    row.start_ms = kSummaryStartMs;
    row.name = "p";
    row.first_seen_ms = kSummaryStartMs;
    row.id = writer->add_process(row);
    if (!(second_still_running && i == 1)) {
      row.end_ms = kSummaryStartMs + 900;
    }
    row.last_seen_ms = kSummaryStartMs + 900;
    row.peak_rss_bytes = 1 << 20;
    row.peak_rss_t_ms = kSummaryStartMs;
    row.cpu_user_ns = 200 * kNsPerMs;
    row.cpu_system_ns = 100 * kNsPerMs;
    writer->update_process_end(row);
  }
  EXPECT_TRUE(writer->finish());
  return path;
}

Summary summary_of(const std::string& path) {
  auto reader = store::Reader::open(path);
  EXPECT_TRUE(reader) << reader.error().message;
  auto summary = summarize(*reader);
  EXPECT_TRUE(summary) << summary.error().message;
  return *summary;
}

TEST(SummaryCpu, EveryProcessEndedSoTheKernelsTotalIsTheFigure) {
  TempDir dir;
  Summary s = summary_of(write(dir, false));
  EXPECT_TRUE(s.cpu_exact);
  EXPECT_EQ(s.cpu_user_ns, 395 * kNsPerMs);
  EXPECT_EQ(s.cpu_system_ns, 195 * kNsPerMs);
}

TEST(SummaryCpu, AProcessStillRunningWasNotWaitedForSoTheProcessesAreSummed) {
  TempDir dir;
  Summary s = summary_of(write(dir, true));
  EXPECT_FALSE(s.cpu_exact);
  EXPECT_EQ(s.cpu_user_ns, 400 * kNsPerMs);
  EXPECT_EQ(s.cpu_system_ns, 200 * kNsPerMs);
}

}  // namespace
}  // namespace canopy::analyze
