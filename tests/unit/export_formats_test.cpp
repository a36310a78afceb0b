// What the export formats promise their readers, checked on the fixture recording
// (support/export_fixture.h) by parsing the output as those readers would: the Trace
// Event Format's required fields, RFC 4180 CSV, one JSON object per line, and the
// Onlooker document Cutelooker stacks by time. The numbers are the fixture's own.
#include <gtest/gtest.h>

#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>

#include "export/chrome_trace.h"
#include "export/csv.h"
#include "export/jsonl_samples.h"
#include "export/onlooker_json.h"
#include "support/export_fixture.h"
#include "support/temp_dir.h"
#include "support/unity_compiles.h"

namespace canopy::testing {
namespace {

using nlohmann::json;
constexpr int64_t t0 = kFixtureStartMs;

class ExportFormats : public ::testing::Test {
 protected:
  void SetUp() override { ASSERT_EQ(write_export_fixture(path_), ""); }

  template <typename Exporter>
  std::string exported(Exporter exporter) {
    auto reader = store::Reader::open(path_);
    EXPECT_TRUE(reader) << reader.error().message;
    std::string out;
    auto status = exporter(*reader, [&](std::string_view bytes) { out.append(bytes); });
    EXPECT_TRUE(status) << status.error().message;
    return out;
  }

