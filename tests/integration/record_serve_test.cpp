// `canopy record --serve` while a page follows it (GET /api/live open): the recorder
// commits every 600 ms instead of every 900 ms (store::kWatchedUncommittedUnderMs),
// so that what the page draws is at most a few ticks old. Commits are told apart by the
// update events' last tick: unwatched, two commits are at least 900 ms of ticks apart at
// the default 100 ms interval. The workload runs until the test opens its gate, so
// nothing here is timed.
#include <gtest/gtest.h>
#include <signal.h>

#include <httplib.h>

#include <fstream>
#include <nlohmann/json.hpp>
#include <thread>

#include "integration/harness.h"
#include "integration/live_stream.h"
#include "store/writer.h"

namespace canopy::testing {
namespace {

using nlohmann::json;

int served_port(const std::string& error_output) {
  const std::string prefix = "serving the recording live at http://127.0.0.1:";
  size_t at = error_output.find(prefix);
  return at == std::string::npos ? 0 : std::stoi(error_output.substr(at + prefix.size()));
}

TEST(RecordServe, APageFollowingMakesTheRecorderCommitMoreOften) {
  TempDir dir;
  const std::string path = dir.file("served.canopy");
  Started recorder({kCanopy, "record", "-q", "--serve=127.0.0.1:0", "-o", path, "--", kWorkload, "steps", dir.path(), "1"});
  ASSERT_TRUE(recorder.wait_for_error_output("serving the recording live at")) << recorder.error_output();
  const int port = served_port(recorder.error_output());
  ASSERT_GT(port, 0) << recorder.error_output();

  // Enough updates that a commit a second could not have made them: the page's first
  // one, then commits while the stream is open.
  constexpr size_t kUpdates = 8;
  LiveStream stream(port);
  for (int tries = 0; tries < 1200 && stream.updates().size() < kUpdates; ++tries) {
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  for (const char* gate : {"1", "stop"}) {  // its one step, then its end
    std::ofstream(dir.file(gate)).put('\n');
  }
  ASSERT_TRUE(recorder.wait_for_error_output("the recording is complete")) << recorder.error_output();
  stream.join();
  recorder.signal(SIGINT);
  EXPECT_EQ(recorder.wait().exit_status, 0) << recorder.error_output();

  std::vector<int64_t> ticks;  // the last tick of each update before the end
  for (const json& update : stream.updates()) {
    if (update["following"] == true && update["last_tick_ms"].is_number()) {
      ticks.push_back(update["last_tick_ms"].get<int64_t>());
    }
  }
  ASSERT_GE(ticks.size(), kUpdates) << "the stream ended early";
  int64_t closest = INT64_MAX;
  for (size_t i = 1; i < ticks.size(); ++i) {
    EXPECT_GT(ticks[i], ticks[i - 1]) << "each update after a commit of new ticks";
    closest = std::min(closest, ticks[i] - ticks[i - 1]);
  }
  // A follower slower than the commits merges two into one update, but not every time;
  // unwatched, no two commits come closer than kUncommittedUnderMs less a tick.
  EXPECT_LT(closest, store::kUncommittedUnderMs - 100);
  EXPECT_GE(closest, store::kWatchedUncommittedUnderMs - 100);
}

TEST(RecordServe, ACommandShorterThanOneIntervalIsServedFinished) {
  // `true` ends long before the first tick of a 10 s interval, which would have started
  // the server on the recording being made: the finished recording is served all the same.
  TempDir dir;
  const std::string path = dir.file("short.canopy");
  Started recorder({kCanopy, "record", "-q", "--interval", "10s", "--serve=127.0.0.1:0", "-o", path, "--", "true"});
  ASSERT_TRUE(recorder.wait_for_error_output("the recording is complete; still serving it at"))
      << recorder.error_output();
  const int port = served_port(recorder.error_output());
  ASSERT_GT(port, 0) << recorder.error_output();
  httplib::Client client("127.0.0.1", port);
  auto answer = client.Get("/api/recording");
  ASSERT_TRUE(answer);
  ASSERT_EQ(answer->status, 200) << answer->body;
  json recording = json::parse(answer->body);
  EXPECT_EQ(recording["live"], false);
  ASSERT_EQ(recording["processes"].size(), 1u) << answer->body;
  EXPECT_EQ(recording["processes"][0]["name"], "true") << answer->body;
  recorder.signal(SIGINT);
  EXPECT_EQ(recorder.wait().exit_status, 0) << recorder.error_output();
}

}  // namespace
}  // namespace canopy::testing
