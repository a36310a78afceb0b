// A recording followed while no page watches it (web/view_loading.h): after the load
// the loading thread reads nothing, and a request's catch_up() brings the data up to
// the last commit before it reads; while a page watches (GET /api/live holds watch()),
// the loading thread reads each commit by itself. This process writes the recording and
// names itself its recorder, as record --serve's recorder does.
#include <gtest/gtest.h>
#include <unistd.h>

#include <chrono>

#include "store/writer.h"
#include "support/temp_dir.h"
#include "web/view_loading.h"

namespace canopy::web {
namespace {

constexpr int64_t kCatchUpStartMs = 1'700'000'000'000;
constexpr int64_t kCatchUpIntervalMs = 100;

// Ticks [first, last], then a commit.
void write_ticks(store::Writer& writer, int first, int last) {
  for (int tick = first; tick <= last; ++tick) {
    store::TickRow row;
    row.t_ms = kCatchUpStartMs + tick * kCatchUpIntervalMs;
    writer.add_tick(row);
  }
  ASSERT_TRUE(writer.commit_if_due(kCatchUpStartMs + last * kCatchUpIntervalMs, INT64_MAX));
}

TEST(ViewCatchUp, UnwatchedARequestBringsTheDataUpToDateWatchedEachCommitDoes) {
  testing::TempDir dir;
  const std::string path = dir.file("followed.canopy");
  auto writer = store::Writer::create(path, false);
  ASSERT_TRUE(writer) << writer.error().message;
  char host[256] = {};
  ASSERT_EQ(gethostname(host, sizeof host - 1), 0);
  writer->set_meta({.start_ms = kCatchUpStartMs, .interval_ms = kCatchUpIntervalMs});
  writer->set_meta({.host = host, .recorder_pid = getpid()});
  write_ticks(*writer, 0, 3);

  auto loading = ViewLoading::start(path);
  ASSERT_TRUE(loading) << loading.error().message;
  ASSERT_TRUE((*loading)->wait_finished());
  ViewLoading& view = **loading;
  ASSERT_TRUE(view.following());
  auto ticks_read = [&] {
    auto lock = view.read_lock();
    return view.data()->timeline.ticks().size();
  };
  EXPECT_EQ(ticks_read(), 4u);

  // Nobody watches: the loading thread, woken by the commit, leaves the data as it is.
  uint64_t version = view.version();
  write_ticks(*writer, 4, 7);
  view.nudge();
  EXPECT_EQ(view.wait_for_update(version, std::chrono::milliseconds(1000)), version);
  EXPECT_EQ(ticks_read(), 4u);
  view.catch_up();
  EXPECT_EQ(ticks_read(), 8u) << "a request reads what was committed before it";
  EXPECT_GT(view.version(), version);

  // A page watches: each commit is read without a request.
  version = view.version();
  {
    auto watching = view.watch();
    write_ticks(*writer, 8, 11);
    view.nudge();
    EXPECT_GT(view.wait_for_update(version, std::chrono::seconds(120)), version);
    EXPECT_EQ(ticks_read(), 12u);
  }

  // The end, read by a request as nobody watches any more.
  writer->set_meta({.end_ms = kCatchUpStartMs + 11 * kCatchUpIntervalMs});
  ASSERT_TRUE(writer->finish());
  view.catch_up();
  EXPECT_FALSE(view.following());
  auto lock = view.read_lock();
  EXPECT_FALSE(view.data()->live);
}

}  // namespace
}  // namespace canopy::web
