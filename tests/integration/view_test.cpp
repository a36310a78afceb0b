// canopy view and report --html on a real recording of the test tree: the API answers
// with the figures the recording holds, the server refuses everything that is not its
// own page and API or does not come from it, and the HTML report carries the data.
#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <httplib.h>
#include <netinet/in.h>
#include <openssl/evp.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include <chrono>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <regex>
#include <sstream>

#include "integration/harness.h"
#include "integration/recorded_tree.h"

namespace canopy::testing {
namespace {

using nlohmann::json;

// A recording of `canopy_workload tree`, made once for the suite.
class ViewTest : public RecordedTreeTest {
 protected:
  static void SetUpTestSuite() {
    RecordedTreeTest::SetUpTestSuite();
    if (HasFatalFailure()) {
      return;
    }
    auto report = run({kCanopy, "report", "--json", recording_});
    ASSERT_EQ(report.exit_status, 0) << report.err;
    // The chart's: the highest sum at a tick (the summary's peak may be a process's own).
    peak_ = json::parse(report.out)["sampled_peak_tree_rss_bytes"].get<int64_t>();
  }

  // Starts `canopy view` on a free port and returns the port.
  int start_view(std::vector<std::string> extra = {}) {
    std::vector<std::string> argv = {kCanopy, "view", recording_};
    argv.insert(argv.end(), extra.begin(), extra.end());
    view_ = std::make_unique<Started>(argv);
    EXPECT_TRUE(view_->wait_for_output("(Ctrl-C to stop)")) << view_->output();
    std::smatch match;
    std::string out = view_->output();
    EXPECT_TRUE(std::regex_search(out, match, std::regex(R"(http://([0-9.]+):(\d+)/)"))) << out;
    host_ = match[1];
    return std::stoi(match[2]);
  }

  void TearDown() override {
    if (view_) {
      view_->signal(SIGTERM);
      EXPECT_EQ(view_->wait().exit_status, 0);
    }
  }

  json get_json(int port, const std::string& path) {
    httplib::Client client("127.0.0.1", port);
    auto res = client.Get(path.c_str());
    EXPECT_TRUE(res) << path;
    EXPECT_EQ(res->status, 200) << path << ": " << res->body;
    return json::parse(res->body);
  }

