// Timeline on a real recording file written by the store's Writer, with figures worked
// out by hand: values carried forward between changes, processes counted only while
// alive, CPU as a rate, subtree peaks as simultaneous sums, and nearest-tick lookup.
#include <gtest/gtest.h>

#include "analyze/timeline.h"
#include "store/writer.h"
#include "support/temp_dir.h"
#include "support/units.h"

namespace canopy::analyze {
namespace {

using canopy::testing::TempDir;
using store::ProcessRow;
using store::SampleValues;

using testing::kMiB;
constexpr int64_t kFile = 4096;

SampleValues values(int64_t anon, int64_t cpu_ns) {
  SampleValues v;
  v[store::kRssAnonBytes] = anon;
  v[store::kRssFileBytes] = kFile;
  v[store::kRssShmemBytes] = 0;
  v[store::kSwapBytes] = 0;
  v[store::kCpuUserNs] = cpu_ns;
  v[store::kCpuSystemNs] = 0;
  v[store::kThreads] = 1;
  return v;
}

// Ticks every 100 ms from 1000 to 1500.
//   make (1)         alive 1000..1500: 1 MiB, 3 MiB from 1200; 50 ms of CPU by 1100
//   └─ cc (2)        alive 1100..1300: 10 MiB; started at 1050, 20 ms of CPU by 1100
//      └─ as (3)     alive at 1200 only: 5 MiB
class TimelineTest : public ::testing::Test {
 protected:
  void SetUp() override {
    path_ = dir_.file("t.canopy");
    auto writer = store::Writer::create(path_, false);
    ASSERT_TRUE(writer) << writer.error().message;
    writer->set_meta({.start_ms = 1000});
    writer->set_meta({.probes = "proc-stat,proc-statm"});
    auto add = [&](pid_t pid, std::optional<int64_t> parent, const char* name, int64_t start, int64_t first,
                   int64_t last) {
      ProcessRow row;
      row.pid = pid;
      row.start_ticks = pid;
      row.start_ms = start;
      row.parent_id = parent;
      row.name = name;
      row.first_seen_ms = first;
      row.id = writer->add_process(row);
      row.last_seen_ms = last;
      row.end_ms = last + 100;
      row.cpu_user_ns = 0;
      writer->update_process_end(row);
      return row.id;
    };
    int64_t make = add(100, std::nullopt, "make", 950, 1000, 1500);
    int64_t cc = add(101, make, "cc", 1050, 1100, 1300);
    int64_t as = add(102, cc, "as", 1150, 1200, 1200);
    writer->add_sample(1000, make, values(kMiB, 0));
    writer->add_sample(1100, make, values(kMiB, 50'000'000));
    writer->add_sample(1100, cc, values(10 * kMiB, 20'000'000));
    writer->add_sample(1200, make, values(3 * kMiB, 50'000'000));
    writer->add_sample(1200, as, values(5 * kMiB, 0));
    for (int64_t t = 1000; t <= 1500; t += 100) {
      store::TickRow tick;
      tick.t_ms = t;
      tick.mem_total_bytes = 1000 * kMiB;
      tick.mem_available_bytes = (900 - (t - 1000) / 100) * kMiB;
      writer->add_tick(tick);
    }
    ASSERT_TRUE(writer->finish());
    auto reader = store::Reader::open(path_);
    ASSERT_TRUE(reader) << reader.error().message;
    auto timeline = Timeline::load(*reader);
    ASSERT_TRUE(timeline) << timeline.error().message;
    timeline_.emplace(std::move(*timeline));
  }

