// The growth analysis on recordings written through the store's Writer, with figures
// worked out by hand: a line of known slope, a rise that returns, a step that holds, a
// life too short to judge.
#include "analyze/growth.h"

#include <gtest/gtest.h>

#include <functional>

#include "store/reader.h"
#include "store/writer.h"
#include "support/temp_dir.h"

namespace canopy::analyze {
namespace {

using canopy::testing::TempDir;

constexpr int64_t kMiB = 1 << 20;
constexpr int64_t kStartMs = 1'700'000'000'000;
constexpr int64_t kIntervalMs = 100;

// One process sampled every 100 ms for `life_ms`; `rss_at` and `cpu_at` give its
// resident memory and cumulative CPU at each moment (ms since its start).
struct Shape {
  int64_t life_ms;
  std::function<int64_t(int64_t)> rss_at;
  std::function<int64_t(int64_t)> cpu_at;
  // A last sample caught while the kernel tears the process down: no address space.
  bool torn_down_at_exit = false;
  // CPU its exit took (unmapping, closing), in the zombie's final figures at its end.
  int64_t exit_cpu_ns = 0;
};

Result<GrowthReport> growth_of(const TempDir& dir, const Shape& shape) {
  std::string path = dir.file("growth.canopy");
  {
    auto writer = store::Writer::create(path, false);
    if (!writer) {
      return writer.error();
    }
    store::ProcessRow row;
    row.pid = 4242;
    row.name = "server";
    row.start_ms = kStartMs;
    row.first_seen_ms = kStartMs;
    row.id = writer->add_process(row);
    for (int64_t t = 0; t <= shape.life_ms; t += kIntervalMs) {
      store::SampleValues v;
      v[store::kRssAnonBytes] = shape.rss_at(t);
      v[store::kRssFileBytes] = 0;
      v[store::kRssShmemBytes] = 0;
      v[store::kCpuUserNs] = shape.cpu_at(t);
      v[store::kCpuSystemNs] = 0;
      writer->add_sample(kStartMs + t, row.id, v);
    }
    if (shape.torn_down_at_exit) {
      store::SampleValues gone;
      gone[store::kRssAnonBytes] = 0;
      gone[store::kRssFileBytes] = 0;
      gone[store::kRssShmemBytes] = 0;
      gone[store::kVmSizeBytes] = 0;
      gone[store::kCpuUserNs] = shape.cpu_at(shape.life_ms);
      gone[store::kCpuSystemNs] = 0;
      writer->add_sample(kStartMs + shape.life_ms, row.id, gone);
    }
    if (shape.exit_cpu_ns > 0) {
      store::SampleValues zombie;  // its memory as it was, its CPU final
      zombie[store::kRssAnonBytes] = shape.rss_at(shape.life_ms);
      zombie[store::kRssFileBytes] = 0;
      zombie[store::kRssShmemBytes] = 0;
      zombie[store::kCpuUserNs] = shape.cpu_at(shape.life_ms) + shape.exit_cpu_ns;
      zombie[store::kCpuSystemNs] = 0;
      writer->add_sample(kStartMs + shape.life_ms, row.id, zombie);
    }
    row.end_ms = kStartMs + shape.life_ms;
    row.last_seen_ms = row.end_ms;
    writer->update_process_end(row);
    if (auto finished = writer->finish(); !finished) {
      return finished.error();
    }
  }
  auto reader = store::Reader::open(path);
  if (!reader) {
    return reader.error();
  }
  auto processes = reader->processes();
  if (!processes) {
    return processes.error();
  }
  return analyze_growth(*reader, *processes, kIntervalMs, kStartMs + shape.life_ms);
}

// Busy at half a core all along.
int64_t half_core(int64_t t_ms) { return t_ms * 500'000; }

TEST(Growth, ALineIsSteadyWithItsSlope) {
  // 10 MiB, then 1 MiB more per second for a minute: 60 MiB/min.
  TempDir dir;
  auto report = growth_of(dir, {60'000, [](int64_t t) { return 10 * kMiB + t * kMiB / 1000; }, half_core});
  ASSERT_TRUE(report) << report.error().message;
  EXPECT_EQ(report->judged, 1);
  ASSERT_EQ(report->findings.size(), 1u);
  const GrowthFinding& f = report->findings[0];
  EXPECT_EQ(f.verdict, GrowthFinding::Verdict::kSteady);
  EXPECT_EQ(f.pid, 4242);
  EXPECT_EQ(f.span_ms, 60'000);
  EXPECT_EQ(f.ticks, 600);
  EXPECT_NEAR(f.slope_bytes_per_min, 60.0 * kMiB, 0.01 * 60 * kMiB);
  EXPECT_GT(f.r_squared, 0.999);
  EXPECT_TRUE(f.monotonic);
  // Judged from the end of the first tenth (6 s, 16 MiB) to the end (70 MiB).
  EXPECT_NEAR(static_cast<double>(f.start_bytes), 16.0 * kMiB, 0.3 * kMiB);
  EXPECT_EQ(f.max_bytes, 70 * kMiB);
  EXPECT_EQ(f.end_bytes, 70 * kMiB);
  EXPECT_EQ(f.idle_after_max_ms, 0);
  EXPECT_FALSE(f.idle_at_end);
}

TEST(Growth, MemoryTornDownAtExitIsNotAReturn) {
  // The same line, its last sample taken as the process exits (statm all zeros).
  TempDir dir;
  auto report = growth_of(dir, {60'000, [](int64_t t) { return 10 * kMiB + t * kMiB / 1000; }, half_core, true});
  ASSERT_TRUE(report) << report.error().message;
  ASSERT_EQ(report->findings.size(), 1u);
  EXPECT_EQ(report->findings[0].verdict, GrowthFinding::Verdict::kSteady);
  EXPECT_GE(report->findings[0].end_bytes, 69 * kMiB);
}

TEST(Growth, ARiseThatFallsBackWhenIdleReturned) {
  // Under load for 30 s: up 100 MiB over 20 s, down again by 30 s; then idle to 60 s.
  TempDir dir;
  auto rss = [](int64_t t) {
    if (t < 20'000) return 5 * kMiB + t * 100 * kMiB / 20'000;
    if (t < 30'000) return 105 * kMiB - (t - 20'000) * 100 * kMiB / 10'000;
    return 5 * kMiB;
  };
  auto cpu = [](int64_t t) { return std::min<int64_t>(t, 30'000) * 1'000'000; };
  auto report = growth_of(dir, {60'000, rss, cpu});
  ASSERT_TRUE(report) << report.error().message;
  ASSERT_EQ(report->findings.size(), 1u);
  const GrowthFinding& f = report->findings[0];
  EXPECT_EQ(f.verdict, GrowthFinding::Verdict::kReturned);
  EXPECT_FALSE(f.monotonic);
  EXPECT_EQ(f.end_bytes, 5 * kMiB);
  EXPECT_TRUE(f.idle_at_end);
  // Idle from 30 s on, after its highest at 20 s: 30 s idle.
  EXPECT_NEAR(static_cast<double>(f.idle_after_max_ms), 30'000, 500);
}

TEST(Growth, TheExitsOwnCpuDoesNotMakeTheEndBusy) {
  // Up 100 MiB under load for 10 s, given back, asleep from 10 s to the end at 60 s;
  // its exit took 200 ms of CPU, far over the 1% of a core that is idle.
  TempDir dir;
  auto rss = [](int64_t t) { return (t < 10'000 ? 5 + t * 100 / 10'000 : 5) * kMiB; };
  auto cpu = [](int64_t t) { return std::min<int64_t>(t, 10'000) * 1'000'000; };
  Shape shape{60'000, rss, cpu};
  shape.exit_cpu_ns = 200'000'000;
  auto report = growth_of(dir, shape);
  ASSERT_TRUE(report) << report.error().message;
  ASSERT_EQ(report->findings.size(), 1u);
  const GrowthFinding& f = report->findings[0];
  EXPECT_EQ(f.verdict, GrowthFinding::Verdict::kReturned);
  EXPECT_TRUE(f.idle_at_end);
  // Idle from 10 s, its highest, to the end: all 50 s of it.
  EXPECT_NEAR(static_cast<double>(f.idle_after_max_ms), 50'000, 500);
}

TEST(Growth, AStepThatStaysUpIsHeldNotSteady) {
  // 20 MiB, then 50 MiB more at once at 30 s, kept to the end.
  TempDir dir;
  auto report = growth_of(dir, {60'000, [](int64_t t) { return (t < 30'000 ? 20 : 70) * kMiB; }, half_core});
  ASSERT_TRUE(report) << report.error().message;
  ASSERT_EQ(report->findings.size(), 1u);
  const GrowthFinding& f = report->findings[0];
  EXPECT_EQ(f.verdict, GrowthFinding::Verdict::kHeld);
  EXPECT_TRUE(f.monotonic);
  EXPECT_LT(f.r_squared, 0.8);
  EXPECT_EQ(f.max_bytes - f.start_bytes, 50 * kMiB);
}

TEST(Growth, SmallOrEarlyRisesAreNotFindings) {
  TempDir dir;
  // 4 MiB over a minute: below the 8 MiB that makes a finding.
  auto small = growth_of(dir, {60'000, [](int64_t t) { return 100 * kMiB + t * 4 * kMiB / 60'000; }, half_core});
  ASSERT_TRUE(small);
  EXPECT_EQ(small->judged, 1);
  EXPECT_TRUE(small->findings.empty());
  // 200 MiB in the first second (start-up), flat afterwards.
  TempDir other;
  auto startup = growth_of(other, {60'000, [](int64_t t) { return std::min<int64_t>(t, 1000) * 200 * kMiB / 1000; }, half_core});
  ASSERT_TRUE(startup);
  EXPECT_TRUE(startup->findings.empty());
}

TEST(Growth, TooShortToJudge) {
  // 2.9 s: under the 3 s a judgement needs, however many ticks.
  TempDir dir;
  auto report = growth_of(dir, {2'900, [](int64_t t) { return t * kMiB; }, half_core});
  ASSERT_TRUE(report);
  EXPECT_EQ(report->judged, 0);
  EXPECT_TRUE(report->findings.empty());
}

}  // namespace
}  // namespace canopy::analyze
