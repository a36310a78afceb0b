// The growth analysis on recordings written through the store's Writer, with figures
// worked out by hand: a line of known slope, a rise that returns, a step that holds, a
// life too short to judge, and the edges of the rule for a claim: growth sustained over
// half the life, and memory still held at the end (still running, stopped by the
// recording, or held while idle for a tenth of the life before exiting).
#include "analyze/growth.h"

#include <gtest/gtest.h>

#include <functional>
#include <optional>

#include "store/reader.h"
#include "store/writer.h"
#include "support/temp_dir.h"
#include "support/units.h"

namespace canopy::analyze {
namespace {

using canopy::testing::TempDir;

using testing::kMiB;
constexpr int64_t kGrowthStartMs = 1'700'000'000'000;
constexpr int64_t kIntervalMs = 100;

// How the process's life ends in the recording.
enum class End {
  kExits,              // on its own, at `life_ms`
  kStillRunning,       // the recording ends at `life_ms` with the process alive
  kStoppedAtTheLast2s,  // the recording stops the tree 2 s before its exit at `life_ms`
};

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
  End end = End::kExits;
  // The recorder starved from then on (a loaded machine): no tick, no sample, until
  // after the process's end.
  std::optional<int64_t> recorder_starved_from_ms = std::nullopt;
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
    row.start_ms = kGrowthStartMs;
    row.first_seen_ms = kGrowthStartMs;
    row.id = writer->add_process(row);
    for (int64_t t = 0; t <= shape.life_ms; t += kIntervalMs) {
      if (shape.recorder_starved_from_ms && t > *shape.recorder_starved_from_ms) {
        break;
      }
      store::TickRow tick;
      tick.t_ms = kGrowthStartMs + t;
      writer->add_tick(tick);
      store::SampleValues v;
      v[store::kRssAnonBytes] = shape.rss_at(t);
      v[store::kRssFileBytes] = 0;
      v[store::kRssShmemBytes] = 0;
      v[store::kCpuUserNs] = shape.cpu_at(t);
      v[store::kCpuSystemNs] = 0;
      writer->add_sample(kGrowthStartMs + t, row.id, v);
    }
    if (shape.torn_down_at_exit) {
      store::SampleValues gone;
      gone[store::kRssAnonBytes] = 0;
      gone[store::kRssFileBytes] = 0;
      gone[store::kRssShmemBytes] = 0;
      gone[store::kVmSizeBytes] = 0;
      gone[store::kCpuUserNs] = shape.cpu_at(shape.life_ms);
      gone[store::kCpuSystemNs] = 0;
      writer->add_sample(kGrowthStartMs + shape.life_ms, row.id, gone);
    }
    if (shape.exit_cpu_ns > 0) {
      store::SampleValues zombie;  // its memory as it was, its CPU final
      zombie[store::kRssAnonBytes] = shape.rss_at(shape.life_ms);
      zombie[store::kRssFileBytes] = 0;
      zombie[store::kRssShmemBytes] = 0;
      zombie[store::kCpuUserNs] = shape.cpu_at(shape.life_ms) + shape.exit_cpu_ns;
      zombie[store::kCpuSystemNs] = 0;
      writer->add_sample(kGrowthStartMs + shape.life_ms, row.id, zombie);
    }
    if (shape.end != End::kStillRunning) {
      row.end_ms = kGrowthStartMs + shape.life_ms;
    }
    row.last_seen_ms = kGrowthStartMs + shape.life_ms;
    writer->update_process_end(row);
    if (shape.end == End::kStoppedAtTheLast2s) {
      writer->set_meta({.tree_stopped_ms = kGrowthStartMs + shape.life_ms - 2000});
    }
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
  return analyze_growth(*reader, *processes, kIntervalMs, kGrowthStartMs + shape.life_ms);
}

// Busy at half a core all along.
int64_t half_core(int64_t t_ms) { return t_ms * 500'000; }

// 10 MiB, then 1 MiB more per second: 60 MiB/min.
int64_t a_mib_a_second(int64_t t_ms) { return 10 * kMiB + t_ms * kMiB / 1000; }

TEST(Growth, ALineStillRunningAtTheEndIsSteadyWithItsSlope) {
  // A minute of it, still running when the recording ends.
  TempDir dir;
  Shape shape{60'000, a_mib_a_second, half_core};
  shape.end = End::kStillRunning;
  auto report = growth_of(dir, shape);
  ASSERT_TRUE(report) << report.error().message;
  EXPECT_EQ(report->judged, 1);
  ASSERT_EQ(report->findings.size(), 1u);
  const GrowthFinding& f = report->findings[0];
  EXPECT_EQ(f.verdict, GrowthFinding::Verdict::kSteady);
  EXPECT_EQ(f.ending, GrowthFinding::Ending::kRunning);
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
  EXPECT_EQ(report->exited_while_busy, 0);
}

TEST(Growth, ALineThatExitsWhileGrowingIsNoClaim) {
  // The same line, busy to the end and exiting at its highest: a compiler. The kernel
  // frees its memory at the exit; nothing is claimed, only counted.
  TempDir dir;
  auto report = growth_of(dir, {60'000, a_mib_a_second, half_core});
  ASSERT_TRUE(report) << report.error().message;
  EXPECT_EQ(report->judged, 1);
  EXPECT_TRUE(report->findings.empty());
  EXPECT_EQ(report->exited_while_busy, 1);
}

TEST(Growth, HeldWhileBusyUntilItsExitIsNoClaim) {
  // Up 30 MiB over 30 s, then flat and still working with it (half a core) until it
  // exits at 60 s: a compiler's code generation after its parse.
  TempDir dir;
  auto rss = [](int64_t t) { return 10 * kMiB + std::min<int64_t>(t, 30'000) * kMiB / 1000; };
  auto report = growth_of(dir, {60'000, rss, half_core});
  ASSERT_TRUE(report) << report.error().message;
  EXPECT_TRUE(report->findings.empty());
  EXPECT_EQ(report->exited_while_busy, 1);
}

// Up 1 MiB a second for 40 s under half a core, flat and busy until `idle_from_ms`,
// then asleep holding it until its exit at 60 s.
Shape grows_then_sleeps_from(int64_t idle_from_ms) {
  auto rss = [](int64_t t) { return 10 * kMiB + std::min<int64_t>(t, 40'000) * kMiB / 1000; };
  auto cpu = [idle_from_ms](int64_t t) { return std::min(t, idle_from_ms) * 500'000; };
  return {60'000, rss, cpu};
}

TEST(Growth, AnExitedProcessIsClaimedOnlyWhenItHeldItIdleForATenthOfItsLife) {
  // A tenth of its 60 s life is 6 s. Asleep from 53.4 s: the 250 ms buckets from
  // 53.5 s on, 6.5 s of them, are idle.
  TempDir dir;
  auto held = growth_of(dir, grows_then_sleeps_from(53'400));
  ASSERT_TRUE(held) << held.error().message;
  ASSERT_EQ(held->findings.size(), 1u);
  const GrowthFinding& f = held->findings[0];
  EXPECT_EQ(f.verdict, GrowthFinding::Verdict::kSteady);
  EXPECT_EQ(f.ending, GrowthFinding::Ending::kExited);
  EXPECT_NEAR(static_cast<double>(f.idle_after_max_ms), 6'500, 1);
  EXPECT_EQ(held->exited_while_busy, 0);
  // Asleep from 54.6 s: 5.25 s idle, under the tenth.
  TempDir other;
  auto brief = growth_of(other, grows_then_sleeps_from(54'600));
  ASSERT_TRUE(brief) << brief.error().message;
  EXPECT_TRUE(brief->findings.empty());
  EXPECT_EQ(brief->exited_while_busy, 1);
}

// Still running at 60 s, up 1 MiB a second until `until_ms`, flat afterwards.
Shape grows_until(int64_t until_ms) {
  auto rss = [until_ms](int64_t t) { return 10 * kMiB + std::min(t, until_ms) * kMiB / 1000; };
  Shape shape{60'000, rss, half_core};
  shape.end = End::kStillRunning;
  return shape;
}

TEST(Growth, WhatTheRecorderMissedIsNotIdle) {
  // Up 1 MiB a second to 40 s, then flat and busy until its exit at 60 s; the recorder
  // saw nothing after 50 s. Those 10 s are not idle: it was still busy when last seen.
  TempDir dir;
  Shape shape = grows_then_sleeps_from(60'000);
  shape.recorder_starved_from_ms = 50'000;
  auto report = growth_of(dir, shape);
  ASSERT_TRUE(report) << report.error().message;
  EXPECT_TRUE(report->findings.empty());
  EXPECT_EQ(report->exited_while_busy, 1);
}

TEST(Growth, SteadyOnlyWhenTheGrowthLastedHalfItsLife) {
  // Judged from 6 s (the first tenth is start-up): growth to 39 s is 33 s of the
  // 60 s life, over half; to 33 s it is 27 s, under, and only state that is kept.
  TempDir dir;
  auto sustained = growth_of(dir, grows_until(39'000));
  ASSERT_TRUE(sustained) << sustained.error().message;
  ASSERT_EQ(sustained->findings.size(), 1u);
  EXPECT_EQ(sustained->findings[0].verdict, GrowthFinding::Verdict::kSteady);
  EXPECT_NEAR(static_cast<double>(sustained->findings[0].growth_ms), 33'000, 500);
  TempDir other;
  auto brief = growth_of(other, grows_until(33'000));
  ASSERT_TRUE(brief) << brief.error().message;
  ASSERT_EQ(brief->findings.size(), 1u);
  EXPECT_EQ(brief->findings[0].verdict, GrowthFinding::Verdict::kHeld);
  EXPECT_GT(brief->findings[0].r_squared, 0.99);  // a line, but too short a share of its life
  EXPECT_NEAR(static_cast<double>(brief->findings[0].growth_ms), 27'000, 500);
}

TEST(Growth, StoppedByTheRecordingIsJudgedUpToTheStop) {
  // The line until the recording stops the tree at 58 s; it gives its memory back
  // while shutting down (down to 10 MiB) and exits at 60 s. Judged up to 58 s, it was
  // still growing when stopped.
  TempDir dir;
  auto rss = [](int64_t t) { return t <= 58'000 ? a_mib_a_second(t) : 10 * kMiB; };
  Shape shape{60'000, rss, half_core};
  shape.end = End::kStoppedAtTheLast2s;
  auto report = growth_of(dir, shape);
  ASSERT_TRUE(report) << report.error().message;
  ASSERT_EQ(report->findings.size(), 1u);
  const GrowthFinding& f = report->findings[0];
  EXPECT_EQ(f.verdict, GrowthFinding::Verdict::kSteady);
  EXPECT_EQ(f.ending, GrowthFinding::Ending::kStopped);
  EXPECT_EQ(f.span_ms, 58'000);
  EXPECT_EQ(f.max_bytes, 68 * kMiB);
  EXPECT_EQ(f.end_bytes, 68 * kMiB);
}

TEST(Growth, MemoryTornDownAtExitIsNotAReturn) {
  // Grows for 40 s, asleep holding it from 45 s; its last sample is taken as it exits
  // (statm all zeros).
  TempDir dir;
  Shape shape = grows_then_sleeps_from(45'000);
  shape.torn_down_at_exit = true;
  auto report = growth_of(dir, shape);
  ASSERT_TRUE(report) << report.error().message;
  ASSERT_EQ(report->findings.size(), 1u);
  EXPECT_EQ(report->findings[0].verdict, GrowthFinding::Verdict::kSteady);
  EXPECT_EQ(report->findings[0].end_bytes, 50 * kMiB);
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
  // 20 MiB, then 50 MiB more at once at 30 s, kept to the end; still running.
  TempDir dir;
  Shape shape{60'000, [](int64_t t) { return (t < 30'000 ? 20 : 70) * kMiB; }, half_core};
  shape.end = End::kStillRunning;
  auto report = growth_of(dir, shape);
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
