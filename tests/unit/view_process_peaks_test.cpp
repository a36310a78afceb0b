// The viewer's process peaks are the report's: a process too brief to sample shows the
// peak of its exit record or of the sample taken as it exited, its subtree at least
// that much, and a process a killed recorder left without figures shows its samples'
// peak. On a real recording file.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>

#include "analyze/summary.h"
#include "store/writer.h"
#include "support/process_rows.h"
#include "support/temp_dir.h"
#include "web/view_data.h"

namespace canopy::web {
namespace {

using canopy::testing::add_started_process;
using canopy::testing::TempDir;

constexpr int64_t kPeaksMiB = 1 << 20;
constexpr int64_t kPeaksFileBytes = 4096;

store::SampleValues peaks_sample(int64_t anon_bytes) {
  store::SampleValues v;
  v[store::kRssAnonBytes] = anon_bytes;
  v[store::kRssFileBytes] = kPeaksFileBytes;
  v[store::kRssShmemBytes] = 0;
  v[store::kSwapBytes] = 0;
  v[store::kCpuUserNs] = 7'000'000;
  v[store::kCpuSystemNs] = 0;
  v[store::kThreads] = 1;
  return v;
}

// Ticks every 100 ms, from `first_ms` to `last_ms`.
void add_peaks_ticks(store::Writer& writer, int64_t first_ms, int64_t last_ms) {
  for (int64_t t = first_ms; t <= last_ms; t += 100) {
    store::TickRow tick;
    tick.t_ms = t;
    writer.add_tick(tick);
  }
}

// Ticks every 100 ms from 1000 to 1500.
//   make (1)       alive throughout: 20 MiB; no figures written (a killed recorder's row)
//   └─ cc (2)      alive 1100..1200: 10 MiB, its high-water mark no higher
//      └─ ld (3)   forked at 1250, gone at 1260, between two ticks: never sampled; its
//                  exit record says 26 MiB
std::string peaks_recording(const TempDir& dir) {
  std::string path = dir.file("peaks.canopy");
  auto writer = store::Writer::create(path, false);
  EXPECT_TRUE(writer) << writer.error().message;
  writer->set_meta({.start_ms = 1000});
  store::ProcessRow make = add_started_process(*writer, 100, std::nullopt, "make", 1000);
  store::ProcessRow cc = add_started_process(*writer, 101, make.id, "cc", 1100);
  store::ProcessRow ld = add_started_process(*writer, 102, cc.id, "ld", 1250);
  writer->add_sample(1000, make.id, peaks_sample(20 * kPeaksMiB));
  writer->add_sample(1100, cc.id, peaks_sample(10 * kPeaksMiB));
  cc.last_seen_ms = 1200;
  cc.end_ms = 1210;
  cc.exit_code = 0;
  cc.peak_rss_bytes = 10 * kPeaksMiB + kPeaksFileBytes;
  cc.peak_rss_t_ms = 1100;
  cc.hwm_bytes = cc.peak_rss_bytes;
  cc.cpu_user_ns = 7'000'000;
  cc.cpu_system_ns = 0;
  writer->update_process_end(cc);
  ld.end_ms = 1260;
  ld.exit_code = 0;
  ld.hwm_bytes = 26 * kPeaksMiB;
  ld.cpu_user_ns = 3'000'000;
  ld.cpu_system_ns = 0;
  writer->update_process_end(ld);
  add_peaks_ticks(*writer, 1000, 1500);
  EXPECT_TRUE(writer->finish());
  return path;
}

class ViewProcessPeaksTest : public ::testing::Test {
 protected:
  void SetUp() override {
    path_ = peaks_recording(dir_);
    auto data = load_view_data(path_);
    ASSERT_TRUE(data) << data.error().message;
    for (const auto& p : data->recording["processes"]) {
      by_name_[p["name"].get<std::string>()] = p;
    }
    ASSERT_EQ(by_name_.size(), 3u);
  }

