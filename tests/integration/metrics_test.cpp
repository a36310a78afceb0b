// `canopy record --metrics`: /metrics while the tree runs, read by promtool and by a
// real Prometheus (Debian's `prometheus` package), and its refusals: a request
// without the token off loopback, a port in use, another site's page. With --heap,
// each process's heap in use, against a workload that holds a known heap.
#include <arpa/inet.h>
#include <dirent.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/socket.h>
#include <unistd.h>

#include <gtest/gtest.h>
#include <httplib.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <optional>
#include <set>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "integration/harness.h"
#include "integration/heap_sites.h"

namespace canopy::testing {
namespace {

using json = nlohmann::json;

// The workload: a shell and two children that each touch 48 MiB and hold it far
// longer than any test waits (the test ends them): "canopy_workload" is 2 processes
// with at least 96 MiB resident, "sh" is 1. The holders write nowhere: a holder the
// shell forked just after the test listed the tree to kill it outlives the shell, and
// canopy ends with the shell; with canopy's stderr open, it held the test's read of
// that pipe for its ten minutes (seen once in CI: a timeout at 120 s).
constexpr int64_t kHolderMiB = 48;
constexpr int kHolders = 2;
std::vector<std::string> holders_command() {
  std::string w = "\"" + kWorkload + "\"";
  const std::string quiet = " >/dev/null 2>&1 </dev/null &";
  return {"sh", "-c", w + " hold 48 600000" + quiet + " " + w + " hold 48 600000" + quiet + " wait"};
}

// Every descendant of `pid`, from the children lists (deepest last).
std::vector<pid_t> metrics_test_descendants(pid_t pid) {
  std::vector<pid_t> found;
  std::vector<pid_t> todo{pid};
  while (!todo.empty()) {
    pid_t parent = todo.back();
    todo.pop_back();
    std::string task_dir = "/proc/" + std::to_string(parent) + "/task";
    DIR* tasks = ::opendir(task_dir.c_str());
    if (!tasks) {
      continue;
    }
    while (dirent* entry = ::readdir(tasks)) {
      if (entry->d_name[0] == '.') {
        continue;
      }
      std::ifstream children(task_dir + "/" + entry->d_name + "/children");
      for (pid_t child; children >> child;) {
        found.push_back(child);
        todo.push_back(child);
      }
    }
    ::closedir(tasks);
  }
  return found;
}

// The process's name as the kernel keeps it (/proc/PID/comm), without the newline.
std::string metrics_test_comm(pid_t pid) {
  std::ifstream comm("/proc/" + std::to_string(pid) + "/comm");
  std::string name;
  std::getline(comm, name);
  return name;
}

// Whether `pid` (a child of ours, not yet waited for) still runs: not a zombie.
bool metrics_test_running(pid_t pid) {
  std::ifstream stat("/proc/" + std::to_string(pid) + "/stat");
  std::string text((std::istreambuf_iterator<char>(stat)), std::istreambuf_iterator<char>());
  size_t paren = text.rfind(')');
  return paren != std::string::npos && paren + 2 < text.size() && text[paren + 2] != 'Z';
}

// canopy record --metrics ADDR:0 [FLAGS] around the holders (or `command`), with the
// URL it printed.
class RecordWithMetrics {
 public:
  RecordWithMetrics(const std::string& path, const std::string& listen, const std::vector<std::string>& flags = {},
                    const std::vector<std::string>& command = holders_command()) {
    std::vector<std::string> argv = {kCanopy, "record", "-q", "-o", path, "--metrics", listen};
    argv.insert(argv.end(), flags.begin(), flags.end());
    argv.push_back("--");
    argv.insert(argv.end(), command.begin(), command.end());
    canopy_ = std::make_unique<Started>(argv);
    if (!canopy_->wait_for_error_output("/metrics")) {
      ADD_FAILURE() << "no URL printed: " << canopy_->error_output();
      return;
    }
    const std::string& err = canopy_->error_output();
    size_t at = err.find("metrics at http://");
    size_t end = err.find('\n', at);
    if (at == std::string::npos || end == std::string::npos) {
      ADD_FAILURE() << err;
      return;
    }
    url_ = err.substr(at + 11, end - at - 11);
    size_t colon = url_.find(':', 7);
    port_ = std::stoi(url_.substr(colon + 1));
  }
  ~RecordWithMetrics() { stop(); }

