// `canopy view` of a file another `canopy record` is still writing follows it
// (web/view_follow.h): the API says it is live, grows with the recording, streams an
// update event per commit it reads (GET /api/live), and once the recorder has finished
// serves exactly what a load of the finished file gives. The workload grows only when
// the test opens a gate (canopy_workload steps), so nothing here is timed.
#include <gtest/gtest.h>
#include <httplib.h>
#include <signal.h>

#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <thread>

#include "integration/harness.h"
#include "integration/live_stream.h"
#include "web/view_data.h"

namespace canopy::testing {
namespace {

using nlohmann::json;

constexpr int64_t kStepMiB = 32;

void open_gate(const TempDir& dir, const std::string& name) { std::ofstream(dir.file(name)).put('\n'); }

int port_in(const std::string& output) {
  size_t colon = output.find("127.0.0.1:");
  return colon == std::string::npos ? 0 : std::stoi(output.substr(colon + 10));
}

json get_json(httplib::Client& client, const std::string& path) {
  auto answer = client.Get(path);
  if (!answer || answer->status != 200) {
    ADD_FAILURE() << path << ": " << (answer ? answer->body : "no answer");
    return json();
  }
  return json::parse(answer->body);
}

// The last total of the tree's anonymous memory the server gives, in bytes.
int64_t last_anon_total(httplib::Client& client) {
  json series = get_json(client, "/api/series?metric=anon&points=20000");
  return series.is_null() || series["total"].empty() ? 0 : series["total"].back().get<int64_t>();
}

// What a page following the recording makes of the copy it has and of GET
// /api/recording?since= (web/src/live_merge.js): the changed processes replace theirs,
// new ones come last.
json merged_since(const json& previous, const json& changed) {
  if (!changed.contains("processes_since")) {
    return changed;
  }
  json processes = previous["processes"];
  std::map<int64_t, size_t> position;
  for (size_t i = 0; i < processes.size(); ++i) {
    position[processes[i]["id"].get<int64_t>()] = i;
  }
  for (const json& process : changed["processes"]) {
    auto it = position.find(process["id"].get<int64_t>());
    if (it == position.end()) {
      processes.push_back(process);
    } else {
      processes[it->second] = process;
    }
  }
  EXPECT_EQ(processes.size(), changed["process_count"].get<size_t>());
  json merged = changed;
  merged.erase("processes_since");
  merged.erase("process_count");
  merged["processes"] = std::move(processes);
  return merged;
}

// The recording as a following page has it after one more update.
json followed_since(httplib::Client& client, const json& previous) {
  return merged_since(previous, get_json(client, "/api/recording?since=" + previous["update"].dump()));
}

// `canopy record` of the gated workload (one step of kStepMiB), and `canopy view` of its
// file once the first tick is in it.
struct Following {
  Following(const TempDir& dir, const std::string& path)
      : recorder({kCanopy, "record", "-q", "-o", path, kWorkload, "steps", dir.path(), std::to_string(kStepMiB)}),
        recorded(wait_for_recording(path, [](const store::Reader& live) {
          auto ticks = live.ticks();
          return ticks && !ticks->empty();
        })),
        view({kCanopy, "view", path, "--port", "0"}),
        client("127.0.0.1", view.wait_for_output("serving") ? port_in(view.output()) : 0) {
    EXPECT_TRUE(recorded) << recorder.error_output();
    client.set_read_timeout(120, 0);
  }
  Started recorder;
  bool recorded;
  Started view;
  httplib::Client client;
};

TEST(ViewFollow, ViewOfARunningRecordersFileGrowsWithItAndEndsAsTheFinishedFile) {
  TempDir dir;
  const std::string path = dir.file("live.canopy");
  Following following(dir, path);
  Started& recorder = following.recorder;
  Started& view = following.view;
  httplib::Client& client = following.client;

  json before = get_json(client, "/api/recording");
  EXPECT_EQ(before["live"], true);
  EXPECT_EQ(before["meta"]["interrupted"], false) << "still being written, not interrupted";
  EXPECT_TRUE(before["meta"]["exit_code"].is_null());

  LiveStream stream(port_in(view.output()));

  open_gate(dir, "1");
  // The step's memory, read back through the server that follows the file; and the
  // recording as a page that asks only for what changed has it.
  json followed = before;
  bool grew = false;
  for (int tries = 0; tries < 1200 && !grew; ++tries) {
    followed = followed_since(client, followed);
    grew = last_anon_total(client) >= kStepMiB << 20;
    if (!grew) {
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
  }
  EXPECT_TRUE(grew) << "the followed recording never showed the child's " << kStepMiB << " MiB";
  EXPECT_EQ(get_json(client, "/api/recording")["live"], true);

  open_gate(dir, "stop");
  EXPECT_EQ(recorder.wait().exit_status, 0) << recorder.error_output();
  stream.join();
  {
    const std::vector<json> updates = stream.updates();
    ASSERT_GE(updates.size(), 2u) << "one at once, and at least the last";
    EXPECT_EQ(updates.back()["following"], false);
    EXPECT_FALSE(updates.back().contains("error")) << updates.back().dump();
    for (size_t i = 0; i + 1 < updates.size(); ++i) {
      EXPECT_EQ(updates[i]["following"], true) << i;
      EXPECT_LT(updates[i]["version"], updates[i + 1]["version"]) << i;
    }
  }

  // Followed to the end, the server holds what a load of the finished file gives.
  json served = get_json(client, "/api/recording");
  EXPECT_EQ(served["live"], false);
  EXPECT_EQ(served["stale"], json::array()) << "every pass redone at the end";
  EXPECT_EQ(followed_since(client, followed), served) << "merged from what changed, update by update";
  EXPECT_EQ(get_json(client, "/api/recording?since=" + served["update"].dump())["processes"], json::array());
  EXPECT_GT(served["update"], before["update"]);
  served.erase("stale");
  served.erase("update");  // how many times it was made: once for a load
  auto finished = web::load_view_data(path);
  ASSERT_TRUE(finished) << finished.error().message;
  EXPECT_EQ(finished->recording["update"], 1);
  finished->recording.erase("update");
  EXPECT_EQ(served, finished->recording);
  for (const char* metric : {"rss", "anon", "cpu"}) {
    json followed = get_json(client, std::string("/api/series?metric=") + metric + "&points=20000");
    const auto& ticks = finished->timeline.ticks();
    auto metric_id = analyze::metric_from_id(metric);
    ASSERT_TRUE(metric_id);
    EXPECT_EQ(followed, web::series_json(finished->timeline.series(*metric_id, ticks.front(), ticks.back(), 20000)))
        << metric;
  }
  view.signal(SIGTERM);
  EXPECT_EQ(view.wait().exit_status, 0) << view.error_output();
}

TEST(ViewFollow, ARecorderKilledMidwayLeavesAnInterruptedRecordingNotALiveOne) {
  TempDir dir;
  const std::string path = dir.file("killed.canopy");
  Following following(dir, path);
  Started& recorder = following.recorder;
  Started& view = following.view;
  httplib::Client& client = following.client;
  EXPECT_EQ(get_json(client, "/api/recording")["live"], true);

  recorder.signal(SIGKILL);
  // The command's tree lost its recorder, not its life: the gates let it end, and with
  // it the output pipes it inherited, which the harness reads to their end.
  open_gate(dir, "1");
  open_gate(dir, "stop");
  recorder.wait();
  // The stream's last event comes once the server sees the recorder gone.
  std::string stream;
  client.Get("/api/live", [&](const char* data, size_t size) {
    stream.append(data, size);
    return true;
  });
  EXPECT_NE(stream.find("\"following\":false"), std::string::npos) << stream;
  json after = get_json(client, "/api/recording");
  EXPECT_EQ(after["live"], false);
  EXPECT_EQ(after["meta"]["interrupted"], true);
  view.signal(SIGTERM);
  EXPECT_EQ(view.wait().exit_status, 0) << view.error_output();
}

}  // namespace
}  // namespace canopy::testing