  TempDir dir_;
  std::string path_;
  std::map<std::string, nlohmann::json> by_name_;
};

TEST_F(ViewProcessPeaksTest, AProcessNoTickSawShowsItsExitRecordsPeak) {
  const auto& ld = by_name_["ld"];
  EXPECT_EQ(ld["peak_rss_bytes"], 26 * kPeaksMiB);
  EXPECT_TRUE(ld["peak_rss_ms"].is_null());  // no sample: reached at or before its end
  EXPECT_EQ(ld["end_ms"], 1260);
  EXPECT_EQ(ld["peak_from_exit_record"], true);
  EXPECT_EQ(ld["subtree_peak_rss_bytes"], 26 * kPeaksMiB);
  EXPECT_EQ(ld["subtree_peak_at_least"], true);
}

TEST_F(ViewProcessPeaksTest, SubtreesHoldAtLeastTheirMembersPeaks) {
  // cc's own ticks saw 10 MiB; its child held 26 MiB while cc lived.
  const auto& cc = by_name_["cc"];
  EXPECT_EQ(cc["peak_rss_bytes"], 10 * kPeaksMiB + kPeaksFileBytes);
  EXPECT_EQ(cc["peak_from_exit_record"], false);
  EXPECT_EQ(cc["subtree_peak_rss_bytes"], 26 * kPeaksMiB);
  EXPECT_EQ(cc["subtree_peak_ms"], 1260);
  EXPECT_EQ(cc["subtree_peak_at_least"], true);
  // make's tick at 1100 saw more than ld's record: 20 + 10 MiB and two files' pages.
  const auto& make = by_name_["make"];
  EXPECT_EQ(make["subtree_peak_rss_bytes"], 30 * kPeaksMiB + 2 * kPeaksFileBytes);
  EXPECT_EQ(make["subtree_peak_ms"], 1100);
  EXPECT_EQ(make["subtree_peak_at_least"], false);
}

TEST_F(ViewProcessPeaksTest, ARowWithoutFiguresTakesItsSamples) {
  const auto& make = by_name_["make"];
  EXPECT_EQ(make["peak_rss_bytes"], 20 * kPeaksMiB + kPeaksFileBytes);
  EXPECT_EQ(make["peak_rss_ms"], 1000);
  EXPECT_EQ(make["cpu_ns"], 7'000'000);
}

TEST_F(ViewProcessPeaksTest, EveryPeakIsTheReportsPeak) {
  auto reader = store::Reader::open(path_);
  ASSERT_TRUE(reader) << reader.error().message;
  auto summary = analyze::summarize(*reader, 10);
  ASSERT_TRUE(summary) << summary.error().message;
  ASSERT_EQ(summary->top.size(), 3u);
  for (const analyze::ProcessPeak& peak : summary->top) {
    const auto& shown = by_name_[peak.name];
    EXPECT_EQ(shown["peak_rss_bytes"], peak.peak_rss_bytes) << peak.name;
    if (!peak.peak_from_exit_record) {
      EXPECT_EQ(shown["peak_rss_ms"], summary->start_ms + peak.peak_t_ms) << peak.name;
    }
    EXPECT_EQ(shown["peak_from_exit_record"], peak.peak_from_exit_record) << peak.name;
  }
}

// A compile as a 2-core build records it (ticks every 100 ms from 1000 to 1300):
//   cc (1)        alive 1000..1200: 4 MiB at each tick
//   ├─ cc1 (2)    forked at 1110, gone at 1150: no tick saw it; the sample taken as it
//   │             exited read 32 MiB, which its high-water mark equals
//   └─ as (3)     forked at 1160, gone at 1165: never sampled; its exit record says 5 MiB
std::string exit_sample_recording(const TempDir& dir) {
  std::string path = dir.file("exit-sample.canopy");
  auto writer = store::Writer::create(path, false);
  EXPECT_TRUE(writer) << writer.error().message;
  writer->set_meta({.start_ms = 1000});
  store::ProcessRow cc = add_started_process(*writer, 200, std::nullopt, "cc", 1000);
  store::ProcessRow cc1 = add_started_process(*writer, 201, cc.id, "cc1", 1110);
  store::ProcessRow as = add_started_process(*writer, 202, cc.id, "as", 1160);
  for (int64_t t : {1000, 1100, 1200}) {
    writer->add_sample(t, cc.id, peaks_sample(4 * kPeaksMiB - kPeaksFileBytes));
  }
  writer->add_sample(1150, cc1.id, peaks_sample(32 * kPeaksMiB - kPeaksFileBytes));
  cc1.last_seen_ms = 1150;
  cc1.end_ms = 1150;
  cc1.exit_code = 0;
  cc1.peak_rss_bytes = 32 * kPeaksMiB;
  cc1.peak_rss_t_ms = 1150;
  cc1.hwm_bytes = 32 * kPeaksMiB;
  writer->update_process_end(cc1);
  as.end_ms = 1165;
  as.exit_code = 0;
  as.hwm_bytes = 5 * kPeaksMiB;
  writer->update_process_end(as);
  add_peaks_ticks(*writer, 1000, 1300);
  EXPECT_TRUE(writer->finish());
  return path;
}

TEST(ViewProcessPeaks, APeakSampledAsTheProcessExitedIsAFloorForItsSubtrees) {
  TempDir dir;
  auto data = load_view_data(exit_sample_recording(dir));
  ASSERT_TRUE(data) << data.error().message;
  std::map<std::string, nlohmann::json> by_name;
  for (const auto& p : data->recording["processes"]) {
    by_name[p["name"].get<std::string>()] = p;
  }
  const auto& cc1 = by_name["cc1"];
  EXPECT_EQ(cc1["peak_rss_bytes"], 32 * kPeaksMiB);
  EXPECT_EQ(cc1["peak_from_exit_record"], false);  // a sample's, though no tick's
  EXPECT_EQ(cc1["subtree_peak_rss_bytes"], 32 * kPeaksMiB);
  // The compiler driver held its own 4 MiB as well, but no tick says how much at once.
  const auto& cc = by_name["cc"];
  EXPECT_EQ(cc["subtree_peak_rss_bytes"], 32 * kPeaksMiB);
  EXPECT_EQ(cc["subtree_peak_ms"], 1150);
  EXPECT_EQ(cc["subtree_peak_at_least"], true);
  EXPECT_EQ(by_name["as"]["subtree_peak_rss_bytes"], 5 * kPeaksMiB);
}

}  // namespace
}  // namespace canopy::web
