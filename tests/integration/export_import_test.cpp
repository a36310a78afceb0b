// canopy export and canopy import, run as a user would: a real recording of the
// workload's tree exported as Onlooker JSON and imported back (the same processes,
// peaks and samples), a Windows Onlooker file with huge PIDs, and malformed files,
// each refused in one line with no recording left behind.
#include <gtest/gtest.h>
#include <httplib.h>
#include <sys/stat.h>

#include <csignal>

#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <regex>
#include <set>
#include <sstream>
#include <tuple>

#include "export/tick_frames.h"
#include "integration/harness.h"

namespace canopy::testing {
namespace {

using nlohmann::json;
const std::string kWindowsFixture = std::string(CANOPY_FIXTURES) + "/import/onlooker_windows.json";

std::vector<std::string> files_in(const TempDir& dir) {
  std::vector<std::string> names;
  for (const auto& entry : std::filesystem::directory_iterator(dir.path())) {
    names.push_back(entry.path().filename().string());
  }
  std::sort(names.begin(), names.end());
  return names;
}

using Identity = std::tuple<int64_t, int64_t, std::string>;  // pid, ppid, name

// A process's peak as the report gives it: the highest sample, or the kernel's
// high-water mark at its end when higher.
int64_t reported_peak(const store::ProcessRow& p) {
  int64_t peak = p.peak_rss_bytes.value_or(0);
  return p.end_ms && p.hwm_bytes ? std::max(peak, *p.hwm_bytes) : peak;
}

TEST(ExportImport, OnlookerRoundTripOnARealRecording) {
  TempDir dir;
  std::string original = dir.file("tree.canopy");
  ASSERT_EQ(run({kCanopy, "record", "-q", "-o", original, kWorkload, "tree"}).exit_status, 0);
  std::string exported = dir.file("tree.json");
  auto out = run({kCanopy, "export", original, "--format", "onlooker", "-o", exported});
  ASSERT_EQ(out.exit_status, 0) << out.err;
  struct stat st{};
  ASSERT_EQ(::stat(exported.c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0600u) << "exports can hold command lines: private to the user";

  auto before = open_recording(original);
  std::string cpus = std::to_string(before.meta().cpu_count.value_or(1));
  std::string imported = dir.file("back.canopy");
  auto in = run({kCanopy, "import", exported, "-o", imported, "--cpus", cpus});
  ASSERT_EQ(in.exit_status, 0) << in.err;
  EXPECT_EQ(in.err, "");
  EXPECT_NE(in.out.find("imported 7 processes"), std::string::npos) << in.out;

  // The same processes: all seven of the tree lived through at least one tick.
  auto after = open_recording(imported);
  auto ticks = before.ticks();
  auto processes_before = before.processes();
  auto processes_after = after.processes();
  ASSERT_TRUE(ticks && processes_before && processes_after);
  std::map<Identity, int64_t> peaks_before;
  for (const store::ProcessRow& p : *processes_before) {
    ASSERT_GT(exporters::ticks_alive(p, *ticks), 0u) << p.name << " " << p.pid;
    peaks_before[{p.pid, p.ppid, p.name}] = reported_peak(p);
  }
  std::map<Identity, int64_t> peaks_after;
  for (const store::ProcessRow& p : *processes_after) {
    peaks_after[{p.pid, p.ppid, p.name}] = reported_peak(p);
  }
  EXPECT_EQ(peaks_before.size(), 7u);
  EXPECT_EQ(peaks_after, peaks_before) << "the same processes with the same peaks";
  int64_t highest = 0;
  for (const auto& [who, peak] : peaks_after) {
    highest = std::max(highest, peak);
  }
  EXPECT_GE(highest, mib(150)) << "the child that touched 150 MiB";
  EXPECT_LT(highest, mib(160));

  // The same samples: exported again, the document is the same but for CPU's last
  // decimal and the very first tick (measured from the process's start, which Onlooker
  // does not carry).
  std::string again = dir.file("again.json");
  ASSERT_EQ(run({kCanopy, "export", imported, "--format", "onlooker", "-o", again}).exit_status, 0);
  json a = json::parse(read_file(exported));
  json b = json::parse(read_file(again));
  ASSERT_EQ(b.size(), a.size());
  int64_t first_tick_ms = ticks->front().t_ms;
  size_t entries = 0;
  for (size_t i = 0; i < a.size(); ++i) {
    SCOPED_TRACE(a[i]["name"].get<std::string>());
    EXPECT_EQ(b[i]["pid"], a[i]["pid"]);
    EXPECT_EQ(b[i]["ppid"], a[i]["ppid"]);
    EXPECT_EQ(b[i]["name"], a[i]["name"]);
    ASSERT_EQ(b[i]["data"].size(), a[i]["data"].size());
    for (size_t k = 0; k < a[i]["data"].size(); ++k) {
      const json& x = a[i]["data"][k];
      const json& y = b[i]["data"][k];
      EXPECT_EQ(y["time"], x["time"]);
      EXPECT_EQ(y["memory"], x["memory"]) << "entry " << k;
      if (x["time"] != first_tick_ms) {
        EXPECT_NEAR(y["cpuUsage"].get<double>(), x["cpuUsage"].get<double>(), 0.0015) << "entry " << k;
      }
      ++entries;
    }
  }
  EXPECT_GT(entries, 20u);

  // report, its HTML (the viewer's data, loaded as `canopy view` loads it) and every
  // export read the imported recording.
  auto report = run({kCanopy, "report", "--json", imported});
  ASSERT_EQ(report.exit_status, 0) << report.err;
  json summary = json::parse(report.out);
  EXPECT_EQ(summary["processes"], 7);
  EXPECT_EQ(summary["mode"], "import");
  std::string html = dir.file("back.html");
  auto html_run = run({kCanopy, "report", imported, "--html", html});
  ASSERT_EQ(html_run.exit_status, 0) << html_run.err;
  EXPECT_GT(std::filesystem::file_size(html), 1000u);
  for (const char* format : {"csv", "chrome", "jsonl", "cutelooker-log"}) {
    auto result = run({kCanopy, "export", imported, "--format", format});
    EXPECT_EQ(result.exit_status, 0) << format << ": " << result.err;
    EXPECT_FALSE(result.out.empty()) << format;
  }
}

TEST(ExportImport, WindowsFileWithHugePids) {
  TempDir dir;
  std::string imported = dir.file("windows.canopy");
  auto in = run({kCanopy, "import", kWindowsFixture, "-o", imported, "--cpus", "4"});
  ASSERT_EQ(in.exit_status, 0) << in.err;
  EXPECT_EQ(in.out, "canopy: imported 5 processes, 13 samples at 5 times over 0.400 s from " + kWindowsFixture +
                        " (Onlooker JSON) to " + imported + "\n");
  EXPECT_EQ(in.err, "");

  auto report = run({kCanopy, "report", "--json", imported});
  ASSERT_EQ(report.exit_status, 0) << report.err;
  json summary = json::parse(report.out);
  EXPECT_EQ(summary["processes"], 5);
  ASSERT_GE(summary["top"].size(), 2u);
  EXPECT_EQ(summary["top"][0]["pid"], 2147483652);
  EXPECT_EQ(summary["top"][0]["peak_rss_bytes"], 104857600);
  EXPECT_EQ(summary["top"][1]["pid"], 4294967292);
  auto text = run({kCanopy, "report", imported});
  ASSERT_EQ(text.exit_status, 0) << text.err;
  EXPECT_NE(text.out.find("pid 4294967292"), std::string::npos) << text.out;

  // The viewer serves it: its API lists the five processes, PIDs whole.
  Started view({kCanopy, "view", imported});
  ASSERT_TRUE(view.wait_for_output("(Ctrl-C to stop)")) << view.output();
  std::smatch match;
  std::string served = view.output();
  ASSERT_TRUE(std::regex_search(served, match, std::regex(R"(http://([0-9.]+):(\d+)/)"))) << served;
  httplib::Client client(match[1].str(), std::stoi(match[2].str()));
  auto response = client.Get("/api/recording");
  ASSERT_TRUE(response);
  ASSERT_EQ(response->status, 200);
  json recording = json::parse(response->body);
  EXPECT_EQ(recording["meta"]["mode"], "import");
  ASSERT_EQ(recording["processes"].size(), 5u);
  EXPECT_EQ(recording["processes"][1]["pid"], 4294967292);
  EXPECT_EQ(recording["processes"][1]["name"], "MSBuild.exe");
  view.signal(SIGTERM);
  EXPECT_EQ(view.wait().exit_status, 0);

  auto csv = run({kCanopy, "export", imported, "--format", "csv"});
  ASSERT_EQ(csv.exit_status, 0) << csv.err;
  EXPECT_NE(csv.out.find("MSBuild.exe (pid: 4294967292, ppid: 13200)"), std::string::npos) << csv.out;

  // Without --cpus the import still works, and says what its CPU times assume.
  std::string guessed = dir.file("guessed.canopy");
  auto no_cpus = run({kCanopy, "import", kWindowsFixture, "-o", guessed});
  EXPECT_EQ(no_cpus.exit_status, 0);
  EXPECT_EQ(std::count(no_cpus.err.begin(), no_cpus.err.end(), '\n'), 1) << no_cpus.err;
  EXPECT_NE(no_cpus.err.find("--cpus"), std::string::npos) << no_cpus.err;
}

TEST(ExportImport, TheSameProcessesInTwoOrdersDiffAsTheSame) {
  // Onlooker's own sort puts a child first when it started at its parent's round and
  // its PID is lower: the parent is found all the same, whatever the order.
  TempDir dir;
  const std::string child =
      R"({"pid":8,"ppid":20,"name":"child.exe","data":[{"time":1000,"cpuUsage":0,"memory":{"workingSetSize":1048576,"pagefileUsage":1048576}}]})";
  const std::string root =
      R"({"pid":20,"ppid":4,"name":"root.exe","data":[{"time":1000,"cpuUsage":0,"memory":{"workingSetSize":2097152,"pagefileUsage":2097152}}]})";
  std::ofstream(dir.file("child_first.json")) << "[" << child << "," << root << "]";
  std::ofstream(dir.file("root_first.json")) << "[" << root << "," << child << "]";
  for (const char* name : {"child_first", "root_first"}) {
    auto in = run({kCanopy, "import", dir.file(std::string(name) + ".json")});
    ASSERT_EQ(in.exit_status, 0) << in.err;
  }
  auto diff = run({kCanopy, "diff", "--json", dir.file("child_first.canopy"), dir.file("root_first.canopy")});
  ASSERT_EQ(diff.exit_status, 0) << diff.err;
  json found = json::parse(diff.out);
  EXPECT_EQ(found["matched"], 2);
  EXPECT_TRUE(found["only_a"].empty()) << found["only_a"];
  EXPECT_TRUE(found["only_b"].empty()) << found["only_b"];
  std::set<std::string> keys;
  for (const json& pair : found["pairs"]) {
    keys.insert(pair["key"].get<std::string>());
    EXPECT_EQ(pair["peak_rss_bytes"]["change"], 0) << pair["key"];
    EXPECT_EQ(pair["cpu_ns"]["change"], 0) << pair["key"];
  }
  EXPECT_EQ(keys, (std::set<std::string>{"root.exe", "root.exe/child.exe"}));
}

TEST(ExportImport, DefaultOutputAndForce) {
  TempDir dir;
  std::string input = dir.file("Onlooker_run.json");
  std::filesystem::copy_file(kWindowsFixture, input);
  ASSERT_EQ(run({kCanopy, "import", input, "--cpus", "4"}).exit_status, 0);
  EXPECT_EQ(files_in(dir), (std::vector<std::string>{"Onlooker_run.canopy", "Onlooker_run.json"}));
  auto again = run({kCanopy, "import", input, "--cpus", "4"});
  EXPECT_EQ(again.exit_status, 1);
  EXPECT_EQ(again.err, "canopy: cannot write '" + dir.file("Onlooker_run.canopy") +
                           "': file exists (use --force to replace it)\n");
  EXPECT_EQ(run({kCanopy, "import", input, "--cpus", "4", "--force"}).exit_status, 0);
  // A folder that does not exist: named as the user gave it, not the temporary file.
  auto nowhere = run({kCanopy, "import", input, "-o", dir.file("no/such/x.canopy")});
  EXPECT_EQ(nowhere.exit_status, 1);
  EXPECT_EQ(nowhere.err, "canopy: cannot write '" + dir.file("no/such/x.canopy") + "': No such file or directory\n");
}

struct MalformedImport {
  const char* what;
  std::string content;
  std::string error;  // after "canopy: FILE"
};

TEST(ExportImport, MalformedFilesLeaveNothingBehind) {
  std::string fixture = read_file(kWindowsFixture);
  const std::string expected = "expected an Onlooker array of processes [{\"pid\": ..., \"data\": [...]}, ...], found ";
  const std::string entry = R"({"time":5,"cpuUsage":0,"memory":{"workingSetSize":1,"pagefileUsage":1}})";
  const std::vector<MalformedImport> cases = {
      {"empty", "", ":1:1: " + expected + "an empty file"},
      {"blank", "  \n\n", ":3:1: " + expected + "only spaces"},
      {"binary garbage", std::string("\x89PNG\r\n\x1a\n\0\0\0\rIHDR", 16), ":1:1: " + expected + "byte 0x89"},
      {"truncated", fixture.substr(0, 1000),
       ":1:1001: syntax error while parsing value - unexpected end of input; expected '[', '{', or a literal"},
      {"cut after an element", fixture.substr(0, fixture.find("},{\"pid\":4294967292") + 1),
       ":1:" + std::to_string(fixture.find("},{\"pid\":4294967292") + 2) +
           ": unexpected end of input: the array is not closed"},
      {"an object", R"({"1643811426000": ["a log line"]})",
       ":1:1: " + expected + "'{' (an object: a Cutelooker log? that is for canopy log add)"},
      {"pid a string", R"([{"pid":"13200","ppid":1,"name":"a.exe","data":[]}])",
       ":1:2: process [0]: pid should be a whole number from 0 to 4294967295, found a string"},
      {"pid beyond a DWORD", R"([{"pid":4294967296,"ppid":1,"name":"a.exe","data":[]}])",
       ":1:2: process [0]: pid should be a whole number from 0 to 4294967295, found 4294967296"},
      {"no data", R"([{"pid":7,"ppid":1,"name":"a.exe"}])", ":1:2: process [0] (pid 7): has no \"data\""},
      {"name a number", R"([{"pid":7,"ppid":1,"name":12,"data":[]}])",
       ":1:2: process [0] (pid 7): name should be a string, found a number"},
      {"no working set", R"([{"pid":7,"ppid":1,"name":"a.exe","data":[{"time":5,"cpuUsage":0,"memory":{}}]}])",
       ":1:2: process [0] (pid 7): data[0].memory has no \"workingSetSize\""},
      {"negative memory",
       R"([{"pid":7,"ppid":1,"name":"a.exe","data":[{"time":5,"cpuUsage":0,"memory":{"workingSetSize":-5,"pagefileUsage":1}}]}])",
       ":1:2: process [0] (pid 7): data[0].memory.workingSetSize should be a whole number from 0 to "
       "9223372036854775807, found -5"},
      {"cpu a string", R"([{"pid":7,"ppid":1,"name":"a.exe","data":[{"time":5,"cpuUsage":"high","memory":{}}]}])",
       ":1:2: process [0] (pid 7): data[0].cpuUsage should be a percentage of at least 0, found a string"},
      {"time twice", "[{\"pid\":7,\"ppid\":1,\"name\":\"a.exe\",\"data\":[" + entry + "," + entry + "]}]",
       ":1:2: process [0] (pid 7): data has two samples at time 5"},
      {"no comma", "[{\"pid\":7,\"ppid\":1,\"name\":\"a.exe\",\"data\":[" + entry + "]} {}]",
       ":1:" + std::to_string(entry.size() + 46) + ": expected ',' or ']' after an element, found '{'"},
      {"trailing garbage", "[]\nx", ":2:1: unexpected 'x' after the array's end"},
      {"invalid UTF-8", "[{\"pid\":7,\"ppid\":1,\"name\":\"a\xff.exe\",\"data\":[]}]",
       ":1:29: syntax error while parsing value - invalid string: ill-formed UTF-8 byte; last read: '\"a\\xff'"},
      {"no samples", "[]", ": no process with samples: nothing to import"},
  };
  for (const MalformedImport& c : cases) {
    SCOPED_TRACE(c.what);
    TempDir dir;
    std::string input = dir.file("in.json");
    std::ofstream(input, std::ios::binary) << c.content;
    auto result = run({kCanopy, "import", input, "-o", dir.file("out.canopy")});
    EXPECT_EQ(result.exit_status, 1);
    EXPECT_EQ(result.err, "canopy: " + input + c.error + "\n");
    EXPECT_EQ(result.out, "");
    EXPECT_EQ(files_in(dir), std::vector<std::string>{"in.json"}) << "no recording, no temporary file";
  }
  TempDir dir;
  auto missing = run({kCanopy, "import", dir.file("missing.json")});
  EXPECT_EQ(missing.exit_status, 1);
  EXPECT_EQ(missing.err, "canopy: cannot read '" + dir.file("missing.json") + "': No such file or directory\n");
  EXPECT_TRUE(files_in(dir).empty());
}

TEST(ExportImport, ExportOptionErrorsInOneLine) {
  TempDir dir;
  std::string recording = dir.file("r.canopy");
  ASSERT_EQ(run({kCanopy, "record", "-q", "-o", recording, kWorkload, "exit", "0"}).exit_status, 0);
  struct Case {
    std::vector<std::string> args;
    std::string error;
  };
  const std::vector<Case> cases = {
      {{"--format", "svg"},
       "unknown export format 'svg' (known: onlooker, csv, chrome, jsonl, cutelooker-log, pprof, collapsed)"},
      {{"--format", "chrome", "--long"}, "--long applies to --format csv only"},
      {{"--format", "onlooker", "--kind", "log"}, "--kind applies to --format cutelooker-log only"},
      {{"--format", "csv", "--metric", "bogus"},
       "unknown --metric 'bogus' (known: rss_bytes, cpu_percent, or a sample column (rss_anon_bytes, ...))"},
      {{"--format", "csv", "--long", "--metric", "swap_bytes"}, "--metric is for the wide CSV; --long writes every column"},
      {{"--format", "chrome", "--metric", "rss_bytes"}, "--metric applies to --format csv and collapsed only"},
      {{"--format", "pprof", "--metric", "alloc_space"}, "--metric applies to --format csv and collapsed only"},
      {{"--format", "collapsed", "--metric", "rss_bytes"},
       "unknown --metric 'rss_bytes' for --format collapsed (known: inuse_space, inuse_objects, alloc_space, "
       "alloc_objects)"},
      {{"--format", "csv", "--metric", "inuse_space"},
       "unknown --metric 'inuse_space' (known: rss_bytes, cpu_percent, or a sample column (rss_anon_bytes, ...))"},
      {{"--format", "chrome", "--pid", "7"}, "--pid applies to --format pprof and collapsed only"},
      {{"--format", "csv", "--command", "make"}, "--command applies to --format pprof and collapsed only"},
      {{"--format", "jsonl", "--at", "peak"}, "--at applies to --format pprof and collapsed only"},
      {{"--format", "pprof", "--at", "middle"}, "unknown --at 'middle' (known: end, peak)"},
      {{"--format", "pprof", "--pid", "7", "--command", "make"}, "--pid excludes --command (see 'canopy export --help')"},
  };
  for (const Case& c : cases) {
    std::vector<std::string> argv = {kCanopy, "export", recording};
    argv.insert(argv.end(), c.args.begin(), c.args.end());
    auto result = run(argv);
    EXPECT_EQ(result.exit_status, 2) << c.error;
    EXPECT_EQ(result.err, "canopy: " + c.error + "\n");
  }
  // A directory that does not exist: nothing is written anywhere.
  auto unwritable = run({kCanopy, "export", recording, "--format", "csv", "-o", dir.file("no/such/dir/r.csv")});
  EXPECT_EQ(unwritable.exit_status, 1);
  EXPECT_EQ(unwritable.err, "canopy: cannot write '" + dir.file("no/such/dir/r.csv") + "': No such file or directory\n");
}

}  // namespace
}  // namespace canopy::testing