  static inline int64_t peak_ = 0;
  std::unique_ptr<Started> view_;
  std::string host_;
};

// Sends `request` byte for byte (no client library normalising the path) and returns
// the status code of the answer and its body.
std::pair<int, std::string> raw_request(int port, const std::string& request) {
  int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_port = htons(static_cast<uint16_t>(port));
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (::connect(fd, reinterpret_cast<sockaddr*>(&address), sizeof address) != 0) {
    ::close(fd);
    return {-1, ""};
  }
  ::send(fd, request.data(), request.size(), 0);
  std::string response;
  char buffer[4096];
  for (ssize_t n; (n = ::recv(fd, buffer, sizeof buffer, 0)) > 0;) {
    response.append(buffer, static_cast<size_t>(n));
  }
  ::close(fd);
  int status = response.size() > 12 ? std::atoi(response.c_str() + 9) : -1;
  size_t body = response.find("\r\n\r\n");
  return {status, body == std::string::npos ? "" : response.substr(body + 4)};
}

std::string get_request(int port, const std::string& target, const std::string& headers = "") {
  return "GET " + target + " HTTP/1.1\r\nHost: 127.0.0.1:" + std::to_string(port) + "\r\n" + headers +
         "Connection: close\r\n\r\n";
}

TEST_F(ViewTest, ServesThePageAndTheRecording) {
  int port = start_view();
  EXPECT_EQ(host_, "127.0.0.1");
  httplib::Client client("127.0.0.1", port);
  auto page = client.Get("/");
  ASSERT_TRUE(page);
  EXPECT_EQ(page->status, 200);
  EXPECT_EQ(page->get_header_value("Content-Type"), "text/html; charset=utf-8");
  EXPECT_NE(page->body.find(R"(<script src="app.js"></script>)"), std::string::npos);
  EXPECT_NE(page->get_header_value("Content-Security-Policy").find("default-src 'self'"), std::string::npos);
  auto script = client.Get("/app.js");
  ASSERT_TRUE(script);
  EXPECT_EQ(script->status, 200);
  EXPECT_GT(script->body.size(), 1000u);

  json recording = get_json(port, "/api/recording");
  EXPECT_EQ(recording["file"], "tree.canopy");
  EXPECT_EQ(recording["processes"].size(), 7u);
  EXPECT_EQ(recording["peak"]["rss_bytes"].get<int64_t>(), peak_);
  EXPECT_EQ(recording["metrics"][0]["id"], "rss");
  // The root's subtree is the whole tree but the adopted daemon: its peak is at most
  // the tree's, and holds at least the three children (50 + 100 + 150 MiB).
  const json& root = recording["processes"][0];
  EXPECT_TRUE(root["parent"].is_null());
  EXPECT_EQ(root["named_from_exit_record"], false);  // read from its own files
  EXPECT_LE(root["subtree_peak_rss_bytes"].get<int64_t>(), peak_);
  EXPECT_GE(root["subtree_peak_rss_bytes"].get<int64_t>(), mib(300));

  json events = get_json(port, "/api/events");
  EXPECT_TRUE(events["events"].is_array());
}

// GET /api/events pages through a recording with an imported log of 1,000 lines 10 ms
// apart, filters by kind, and finds the line nearest to a time.
TEST_F(ViewTest, EventsArePagedFilteredAndFoundByTime) {
  std::string rec = dir_->file("logs.canopy");
  ASSERT_EQ(run({kCanopy, "record", "-q", "--capture-output", "-o", rec, "--", "sh", "-c", "echo out"}).exit_status, 0);
  auto summary = json::parse(run({kCanopy, "report", "--json", rec}).out);
  const int64_t base = summary["start_ms"].get<int64_t>();
  std::string log = dir_->file("app.jsonl");
  {
    std::ofstream out(log);
    for (int i = 0; i < 1000; ++i) {
      out << R"({"ts":)" << (base + 10 * i) << R"(,"msg":"line )" << i << "\"}\n";
    }
  }
  ASSERT_EQ(run({kCanopy, "log", "add", rec, log}).exit_status, 0);
  view_ = std::make_unique<Started>(std::vector<std::string>{kCanopy, "view", rec, "--port", "0"});
  ASSERT_TRUE(view_->wait_for_output("(Ctrl-C to stop)")) << view_->output();
  std::smatch match;
  std::string printed = view_->output();
  ASSERT_TRUE(std::regex_search(printed, match, std::regex(R"(http://127\.0\.0\.1:(\d+)/)"))) << printed;
  int port = std::stoi(match[1]);

  json recording = get_json(port, "/api/recording");
  const json& kinds = recording["event_kinds"];
  EXPECT_EQ(kinds["log"], 1000);
  EXPECT_EQ(kinds["stdout"], 1);
  EXPECT_EQ(kinds["start"], recording["processes"].size());
  ASSERT_EQ(recording["log_sources"].size(), 1u);
  EXPECT_EQ(recording["log_sources"][0]["events"], 1000);

  json page = get_json(port, "/api/events?kinds=log&offset=990&limit=50");
  EXPECT_EQ(page["total"], 1000);
  EXPECT_EQ(page["offset"], 990);
  ASSERT_EQ(page["events"].size(), 10u);
  EXPECT_EQ(page["events"][9]["text"], "line 999");
  EXPECT_EQ(page["events"][9]["t"], base + 9990);
  EXPECT_EQ(page["events"][9]["kind"], "log");
  EXPECT_EQ(page["events"][9]["source"], recording["log_sources"][0]["id"]);
  EXPECT_EQ(get_json(port, "/api/events?kinds=log&limit=5000")["events"].size(), 1000u);  // at most 1,000 a page

  // The nearest line; on a tie, the earlier; past either end, the end.
  EXPECT_EQ(get_json(port, "/api/events?kinds=log&at=" + std::to_string(base + 5004))["index"], 500);
  EXPECT_EQ(get_json(port, "/api/events?kinds=log&at=" + std::to_string(base + 5005))["index"], 500);
  EXPECT_EQ(get_json(port, "/api/events?kinds=log&at=" + std::to_string(base + 5006))["index"], 501);
  EXPECT_EQ(get_json(port, "/api/events?kinds=log&at=" + std::to_string(base - 60000))["index"], 0);
  EXPECT_EQ(get_json(port, "/api/events?kinds=log&at=" + std::to_string(base + 60000))["index"], 999);

