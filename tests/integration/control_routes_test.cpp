// The viewer's live control (web/control_routes.h) with a control that records what it
// is asked: POSTs reach it only with the server's token and its own Origin; every other
// request stays read-only; without a control, /api/control says so and POST is refused
// as before.
#include <gtest/gtest.h>
#include <httplib.h>

#include <nlohmann/json.hpp>
#include <vector>

#include "integration/harness.h"
#include "integration/recorded_tree.h"
#include "integration/served_view.h"

namespace canopy::testing {
namespace {

using nlohmann::json;

// Writes down each call; refuses PID 999 the way the recorder refuses a PID that is not
// a live process of its tree.
class RecordingControl final : public web::LiveControl {
 public:
  Status set_heap_sampling(int64_t pid, bool on) override {
    RETURN_IF_ERROR(known(pid));
    calls.push_back("sampling " + std::to_string(pid) + (on ? " on" : " off"));
    return Ok{};
  }
  Status take_heap_snapshot(int64_t pid) override {
    RETURN_IF_ERROR(known(pid));
    calls.push_back("snapshot " + std::to_string(pid));
    return Ok{};
  }
  Result<json> take_memory_map(int64_t pid) override {
    RETURN_IF_ERROR(known(pid));
    calls.push_back("memory map " + std::to_string(pid));
    return json{{"pid", pid}, {"groups", json::array({{{"kind", "heap"}, {"rss_bytes", 4096}}})}};
  }
  json profiler_states() override {
    return json::array({{{"pid", 42}, {"name", "worker"}, {"heap", "off"}, {"cpu", "off"}}});
  }
  std::vector<std::string> calls;

 private:
  static Status known(int64_t pid) {
    if (pid == 999) {
      return Error{"process 999 is not a live process of the recorded tree"};
    }
    return Ok{};
  }
};

class ControlRoutesTest : public RecordedTreeTest {
 protected:
  void serve(web::LiveControl* control) {
    web::ServerOptions options;
    options.control = control;
    auto served = ServedView::start(recording_, options);
    ASSERT_TRUE(served) << served.error().message;
    served_ = std::move(*served);
  }
  httplib::Client client() const { return served_->client(); }
  const std::string& own_origin() const { return served_->origin(); }
  httplib::Result post(const std::string& path, const httplib::Headers& headers) const {
    return client().Post(path, headers, "", "text/plain");
  }
  std::string token() const {
    auto answer = client().Get("/api/control");
    EXPECT_TRUE(answer);
    EXPECT_EQ(answer->status, 200);
    return json::parse(answer->body)["token"];
  }

