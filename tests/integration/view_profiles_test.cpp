// canopy view's profile endpoints (/api/cpu/heatmap, /api/cpu/flame, /api/heap/flame,
// /api/heap/diff; web/API.md) on real recordings of the profilers' workloads: each
// answer holds the figures `canopy profile` and `canopy heap` give for the same
// selection, and a bad parameter gets one line.
#include <gtest/gtest.h>
#include <httplib.h>

#include <functional>
#include <nlohmann/json.hpp>
#include <regex>

#include "integration/harness.h"
#include "integration/heap_sites.h"

namespace canopy::testing {
namespace {

using nlohmann::json;

const std::string kProfilesCpuWorkload = CANOPY_CPU_WORKLOAD_BIN;

// `canopy view` of one recording, on a free port, for one test.
class ProfileServer {
 public:
  explicit ProfileServer(const std::string& recording) : view_({kCanopy, "view", recording}) {
    EXPECT_TRUE(view_.wait_for_output("(Ctrl-C to stop)")) << view_.output();
    std::smatch match;
    std::string out = view_.output();
    EXPECT_TRUE(std::regex_search(out, match, std::regex(R"(http://127\.0\.0\.1:(\d+)/)"))) << out;
    port_ = std::stoi(match[1]);
  }
  ~ProfileServer() {
    view_.signal(SIGTERM);
    EXPECT_EQ(view_.wait().exit_status, 0);
  }

  // The status and the parsed body.
  std::pair<int, json> get(const std::string& path) {
    httplib::Client client("127.0.0.1", port_);
    auto res = client.Get(path.c_str());
    EXPECT_TRUE(res) << path;
    if (!res) {
      return {-1, json()};
    }
    return {res->status, json::parse(res->body)};
  }

  json ok(const std::string& path) {
    auto [status, body] = get(path);
    EXPECT_EQ(status, 200) << path << ": " << body.dump();
    return body;
  }

 private:
  Started view_;
  int port_ = 0;
};

json cli_json(std::vector<std::string> argv) {
  auto result = run(argv);
  EXPECT_EQ(result.exit_status, 0) << result.err;
  return json::parse(result.out);
}

// Each node's total is its own figure and its children's, when nothing was left out.
void expect_sums(const json& node) {
  int64_t children = 0;
  for (const json& child : node["c"]) {
    children += child["v"].get<int64_t>();
    expect_sums(child);
  }
  EXPECT_EQ(node["v"].get<int64_t>(), node["s"].get<int64_t>() + children) << node["n"];
}

// The total of the frames named `name` (outermost only), as canopy profile counts it.
int64_t named_total(const json& node, const std::string& name) {
  if (node["n"] == name) {
    return node["v"].get<int64_t>();
  }
  int64_t total = 0;
  for (const json& child : node["c"]) {
    total += named_total(child, name);
  }
  return total;
}

class ViewProfiles : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    dir_ = new TempDir();
    cpu_ = dir_->file("cpu.canopy");
    auto cpu = run({kCanopy, "record", "-q", "--cpu-profile=999", "-o", cpu_, "--", kProfilesCpuWorkload, "split", "1"});
    ASSERT_EQ(cpu.exit_status, 0) << cpu.err;
    heap_ = dir_->file("heap.canopy");
    auto heap = run({kCanopy, "record", "-q", "--heap=" + std::to_string(kHeapRateBytes), "--heap-interval", "100ms",
                     "-o", heap_, "--", kHeapWorkload, "parent", kHeapWorkloadNoFramePointers});
    ASSERT_EQ(heap.exit_status, 0) << heap.err;
  }
  static void TearDownTestSuite() { delete dir_; }

  static inline TempDir* dir_ = nullptr;
  static inline std::string cpu_;
  static inline std::string heap_;
};

TEST_F(ViewProfiles, HeatMapCellsHoldEverySampleOfTheSelection) {
  ProfileServer server(cpu_);
  json recording = server.ok("/api/recording");
  const int64_t samples = recording["profiles"]["cpu"]["samples"].get<int64_t>();
  EXPECT_EQ(samples, cli_json({kCanopy, "profile", cpu_, "--json"})["samples"].get<int64_t>());
  EXPECT_TRUE(recording["profiles"]["heap"].is_null());
  const json& workload = recording["processes"][0];
  for (const std::string& query : {std::string(), "?process=" + std::to_string(workload["id"].get<int64_t>()),
                                  "?name=" + workload["name"].get<std::string>(),
                                  "?subtree=" + std::to_string(workload["id"].get<int64_t>())}) {
    json heatmap = server.ok("/api/cpu/heatmap" + query);
    int64_t sum = 0;
    for (const json& cell : heatmap["cells"]) {
      EXPECT_GT(cell[2].get<int64_t>(), 0);
      EXPECT_LT(cell[1].get<int64_t>(), heatmap["rows"].get<int64_t>());
      sum += cell[2].get<int64_t>();
    }
    EXPECT_EQ(sum, samples) << query;
    EXPECT_EQ(heatmap["samples"].get<int64_t>(), samples) << query;
  }
}