  TempDir dir_;
  std::string path_;
  std::optional<Timeline> timeline_;
};

TEST_F(TimelineTest, TotalsCountEachProcessWhileAlive) {
  EXPECT_EQ(timeline_->totals(Metric::kRss),
            (std::vector<double>{kMiB + kFile, 11 * kMiB + 2 * kFile, 18 * kMiB + 3 * kFile,
                                 13 * kMiB + 2 * kFile, 3 * kMiB + kFile, 3 * kMiB + kFile}));
  EXPECT_EQ(timeline_->totals(Metric::kAnon),
            (std::vector<double>{kMiB, 11 * kMiB, 18 * kMiB, 13 * kMiB, 3 * kMiB, 3 * kMiB}));
  // make: 50 ms in the 100 ms to 1100 (50%); cc started within that interval, so all
  // of its 20 ms count there (20%).
  EXPECT_EQ(timeline_->totals(Metric::kCpu), (std::vector<double>{0, 70, 0, 0, 0, 0}));
}

TEST_F(TimelineTest, MetricsOfferPssOnlyWhenRecorded) {
  EXPECT_EQ(timeline_->metrics(), (std::vector<Metric>{Metric::kRss, Metric::kAnon, Metric::kSwap, Metric::kCpu}));
}

TEST_F(TimelineTest, SubtreePeaksAreSimultaneousSums) {
  const auto& subtrees = timeline_->subtrees();
  ASSERT_EQ(subtrees.size(), 3u);
  EXPECT_EQ(subtrees[0].peak_rss_bytes, 18 * kMiB + 3 * kFile);
  EXPECT_EQ(subtrees[0].peak_t_ms, 1200);
  EXPECT_EQ(subtrees[1].peak_rss_bytes, 15 * kMiB + 2 * kFile);
  EXPECT_EQ(subtrees[1].peak_t_ms, 1200);
  EXPECT_EQ(subtrees[2].peak_rss_bytes, 5 * kMiB + kFile);
}

TEST_F(TimelineTest, SeriesSlicesCoverTheLifetimes) {
  Series s = timeline_->series(Metric::kRss, 1000, 1500, 100);
  EXPECT_TRUE(s.exact);
  EXPECT_EQ(s.t_ms, (std::vector<int64_t>{1000, 1100, 1200, 1300, 1400, 1500}));
  EXPECT_EQ(s.mem_available_bytes.front(), 900 * kMiB);
  ASSERT_EQ(s.slices.size(), 3u);
  EXPECT_EQ(s.slices[0].offset, 0u);
  EXPECT_EQ(s.slices[0].values, (std::vector<double>{kMiB + kFile, kMiB + kFile, 3 * kMiB + kFile,
                                                      3 * kMiB + kFile, 3 * kMiB + kFile, 3 * kMiB + kFile}));
  EXPECT_EQ(s.slices[1].offset, 1u);
  EXPECT_EQ(s.slices[1].values, (std::vector<double>(3, 10 * kMiB + kFile)));
  EXPECT_EQ(s.slices[2].offset, 2u);
  EXPECT_EQ(s.slices[2].values, (std::vector<double>{5 * kMiB + kFile}));

  Series cpu = timeline_->series(Metric::kCpu, 1000, 1500, 100);
  EXPECT_EQ(cpu.slices[0].values, (std::vector<double>{0, 50, 0, 0, 0, 0}));
  EXPECT_EQ(cpu.slices[1].values, (std::vector<double>{20, 0, 0}));
  EXPECT_TRUE(cpu.mem_available_bytes.empty());
}

TEST_F(TimelineTest, DownsampledSeriesKeepsThePeak) {
  // Two points for 6 ticks: one bucket, its lowest (1000) and highest (1200) ticks.
  Series s = timeline_->series(Metric::kRss, 1000, 1500, 2);
  EXPECT_FALSE(s.exact);
  EXPECT_EQ(s.t_ms, (std::vector<int64_t>{1000, 1200}));
  EXPECT_EQ(s.total.back(), 18 * kMiB + 3 * kFile);
  ASSERT_EQ(s.slices.size(), 3u);
  EXPECT_EQ(s.slices[1].offset, 1u);  // cc is alive at the second point only
  EXPECT_EQ(s.slices[1].values.size(), 1u);
}

TEST_F(TimelineTest, AtTakesTheNearestTick) {
  auto m = timeline_->at(1180);
  ASSERT_TRUE(m);
  EXPECT_EQ(m->t_ms, 1200);
  ASSERT_EQ(m->processes.size(), 3u);
  EXPECT_EQ(m->processes[1].rss_bytes, 10 * kMiB + kFile);  // carried forward from 1100
  EXPECT_EQ(m->processes[1].cpu_percent, 0);                // no CPU since 1100
  EXPECT_EQ(m->rss_bytes, 18 * kMiB + 3 * kFile);
  EXPECT_EQ(m->mem_available_bytes, 898 * kMiB);
  EXPECT_EQ(m->mem_total_bytes, 1000 * kMiB);
  EXPECT_FALSE(m->pss_bytes);

  EXPECT_EQ(timeline_->at(1150)->t_ms, 1100);  // a tie goes to the earlier tick
  EXPECT_EQ(timeline_->at(0)->t_ms, 1000);
  EXPECT_EQ(timeline_->at(99'999)->t_ms, 1500);
  EXPECT_EQ(timeline_->at(1400)->processes.size(), 1u);
}

TEST_F(TimelineTest, AtTakesTheTickOnTheAskedSide) {
  using Side = Timeline::Side;
  EXPECT_EQ(timeline_->at(1180, Side::kAtOrBefore)->t_ms, 1100);
  EXPECT_EQ(timeline_->at(1120, Side::kAtOrAfter)->t_ms, 1200);
  EXPECT_EQ(timeline_->at(1200, Side::kAtOrBefore)->t_ms, 1200);  // on a tick: that tick
  EXPECT_EQ(timeline_->at(1200, Side::kAtOrAfter)->t_ms, 1200);
  // Outside the ticks: the first or the last.
  EXPECT_EQ(timeline_->at(0, Side::kAtOrBefore)->t_ms, 1000);
  EXPECT_EQ(timeline_->at(99'999, Side::kAtOrAfter)->t_ms, 1500);
  // cc's 20 ms of CPU by 1100 cover the interval holding 1050.
  EXPECT_EQ(timeline_->at(1050, Side::kAtOrAfter)->processes[1].cpu_percent, 20);
}

}  // namespace
}  // namespace canopy::analyze