  std::unique_ptr<ServedView> served_;
};

TEST_F(ControlRoutesTest, GetGivesTheTokenAndTheProfilersStates) {
  RecordingControl control;
  serve(&control);
  auto answer = client().Get("/api/control");
  ASSERT_TRUE(answer);
  ASSERT_EQ(answer->status, 200);
  json body = json::parse(answer->body);
  EXPECT_EQ(body["token"].get<std::string>().size(), 32u) << "128 bits in hex";
  EXPECT_EQ(body["control"], true);
  EXPECT_EQ(body["processes"], control.profiler_states());
  EXPECT_TRUE(control.calls.empty()) << "a GET changes nothing";
  // Another server, another token.
  RecordingControl other_control;
  web::ServerOptions options;
  options.control = &other_control;
  auto other = ServedView::start(recording_, options);
  ASSERT_TRUE(other) << other.error().message;
  auto other_answer = (*other)->client().Get("/api/control");
  ASSERT_TRUE(other_answer);
  EXPECT_NE(json::parse(other_answer->body)["token"], body["token"]);
}

TEST_F(ControlRoutesTest, PostWithTheTokenAndOwnOriginReachesTheControl) {
  RecordingControl control;
  serve(&control);
  httplib::Headers headers = {{"Origin", own_origin()}, {"X-Canopy-Token", token()}};
  auto on = post("/api/control/heap-sampling?pid=42&on=1", headers);
  ASSERT_TRUE(on);
  EXPECT_EQ(on->status, 200) << on->body;
  EXPECT_EQ(json::parse(on->body)["sampling"], true);
  auto off = post("/api/control/heap-sampling?pid=42&on=0", headers);
  ASSERT_TRUE(off);
  EXPECT_EQ(off->status, 200) << off->body;
  auto snapshot = post("/api/control/heap-snapshot?pid=42", headers);
  ASSERT_TRUE(snapshot);
  EXPECT_EQ(snapshot->status, 200) << snapshot->body;
  auto map = post("/api/control/memory-map?pid=42", headers);
  ASSERT_TRUE(map);
  ASSERT_EQ(map->status, 200) << map->body;
  EXPECT_EQ(json::parse(map->body)["groups"][0]["rss_bytes"], 4096);
  EXPECT_EQ(control.calls,
            (std::vector<std::string>{"sampling 42 on", "sampling 42 off", "snapshot 42", "memory map 42"}));

  // The control's refusal reaches the page as its one line.
  auto refused = post("/api/control/heap-snapshot?pid=999", headers);
  ASSERT_TRUE(refused);
  EXPECT_EQ(refused->status, 409);
  EXPECT_EQ(json::parse(refused->body)["error"], "process 999 is not a live process of the recorded tree");
  for (const char* bad : {"/api/control/heap-snapshot", "/api/control/heap-snapshot?pid=abc",
                          "/api/control/heap-sampling?pid=42&on=yes"}) {
    auto answer = post(bad, headers);
    ASSERT_TRUE(answer);
    EXPECT_EQ(answer->status, 400) << bad;
  }
  EXPECT_EQ(control.calls.size(), 4u);
}

TEST_F(ControlRoutesTest, PostWithoutTokenOrFromAnotherOriginIsRefused) {
  RecordingControl control;
  serve(&control);
  const std::string good = token();
  std::string wrong = good;
  wrong[0] = wrong[0] == 'a' ? 'b' : 'a';
  const std::vector<httplib::Headers> refused_headers = {
      {{"Origin", own_origin()}},                                    // no token
      {{"Origin", own_origin()}, {"X-Canopy-Token", wrong}},         // wrong token
      {{"Origin", own_origin()}, {"X-Canopy-Token", ""}},            // empty token
      {{"Origin", "http://evil.example"}, {"X-Canopy-Token", good}},  // foreign Origin
      {{"Origin", "null"}, {"X-Canopy-Token", good}},                // sandboxed page
      {{"X-Canopy-Token", good}},                                    // no Origin
  };
  for (const auto& headers : refused_headers) {
    for (const char* path : {"/api/control/heap-sampling?pid=42&on=1", "/api/control/heap-snapshot?pid=42",
                             "/api/control/memory-map?pid=42"}) {
      auto answer = post(path, headers);
      ASSERT_TRUE(answer);
      EXPECT_EQ(answer->status, 403) << path;
    }
  }
  // A foreign Host (DNS rebinding) is refused even with the token and a matching Origin.
  auto rebound = post("/api/control/heap-snapshot?pid=42",
                      {{"Host", "evil.example"}, {"Origin", "http://evil.example"}, {"X-Canopy-Token", good}});
  ASSERT_TRUE(rebound);
  EXPECT_EQ(rebound->status, 403);
  // The token is handed out to the page's own origin only.
  auto foreign_get = client().Get("/api/control", {{"Origin", "http://evil.example"}});
  ASSERT_TRUE(foreign_get);
  EXPECT_EQ(foreign_get->status, 403);
  EXPECT_EQ(foreign_get->body.find(good), std::string::npos);
  EXPECT_TRUE(control.calls.empty());
}

TEST_F(ControlRoutesTest, EverythingElseStaysReadOnly) {
  RecordingControl control;
  serve(&control);
  httplib::Headers headers = {{"Origin", own_origin()}, {"X-Canopy-Token", token()}};
  for (const char* path : {"/api/recording", "/api/series?metric=rss", "/", "/api/controlx"}) {
    auto answer = post(path, headers);
    ASSERT_TRUE(answer);
    EXPECT_EQ(answer->status, 405) << path;
  }
  auto put = client().Put("/api/control/heap-snapshot?pid=42", headers, "", "text/plain");
  ASSERT_TRUE(put);
  EXPECT_EQ(put->status, 405);
  // GET of a control action changes nothing.
  auto get = client().Get("/api/control/heap-snapshot?pid=42");
  ASSERT_TRUE(get);
  EXPECT_EQ(get->status, 404);
  EXPECT_TRUE(control.calls.empty());
}

TEST_F(ControlRoutesTest, WithoutAControlThereIsNoControl) {
  serve(nullptr);
  auto get = client().Get("/api/control");
  ASSERT_TRUE(get);
  EXPECT_EQ(get->status, 200);
  EXPECT_EQ(json::parse(get->body), (json{{"control", false}})) << "no token";
  auto answer = post("/api/control/heap-snapshot?pid=42", {{"Origin", own_origin()}, {"X-Canopy-Token", "x"}});
  ASSERT_TRUE(answer);
  EXPECT_EQ(answer->status, 405);
}

}  // namespace
}  // namespace canopy::testing
