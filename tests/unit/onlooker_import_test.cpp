// canopy's Onlooker importer on a file as Onlooker writes it on Windows
// (fixtures/import/onlooker_windows.json: one line, Windows image names, a UTF-8 name,
// PIDs above 2^31 and near 2^32, a process paged out), read back through the Reader,
// then exported again and compared with the file field by field.
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>
#include <tuple>

#include "export/onlooker_json.h"
#include "import/onlooker_import.h"
#include "store/reader.h"
#include "store/writer.h"
#include "support/temp_dir.h"

namespace canopy::testing {
namespace {

using nlohmann::json;
const std::string kWindowsFixture = std::string(CANOPY_FIXTURES) + "/import/onlooker_windows.json";
constexpr int64_t kT = 1655924492099;  // the fixture's first time, 2022-06-22 19:01:32.099 UTC

json read_json(const std::string& path) {
  std::ifstream file(path, std::ios::binary);
  std::stringstream text;
  text << file.rdbuf();
  return json::parse(text.str());
}

Result<importers::ImportSummary> import(const std::string& input, const std::string& output,
                                        std::optional<int64_t> cpus = 4, bool force = false) {
  importers::OnlookerImportOptions options;
  options.input = input;
  options.output = output;
  options.cpu_count = cpus;
  options.force = force;
  return importers::import_onlooker(options);
}

// One Onlooker element; each sample is {time, workingSetSize, peakWorkingSetSize}.
std::string element(int64_t pid, int64_t ppid, const std::string& name,
                    const std::vector<std::array<int64_t, 3>>& samples) {
  std::string text = "{\"pid\":" + std::to_string(pid) + ",\"ppid\":" + std::to_string(ppid) + ",\"name\":\"" + name +
                     "\",\"data\":[";
  for (size_t k = 0; k < samples.size(); ++k) {
    auto [t_ms, working_set, peak] = samples[k];
    text += (k ? "," : "") + std::string("{\"time\":") + std::to_string(t_ms) +
            ",\"cpuUsage\":0,\"memory\":{\"workingSetSize\":" + std::to_string(working_set) +
            ",\"pagefileUsage\":" + std::to_string(working_set) + ",\"peakWorkingSetSize\":" + std::to_string(peak) + "}}";
  }
  return text + "]}";
}

std::string write_file(const TempDir& dir, const std::string& name, const std::string& text) {
  std::string path = dir.file(name);
  std::ofstream(path, std::ios::binary) << text;
  return path;
}

std::vector<store::ProcessRow> imported_processes(const TempDir& dir, const std::string& name,
                                                  const std::vector<std::string>& elements) {
  std::string text = "[";
  for (size_t i = 0; i < elements.size(); ++i) {
    text += (i ? "," : "") + elements[i];
  }
  std::string out = dir.file(name + ".canopy");
  auto summary = import(write_file(dir, name + ".json", text + "]"), out);
  EXPECT_TRUE(summary) << summary.error().message;
  auto reader = store::Reader::open(out);
  EXPECT_TRUE(reader) << reader.error().message;
  auto processes = reader->processes();
  EXPECT_TRUE(processes);
  return *processes;
}

// Each process as "name(pid) <- parent's name(pid)", in the recording's order.
std::vector<std::string> tree_of(const std::vector<store::ProcessRow>& processes) {
  std::map<int64_t, const store::ProcessRow*> by_id;
  for (const auto& p : processes) {
    by_id[p.id] = &p;
  }
  std::vector<std::string> lines;
  for (const auto& p : processes) {
    std::string line = p.name + "(" + std::to_string(p.pid) + ")";
    if (p.parent_id) {
      auto parent = by_id.find(*p.parent_id);
      line += " <- " + (parent == by_id.end() ? "missing id " + std::to_string(*p.parent_id)
                                              : parent->second->name + "(" + std::to_string(parent->second->pid) + ")");
    }
    lines.push_back(line);
  }
  return lines;
}

TEST(OnlookerImport, WindowsNamesAndHugePids) {
  TempDir dir;
  std::string out = dir.file("windows.canopy");
  auto summary = import(kWindowsFixture, out);
  ASSERT_TRUE(summary) << summary.error().message;
  EXPECT_EQ(summary->processes, 5);
  EXPECT_EQ(summary->samples, 13);
  EXPECT_EQ(summary->ticks, 5);

  auto reader = store::Reader::open(out);
  ASSERT_TRUE(reader) << reader.error().message;
  const auto& meta = reader->meta();
  EXPECT_EQ(meta.mode, "import");
  EXPECT_EQ(meta.source, "onlooker");
  EXPECT_EQ(meta.source_file, kWindowsFixture);
  EXPECT_EQ(reader->meta().start_ms, kT);
  EXPECT_EQ(reader->meta().end_ms, kT + 400);
  EXPECT_EQ(reader->meta().interval_ms, 100);
  EXPECT_EQ(reader->meta().cpu_count, 4);
  EXPECT_EQ(reader->meta().root_pid, 13200);

  auto processes = reader->processes();
  ASSERT_TRUE(processes);
  ASSERT_EQ(processes->size(), 5u);
  const auto& p = *processes;
  // In order of their first sample; the file's order among equals.
  EXPECT_EQ(p[0].name, "cmake.exe");
  EXPECT_EQ(p[1].name, "MSBuild.exe");
  EXPECT_EQ(p[1].pid, 4294967292);  // 2^32 - 4: a DWORD pid_t could not hold
  EXPECT_EQ(p[2].name, "cl.exe");
  EXPECT_EQ(p[2].pid, 2147483652);  // 2^31 + 4
  EXPECT_EQ(p[2].ppid, 4294967292);
  EXPECT_EQ(p[3].name, "\xC3\x9C" "berpr\xC3\xBC" "fung \xE2\x80\x93 \xE6\xB5\x8B\xE8\xAF\x95.exe");
  EXPECT_EQ(p[4].name, "conhost.exe");
  // The tree, from PPIDs; cmake's parent (18036) was not recorded.
  EXPECT_EQ(p[0].parent_id, std::nullopt);
  EXPECT_EQ(p[1].parent_id, p[0].id);
  EXPECT_EQ(p[2].parent_id, p[1].id);
  EXPECT_EQ(p[3].parent_id, p[1].id);
  EXPECT_EQ(p[4].parent_id, p[2].id);
  // Peaks: the highest working set, and Windows' own peak as the high-water mark.
  EXPECT_EQ(p[1].peak_rss_bytes, 62914560);
  EXPECT_EQ(p[1].peak_rss_t_ms, kT + 200);
  EXPECT_EQ(p[1].hwm_bytes, 62914560);
  EXPECT_EQ(p[2].peak_rss_bytes, 104857600);
  EXPECT_EQ(p[1].first_seen_ms, kT + 100);
  EXPECT_EQ(p[1].end_ms, kT + 300);
  // CPU: cmake used 8 %, 25 % and 50 % of 4 CPUs over three 100 ms rounds.
  EXPECT_EQ(p[0].cpu_user_ns, (8 + 25 + 50) * 4'000'000);
  EXPECT_EQ(p[1].cpu_user_ns, (100 + 12) * 4'000'000);

  // MSBuild at +300: 40 MiB resident of 46 MiB committed, 6 MiB paged out.
  bool seen = false;
  ASSERT_TRUE(reader->for_each_sample([&](int64_t t_ms, int64_t id, const store::SampleValues& v) {
    if (id == p[1].id && t_ms == kT + 300) {
      seen = true;
      EXPECT_EQ(v.rss_bytes(), 41943040);
      EXPECT_EQ(v[store::kRssAnonBytes], 41943040);
      EXPECT_EQ(v[store::kSwapBytes], 48234496 - 41943040);
      EXPECT_EQ(v[store::kMinorFaults], 15100);
    }
  }));
  EXPECT_TRUE(seen);
  auto ticks = reader->ticks();
  ASSERT_TRUE(ticks);
  ASSERT_EQ(ticks->size(), 5u);
  EXPECT_EQ((*ticks)[3].processes, 5);
  EXPECT_EQ((*ticks)[3].rss_bytes, 20381696 + 41943040 + 104857600 + 4288512 + 11837440);
}

TEST(OnlookerImport, ExportGivesTheFileBack) {
  TempDir dir;
  std::string out = dir.file("windows.canopy");
  ASSERT_TRUE(import(kWindowsFixture, out));
  auto reader = store::Reader::open(out);
  ASSERT_TRUE(reader);
  std::string exported;
  ASSERT_TRUE(exporters::write_onlooker_json(*reader, [&](std::string_view b) { exported.append(b); }));

  json original = read_json(kWindowsFixture);
  json again = json::parse(exported);
  ASSERT_EQ(again.size(), original.size());
  for (size_t i = 0; i < original.size(); ++i) {
    const json& a = original[i];
    const json& b = again[i];
    SCOPED_TRACE(a["name"].get<std::string>());
    EXPECT_EQ(b["pid"], a["pid"]);
    EXPECT_EQ(b["ppid"], a["ppid"]);
    EXPECT_EQ(b["name"], a["name"]);
    ASSERT_EQ(b["data"].size(), a["data"].size());
    for (size_t k = 0; k < a["data"].size(); ++k) {
      const json& x = a["data"][k];
      const json& y = b["data"][k];
      EXPECT_EQ(y["time"], x["time"]);
      EXPECT_NEAR(y["cpuUsage"].get<double>(), x["cpuUsage"].get<double>(), 0.001) << "entry " << k;
      for (const char* key : {"workingSetSize", "peakWorkingSetSize", "pagefileUsage", "peakPagefileUsage",
                              "privateUsage", "pageFaultCount"}) {
        EXPECT_EQ(y["memory"][key], x["memory"][key]) << key << ", entry " << k;
      }
    }
  }
}

TEST(OnlookerImport, ChildListedBeforeItsParentAtTheSameTime) {
  // Onlooker sorts by (start, end, pid, ppid): a child whose first round is its
  // parent's comes first when its PID is lower.
  TempDir dir;
  auto processes = imported_processes(dir, "child_first", {element(8, 20, "child.exe", {{{1000, 1 << 20, 1 << 20}}}),
                                                           element(20, 4, "root.exe", {{{1000, 2 << 20, 2 << 20}}})});
  EXPECT_EQ(tree_of(processes), (std::vector<std::string>{"root.exe(20)", "child.exe(8) <- root.exe(20)"}))
      << "a parent is numbered before its children, as the recorder numbers them";
}

TEST(OnlookerImport, FileOrderDoesNotChangeTheTree) {
  TempDir dir;
  std::vector<std::string> elements = {
      element(30, 10, "cl.exe", {{{1100, 5 << 20, 5 << 20}}}),
      element(10, 1, "cmake.exe", {{{1000, 1 << 20, 1 << 20}, {1100, 1 << 20, 1 << 20}}}),
      element(40, 30, "link.exe", {{{1100, 3 << 20, 3 << 20}}}),
      element(20, 10, "msbuild.exe", {{{1000, 2 << 20, 2 << 20}, {1100, 2 << 20, 2 << 20}}}),
  };
  auto forward = tree_of(imported_processes(dir, "forward", elements));
  std::reverse(elements.begin(), elements.end());
  auto backward = tree_of(imported_processes(dir, "backward", elements));
  auto sorted = [](std::vector<std::string> lines) {
    std::sort(lines.begin(), lines.end());
    return lines;
  };
  EXPECT_EQ(sorted(forward), (std::vector<std::string>{"cl.exe(30) <- cmake.exe(10)", "cmake.exe(10)",
                                                       "link.exe(40) <- cl.exe(30)", "msbuild.exe(20) <- cmake.exe(10)"}));
  EXPECT_EQ(sorted(backward), sorted(forward));
}

TEST(OnlookerImport, TwoProcessesNamingEachOtherAsParentMakeNoCycle) {
  // Only a file can say this (a parent starts before its child), but a recording whose
  // tree loops would hang whatever walks it. The lower PID is taken for the root.
  TempDir dir;
  std::vector<std::string> elements = {element(7, 5, "a.exe", {{{1000, 1 << 20, 1 << 20}}}),
                                       element(5, 7, "b.exe", {{{1000, 1 << 20, 1 << 20}}})};
  auto forward = tree_of(imported_processes(dir, "forward", elements));
  std::reverse(elements.begin(), elements.end());
  auto backward = tree_of(imported_processes(dir, "backward", elements));
  EXPECT_EQ(forward, (std::vector<std::string>{"b.exe(5)", "a.exe(7) <- b.exe(5)"}));
  EXPECT_EQ(backward, forward);
}

TEST(OnlookerImport, AnElementHoldingTwoInstancesOfAPidIsSplit) {
  // Onlooker keys processes by (pid, ppid, name), so a PID reused under the same parent
  // and name is one element. Onlooker samples a process at every round while it lives,
  // so the round missed at +300 parts two processes; and a peak working set only
  // grows, so one going back down parts two more (at +600, with no round missed).
  TempDir dir;
  auto processes = imported_processes(
      dir, "reused",
      {element(100, 1, "build.exe", {{{1000, 1 << 20, 1 << 20}, {1100, 1 << 20, 1 << 20}, {1200, 1 << 20, 1 << 20}, {1300, 1 << 20, 1 << 20},
                                     {1400, 1 << 20, 1 << 20}, {1500, 1 << 20, 1 << 20}, {1600, 1 << 20, 1 << 20}, {1700, 1 << 20, 1 << 20}}}),
       element(300, 100, "worker.exe",
               {{{1100, 10 << 20, 10 << 20}, {1200, 12 << 20, 12 << 20},   // the first
                 {1400, 30 << 20, 30 << 20}, {1500, 40 << 20, 40 << 20},   // the second, after a gap
                 {1600, 20 << 20, 20 << 20}, {1700, 25 << 20, 25 << 20}}})});  // the third, right after
  EXPECT_EQ(tree_of(processes),
            (std::vector<std::string>{"build.exe(100)", "worker.exe(300) <- build.exe(100)",
                                      "worker.exe(300) <- build.exe(100)", "worker.exe(300) <- build.exe(100)"}));
  ASSERT_EQ(processes.size(), 4u);
  const int64_t expected[][3] = {{1100, 1200, 12 << 20}, {1400, 1500, 40 << 20}, {1600, 1700, 25 << 20}};
  for (size_t i = 0; i < 3; ++i) {
    const store::ProcessRow& worker = processes[i + 1];
    EXPECT_EQ(worker.first_seen_ms, expected[i][0]) << i;
    EXPECT_EQ(worker.end_ms, expected[i][1]) << i;
    EXPECT_EQ(worker.peak_rss_bytes, expected[i][2]) << i;
    EXPECT_EQ(worker.start_ticks, worker.first_seen_ms) << "instances told apart by their start, as /proc's";
  }
}

// A recording where PID 300 served two workers of the same parent and name, 10 and
// 12 MiB at +100 and +200, then 30 and 40 MiB at +400 and +500; a tick every 100 ms.
std::string write_reused_pid_recording(const TempDir& dir) {
  std::string path = dir.file("reused.canopy");
  auto writer = store::Writer::create(path, false);
  EXPECT_TRUE(writer) << writer.error().message;
  writer->set_meta({.start_ms = kT});
  writer->set_meta({.end_ms = kT + 600});
  writer->set_meta({.interval_ms = 100});
  writer->set_meta({.mode = "run"});
  auto process = [&](int64_t pid, int64_t ppid, std::optional<int64_t> parent, const char* name, int64_t start_ms) {
    store::ProcessRow row;
    row.pid = pid;
    row.ppid = ppid;
    row.parent_id = parent;
    row.name = name;
    row.start_ticks = start_ms / 10;
    row.start_ms = row.first_seen_ms = start_ms;
    row.id = writer->add_process(row);
    return row;
  };
  store::ProcessRow build = process(100, 1, std::nullopt, "build", kT);
  store::ProcessRow first = process(300, 100, build.id, "worker", kT + 100);
  store::ProcessRow second = process(300, 100, build.id, "worker", kT + 400);
  auto values = [](int64_t mib, int64_t faults) {
    store::SampleValues v;
    v[store::kRssAnonBytes] = mib << 20;
    v[store::kRssFileBytes] = 0;
    v[store::kRssShmemBytes] = 0;
    v[store::kSwapBytes] = 0;
    v[store::kCpuUserNs] = 0;
    v[store::kCpuSystemNs] = 0;
    v[store::kMinorFaults] = faults;
    v[store::kMajorFaults] = 0;
    return v;
  };
  const std::map<int64_t, std::pair<const store::ProcessRow*, int64_t>> worker_at = {
      {100, {&first, 10}}, {200, {&first, 12}}, {400, {&second, 30}}, {500, {&second, 40}}};
  for (int64_t t = 0; t <= 600; t += 100) {
    writer->add_sample(kT + t, build.id, values(1, 10));
    int64_t rss_mib = 1;
    if (auto w = worker_at.find(t); w != worker_at.end()) {
      writer->add_sample(kT + t, w->second.first->id, values(w->second.second, w->second.second * 10));
      rss_mib += w->second.second;
    }
    writer->add_tick({kT + t, 1 + (worker_at.count(t) ? 1 : 0), rss_mib << 20, 0, std::nullopt, 0, 0, 0, 0, 0});
  }
  auto end = [&](store::ProcessRow& row, int64_t end_ms, int64_t peak_mib, int64_t peak_t_ms) {
    row.end_ms = row.last_seen_ms = end_ms;
    row.peak_rss_bytes = row.hwm_bytes = peak_mib << 20;
    row.peak_rss_t_ms = peak_t_ms;
    row.cpu_user_ns = row.cpu_system_ns = 0;
    writer->update_process_end(row);
  };
  end(build, kT + 600, 1, kT);
  end(first, kT + 250, 12, kT + 200);
  end(second, kT + 550, 40, kT + 500);
  EXPECT_TRUE(writer->finish());
  return path;
}

TEST(OnlookerImport, AReusedPidShowsBothInstancesInCutelookerAndImportsAsTwo) {
  TempDir dir;
  std::string recording = write_reused_pid_recording(dir);
  auto reader = store::Reader::open(recording);
  ASSERT_TRUE(reader) << reader.error().message;
  std::string exported;
  ASSERT_TRUE(exporters::write_onlooker_json(*reader, [&](std::string_view b) { exported.append(b); }));
  json doc = json::parse(exported);

  // Cutelooker's loader (Cutelooker/MainWindow.cpp, loadJsonChart): a map keyed by
  // (pid, ppid, name) whose vector each element resizes and overwrites.
  std::map<std::tuple<int64_t, int64_t, std::string>, std::vector<std::pair<int64_t, int64_t>>> cutelooker;
  for (const json& p : doc) {
    auto& data = cutelooker[{p["pid"], p["ppid"], p["name"]}];
    data.resize(p["data"].size());
    for (size_t j = 0; j < p["data"].size(); ++j) {
      data[j] = {p["data"][j]["time"], p["data"][j]["memory"]["workingSetSize"]};
    }
  }
  const std::vector<std::pair<int64_t, int64_t>> both = {
      {kT + 100, 10 << 20}, {kT + 200, 12 << 20}, {kT + 400, 30 << 20}, {kT + 500, 40 << 20}};
  EXPECT_EQ(cutelooker[std::make_tuple(300, 100, "worker")], both)
      << "both workers' samples, in time order, the rounds between them empty";
  ASSERT_EQ(doc.size(), 2u);
  std::vector<int64_t> peaks;
  for (const json& e : doc[1]["data"]) {
    peaks.push_back(e["memory"]["peakWorkingSetSize"]);
  }
  EXPECT_EQ(peaks, (std::vector<int64_t>{10 << 20, 12 << 20, 30 << 20, 40 << 20})) << "each instance's own peak";

  // And back: two workers again, each with its samples and peak.
  std::string back = dir.file("back.canopy");
  ASSERT_TRUE(import(write_file(dir, "reused.json", exported), back, 1));
  auto again = store::Reader::open(back);
  ASSERT_TRUE(again) << again.error().message;
  auto processes = again->processes();
  ASSERT_TRUE(processes);
  EXPECT_EQ(tree_of(*processes), (std::vector<std::string>{"build(100)", "worker(300) <- build(100)",
                                                           "worker(300) <- build(100)"}));
  ASSERT_EQ(processes->size(), 3u);
  EXPECT_EQ((*processes)[1].first_seen_ms, kT + 100);
  EXPECT_EQ((*processes)[1].end_ms, kT + 200);
  EXPECT_EQ((*processes)[1].peak_rss_bytes, 12 << 20);
  EXPECT_EQ((*processes)[2].first_seen_ms, kT + 400);
  EXPECT_EQ((*processes)[2].end_ms, kT + 500);
  EXPECT_EQ((*processes)[2].peak_rss_bytes, 40 << 20);
  std::string twice;
  ASSERT_TRUE(exporters::write_onlooker_json(*again, [&](std::string_view b) { twice.append(b); }));
  EXPECT_EQ(json::parse(twice)[1]["data"], doc[1]["data"]) << "exported again, the same element";
}

TEST(OnlookerImport, DefaultOutputBesideTheInput) {
  EXPECT_EQ(importers::default_import_output("logs/Onlooker_2022-06-22_19-01-32_13200.json"),
            "logs/Onlooker_2022-06-22_19-01-32_13200.canopy");
  EXPECT_EQ(importers::default_import_output("trace"), "trace.canopy");
}

TEST(OnlookerImport, RefusesToReplaceWithoutForce) {
  TempDir dir;
  std::string out = dir.file("windows.canopy");
  ASSERT_TRUE(import(kWindowsFixture, out));
  auto again = import(kWindowsFixture, out);
  ASSERT_FALSE(again);
  EXPECT_EQ(again.error().message, "cannot write '" + out + "': file exists (use --force to replace it)");
  EXPECT_TRUE(import(kWindowsFixture, out, 4, /*force=*/true));
}

TEST(OnlookerImport, FailedImportKeepsTheRecordingItWasToReplace) {
  TempDir dir;
  std::string out = dir.file("windows.canopy");
  ASSERT_TRUE(import(kWindowsFixture, out));
  std::string bad = dir.file("bad.json");
  // Valid until the last process's last sample: found late, after every other was read.
  std::ofstream(bad) << R"([{"pid":1,"ppid":0,"name":"a.exe","data":[{"time":5,"cpuUsage":0,)"
                     << R"("memory":{"workingSetSize":1,"pagefileUsage":1}}]},{"pid":2,"ppid":1,"name":"b.exe",)"
                     << R"("data":[{"time":5,"cpuUsage":0,"memory":{"workingSetSize":"1","pagefileUsage":1}}]}])";
  auto result = import(bad, out, 4, /*force=*/true);
  ASSERT_FALSE(result);
  EXPECT_EQ(result.error().message,
            bad + ":1:117: process [1] (pid 2): data[0].memory.workingSetSize should be a whole number from 0 to "
                  "9223372036854775807, found a string");
  auto reader = store::Reader::open(out);
  ASSERT_TRUE(reader) << reader.error().message;
  EXPECT_EQ(reader->processes()->size(), 5u);
  std::vector<std::string> files;
  for (const auto& entry : std::filesystem::directory_iterator(dir.path())) {
    files.push_back(entry.path().filename().string());
  }
  std::sort(files.begin(), files.end());
  EXPECT_EQ(files, (std::vector<std::string>{"bad.json", "windows.canopy"})) << "no temporary file left";
}

}  // namespace
}  // namespace canopy::testing