  // Ends the tree (the shell and the holders), so that the recorder finishes. Again
  // until it has: canopy prints the URL before it starts the command, so a test may
  // end before the shell or its children exist.
  Finished stop() {
    if (!canopy_) {
      return {};
    }
    while (metrics_test_running(canopy_->pid())) {
      for (pid_t pid : metrics_test_descendants(canopy_->pid())) {
        // Not canopy's own: LeakSanitizer's tracer (a clone of the recorder, at its
        // exit) killed here leaves the recorder waiting for it for ever; a child not yet
        // exec'd into the command is killed on a later round, once it has.
        if (metrics_test_comm(pid) != "canopy") {
          ::kill(pid, SIGKILL);
        }
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
    Finished finished = canopy_->wait();
    canopy_.reset();
    return finished;
  }
  const std::string& url() const { return url_; }
  int port() const { return port_; }

 private:
  std::unique_ptr<Started> canopy_;
  std::string url_;
  int port_ = 0;
};

// GET http://127.0.0.1:PORT`target` with `headers`; the status and body.
std::pair<int, std::string> metrics_get(int port, const std::string& target, const httplib::Headers& headers = {}) {
  httplib::Client client("127.0.0.1", port);
  client.set_connection_timeout(10);
  client.set_read_timeout(10);
  auto res = client.Get(target.c_str(), headers);
  if (!res) {
    return {-1, ""};
  }
  return {res->status, res->body};
}

// The series' value in an exposition: "name{labels} value" lines.
std::optional<double> exposition_value(const std::string& text, const std::string& series) {
  std::istringstream lines(text);
  for (std::string line; std::getline(lines, line);) {
    if (line.rfind(series + " ", 0) == 0) {
      return std::stod(line.substr(series.size() + 1));
    }
  }
  return std::nullopt;
}

// Polls `ready` every 200 ms, up to `limit`: a bound for a loaded machine, not a
// claim about speed.
bool metrics_poll_until(const std::function<bool()>& ready, std::chrono::seconds limit = std::chrono::seconds(120)) {
  auto deadline = std::chrono::steady_clock::now() + limit;
  while (!ready()) {
    if (std::chrono::steady_clock::now() > deadline) {
      return false;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
  }
  return true;
}

const std::string kWorkloadGroup = "{command=\"canopy_workload\"}";

// `promtool check metrics` on a scrape's text: exit status 127 when promtool is missing.
Finished promtool_check_metrics(const TempDir& dir, const std::string& body) {
  std::string file = dir.file("scrape.txt");
  std::ofstream(file) << body;
  return run({"sh", "-c", "promtool check metrics < \"$0\"", file});
}

TEST(Metrics, ServesTheTreesFiguresWhileItRuns) {
  TempDir dir;
  RecordWithMetrics record(dir.file("r.canopy"), "127.0.0.1:0");
  ASSERT_GT(record.port(), 0);
  EXPECT_EQ(record.url().rfind("http://127.0.0.1:", 0), 0u) << record.url();
  EXPECT_EQ(record.url().find("token"), std::string::npos) << "loopback asks for no token";
  std::string body;
  // Until both holders have touched their memory: their anonymous memory, since the
  // resident figure adds their mapped files and reaches the sum a little before; and
  // the cgroup's, which counts each page the tree touched once.
  const double held = static_cast<double>(kHolders * (kHolderMiB << 20));
  bool ready = metrics_poll_until([&] {
    auto [status, text] = metrics_get(record.port(), "/metrics");
    body = text;
    return status == 200 && exposition_value(text, "canopy_command_anon_bytes" + kWorkloadGroup).value_or(0) >= held &&
           exposition_value(text, "canopy_tree_cgroup_memory_bytes").value_or(0) >= held;
  });
  ASSERT_TRUE(ready) << body;
  EXPECT_EQ(exposition_value(body, "canopy_up"), 1);
  EXPECT_EQ(exposition_value(body, "canopy_command_processes" + kWorkloadGroup), kHolders);
  EXPECT_EQ(exposition_value(body, "canopy_command_processes{command=\"sh\"}"), 1);
  EXPECT_EQ(exposition_value(body, "canopy_tree_processes"), kHolders + 1);
  EXPECT_GE(exposition_value(body, "canopy_command_anon_bytes" + kWorkloadGroup).value_or(0),
            static_cast<double>(kHolders * (kHolderMiB << 20)));
  EXPECT_GE(exposition_value(body, "canopy_tree_resident_bytes").value_or(0),
            static_cast<double>(kHolders * (kHolderMiB << 20)));
  EXPECT_GE(exposition_value(body, "canopy_tree_cgroup_memory_peak_bytes").value_or(0),
            exposition_value(body, "canopy_tree_cgroup_memory_bytes").value_or(1));

  // promtool reads it as Prometheus would, and finds nothing to say.
  Finished checked = promtool_check_metrics(dir, body);
  if (checked.exit_status == 127) {
    GTEST_SKIP() << "promtool is not installed (Debian package prometheus; make deps installs it)";
  }
  EXPECT_EQ(checked.exit_status, 0) << checked.out << checked.err;
  EXPECT_EQ(checked.out + checked.err, "");
}

TEST(Metrics, ElsewhereThanLoopbackAsksForTheToken) {
  TempDir dir;
  RecordWithMetrics record(dir.file("r.canopy"), "0.0.0.0:0");
  ASSERT_GT(record.port(), 0);
  size_t at = record.url().find("?token=");
  ASSERT_NE(at, std::string::npos) << record.url();
  const std::string token = record.url().substr(at + 7);
  EXPECT_EQ(token.size(), 32u);
  auto [no_token, refusal] = metrics_get(record.port(), "/metrics");
  EXPECT_EQ(no_token, 401);
  EXPECT_EQ(refusal.find("canopy_"), std::string::npos);
  EXPECT_EQ(metrics_get(record.port(), "/metrics?token=" + token.substr(1) + "0").first, 401);
  EXPECT_EQ(metrics_get(record.port(), "/metrics", {{"Authorization", "Bearer " + token + "0"}}).first, 401);
  EXPECT_EQ(metrics_get(record.port(), "/metrics", {{"Authorization", "Basic " + token}}).first, 401);
  auto [bearer, body] = metrics_get(record.port(), "/metrics", {{"Authorization", "Bearer " + token}});
  EXPECT_EQ(bearer, 200);
  EXPECT_NE(body.find("canopy_up "), std::string::npos);
  EXPECT_EQ(metrics_get(record.port(), "/metrics?token=" + token).first, 200);
}

TEST(Metrics, RefusesOtherSitesOtherMethodsAndOtherPaths) {
  TempDir dir;
  RecordWithMetrics record(dir.file("r.canopy"), "127.0.0.1:0");
  ASSERT_GT(record.port(), 0);
  const std::string port = std::to_string(record.port());
  EXPECT_EQ(metrics_get(record.port(), "/metrics", {{"Host", "evil.example:" + port}}).first, 403);
  EXPECT_EQ(metrics_get(record.port(), "/metrics", {{"Origin", "http://evil.example"}}).first, 403);
  EXPECT_EQ(metrics_get(record.port(), "/").first, 404);
  EXPECT_EQ(metrics_get(record.port(), "/api/recording").first, 404);
  httplib::Client client("127.0.0.1", record.port());
  auto post = client.Post("/metrics", "x", "text/plain");
  ASSERT_TRUE(post);
  EXPECT_EQ(post->status, 405);
}

TEST(Metrics, APortInUseIsOneLineAndNoRecording) {
  int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  ASSERT_EQ(::bind(fd, reinterpret_cast<sockaddr*>(&address), sizeof address), 0);
  ASSERT_EQ(::listen(fd, 1), 0);
  socklen_t length = sizeof address;
  ::getsockname(fd, reinterpret_cast<sockaddr*>(&address), &length);
  const int port = ntohs(address.sin_port);
  TempDir dir;
  std::string path = dir.file("never.canopy");
  auto result = run({kCanopy, "record", "-o", path, "--metrics", std::to_string(port), "--", kWorkload, "exit", "0"});
  ::close(fd);
  EXPECT_EQ(result.exit_status, 125);
  EXPECT_EQ(result.err, "canopy: --metrics: cannot listen on 127.0.0.1 port " + std::to_string(port) +
                            ": Address already in use\n");
  EXPECT_FALSE(std::filesystem::exists(path));
}

// ---- A real Prometheus ----

// A free loopback port, as the kernel picks one; free again when this returns.
int metrics_free_port() {
  int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  ::bind(fd, reinterpret_cast<sockaddr*>(&address), sizeof address);
  socklen_t length = sizeof address;
  ::getsockname(fd, reinterpret_cast<sockaddr*>(&address), &length);
  ::close(fd);
  return ntohs(address.sin_port);
}

// One instant query's only sample, through Prometheus's HTTP API.
std::optional<double> prometheus_query(int port, const std::string& query) {
  httplib::Client client("127.0.0.1", port);
  client.set_read_timeout(10);
  auto res = client.Get("/api/v1/query", httplib::Params{{"query", query}}, httplib::Headers{});
  if (!res || res->status != 200) {
    return std::nullopt;
  }
  json answer = json::parse(res->body, nullptr, false);
  if (answer.is_discarded() || answer.value("status", "") != "success") {
    return std::nullopt;
  }
  const json& result = answer["data"]["result"];
  if (!result.is_array() || result.size() != 1) {
    return std::nullopt;
  }
  return std::stod(result[0]["value"][1].get<std::string>());
}

TEST(Metrics, PrometheusScrapesItAndAnswersWithTheWorkloadsFigures) {
  if (::access("/usr/bin/prometheus", X_OK) != 0) {
    GTEST_SKIP() << "/usr/bin/prometheus is missing (Debian package prometheus; make deps installs it)";
  }
  TempDir dir;
  RecordWithMetrics record(dir.file("r.canopy"), "127.0.0.1:0");
  ASSERT_GT(record.port(), 0);
  const std::string config = dir.file("prometheus.yml");
  std::ofstream(config) << "global:\n"
                           "  scrape_interval: 1s\n"
                           "  scrape_timeout: 1s\n"
                           "scrape_configs:\n"
                           "  - job_name: canopy\n"
                           "    static_configs:\n"
                           "      - targets: ['127.0.0.1:"
                        << record.port() << "']\n";
  std::filesystem::create_directories(dir.file("tsdb"));
  const int prometheus_port = metrics_free_port();
  Started prometheus({"/usr/bin/prometheus", "--config.file=" + config, "--storage.tsdb.path=" + dir.file("tsdb"),
                      "--web.listen-address=127.0.0.1:" + std::to_string(prometheus_port)});

  // Two scrapes or more, and the latest one after both holders had touched their
  // memory: generous bounds for a loaded machine, not claims about speed.
  const std::string resident = "canopy_command_resident_bytes" + kWorkloadGroup;
  std::optional<double> scrapes;
  std::optional<double> resident_bytes;
  bool ready = metrics_poll_until([&] {
    scrapes = prometheus_query(prometheus_port, "count_over_time(canopy_up{job=\"canopy\"}[10m])");
    resident_bytes = prometheus_query(prometheus_port, resident);
    return scrapes.value_or(0) >= 2 &&
           resident_bytes.value_or(0) >= static_cast<double>(kHolders * (kHolderMiB << 20));
  });
  ASSERT_TRUE(ready) << "scrapes: " << scrapes.value_or(-1) << ", resident: " << resident_bytes.value_or(-1)
                     << "\n" << prometheus.error_output().substr(0, 4000);
  EXPECT_EQ(prometheus_query(prometheus_port, "up{job=\"canopy\"}"), 1);
  EXPECT_EQ(prometheus_query(prometheus_port, "canopy_command_processes" + kWorkloadGroup), kHolders);
  EXPECT_EQ(prometheus_query(prometheus_port, "canopy_command_processes{command=\"sh\"}"), 1);
  EXPECT_EQ(prometheus_query(prometheus_port, "canopy_tree_processes"), kHolders + 1);
  EXPECT_GE(prometheus_query(prometheus_port, "canopy_tree_cpu_seconds_total").value_or(-1), 0);
  // The holders', the shell's and the shared group, each with two CPU modes: no more.
  EXPECT_EQ(prometheus_query(prometheus_port, "count(canopy_command_cpu_seconds_total)"), 3 * 2);
  prometheus.signal(SIGTERM);
  prometheus.wait();
}

// ---- Heap in use per process (record --heap) ----

// Two holders of a known heap under a shell: A keeps 4096 blocks of 16 KiB (64 MiB), B
// 2048 (32 MiB), sampled at one sample per 16 KiB on average. Each block is sampled
// independently with p = 1 - exp(-1) = 0.632 (the gaps between samples are exponential,
// so memoryless), and a holder's estimate is (16 KiB / p) times N, N ~ Binomial(n, p):
// mu = 2589 for A, 1294 for B. By Chernoff's bounds the estimate is off by more than 20%
// with probability at most exp(-0.2^2 mu / 2.2) + exp(-0.2^2 mu / 2) < 1e-10 for B (and
// far less for A), so a miss is a bug, not bad luck. What else a holder, or the shell,
// allocates (the C++ runtime's emergency pool, about 72 KiB; stdio; the vector of
// blocks, 32 KiB) is under 200 KiB, and its estimate passes 2 MiB only with 100 samples
// or more where about 12 are expected (Poisson: below 1e-40): the upper bounds allow it.
constexpr int64_t kHeapBlockBytes = 16 << 10;
constexpr int64_t kHeapBlocksA = 4096;
constexpr int64_t kHeapBlocksB = 2048;
constexpr double kHeapMetricTolerance = 0.2;
constexpr double kHeapExtraBytes = 2 << 20;

double heap_lower_bound(int64_t blocks) {
  return (1 - kHeapMetricTolerance) * static_cast<double>(blocks * kHeapBlockBytes);
}
double heap_upper_bound(int64_t blocks) {
  return (1 + kHeapMetricTolerance) * static_cast<double>(blocks * kHeapBlockBytes) + kHeapExtraBytes;
}

// The PID a holder wrote into its ready file, once it has: all its blocks allocated.
std::optional<pid_t> heap_holder_ready(const std::string& path) {
  std::ifstream file(path);
  pid_t pid = 0;
  if (file >> pid && pid > 0) {
    return pid;
  }
  return std::nullopt;
}

TEST(Metrics, WithHeapTheTopProcessesHeapInUseAndTheRestSummed) {
  TempDir dir;
  const std::string ready_a = dir.file("a.ready");
  const std::string ready_b = dir.file("b.ready");
  const std::string w = "\"" + kHeapWorkload + "\"";
  const std::string block = std::to_string(kHeapBlockBytes);
  std::vector<std::string> command = {
      "sh", "-c",
      w + " hold " + block + " " + std::to_string(kHeapBlocksA) + " \"$0\" & " + w + " hold " + block + " " +
          std::to_string(kHeapBlocksB) + " \"$1\" & wait",
      ready_a, ready_b};
  // --metrics-top 1: A has a series of its own, B (and the shell, if its profiler
  // sampled anything) are summed in pid="other".
  RecordWithMetrics record(dir.file("r.canopy"), "127.0.0.1:0",
                           {"--heap=" + std::to_string(kHeapBlockBytes), "--heap-interval", "100ms",
                            "--metrics-top", "1"},
                           command);
  ASSERT_GT(record.port(), 0);
  std::optional<pid_t> pid_a;
  std::optional<pid_t> pid_b;
  ASSERT_TRUE(metrics_poll_until([&] {
    pid_a = heap_holder_ready(ready_a);
    pid_b = heap_holder_ready(ready_b);
    return pid_a && pid_b;
  })) << "the holders never allocated their blocks";
  const std::string series_a = "canopy_process_heap_in_use_bytes{pid=\"" + std::to_string(*pid_a) + "\",command=\"" +
                               metrics_test_comm(*pid_a) + "\"}";
  const std::string series_other = "canopy_process_heap_in_use_bytes{pid=\"other\",command=\"(other processes)\"}";

  // A holder's figure is its latest snapshot's: after its ready file, each one has all
  // its blocks. Until the first of those has reached the recorder a figure covers part
  // of them, and so is lower: wait for both to reach their lower bounds (a bound for a
  // loaded machine, not a claim about speed). Allocating only, a holder's figure never
  // exceeds its final one, so the upper bounds hold whichever snapshot is served.
  std::string body;
  bool ready = metrics_poll_until([&] {
    auto [status, text] = metrics_get(record.port(), "/metrics");
    body = text;
    return status == 200 && exposition_value(text, series_a).value_or(0) >= heap_lower_bound(kHeapBlocksA) &&
           exposition_value(text, series_other).value_or(0) >= heap_lower_bound(kHeapBlocksB);
  });
  ASSERT_TRUE(ready) << series_a << "\n" << body;
  const double served_a = *exposition_value(body, series_a);
  EXPECT_LE(served_a, heap_upper_bound(kHeapBlocksA)) << body;
  EXPECT_LE(*exposition_value(body, series_other), heap_upper_bound(kHeapBlocksB)) << body;
  // The bound: A's series and the shared one, none for B or the shell.
  size_t heap_series = 0;
  std::istringstream lines(body);
  for (std::string line; std::getline(lines, line);) {
    heap_series += line.rfind("canopy_process_heap_in_use_bytes{", 0) == 0;
  }
  EXPECT_EQ(heap_series, 2u) << body;
  // The holders, and the shell if its profiler sampled something.
  const double reporting = exposition_value(body, "canopy_tree_heap_profiled_processes").value_or(-1);
  EXPECT_TRUE(reporting == 2 || reporting == 3) << body;
  Finished checked = promtool_check_metrics(dir, body);
  if (checked.exit_status != 127) {
    EXPECT_EQ(checked.exit_status, 0) << checked.out << checked.err;
    EXPECT_EQ(checked.out + checked.err, "") << body;
  }

  // B ends: its figure leaves the shared sum (the shell's, if any, stays: under 2 MiB).
  ::kill(*pid_b, SIGKILL);
  ready = metrics_poll_until([&] {
    auto [status, text] = metrics_get(record.port(), "/metrics");
    body = text;
    return status == 200 && exposition_value(text, series_other).value_or(-1) >= 0 &&
           exposition_value(text, series_other).value_or(-1) < kHeapExtraBytes;
  });
  ASSERT_TRUE(ready) << body;
  EXPECT_TRUE(exposition_value(body, series_a).has_value()) << body;

  // What was served is what A's profiler sent: one of its snapshots in the recording.
  record.stop();
  auto reader = open_recording(dir.file("r.canopy"));
  auto profile = reader.heap_profile();
  ASSERT_TRUE(profile.ok()) << profile.error().message;
  std::set<int64_t> images_of_a;
  for (const auto& image : profile->images) {
    if (image.pid == *pid_a) {
      images_of_a.insert(image.id);
    }
  }
  bool recorded = false;
  for (const auto& snapshot : profile->snapshots) {
    recorded = recorded || (images_of_a.count(snapshot.image_id) &&
                            static_cast<double>(snapshot.in_use_bytes) == served_a);
  }
  EXPECT_TRUE(recorded) << "served " << served_a << " for pid " << *pid_a << ", which no snapshot of it held";
}

}  // namespace
}  // namespace canopy::testing
