// canopy's Onlooker importer on a file as Onlooker writes it on Windows
// (fixtures/import/onlooker_windows.json: one line, Windows image names, a UTF-8 name,
// PIDs above 2^31 and near 2^32, a process paged out), read back through the Reader,
// then exported again and compared with the file field by field.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "export/onlooker_json.h"
#include "import/onlooker_import.h"
#include "store/reader.h"
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
  EXPECT_EQ(meta.at("mode"), "import");
  EXPECT_EQ(meta.at("source"), "onlooker");
  EXPECT_EQ(meta.at("source_file"), kWindowsFixture);
  EXPECT_EQ(reader->meta_int("start_ms"), kT);
  EXPECT_EQ(reader->meta_int("end_ms"), kT + 400);
  EXPECT_EQ(reader->meta_int("interval_ms"), 100);
  EXPECT_EQ(reader->meta_int("cpu_count"), 4);
  EXPECT_EQ(reader->meta_int("root_pid"), 13200);

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