  TempDir dir_;
  std::string path_ = dir_.file("fixture.canopy");
};

// RFC 4180, strictly: CRLF line ends, quoted fields with doubled quotes.
std::vector<std::vector<std::string>> parse_csv(const std::string& text) {
  std::vector<std::vector<std::string>> rows(1, std::vector<std::string>(1));
  bool quoted = false;
  for (size_t i = 0; i < text.size(); ++i) {
    char c = text[i];
    std::string& field = rows.back().back();
    if (quoted) {
      if (c == '"' && i + 1 < text.size() && text[i + 1] == '"') {
        field += '"';
        ++i;
      } else if (c == '"') {
        quoted = false;
      } else {
        field += c;
      }
    } else if (c == '"' && field.empty()) {
      quoted = true;
    } else if (c == ',') {
      rows.back().emplace_back();
    } else if (c == '\r' && i + 1 < text.size() && text[i + 1] == '\n') {
      rows.emplace_back(1);
      ++i;
    } else {
      EXPECT_NE(c, '"') << "a bare quote inside an unquoted field, at byte " << i;
      EXPECT_NE(c, '\n') << "a bare LF, at byte " << i;
      field += c;
    }
  }
  EXPECT_FALSE(quoted) << "a quoted field is not closed";
  EXPECT_EQ(rows.back(), std::vector<std::string>(1)) << "the last line ends with CRLF";
  rows.pop_back();
  return rows;
}

TEST(CsvField, QuotesOnlyWhatNeedsIt) {
  EXPECT_EQ(exporters::csv_field("make"), "make");
  EXPECT_EQ(exporters::csv_field("cc1, \"x\""), "\"cc1, \"\"x\"\"\"");
  EXPECT_EQ(exporters::csv_field("two\nlines"), "\"two\nlines\"");
  EXPECT_EQ(exporters::csv_field("cr\r"), "\"cr\r\"");
  EXPECT_EQ(exporters::csv_field(""), "");
}

TEST(Iso8601, UtcWithMilliseconds) {
  EXPECT_EQ(exporters::iso8601_utc(0), "1970-01-01T00:00:00.000Z");
  EXPECT_EQ(exporters::iso8601_utc(t0 + 123), "2026-11-22T10:00:00.123Z");
  EXPECT_EQ(exporters::iso8601_utc(951782400000 + 86'399'999), "2000-02-29T23:59:59.999Z");  // a leap day
  EXPECT_EQ(exporters::iso8601_utc(-1), "1969-12-31T23:59:59.999Z");
}

TEST_F(ExportFormats, ChromeTraceHasTheRequiredFields) {
  json trace = json::parse(exported(exporters::write_chrome_trace));
  ASSERT_TRUE(trace.is_object());
  EXPECT_EQ(trace["displayTimeUnit"], "ms");
  ASSERT_TRUE(trace["traceEvents"].is_array());
  std::set<int64_t> named_pids;
  std::map<std::string, int> by_phase;
  std::map<std::pair<int64_t, std::string>, std::vector<std::pair<int64_t, double>>> counters;
  for (const json& e : trace["traceEvents"]) {
    SCOPED_TRACE(e.dump());
    for (const char* key : {"ph", "name", "ts", "pid", "tid"}) {
      ASSERT_TRUE(e.contains(key)) << "no " << key;
    }
    ASSERT_TRUE(e["ph"].is_string());
    ASSERT_TRUE(e["name"].is_string());
    ASSERT_TRUE(e["ts"].is_number_integer());
    ASSERT_TRUE(e["pid"].is_number_integer());
    ASSERT_TRUE(e["tid"].is_number_integer());
    int64_t ts = e["ts"];
    // Microseconds since the epoch: the recording's span, in whole milliseconds.
    EXPECT_EQ(ts % 1000, 0);
    EXPECT_GE(ts, (t0 - 50) * 1000);
    EXPECT_LE(ts, (t0 + 1000) * 1000);
    std::string ph = e["ph"];
    ++by_phase[ph];
    if (ph == "M") {
      ASSERT_TRUE(e["args"].is_object());
      if (e["name"] == "process_sort_index") {
        EXPECT_TRUE(e["args"]["sort_index"].is_number_integer());
      } else {
        ASSERT_TRUE(e["name"] == "process_name" || e["name"] == "thread_name");
        EXPECT_TRUE(e["args"]["name"].is_string());
        named_pids.insert(e["pid"].get<int64_t>());
      }
    } else if (ph == "X") {
      ASSERT_TRUE(e["dur"].is_number_integer());
      EXPECT_GE(e["dur"].get<int64_t>(), 0);
      EXPECT_TRUE(e["args"]["process_id"].is_number_integer());
    } else if (ph == "C") {
      ASSERT_TRUE(e["args"].is_object());
      ASSERT_EQ(e["args"].size(), 1u);
      for (auto& [unit, value] : e["args"].items()) {
        ASSERT_TRUE(value.is_number()) << unit;
        counters[{e["pid"].get<int64_t>(), e["name"].get<std::string>() + " " + unit}].emplace_back(
            ts / 1000 - t0, value.get<double>());
      }
    } else if (ph == "i") {
      EXPECT_TRUE(e["s"] == "p" || e["s"] == "g");
      EXPECT_TRUE(e["args"]["text"].is_string());
    } else {
      ADD_FAILURE() << "unexpected phase " << ph;
    }
  }
  auto track = [&](int64_t pid, const std::string& name) { return counters[{pid, name}]; };
  EXPECT_EQ(named_pids, (std::set<int64_t>{4242, 4250, 4251, 4260}));
  EXPECT_EQ(by_phase["M"], 12);  // three per PID
  EXPECT_EQ(by_phase["X"], 4);   // one lifetime per process
  EXPECT_EQ(by_phase["i"], 4);   // one per event
  // cc1: resident at its ticks (6, 41, 81, 121, 101 MiB), then 0 at its end (+650).
  using Points = std::vector<std::pair<int64_t, double>>;
  EXPECT_EQ(track(4250, "Resident bytes"),
            (Points{{200, 6.0 * kMiB}, {300, 41.0 * kMiB}, {400, 81.0 * kMiB}, {500, 121.0 * kMiB},
                    {600, 101.0 * kMiB}, {650, 0}}));
  // make's CPU: 20 ms in the 50 ms since it started, the same 40 % until +200 (no
  // event: unchanged), 10 ms by +300, idle from +400, 5 ms by +1000. It ended at the
  // last tick, where the trace ends: no closing 0.
  EXPECT_EQ(track(4242, "CPU percent"), (Points{{0, 40}, {300, 10}, {400, 0}, {1000, 5}}));
  EXPECT_EQ(track(4242, "Swap bytes"), (Points{{0, 0}, {700, 1.0 * kMiB}}));
  EXPECT_TRUE(track(4242, "PSS bytes").empty()) << "recorded without --pss: no PSS track";
  EXPECT_TRUE(track(4260, "Resident bytes").empty()) << "never alive at a tick";
}

// Perfetto's process tracks are named as the viewer's labels: the compiles of a unity
// build by their target.
TEST(ChromeTraceNames, CompilesOfAUnityBuildAreNamedByTheirTarget) {
  TempDir dir;
  const std::string path = dir.file("unity.canopy");
  ASSERT_EQ(write_unity_compiles(path), "");
  auto reader = store::Reader::open(path);
  ASSERT_TRUE(reader) << reader.error().message;
  std::string out;
  auto status = exporters::write_chrome_trace(*reader, [&](std::string_view bytes) { out.append(bytes); });
  ASSERT_TRUE(status) << status.error().message;
  const json trace = json::parse(out);
  std::map<int64_t, std::string> name_of;
  for (const json& e : trace["traceEvents"]) {
    if (e["name"] == "process_name") {
      name_of[e["pid"].get<int64_t>()] = e["args"]["name"].get<std::string>();
    }
  }
  EXPECT_EQ(name_of[300], "cc1plus canopy_store.dir/Unity/unity_0_cxx.cxx");
  EXPECT_EQ(name_of[301], "cc1plus canopy_web.dir/Unity/unity_0_cxx.cxx");
  EXPECT_EQ(name_of[302], "cc1plus src/json.cpp");
}

TEST_F(ExportFormats, ChromeInstantEventsOnTheirProcess) {
  json trace = json::parse(exported(exporters::write_chrome_trace));
  std::map<std::string, json> instants;
  for (const json& e : trace["traceEvents"]) {
    if (e["ph"] == "i") {
      instants[e["cat"]] = e;
    }
  }
  EXPECT_EQ(instants["log"]["s"], "g");
  EXPECT_EQ(instants["log"]["name"], "compiling a.c");
  EXPECT_EQ(instants["mark"]["ts"], (t0 + 600) * 1000);
  EXPECT_EQ(instants["stderr"]["s"], "p");
  EXPECT_EQ(instants["stderr"]["pid"], 4250);
  EXPECT_EQ(instants["stderr"]["args"]["text"], "warning: \"b\" unused, see a.c:3");
}

TEST_F(ExportFormats, WideCsvOneRowPerTickOneColumnPerProcess) {
  auto rows = parse_csv(exported([](const store::Reader& r, const auto& out) {
    return exporters::write_csv_wide(r, "rss_bytes", out);
  }));
  ASSERT_EQ(rows.size(), 12u);  // header and 11 ticks
  EXPECT_EQ(rows[0], (std::vector<std::string>{"t_ms", "make (pid: 4242, ppid: 1)",
                                               "cc1, \"x\" (pid: 4250, ppid: 4242)", "ld (pid: 4251, ppid: 4242)"}));
  for (size_t i = 1; i < rows.size(); ++i) {
    ASSERT_EQ(rows[i].size(), 4u) << "row " << i;
    EXPECT_EQ(rows[i][0], std::to_string(t0 + 100 * static_cast<int64_t>(i - 1)));
  }
  EXPECT_EQ(rows[1][2], "") << "cc1 not alive yet";
  EXPECT_EQ(rows[6][2], std::to_string(121 * kMiB));  // +500
  EXPECT_EQ(rows[8][2], "") << "cc1 ended at +650";
  EXPECT_EQ(rows[10][3], std::to_string(68 * kMiB)) << "ld's +800 value carried forward to +900";
}

TEST_F(ExportFormats, LongCsvEverySampleRowEveryColumn) {
  auto rows = parse_csv(exported(exporters::write_csv_long));
  ASSERT_EQ(rows.size(), 19u);  // header and 18 sample rows
  ASSERT_EQ(rows[0].size(), 6u + store::kSampleColumnCount);
  EXPECT_EQ(rows[0][4], "name");
  EXPECT_EQ(rows[0][5], "rss_bytes");
  std::map<std::string, int> rows_by_name;
  for (size_t i = 1; i < rows.size(); ++i) {
    ASSERT_EQ(rows[i].size(), rows[0].size()) << "row " << i;
    ++rows_by_name[rows[i][4]];
  }
  EXPECT_EQ(rows_by_name, (std::map<std::string, int>{{"make", 6}, {"cc1, \"x\"", 6}, {"ld", 4}, {"brief", 2}}));
  // make's I/O was unreadable: empty, not 0 or -1.
  EXPECT_EQ(rows[1][4], "make");
  EXPECT_EQ(rows[1][5 + 1 + store::kReadBytes], "");
  EXPECT_EQ(rows[1][5 + 1 + store::kPssBytes], "");
}

TEST_F(ExportFormats, JsonlOneObjectPerSample) {
  std::istringstream lines(exported(exporters::write_jsonl_samples));
  std::string line;
  int count = 0;
  while (std::getline(lines, line)) {
    json sample = json::parse(line);
    ++count;
    EXPECT_EQ(sample["time"], exporters::iso8601_utc(sample["t_ms"]));
    if (count == 1) {
      EXPECT_EQ(sample["name"], "make");
      EXPECT_EQ(sample["pid"], 4242);
      EXPECT_EQ(sample["time"], "2026-11-22T10:00:00.000Z");
      EXPECT_EQ(sample["rss_bytes"], 12 * kMiB);
      EXPECT_TRUE(sample["read_bytes"].is_null());
      EXPECT_TRUE(sample["pss_bytes"].is_null());
    }
  }
  EXPECT_EQ(count, 18);
}

TEST_F(ExportFormats, OnlookerStacksByTickTime) {
  json doc = json::parse(exported([](const store::Reader& r, const auto& out) {
    return exporters::write_onlooker_json(r, out);
  }));
  ASSERT_TRUE(doc.is_array());
  ASSERT_EQ(doc.size(), 3u) << "brief was never alive at a tick";
  std::map<int64_t, std::set<int64_t>> pids_at;  // time -> pids with an entry
  for (const json& p : doc) {
    for (const json& e : p["data"]) {
      pids_at[e["time"]].insert(p["pid"].get<int64_t>());
    }
  }
  ASSERT_EQ(pids_at.size(), 11u) << "every entry at a tick's time";
  EXPECT_EQ(pids_at[t0 + 500], (std::set<int64_t>{4242, 4250, 4251}));
  EXPECT_EQ(pids_at[t0 + 900], (std::set<int64_t>{4242, 4251}));

  const json& make = doc[0];
  EXPECT_EQ(make["name"], "make");
  EXPECT_EQ(make["data"].size(), 11u);
  // 40 % of one CPU over +0..+100 is 20 % of this 2-CPU machine.
  EXPECT_EQ(make["data"][1]["cpuUsage"], 20);
  const json& m = make["data"][7]["memory"];  // +700: one MiB went to swap
  EXPECT_EQ(m["workingSetSize"], 14 * kMiB);
  EXPECT_EQ(m["pagefileUsage"], 13 * kMiB);  // anon 12 + swap 1
  EXPECT_EQ(m["privateUsage"], 13 * kMiB);
  EXPECT_EQ(m["pageFaultCount"], 182);  // minor 180 + major 2

  const json& cc1 = doc[1];
  EXPECT_EQ(cc1["name"], "cc1, \"x\"");
  ASSERT_EQ(cc1["data"].size(), 5u);  // +200 .. +600
  EXPECT_EQ(cc1["data"][3]["memory"]["peakWorkingSetSize"], 121 * kMiB) << "running maximum";
  // The last entry: the exit row's 131 MiB and VmHWM's 140 MiB, which no tick saw.
  EXPECT_EQ(cc1["data"][4]["memory"]["workingSetSize"], 101 * kMiB);
  EXPECT_EQ(cc1["data"][4]["memory"]["peakWorkingSetSize"], 140 * kMiB);
}

}  // namespace
}  // namespace canopy::testing
