// A timeline following a recording while the store's Writer writes it (`canopy view`
// of a running recorder's file, `record --serve`): after every commit the follower's
// totals are the sums the workload knows, and once the recording is finished the
// follower holds exactly what a load of the whole file gives.
#include <gtest/gtest.h>

#include <map>
#include <random>

#include "analyze/timeline.h"
#include "store/writer.h"
#include "support/temp_dir.h"

namespace canopy::analyze {
namespace {

using canopy::testing::TempDir;

constexpr int64_t kFollowKiB = 1024;
constexpr int64_t kFollowStartMs = 10'000;
// Long enough that the recording outlasts store::kProcessRowSettleMs: a follower reading only
// the rows that can change leaves the early ones out.
constexpr int64_t kFollowIntervalMs = 500;
constexpr int kFollowTicks = 60;
constexpr int kTicksPerCommit = 4;

// One process of the generated workload: alive at ticks [first, last]; its anonymous
// memory at tick i is level(i).
struct FollowedProcess {
  int64_t id = 0;
  int first = 0;
  int last = kFollowTicks - 1;
  bool ends = false;  // otherwise still running when the recording ends
  // When its end reaches the recording: at once, or some ticks later, as a late exit
  // record brings it; until then a reader takes it for alive at its last level.
  int end_written = kFollowTicks;
  int64_t seed = 0;
  store::ProcessRow row;  // as the recorder keeps it, for the update at its end
  // Steps every few ticks, so that the writer leaves unchanged rows out and the
  // reader carries the values forward.
  int64_t level_kib(int tick) const { return (seed % 7 + 1) * 100 + (tick / (1 + seed % 3)) * (seed % 5) * 10; }
};

store::SampleValues follow_values(int64_t anon_kib, int64_t cpu_ns) {
  store::SampleValues v;
  v[store::kRssAnonBytes] = anon_kib * kFollowKiB;
  v[store::kRssFileBytes] = 8 * kFollowKiB;
  v[store::kRssShmemBytes] = 0;
  v[store::kSwapBytes] = 0;
  v[store::kCpuUserNs] = cpu_ns;
  v[store::kCpuSystemNs] = 0;
  v[store::kThreads] = 1;
  return v;
}

int64_t tick_ms(int tick) { return kFollowStartMs + tick * kFollowIntervalMs; }

void expect_same_timelines(const Timeline& followed, const Timeline& loaded) {
  ASSERT_EQ(followed.ticks(), loaded.ticks());
  for (Metric metric : loaded.metrics()) {
    EXPECT_EQ(followed.totals(metric), loaded.totals(metric)) << metric_info(metric).id;
    const Series a = followed.series(metric, loaded.ticks().front(), loaded.ticks().back(), 10'000);
    const Series b = loaded.series(metric, loaded.ticks().front(), loaded.ticks().back(), 10'000);
    ASSERT_EQ(a.slices.size(), b.slices.size()) << metric_info(metric).id;
    for (size_t s = 0; s < a.slices.size(); ++s) {
      EXPECT_EQ(a.slices[s].process_id, b.slices[s].process_id);
      EXPECT_EQ(a.slices[s].offset, b.slices[s].offset);
      EXPECT_EQ(a.slices[s].values, b.slices[s].values) << metric_info(metric).id << " of " << a.slices[s].process_id;
    }
  }
  ASSERT_EQ(followed.processes().size(), loaded.processes().size());
  for (size_t i = 0; i < loaded.processes().size(); ++i) {
    const store::ProcessRow& a = followed.processes()[i];
    const store::ProcessRow& b = loaded.processes()[i];
    EXPECT_EQ(a.id, b.id);
    EXPECT_EQ(a.last_seen_ms, b.last_seen_ms) << a.id;
    EXPECT_EQ(a.peak_rss_bytes, b.peak_rss_bytes) << a.id;
    EXPECT_EQ(a.peak_rss_t_ms, b.peak_rss_t_ms) << a.id;
    EXPECT_EQ(a.cpu_user_ns, b.cpu_user_ns) << a.id;
    EXPECT_EQ(followed.subtrees()[i].peak_rss_bytes, loaded.subtrees()[i].peak_rss_bytes) << a.id;
    EXPECT_EQ(followed.subtrees()[i].peak_t_ms, loaded.subtrees()[i].peak_t_ms) << a.id;
    EXPECT_EQ(followed.subtrees()[i].cpu_ns, loaded.subtrees()[i].cpu_ns) << a.id;
  }
}

// Whether the follower reads every process row after each commit, or only those that
// can have changed.
class TimelineFollowRows : public ::testing::TestWithParam<Timeline::ProcessRows> {};

TEST_P(TimelineFollowRows, FollowingTheWriterEndsWhereALoadOfTheWholeFileStarts) {
  static_assert(kFollowTicks * kFollowIntervalMs > 2 * store::kProcessRowSettleMs);
  TempDir dir;
  const std::string path = dir.file("followed.canopy");
  auto writer = store::Writer::create(path, false);
  ASSERT_TRUE(writer) << writer.error().message;
  writer->set_meta({.start_ms = kFollowStartMs, .interval_ms = kFollowIntervalMs});
  writer->set_meta({.probes = "proc-stat,proc-statm"});
  writer->commit_if_due(kFollowStartMs, INT64_MAX);

  auto reader = store::Reader::open(path, store::Reader::Verify::kWhileReading);
  ASSERT_TRUE(reader) << reader.error().message;
  ASSERT_TRUE(reader->begin_snapshot());
  auto followed = Timeline::load(*reader);
  reader->end_snapshot();
  ASSERT_TRUE(followed) << followed.error().message;
  EXPECT_TRUE(followed->ticks().empty());

  // A root alive throughout, and children that start at random ticks, some ending
  // (with a last row taken between two ticks, as at an exit) and some still running.
  std::mt19937 random(7);
  std::vector<FollowedProcess> processes;
  auto add_process = [&](int first, std::optional<int64_t> parent) {
    FollowedProcess p;
    p.first = first;
    p.seed = static_cast<int64_t>(random() % 1000);
    p.ends = random() % 3 != 0;
    if (p.ends) {
      p.last = std::min(kFollowTicks - 2, first + static_cast<int>(random() % 12));
      p.end_written = std::min(kFollowTicks - 1, p.last + static_cast<int>(random() % 7));
    }
    store::ProcessRow row;
    row.pid = 1000 + static_cast<pid_t>(processes.size());
    row.start_ticks = row.pid;
    row.start_ms = tick_ms(first) - 30;
    row.parent_id = parent;
    row.name = "p" + std::to_string(processes.size());
    row.first_seen_ms = tick_ms(first);
    p.id = writer->add_process(row);
    row.id = p.id;
    p.row = row;
    processes.push_back(p);
  };
  add_process(0, std::nullopt);
  std::map<int64_t, int64_t> cpu_ns;  // by id

  for (int tick = 0; tick < kFollowTicks; ++tick) {
    if (tick > 0 && random() % 2 == 0) {
      add_process(tick, processes[random() % processes.size()].id);
    }
    for (const FollowedProcess& p : processes) {
      if (tick < p.first || tick > p.last) {
        continue;
      }
      cpu_ns[p.id] += (p.seed % 4) * 1'000'000;
      writer->add_sample(tick_ms(tick), p.id, follow_values(p.level_kib(tick), cpu_ns[p.id]));
    }
    store::TickRow row;
    row.t_ms = tick_ms(tick);
    row.mem_total_bytes = 1 << 30;
    row.mem_available_bytes = 1 << 29;
    writer->add_tick(row);
    for (const FollowedProcess& p : processes) {
      if (p.ends && p.last == tick) {
        // Its last figures, taken as it exited, before the next tick.
        writer->add_sample(tick_ms(tick) + kFollowIntervalMs / 2, p.id, follow_values(p.level_kib(tick) + 50, cpu_ns[p.id]));
      }
      if (p.ends && p.end_written == tick) {
        store::ProcessRow end = p.row;
        end.last_seen_ms = tick_ms(p.last) + kFollowIntervalMs / 2;
        end.end_ms = end.last_seen_ms;
        end.exit_code = 0;
        end.peak_rss_bytes = (p.level_kib(p.last) + 58) * kFollowKiB;
        end.peak_rss_t_ms = end.last_seen_ms;
        end.cpu_user_ns = cpu_ns[p.id];
        end.cpu_system_ns = 0;
        writer->update_process_end(end);
      }
    }
    if (tick % kTicksPerCommit != kTicksPerCommit - 1) {
      continue;
    }
    writer->commit_if_due(tick_ms(tick), INT64_MAX);
    ASSERT_TRUE(reader->begin_snapshot());
    Status extended = followed->extend(*reader, /*complete=*/false, GetParam());
    reader->end_snapshot();
    ASSERT_TRUE(extended) << extended.error().message;
    ASSERT_EQ(followed->ticks().size(), static_cast<size_t>(tick + 1));
    // Every tick as the file knows it now: a process whose end is not in it yet holds
    // its exit row's level (which counts from the tick after it) up to the last tick.
    for (int at = 0; at <= tick; ++at) {
      int64_t expected_anon_kib = 0;
      for (const FollowedProcess& p : processes) {
        if (at < p.first || (at > p.last && p.end_written <= tick)) {
          continue;
        }
        expected_anon_kib += at <= p.last ? p.level_kib(at) : p.level_kib(p.last) + 50;
      }
      EXPECT_EQ(followed->totals(Metric::kAnon)[at], static_cast<double>(expected_anon_kib * kFollowKiB))
          << "at tick " << at << " of " << tick;
    }
    EXPECT_EQ(followed->processes().size(), processes.size());
  }
  writer->set_meta({.end_ms = tick_ms(kFollowTicks - 1) + 20});
  ASSERT_TRUE(writer->finish());

  ASSERT_TRUE(reader->begin_snapshot());
  Status extended = followed->extend(*reader, /*complete=*/reader->meta().end_ms.has_value());
  reader->end_snapshot();
  ASSERT_TRUE(extended) << extended.error().message;
  EXPECT_FALSE(followed->subtrees_stale());

  auto whole = store::Reader::open(path);
  ASSERT_TRUE(whole) << whole.error().message;
  auto loaded = Timeline::load(*whole);
  ASSERT_TRUE(loaded) << loaded.error().message;
  expect_same_timelines(*followed, *loaded);
}

INSTANTIATE_TEST_SUITE_P(EveryRowOrTheChanging, TimelineFollowRows,
                         ::testing::Values(Timeline::ProcessRows::kAll, Timeline::ProcessRows::kChanging),
                         [](const auto& info) {
                           return info.param == Timeline::ProcessRows::kAll ? "EveryRow" : "ChangingRows";
                         });

// A row amended long after its end (an inherited zombie's exit status) is what reading
// only the changing rows leaves out: the follower's full read, and the end, bring it in.
TEST(TimelineFollow, ARowAmendedLongAfterItsEndWaitsForAFullRead) {
  TempDir dir;
  const std::string path = dir.file("amended.canopy");
  auto writer = store::Writer::create(path, false);
  ASSERT_TRUE(writer) << writer.error().message;
  writer->set_meta({.start_ms = kFollowStartMs, .interval_ms = kFollowIntervalMs});
  store::ProcessRow row;
  row.pid = 4000;
  row.start_ticks = row.pid;
  row.start_ms = kFollowStartMs;
  row.name = "zombie";
  row.first_seen_ms = kFollowStartMs;
  row.id = writer->add_process(row);
  store::ProcessRow ended = row;
  ended.last_seen_ms = ended.end_ms = kFollowStartMs;
  writer->update_process_end(ended);
  auto add_tick = [&](int64_t t_ms) {
    writer->add_sample(t_ms, row.id, follow_values(100, 0));
    store::TickRow tick;
    tick.t_ms = t_ms;
    writer->add_tick(tick);
    writer->commit_if_due(t_ms, INT64_MAX);
  };
  add_tick(kFollowStartMs);

  auto reader = store::Reader::open(path, store::Reader::Verify::kWhileReading);
  ASSERT_TRUE(reader) << reader.error().message;
  auto extend = [&](Timeline& timeline, Timeline::ProcessRows rows) {
    ASSERT_TRUE(reader->begin_snapshot());
    Status extended = timeline.extend(*reader, reader->meta().end_ms.has_value(), rows);
    reader->end_snapshot();
    ASSERT_TRUE(extended) << extended.error().message;
  };
  ASSERT_TRUE(reader->begin_snapshot());
  auto followed = Timeline::load(*reader, /*complete=*/false);
  reader->end_snapshot();
  ASSERT_TRUE(followed) << followed.error().message;

  const int64_t late_ms = kFollowStartMs + store::kProcessRowSettleMs + 1000;
  add_tick(late_ms);
  ended.exit_code = 3;
  writer->update_process_end(ended);
  writer->commit_if_due(late_ms, INT64_MAX);

  extend(*followed, Timeline::ProcessRows::kChanging);
  ASSERT_EQ(followed->processes().size(), 1u);
  EXPECT_EQ(followed->processes()[0].exit_code, std::nullopt) << "settled, not read again";
  extend(*followed, Timeline::ProcessRows::kAll);
  EXPECT_EQ(followed->processes()[0].exit_code, 3);

  ended.exit_code = 4;
  writer->update_process_end(ended);
  writer->set_meta({.end_ms = late_ms});
  ASSERT_TRUE(writer->finish());
  extend(*followed, Timeline::ProcessRows::kChanging);  // the end: every row, whatever asked
  EXPECT_EQ(followed->processes()[0].exit_code, 4);
}

}  // namespace
}  // namespace canopy::analyze
