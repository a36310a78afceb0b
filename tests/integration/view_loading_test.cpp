// `canopy view` serves a recording while its samples load (web/view_loading.h): the
// preview (the tick table's total) at once to whoever asks for it, every other API
// request once the load ends, with the same answers a finished load gives. A damaged
// sample found by the load behind the preview ends `view` with one line, as one found
// before it does.
#include <gtest/gtest.h>
#include <httplib.h>

#include <chrono>
#include <filesystem>
#include <future>
#include <nlohmann/json.hpp>
#include <regex>

#include "integration/harness.h"
#include "integration/recorded_tree.h"
#include "integration/served_view.h"
#include "store/sqlite.h"
#include "web/view_loading.h"

namespace canopy::testing {
namespace {

using nlohmann::json;

using ViewLoadingTest = RecordedTreeTest;

TEST_F(ViewLoadingTest, ServesThePreviewWhileLoadingThenTheLoadedRecording) {
  std::promise<void> release;
  std::shared_future<void> released = release.get_future().share();
  auto loading = web::ViewLoading::start(recording_, [released] { released.wait(); });
  ASSERT_TRUE(loading) << loading.error().message;
  EXPECT_EQ((*loading)->data(), nullptr);
  auto served = ServedView::start(std::move(*loading));
  ASSERT_TRUE(served) << served.error().message;
  httplib::Client client = (*served)->client();

  store::Reader reader = open_recording(recording_);
  auto ticks = reader.ticks();
  ASSERT_TRUE(ticks);
  ASSERT_LT(ticks->size(), web::kPreviewPoints) << "the preview keeps every tick of a short recording";
  auto processes = reader.processes();
  ASSERT_TRUE(processes);

  // Asked before the load is let go: answered when it ends.
  auto waiting_recording = std::async(std::launch::async, [&] {
    return (*served)->client().Get("/api/recording");
  });
  auto waiting_series = std::async(std::launch::async, [&] {
    return (*served)->client().Get("/api/series?metric=rss");
  });

  auto preview = client.Get("/api/recording?preview=1");
  ASSERT_TRUE(preview);
  ASSERT_EQ(preview->status, 200);
  json p = json::parse(preview->body);
  EXPECT_EQ(p["loading"], true);
  EXPECT_EQ(p["process_count"], processes->size());
  EXPECT_EQ(p["meta"]["start_ms"], *reader.meta().start_ms);
  EXPECT_EQ(p["total"]["metric"], "rss");
  ASSERT_EQ(p["total"]["t"].size(), ticks->size());
  int64_t highest = 0;
  for (size_t i = 0; i < ticks->size(); ++i) {
    EXPECT_EQ(p["total"]["t"][i], (*ticks)[i].t_ms) << i;
    EXPECT_EQ(p["total"]["values"][i], (*ticks)[i].rss_bytes) << i;
    highest = std::max(highest, (*ticks)[i].rss_bytes);
  }
  EXPECT_EQ(p["peak"]["rss_bytes"], highest);

  // Held by the test, the load cannot have ended.
  EXPECT_EQ(waiting_recording.wait_for(std::chrono::seconds(0)), std::future_status::timeout);
  EXPECT_EQ(waiting_series.wait_for(std::chrono::seconds(0)), std::future_status::timeout);
  EXPECT_EQ((*served)->loading().data(), nullptr);

  release.set_value();
  auto loaded = waiting_recording.get();
  ASSERT_TRUE(loaded);
  ASSERT_EQ(loaded->status, 200);
  json full = json::parse(loaded->body);
  EXPECT_FALSE(full.contains("loading"));
  auto expected = web::load_view_data(recording_);
  ASSERT_TRUE(expected) << expected.error().message;
  EXPECT_EQ(full, expected->recording);
  EXPECT_EQ(full["processes"].size(), processes->size());
  auto series = waiting_series.get();
  ASSERT_TRUE(series);
  EXPECT_EQ(series->status, 200);
  auto expected_series = web::series_json(expected->timeline.series(analyze::Metric::kRss,
                                                                    expected->timeline.ticks().front(),
                                                                    expected->timeline.ticks().back(), 1000));
  EXPECT_EQ(json::parse(series->body), expected_series);
  // Once loaded, asking for the preview gets the recording.
  auto after = client.Get("/api/recording?preview=1");
  ASSERT_TRUE(after);
  EXPECT_EQ(json::parse(after->body), full);
}

TEST_F(ViewLoadingTest, DamageFoundBehindThePreviewEndsViewWithOneLine) {
  std::string damaged = dir_->file("damaged.canopy");
  std::filesystem::copy_file(recording_, damaged, std::filesystem::copy_options::overwrite_existing);
  {
    sqlite3* db = nullptr;
    ASSERT_EQ(sqlite3_open(damaged.c_str(), &db), SQLITE_OK);
    store::ScopedDb owned(db);
    // Only the samples are damaged, so the preview reads well and the load finds it.
    ASSERT_TRUE(store::exec_sql(db,
                                "UPDATE sample SET rss_anon_bytes = -4096 WHERE rowid = "
                                "(SELECT max(rowid) FROM sample WHERE rss_anon_bytes IS NOT NULL)"));
    ASSERT_EQ(sqlite3_changes(db), 1);
  }
  Finished view = run({kCanopy, "view", damaged});
  EXPECT_EQ(view.exit_status, 1) << view.out << view.err;
  EXPECT_TRUE(std::regex_match(view.err, std::regex("canopy: cannot read '.*': the recording is corrupt: [^\n]+\n")))
      << view.err;
  EXPECT_NE(view.err.find("'" + damaged + "'"), std::string::npos) << view.err;
}

}  // namespace
}  // namespace canopy::testing