  // Several kinds (a parameter longer than a short string's inline buffer), and all.
  int64_t ends = kinds.value("end", 0) + kinds.value("exit", 0);
  json mixed = get_json(port, "/api/events?kinds=stdout,log,start,end,exit&limit=1");
  EXPECT_EQ(mixed["total"], 1001 + kinds["start"].get<int64_t>() + ends);
  int64_t all = 0;
  for (const auto& [kind, count] : kinds.items()) {
    all += count.get<int64_t>();
  }
  EXPECT_EQ(get_json(port, "/api/events?limit=1")["total"], all);
  EXPECT_EQ(get_json(port, "/api/events?kinds=nosuchkind")["total"], 0);

  for (const char* target : {"/api/events?offset=-1", "/api/events?limit=0", "/api/events?at=x",
                             "/api/events?at=5&offset=0", "/api/events?limit=ten"}) {
    auto [status, body] = raw_request(port, get_request(port, target));
    EXPECT_EQ(status, 400) << target;
    EXPECT_FALSE(json::parse(body)["error"].get<std::string>().empty()) << target;
  }
}

TEST_F(ViewTest, SeriesTotalsAreTheRecordedTicks) {
  int port = start_view();
  auto reader = open_recording(recording_);
  auto ticks = reader.ticks();
  ASSERT_TRUE(ticks);
  json series = get_json(port, "/api/series?metric=rss&points=20000");
  EXPECT_TRUE(series["exact"].get<bool>());
  ASSERT_EQ(series["t"].size(), ticks->size());
  for (size_t i = 0; i < ticks->size(); ++i) {
    EXPECT_EQ(series["t"][i].get<int64_t>(), (*ticks)[i].t_ms);
    EXPECT_EQ(series["total"][i].get<int64_t>(), (*ticks)[i].rss_bytes) << "tick " << i;
  }
  // Downsampled to a handful of points, the peak is still drawn.
  json coarse = get_json(port, "/api/series?metric=rss&points=4");
  EXPECT_FALSE(coarse["exact"].get<bool>());
  int64_t highest = 0;
  for (const json& v : coarse["total"]) {
    highest = std::max(highest, v.get<int64_t>());
  }
  EXPECT_EQ(highest, peak_);
}

TEST_F(ViewTest, AtThePeakListsTheChildren) {
  int port = start_view();
  json recording = get_json(port, "/api/recording");
  int64_t t = recording["peak"]["t_ms"];
  json at = get_json(port, "/api/at?t=" + std::to_string(t));
  EXPECT_EQ(at["t"].get<int64_t>(), t);
  EXPECT_EQ(at["totals"]["rss"].get<int64_t>(), peak_);
  std::vector<int64_t> held;  // anonymous memory of the processes holding 20 MiB or more
  for (const json& p : at["processes"]) {
    if (p["anon"].get<int64_t>() >= mib(20)) {
      held.push_back(p["anon"].get<int64_t>() / mib(1));
    }
  }
  std::sort(held.begin(), held.end());
  ASSERT_GE(held.size(), 3u);
  std::vector<int64_t> children(held.end() - 3, held.end());
  EXPECT_EQ(children, (std::vector<int64_t>{50, 100, 150}));
}

TEST_F(ViewTest, BadParametersGetOneLine) {
  int port = start_view();
  for (const char* target : {"/api/series?metric=bogus", "/api/series?metric=rss&points=0",
                             "/api/series?metric=rss&from=10&to=5", "/api/series?metric=rss&from=abc",
                             "/api/series?metric=pss", "/api/series?metric=%FF", "/api/at", "/api/at?t=x",
                             "/api/at?t=5&side=later", "/api/recording?since=x", "/api/recording?since=-1"}) {
    auto [status, body] = raw_request(port, get_request(port, target));
    EXPECT_EQ(status, 400) << target;
    auto error = json::parse(body)["error"].get<std::string>();
    EXPECT_FALSE(error.empty()) << target;
    EXPECT_EQ(error.find('\n'), std::string::npos) << target;
  }
}

TEST_F(ViewTest, ServesNothingOutsideItsAssets) {
  int port = start_view();
  for (const char* target :
       {"/../../../../etc/passwd", "/%2e%2e/%2e%2e/%2e%2e/etc/passwd", "/%2E%2E%2F%2E%2E%2Fetc%2Fpasswd",
        "/..%2f..%2f..%2fetc%2fpasswd", "//etc/passwd", "/etc/passwd", "/app.js/../../../etc/passwd",
        "/api/../../../etc/passwd", "/api/recording/../../etc/passwd", "http://127.0.0.1/etc/passwd",
        "/index.html", "/.git/config", "/src/web/server.cpp", "/api", "/api/"}) {
    auto [status, body] = raw_request(port, get_request(port, target));
    EXPECT_TRUE(status == 404 || status == 400) << target << " answered " << status;
    EXPECT_EQ(body.find("root:"), std::string::npos) << target;
  }
}

// Connections that send nothing, or half a request and then nothing (a browser's
// speculative ones, or anyone's), hold no thread a real request needs: with 50 of them
// open, a request is answered while every one of them is still open. The server drops
// such a connection after its idle timeout (seconds), so a request that had to wait
// for threads to come free would find some of them closed; the check does not depend
// on how fast the machine answers, only on it answering within that timeout, while a
// request takes milliseconds.
TEST_F(ViewTest, IdleConnectionsDoNotDelayARequest) {
  int port = start_view();
  auto connect_to_view = [port] {
    int fd = ::socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in address{};
    address.sin_family = AF_INET;
    address.sin_port = htons(static_cast<uint16_t>(port));
    address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    EXPECT_EQ(::connect(fd, reinterpret_cast<sockaddr*>(&address), sizeof address), 0);
    return fd;
  };
  std::vector<int> idle;
  for (int i = 0; i < 50; ++i) {
    idle.push_back(connect_to_view());
    if (i % 2 == 1) {
      std::string half = "GET /api/recording HTTP/1.1\r\nHost: 127.0.0.1:" + std::to_string(port) + "\r\n";
      ASSERT_EQ(::send(idle.back(), half.data(), half.size(), 0), static_cast<ssize_t>(half.size()));
    }
  }
  auto start = std::chrono::steady_clock::now();
  httplib::Client client("127.0.0.1", port);
  client.set_read_timeout(30, 0);  // the test's own bound, were the request queued behind them
  auto res = client.Get("/api/recording");
  double latency_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  ASSERT_TRUE(res);
  EXPECT_EQ(res->status, 200);
  for (int fd : idle) {
    char byte;
    ssize_t n = ::recv(fd, &byte, 1, MSG_DONTWAIT);
    int error = errno;
    EXPECT_TRUE(n == -1 && (error == EAGAIN || error == EWOULDBLOCK))
        << "idle connection " << fd << " was closed or answered before the request was (recv: " << n << ", "
        << std::strerror(error) << "); the request waited " << latency_ms << " ms";
    ::close(fd);
  }
  std::printf("a request with 50 idle connections open: answered in %.1f ms\n", latency_ms);
}

TEST_F(ViewTest, AnswersGetAndHeadOnly) {
  int port = start_view();
  for (const char* method : {"POST", "PUT", "DELETE", "PATCH", "OPTIONS"}) {
    std::string request = std::string(method) + " /api/recording HTTP/1.1\r\nHost: 127.0.0.1:" +
                          std::to_string(port) + "\r\nContent-Length: 0\r\nConnection: close\r\n\r\n";
    EXPECT_EQ(raw_request(port, request).first, 405) << method;
  }
  std::string head = "HEAD /api/recording HTTP/1.1\r\nHost: 127.0.0.1:" + std::to_string(port) +
                     "\r\nConnection: close\r\n\r\n";
  EXPECT_EQ(raw_request(port, head).first, 200);
}

TEST_F(ViewTest, RefusesOtherSitesAndHosts) {
  int port = start_view();
  std::string self = "http://127.0.0.1:" + std::to_string(port);
  auto status_with = [&](const std::string& headers) {
    return raw_request(port, get_request(port, "/api/recording", headers)).first;
  };
  EXPECT_EQ(status_with(""), 200);
  EXPECT_EQ(status_with("Origin: " + self + "\r\n"), 200);
  EXPECT_EQ(status_with("Sec-Fetch-Site: same-origin\r\n"), 200);
  EXPECT_EQ(status_with("Origin: http://evil.example\r\n"), 403);
  EXPECT_EQ(status_with("Origin: http://127.0.0.1:1\r\n"), 403);
  EXPECT_EQ(status_with("Origin: null\r\n"), 403);
  EXPECT_EQ(status_with("Sec-Fetch-Site: cross-site\r\n"), 403);
  // DNS rebinding: evil.example resolving to 127.0.0.1 still sends its own Host.
  std::string rebound = "GET /api/recording HTTP/1.1\r\nHost: evil.example:" + std::to_string(port) +
                        "\r\nConnection: close\r\n\r\n";
  EXPECT_EQ(raw_request(port, rebound).first, 403);
}

// The first address of this machine that is not loopback, if it has one.
std::optional<std::string> outside_address() {
  auto result = run({"hostname", "-I"});
  std::istringstream words(result.out);
  for (std::string word; words >> word;) {
    if (word.find(':') == std::string::npos && word.rfind("127.", 0) != 0) {
      return word;
    }
  }
  return std::nullopt;
}

TEST_F(ViewTest, ListensOnLoopbackOnly) {
  auto outside = outside_address();
  if (!outside) {
    GTEST_SKIP() << "this machine has no address but loopback";
  }
  int port = start_view();
  httplib::Client client(*outside, port);
  client.set_connection_timeout(2);
  EXPECT_FALSE(client.Get("/")) << "reachable on " << *outside;
}

TEST_F(ViewTest, StopsOnSigtermRightAfterItStartsServing) {
  // httplib ignores a stop before its accept loop runs; CI once hung here for 120 s.
  for (int i = 0; i < 20; ++i) {
    start_view();
    view_->signal(SIGTERM);
    EXPECT_EQ(view_->wait().exit_status, 0);
    view_.reset();
  }
}

TEST_F(ViewTest, ListeningElsewhereAsksForTheTokenAndWarns) {
  int port = start_view({"--listen", "0.0.0.0"});
  EXPECT_EQ(host_, "0.0.0.0");
  std::smatch token;
  const std::string out = view_->output();
  ASSERT_TRUE(std::regex_search(out, token, std::regex(R"(/\?token=([0-9a-f]{32}) )"))) << out;
  EXPECT_EQ(raw_request(port, get_request(port, "/api/recording")).first, 401);
  EXPECT_EQ(raw_request(port, get_request(port, "/api/recording?token=" + token[1].str())).first, 200);
  view_->signal(SIGTERM);
  Finished finished = view_->wait();
  view_.reset();
  EXPECT_EQ(finished.exit_status, 0);
  EXPECT_NE(finished.err.find("canopy: warning: the viewer listens on 0.0.0.0, so other machines can reach it; it "
                              "answers only requests with the token in the URL below, and the recording holds "
                              "command lines, which can hold secrets\n"),
            std::string::npos)
      << finished.err;
}

TEST_F(ViewTest, BadInputGetsOneLine) {
  auto missing = run({kCanopy, "view", dir_->file("missing.canopy")});
  EXPECT_EQ(missing.exit_status, 1);
  EXPECT_EQ(missing.err, "canopy: cannot open '" + dir_->file("missing.canopy") + "': No such file or directory\n");
  auto bad_port = run({kCanopy, "view", recording_, "--port", "70000"});
  EXPECT_EQ(bad_port.exit_status, 2);
  EXPECT_EQ(std::count(bad_port.err.begin(), bad_port.err.end(), '\n'), 1) << bad_port.err;
  auto bad_address = run({kCanopy, "view", recording_, "--listen", "not-an-address"});
  EXPECT_EQ(bad_address.exit_status, 2);
  EXPECT_EQ(bad_address.err, "canopy: --listen 'not-an-address': not an IPv4 or IPv6 address\n");
}

// A canopy binary copied without canopy-web.so beside it still records and reports;
// `view` and `report --html` say which file is missing, and write nothing.
TEST_F(ViewTest, WithoutTheWebModuleViewSaysWhatIsMissing) {
  std::string lone = dir_->file("canopy");
  std::filesystem::copy_file(kCanopy, lone);
  // Where it looked: beside the binary, then where an install puts the module.
  const std::string missing = "canopy: cannot find the viewer's module canopy-web.so: not at '" +
                              dir_->file("canopy-web.so") + "' nor at '" + dir_->file("../lib/canopy/canopy-web.so") +
                              "'";
  auto view = run({lone, "view", recording_});
  EXPECT_EQ(view.exit_status, 1);
  EXPECT_EQ(std::count(view.err.begin(), view.err.end(), '\n'), 1) << view.err;
  EXPECT_EQ(view.err.rfind(missing, 0), 0u) << view.err;
  std::string html = dir_->file("lone.html");
  auto report = run({lone, "report", recording_, "--html", html});
  EXPECT_EQ(report.exit_status, 1);
  EXPECT_NE(report.out.find("peak memory"), std::string::npos) << report.out;
  EXPECT_NE(report.err.find(missing), std::string::npos) << report.err;
  EXPECT_FALSE(std::filesystem::exists(html));
}

// The payload of the report's data element: base64, then gzip.
json report_payload(const std::string& html) {
  std::smatch match;
  std::regex element(R"(<script id="canopy-data" type="application/octet-stream" data-encoding="gzip-base64">([^<]*)</script>)");
  if (!std::regex_search(html, match, element)) {
    ADD_FAILURE() << "no data element";
    return {};
  }
  std::string encoded = match[1];
  std::string compressed(encoded.size(), '\0');
  int n = EVP_DecodeBlock(reinterpret_cast<unsigned char*>(compressed.data()),
                          reinterpret_cast<const unsigned char*>(encoded.data()), static_cast<int>(encoded.size()));
  compressed.resize(static_cast<size_t>(n) - std::count(encoded.end() - 2, encoded.end(), '='));
  z_stream stream{};
  inflateInit2(&stream, 15 + 16);
  std::string text;
  char buffer[65536];
  stream.next_in = reinterpret_cast<Bytef*>(compressed.data());
  stream.avail_in = static_cast<uInt>(compressed.size());
  int rc = Z_OK;
  while (rc == Z_OK) {
    stream.next_out = reinterpret_cast<Bytef*>(buffer);
    stream.avail_out = sizeof buffer;
    rc = inflate(&stream, Z_NO_FLUSH);
    text.append(buffer, sizeof buffer - stream.avail_out);
  }
  inflateEnd(&stream);
  EXPECT_EQ(rc, Z_STREAM_END);
  return json::parse(text);
}

TEST_F(ViewTest, HtmlReportIsOneFileWithTheData) {
  std::string out = dir_->file("tree.html");
  auto result = run({kCanopy, "report", recording_, "--html", out});
  ASSERT_EQ(result.exit_status, 0) << result.err;
  EXPECT_NE(result.err.find("canopy: wrote " + out), std::string::npos);
  struct stat st {};
  ASSERT_EQ(::stat(out.c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0600u);
  std::ifstream file(out);
  std::string html((std::istreambuf_iterator<char>(file)), std::istreambuf_iterator<char>());
  // Nothing refers outside the file; its policy forbids connections.
  EXPECT_EQ(html.find(R"(src="app.js")"), std::string::npos);
  EXPECT_EQ(html.find(R"(href="app.css")"), std::string::npos);
  EXPECT_NE(html.find("connect-src 'none'"), std::string::npos);
  json payload = report_payload(html);
  EXPECT_EQ(payload["recording"]["processes"].size(), 7u);
  EXPECT_EQ(payload["recording"]["peak"]["rss_bytes"].get<int64_t>(), peak_);
  for (const char* metric : {"rss", "anon", "swap", "cpu"}) {
    EXPECT_TRUE(payload["series"].contains(metric)) << metric;
  }
  int64_t highest = 0;
  for (const json& v : payload["series"]["rss"]["total"]) {
    highest = std::max(highest, v.get<int64_t>());
  }
  EXPECT_EQ(highest, peak_);
}

TEST_F(ViewTest, HtmlReportFailureLeavesNothing) {
  std::string out = dir_->file("no-such-dir/tree.html");
  auto result = run({kCanopy, "report", recording_, "--html", out});
  EXPECT_EQ(result.exit_status, 1);
  EXPECT_EQ(result.err, "canopy: cannot write '" + out + "': No such file or directory\n");
  EXPECT_FALSE(std::filesystem::exists(dir_->file("no-such-dir")));
}

}  // namespace
}  // namespace canopy::testing