TEST_F(ViewProfiles, FlameGraphOfARangeIsCanopyProfilesSelection) {
  ProfileServer server(cpu_);
  const int64_t start = server.ok("/api/recording")["meta"]["start_ms"].get<int64_t>();
  json flame = server.ok("/api/cpu/flame?from=" + std::to_string(start + 200) + "&to=" + std::to_string(start + 700));
  json cli = cli_json({kCanopy, "profile", cpu_, "--json", "--top", "100", "--from", "200ms", "--to", "700ms"});
  const int64_t samples = cli["samples"].get<int64_t>();
  ASSERT_GT(samples, 0);
  EXPECT_EQ(flame["samples"].get<int64_t>(), samples);
  EXPECT_EQ(flame["tree"]["v"].get<int64_t>(), samples);
  expect_sums(flame["tree"]);
  for (const json& function : cli["groups"][0]["by_total"]) {
    if (function["function"] == "hot_function" || function["function"] == "cold_function") {
      EXPECT_EQ(named_total(flame["tree"], function["function"]), function["total_samples"].get<int64_t>())
          << function["function"];
    }
  }
  EXPECT_GT(named_total(flame["tree"], "hot_function"), 0);
  // A range after the recording: no sample, an empty root.
  json after = server.ok("/api/cpu/flame?from=" + std::to_string(start + 3'600'000) + "&to=" + std::to_string(start + 3'700'000));
  EXPECT_EQ(after["samples"], 0);
  EXPECT_EQ(after["tree"]["v"], 0);
}

TEST_F(ViewProfiles, HeapFlameGraphsAreCanopyHeapsFigures) {
  ProfileServer server(heap_);
  json recording = server.ok("/api/recording");
  const int64_t start = recording["meta"]["start_ms"].get<int64_t>();
  const json* parent = nullptr;
  for (const json& process : recording["processes"]) {
    if (process["cmdline"].size() > 1 && process["cmdline"][1] == "parent") {
      parent = &process;
    }
  }
  ASSERT_NE(parent, nullptr);
  const std::string id = std::to_string((*parent)["id"].get<int64_t>());
  const std::string pid = std::to_string((*parent)["pid"].get<int64_t>());
  const json& snapshots = recording["profiles"]["heap"]["snapshots"][id];
  ASSERT_GE(snapshots.size(), 4u);
  const int64_t to = snapshots.back().get<int64_t>();
  const int64_t from = start + 300;

  json held = server.ok("/api/heap/flame?process=" + id + "&t=" + std::to_string(to));
  json cli = cli_json({kCanopy, "heap", heap_, "--json", "--top", "1000000", "--pid", pid, "--from", "0ms", "--to",
                       std::to_string(to - start) + "ms"})["growth"][0];
  int64_t cli_held = cli["other_bytes"].get<int64_t>();
  for (const json& stack : cli["stacks"]) {
    cli_held += stack["to_bytes"].get<int64_t>();
  }
  EXPECT_EQ(held["t_ms"], cli["to_ms"]);
  EXPECT_EQ(held["tree"]["v"].get<int64_t>(), cli_held);
  EXPECT_GT(cli_held, 0);

  json diff = server.ok("/api/heap/diff?process=" + id + "&from=" + std::to_string(from) + "&to=" + std::to_string(to));
  json grew = cli_json({kCanopy, "heap", heap_, "--json", "--top", "1000000", "--pid", pid, "--from",
                        std::to_string(from - start) + "ms", "--to", std::to_string(to - start) + "ms"})["growth"][0];
  int64_t cli_grown = grew["other_bytes"].get<int64_t>();
  for (const json& stack : grew["stacks"]) {
    cli_grown += stack["growth_bytes"].get<int64_t>();
  }
  EXPECT_EQ(diff["tree"]["v"].get<int64_t>(), cli_grown);
  EXPECT_EQ(diff["from_ms"], grew["from_ms"]);
  // The leak sites grew; what they held before and after is there too.
  for (const HeapSite& site : {kSiteA, kSiteB}) {
    int64_t grown = named_total(diff["tree"], site.function);
    EXPECT_GT(grown, 0) << site.function;
  }
  EXPECT_EQ(diff["tree"]["a"].get<int64_t>() - diff["tree"]["b"].get<int64_t>(), diff["tree"]["v"].get<int64_t>());
}

TEST_F(ViewProfiles, BadParametersGetOneLine) {
  ProfileServer cpu(cpu_);
  auto expect_error = [&](ProfileServer& server, const std::string& path, int status, const std::string& says) {
    auto [got, body] = server.get(path);
    EXPECT_EQ(got, status) << path;
    EXPECT_NE(body["error"].get<std::string>().find(says), std::string::npos) << path << ": " << body.dump();
  };
  expect_error(cpu, "/api/cpu/heatmap?process=999", 400, "names no process");
  expect_error(cpu, "/api/cpu/heatmap?name=no-such-command", 400, "no process named 'no-such-command'");
  expect_error(cpu, "/api/cpu/heatmap?process=1&name=x", 400, "one of process, name or subtree");
  expect_error(cpu, "/api/cpu/flame?from=10", 400, "'to' is required");
  expect_error(cpu, "/api/cpu/flame?from=10&to=10", 400, "'from' is not before 'to'");
  expect_error(cpu, "/api/cpu/flame?from=x&to=10", 400, "not an integer");
  expect_error(cpu, "/api/heap/flame?process=1&t=0", 404, "record with --heap");
  ProfileServer heap(heap_);
  expect_error(heap, "/api/cpu/heatmap", 404, "record with --cpu-profile");
  expect_error(heap, "/api/heap/flame?process=1", 400, "'t' is required");
  expect_error(heap, "/api/heap/flame?process=1&t=0", 404, "no heap profile of process 1 by then");
}

}  // namespace
}  // namespace canopy::testing
