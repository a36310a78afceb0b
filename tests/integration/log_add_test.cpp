// canopy log add: every format into a recording whose span and zone the test fixes
// (2026-11-22 10:00:00 to 10:10:00 UTC, recorded in Europe/Berlin, UTC+1 then), so
// each line's time is a number worked out by hand (`date -d`). Malformed files change
// nothing: the event and source counts are the same before and after.
#include <gtest/gtest.h>
#include <sqlite3.h>

#include <ctime>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "integration/harness.h"
#include "store/writer.h"

namespace canopy::testing {
namespace {

constexpr int64_t kStartMs = 1795341600000;  // date -u -d '2026-11-22 10:00:00' +%s
constexpr int64_t kEndMs = kStartMs + 600'000;
const std::string kFixtures = std::string(CANOPY_FIXTURES) + "/logs/";

// A finished recording with one process and one exec event, as the recorder leaves it.
std::string make_recording(const TempDir& dir, const std::string& name = "run.canopy") {
  std::string path = dir.file(name);
  auto writer = store::Writer::create(path, false);
  EXPECT_TRUE(writer) << writer.error().message;
  writer->set_meta({.start_ms = kStartMs});
  writer->set_meta({.end_ms = kEndMs});
  writer->set_meta({.timezone = "Europe/Berlin"});
  writer->set_meta({.utc_offset_s = 3600});
  store::ProcessRow root;
  root.pid = 4242;
  root.name = "worker";
  root.first_seen_ms = kStartMs;
  int64_t id = writer->add_process(root);
  writer->add_event({kStartMs + 100, "exec", id, "worker --jobs 2"});
  EXPECT_TRUE(writer->finish());
  return path;
}

std::vector<store::EventRow> logs_of(const std::string& path) {
  auto reader = open_recording(path);
  auto events = reader.events();
  std::vector<store::EventRow> logs;
  for (const auto& e : *events) {
    if (e.kind == "log") {
      logs.push_back(e);
    }
  }
  return logs;
}

int64_t count(const std::string& path, const std::string& sql) {
  sqlite3* db = nullptr;
  sqlite3_open_v2(path.c_str(), &db, SQLITE_OPEN_READONLY, nullptr);
  sqlite3_stmt* stmt = nullptr;
  sqlite3_prepare_v2(db, sql.c_str(), -1, &stmt, nullptr);
  int64_t n = stmt && sqlite3_step(stmt) == SQLITE_ROW ? sqlite3_column_int64(stmt, 0) : -1;
  sqlite3_finalize(stmt);
  sqlite3_close(db);
  return n;
}

Finished add(const std::string& recording, const std::string& fixture, std::vector<std::string> extra = {}) {
  std::vector<std::string> argv = {kCanopy, "log", "add", recording, fixture};
  argv.insert(argv.end(), extra.begin(), extra.end());
  return run(argv);
}

TEST(LogAdd, LinesWithCrlfUtf8AndAStackTrace) {
  TempDir dir;
  std::string rec = make_recording(dir);
  auto result = add(rec, kFixtures + "app_crlf.log");
  ASSERT_EQ(result.exit_status, 0) << result.err;
  EXPECT_NE(result.out.find("added 4 events"), std::string::npos) << result.out;
  EXPECT_NE(result.out.find("(lines; times without a zone read as Europe/Berlin)"), std::string::npos) << result.out;
  EXPECT_EQ(result.err, "");  // all inside the recording: no warning
  auto logs = logs_of(rec);
  ASSERT_EQ(logs.size(), 4u);
  // 11:00:05,123 in Berlin is 10:00:05.123 UTC. The banner before the first
  // timestamp goes with the first entry.
  EXPECT_EQ(logs[0].t_ms, kStartMs + 5123);
  EXPECT_EQ(logs[0].text, "=== worker starting ===\nINFO main: started pid=4242");
  EXPECT_EQ(logs[1].t_ms, kStartMs + 6500);
  EXPECT_EQ(logs[1].text, "WARNING loader: file 'données_été.csv' is large");
  // The stack trace stays with its entry, "1643811426 rows lost" included: the
  // importer locked onto ISO timestamps. The blank line after it is dropped.
  EXPECT_EQ(logs[2].t_ms, kStartMs + 7001);
  EXPECT_EQ(logs[2].text,
            "ERROR job: failed\nTraceback (most recent call last):\n  File \"job.py\", line 3, in <module>\n"
            "1643811426 rows lost\nValueError: bad row");
  EXPECT_EQ(logs[3].t_ms, kStartMs + 8250);
  EXPECT_EQ(logs[3].text, "INFO main: done");
  auto reader = open_recording(rec);
  auto sources = reader.log_sources();
  ASSERT_EQ(sources->size(), 1u);
  EXPECT_EQ((*sources)[0].format, "lines");
  EXPECT_EQ((*sources)[0].events, 4);
  EXPECT_EQ((*sources)[0].outside_span, 0);
  EXPECT_EQ(logs[0].source_id, (*sources)[0].id);
}

TEST(LogAdd, AnEntryOverOneMiBKeepsItsFirstMiB) {
  // docs/logs.md: an entry of a `lines` log is cut at 1 MiB. What is kept is its first MiB
  // (less the bytes of a character the cut would split), then the marker.
  constexpr size_t kMiB = 1 << 20;
  const std::string marker = "\n[... truncated by canopy: entry over 1 MiB]";
  std::string ascii;  // no two neighbouring bytes alike, so a shifted cut shows
  for (size_t i = 0; i < 3'000'000; ++i) {
    ascii += static_cast<char>('a' + i % 26);
  }
  std::string accented = "x";  // then 2-byte characters: byte 1 MiB is a character's second
  while (accented.size() < 3'000'000) {
    accented += "\xC3\xA9";  // é
  }
  std::string first_line(600 << 10, 'p');  // a stack trace of two long lines
  std::string second_line(600 << 10, 'q');
  struct Case {
    std::string entry;  // after the timestamp, lines joined by \n
    std::string kept;
  } cases[] = {
      {ascii, ascii.substr(0, kMiB)},
      {accented, accented.substr(0, kMiB - 1)},
      {first_line + "\n" + second_line, first_line + "\n" + second_line.substr(0, kMiB - first_line.size() - 1)},
  };
  for (const Case& c : cases) {
    TempDir dir;
    std::string rec = make_recording(dir);
    std::string log = dir.file("long.log");
    std::ofstream(log, std::ios::binary) << "2026-11-22 11:00:01 " << c.entry << "\n2026-11-22 11:00:02 next\n";
    auto result = add(rec, log);
    ASSERT_EQ(result.exit_status, 0) << result.err;
    auto logs = logs_of(rec);
    ASSERT_EQ(logs.size(), 2u);
    EXPECT_EQ(logs[0].t_ms, kStartMs + 1000);
    ASSERT_EQ(logs[0].text.size(), c.kept.size() + marker.size());
    EXPECT_TRUE(logs[0].text == c.kept + marker) << logs[0].text.substr(0, 40) << "..."
                                                  << logs[0].text.substr(logs[0].text.size() - 80);
    EXPECT_EQ(logs[1].text, "next");
  }
}

// When the recording says a log was added: local time, with its offset.
std::string added_at(const std::string& recording, int64_t source_id) {
  std::time_t t = count(recording, "SELECT added_ms / 1000 FROM log_source WHERE id = " + std::to_string(source_id));
  std::tm local{};
  ::localtime_r(&t, &local);
  char text[64];
  std::strftime(text, sizeof text, "%Y-%m-%d %H:%M:%S %z", &local);
  return text;
}

TEST(LogAdd, TheSameContentTwiceIsRefusedUnlessAskedAgain) {
  TempDir dir;
  std::string rec = make_recording(dir);
  std::string log = kFixtures + "app_crlf.log";
  ASSERT_EQ(add(rec, log).exit_status, 0);
  std::string renamed = dir.file("renamed.log");  // the same bytes under another name
  std::filesystem::copy_file(log, renamed);
  std::string refusal_tail = "': the same content was added on " + added_at(rec, 1) + " (from '" + log +
                             "', 4 events); --again adds it a second time\n";
  for (const std::string& file : {log, renamed}) {
    auto again = add(rec, file);
    EXPECT_EQ(again.exit_status, 1) << file;
    EXPECT_EQ(again.out, "");
    EXPECT_EQ(again.err, "canopy: cannot add '" + file + "' to '" + rec + refusal_tail);
    EXPECT_EQ(logs_of(rec).size(), 4u) << "nothing added";
    EXPECT_EQ(count(rec, "SELECT count(*) FROM log_source"), 1);
  }

  auto forced = add(rec, renamed, {"--again"});
  ASSERT_EQ(forced.exit_status, 0) << forced.err;
  EXPECT_EQ(logs_of(rec).size(), 8u);
  std::ofstream(renamed, std::ios::app) << "2026-11-22 11:00:09,000 INFO main: one line more\n";
  auto changed = add(rec, renamed);  // other content: no question asked
  ASSERT_EQ(changed.exit_status, 0) << changed.err;
  EXPECT_EQ(logs_of(rec).size(), 13u);

  // The report says which logs the recording holds, and how many events each gave.
  auto report = run({kCanopy, "report", rec});
  ASSERT_EQ(report.exit_status, 0) << report.err;
  EXPECT_NE(report.out.find("  logs               " + log + ": 4 events (lines)\n"
                            "                     " + renamed + ": 4 events (lines)\n"
                            "                     " + renamed + ": 5 events (lines)\n"),
            std::string::npos)
      << report.out;
  auto json_report = run({kCanopy, "report", "--json", rec});
  ASSERT_EQ(json_report.exit_status, 0) << json_report.err;
  auto logs = nlohmann::json::parse(json_report.out)["logs"];
  ASSERT_EQ(logs.size(), 3u) << json_report.out;
  EXPECT_EQ(logs[0]["name"], log);
  EXPECT_EQ(logs[0]["format"], "lines");
  EXPECT_EQ(logs[0]["events"], 4);
  EXPECT_EQ(logs[0]["outside_span"], 0);
  EXPECT_EQ(logs[2]["events"], 5);
}

TEST(LogAdd, SyslogTakesTheRecordingsYearAndZone) {
  TempDir dir;
  std::string rec = make_recording(dir);
  auto result = add(rec, kFixtures + "syslog.log");
  ASSERT_EQ(result.exit_status, 0) << result.err;
  auto logs = logs_of(rec);
  ASSERT_EQ(logs.size(), 2u);
  EXPECT_EQ(logs[0].t_ms, kStartMs + 1000);
  EXPECT_EQ(logs[0].text, "buildbox kernel: Out of memory: Killed process 4242 (cc1plus)");
  EXPECT_EQ(logs[1].t_ms, kStartMs + 599'000);
}

TEST(LogAdd, EpochSecondsAndMilliseconds) {
  TempDir dir;
  std::string rec = make_recording(dir);
  ASSERT_EQ(add(rec, kFixtures + "epoch.log").exit_status, 0);
  auto logs = logs_of(rec);
  ASSERT_EQ(logs.size(), 3u);
  EXPECT_EQ(logs[0].t_ms, kStartMs + 1000);
  EXPECT_EQ(logs[1].t_ms, kStartMs + 1250);
  EXPECT_EQ(logs[1].text, "with a fraction");
  EXPECT_EQ(logs[2].t_ms, kStartMs + 2000);

  std::string rec_ms = make_recording(dir, "ms.canopy");
  ASSERT_EQ(add(rec_ms, kFixtures + "epoch_ms.log").exit_status, 0);
  logs = logs_of(rec_ms);
  ASSERT_EQ(logs.size(), 2u);
  EXPECT_EQ(logs[0].t_ms, kStartMs + 2500);
  EXPECT_EQ(logs[0].text, "epoch milliseconds in brackets");
  EXPECT_EQ(logs[1].t_ms, kStartMs + 3000);
}

TEST(LogAdd, OneEventOutsideTheRecordingIsSaidInTheSingular) {
  TempDir dir;
  std::string rec = make_recording(dir);
  std::string log = dir.file("one.log");
  std::ofstream(log) << "2026-11-21T10:00:00Z the day before\n";
  auto result = add(rec, log);
  ASSERT_EQ(result.exit_status, 0) << result.err;
  EXPECT_NE(result.out.find("added 1 event from " + log + " (lines"), std::string::npos) << result.out;
  EXPECT_EQ(result.err,
            "canopy: warning: it is outside the recording's time span; kept (if the log was written in another time "
            "zone, add it again with --tz and --again)\n");
}

TEST(LogAdd, DaylightSavingFallBackWithTz) {
  // 2026-10-25 in Berlin: 02:00-02:59 happens twice. The log runs forward, so the
  // second 02:10 is the later (CET) one. Expected values from `date -d '... CEST' +%s`.
  TempDir dir;
  std::string rec = make_recording(dir);
  auto result = add(rec, kFixtures + "dst_fall_back.log", {"--tz", "Europe/Berlin"});
  ASSERT_EQ(result.exit_status, 0) << result.err;
  // A month before the recording: kept, and the warning says so.
  EXPECT_NE(result.err.find("warning: 5 of them are outside the recording's time span; kept"), std::string::npos)
      << result.err;
  auto logs = logs_of(rec);
  ASSERT_EQ(logs.size(), 5u);
  std::vector<int64_t> expected = {1792886340000, 1792888200000, 1792889940000, 1792890600000, 1792893900000};
  for (size_t i = 0; i < logs.size(); ++i) {
    EXPECT_EQ(logs[i].t_ms, expected[i]) << logs[i].text;
  }
  EXPECT_EQ(logs[3].text, "second pass through the hour (CET)");
}

TEST(LogAdd, TzOverridesTheRecordingsZone) {
  TempDir dir;
  std::string rec = make_recording(dir);
  ASSERT_EQ(add(rec, kFixtures + "app_crlf.log", {"--tz", "UTC"}).exit_status, 0);
  EXPECT_EQ(logs_of(rec)[0].t_ms, kStartMs + 3'600'000 + 5123);
  auto bad = add(rec, kFixtures + "app_crlf.log", {"--tz", "Mars/Olympus"});
  EXPECT_EQ(bad.exit_status, 1);
  EXPECT_NE(bad.err.find("Mars/Olympus"), std::string::npos) << bad.err;
}

TEST(LogAdd, JournaldJson) {
  TempDir dir;
  std::string rec = make_recording(dir);
  auto result = add(rec, kFixtures + "journal.jsonl");
  ASSERT_EQ(result.exit_status, 0) << result.err;
  EXPECT_NE(result.out.find("(jsonl;"), std::string::npos) << result.out;
  auto logs = logs_of(rec);
  ASSERT_EQ(logs.size(), 2u);
  EXPECT_EQ(logs[0].t_ms, kStartMs + 1000);
  EXPECT_EQ(logs[0].text, "Started canopy-demo.service");
  // journald writes a message that is not UTF-8 as its bytes: 255 is replaced.
  EXPECT_EQ(logs[1].t_ms, kStartMs + 2500);
  EXPECT_EQ(logs[1].text, "hi \xEF\xBF\xBD");
}

TEST(LogAdd, StructuredJsonLines) {
  TempDir dir;
  std::string rec = make_recording(dir);
  ASSERT_EQ(add(rec, kFixtures + "structured.jsonl").exit_status, 0);
  auto logs = logs_of(rec);
  ASSERT_EQ(logs.size(), 4u);
  EXPECT_EQ(logs[0].t_ms, kStartMs + 3250);
  EXPECT_EQ(logs[0].text, "listening");
  EXPECT_EQ(logs[1].t_ms, kStartMs + 4500);
  EXPECT_EQ(logs[1].text, "ISO time with a zone");
  EXPECT_EQ(logs[2].t_ms, kStartMs + 5000);
  EXPECT_EQ(logs[2].text, R"({"timestamp":1795341605000,"event":"no message field"})");
  EXPECT_EQ(logs[3].t_ms, kStartMs + 6000);  // 11:00:06 in Berlin

  std::string rec2 = make_recording(dir, "custom.canopy");
  auto custom = add(rec2, kFixtures + "custom_fields.jsonl", {"--time-field", "when", "--message-field", "what"});
  ASSERT_EQ(custom.exit_status, 0) << custom.err;
  auto custom_logs = logs_of(rec2);
  ASSERT_EQ(custom_logs.size(), 1u);
  EXPECT_EQ(custom_logs[0].t_ms, kStartMs + 7000);
  EXPECT_EQ(custom_logs[0].text, "custom fields");
}

TEST(LogAdd, CutelookerLogAndBackOut) {
  TempDir dir;
  std::string rec = make_recording(dir);
  auto result = add(rec, kFixtures + "cutelooker.json");
  ASSERT_EQ(result.exit_status, 0) << result.err;
  EXPECT_NE(result.out.find("added 4 events from " + kFixtures + "cutelooker.json (cutelooker)"), std::string::npos)
      << result.out;
  auto logs = logs_of(rec);
  ASSERT_EQ(logs.size(), 4u);
  EXPECT_EQ(logs[0].text, "first message");
  EXPECT_EQ(logs[1].text, "zweite Nachricht – übersetzt");
  EXPECT_EQ(logs[2].t_ms, kStartMs + 1500);
  EXPECT_EQ(logs[3].t_ms, kStartMs + 2000);

  // Out again: the log lines as they came in, plus the recorder's exec event.
  std::string out = dir.file("log.json");
  auto exported = run({kCanopy, "export", rec, "--format", "cutelooker-log", "-o", out});
  ASSERT_EQ(exported.exit_status, 0) << exported.err;
  std::ifstream in(out);
  auto json = nlohmann::json::parse(in);
  nlohmann::json expected = {
      {"1795341600100", {"[exec] worker --jobs 2"}},
      {"1795341601000", {"first message", "zweite Nachricht – übersetzt"}},
      {"1795341601500", {"keys need not be in order"}},
      {"1795341602000", {"third"}},
  };
  EXPECT_EQ(json, expected);
  // --kind repeated: the kinds together, here every event there is.
  auto both_kinds = run({kCanopy, "export", rec, "--format", "cutelooker-log", "--kind", "exec", "--kind", "log"});
  ASSERT_EQ(both_kinds.exit_status, 0) << both_kinds.err;
  EXPECT_EQ(nlohmann::json::parse(both_kinds.out), expected);
  EXPECT_EQ(std::filesystem::status(out).permissions() & std::filesystem::perms::all,
            std::filesystem::perms::owner_read | std::filesystem::perms::owner_write);

  // Only the logs: what came in goes out, and reads back in as the same events. The
  // flag takes one kind, so the recording may come after it.
  auto only_logs = run({kCanopy, "export", "--kind", "log", rec, "--format", "cutelooker-log"});
  ASSERT_EQ(only_logs.exit_status, 0) << only_logs.err;
  std::string again = dir.file("again.json");
  std::ofstream(again) << only_logs.out;
  std::string rec2 = make_recording(dir, "round-trip.canopy");
  ASSERT_EQ(add(rec2, again).exit_status, 0);
  auto round_trip = logs_of(rec2);
  ASSERT_EQ(round_trip.size(), logs.size());
  for (size_t i = 0; i < logs.size(); ++i) {
    EXPECT_EQ(round_trip[i].t_ms, logs[i].t_ms);
    EXPECT_EQ(round_trip[i].text, logs[i].text);
  }
}

struct MalformedLog {
  std::string fixture;
  std::vector<std::string> extra;
  std::string error;  // the one line, after "canopy: "
};

TEST(LogAdd, MalformedInputsChangeNothing) {
  TempDir dir;
  std::string garbage = dir.file("garbage.bin");
  {
    std::ofstream out(garbage, std::ios::binary);
    for (int i = 0; i < 5000; ++i) {
      out.put(static_cast<char>((i * 7919) % 256));
    }
  }
  std::string f = kFixtures;
  std::vector<MalformedLog> cases = {
      {f + "truncated.json", {}, f + "truncated.json:1:32: syntax error while parsing value - invalid string: missing closing quote; last read: '\"sec'"},
      {f + "wrong_type.json", {}, f + "wrong_type.json:2:2: the value of \"1795341602000\" should be an array of strings, found a string"},
      {f + "bad_key.json", {}, f + "bad_key.json:1:29: key \"soon\" is not a time (milliseconds since the epoch)"},
      {f + "empty.log", {}, "cannot add '" + f + "empty.log': the file is empty"},
      {f + "empty.log", {"--format", "cutelooker"}, "cannot add '" + f + "empty.log': the file is empty"},
      {f + "truncated.jsonl", {}, f + "truncated.jsonl:2:13: syntax error while parsing object - unexpected end of input; expected '}'"},
      {f + "no_time.jsonl", {}, f + "no_time.jsonl:2: no time field (looked for __REALTIME_TIMESTAMP, ts, time, timestamp, @timestamp; name it with --time-field)"},
      {f + "wrong_time_type.jsonl", {}, f + "wrong_time_type.jsonl:2: \"ts\" is not a time: true (expected epoch seconds, milliseconds, microseconds or an ISO-8601 string)"},
      {f + "cmake_wrong_type.json", {}, f + "cmake_wrong_type.json:2: \"line\" should be a number, found a string"},
      {garbage, {}, "cannot tell the format of '" + garbage + "': it looks binary (a NUL byte at offset 0)"},
      {garbage, {"--format", "lines"}, garbage + ": no line starts with a timestamp (ISO-8601, 'YYYY-MM-DD HH:MM:SS,mmm', epoch seconds or milliseconds, or syslog 'Mon DD HH:MM:SS')"},
      {garbage, {"--format", "jsonl"}, ""},  // a JSON syntax error somewhere on line 1
      {f + "app_crlf.log", {"--format", "cmake-trace"}, f + "app_crlf.log:1:1: syntax error while parsing value - invalid literal; last read: '='"},
      {dir.file("missing.log"), {}, "cannot read '" + dir.file("missing.log") + "': No such file or directory"},
  };
  std::string rec = make_recording(dir);
  ASSERT_EQ(add(rec, kFixtures + "syslog.log").exit_status, 0);  // one good import first
  auto before_bytes = std::filesystem::file_size(rec);
  for (const auto& c : cases) {
    auto result = add(rec, c.fixture, c.extra);
    EXPECT_EQ(result.exit_status, 1) << c.fixture;
    if (!c.error.empty()) {
      EXPECT_EQ(result.err, "canopy: " + c.error + "\n");
    } else {
      EXPECT_NE(result.err.find(c.fixture + ":1:"), std::string::npos) << result.err;
    }
    EXPECT_EQ(std::count(result.err.begin(), result.err.end(), '\n'), 1) << result.err;
    EXPECT_EQ(count(rec, "SELECT count(*) FROM event"), 3) << c.fixture;  // exec + 2 syslog lines
    EXPECT_EQ(count(rec, "SELECT count(*) FROM log_source"), 1) << c.fixture;
  }
  EXPECT_EQ(std::filesystem::file_size(rec), before_bytes);
  EXPECT_FALSE(std::filesystem::exists(rec + "-journal"));

  auto not_a_recording = add(kFixtures + "syslog.log", kFixtures + "syslog.log");
  EXPECT_EQ(not_a_recording.exit_status, 1);
  EXPECT_NE(not_a_recording.err.find("not a canopy recording"), std::string::npos) << not_a_recording.err;
  auto bad_format = add(rec, kFixtures + "syslog.log", {"--format", "xml"});
  EXPECT_EQ(bad_format.err, "canopy: unknown log format 'xml' (known: cutelooker, cmake-trace, lines, jsonl)\n");
}

TEST(LogAdd, AFlagTheFormatHasNoUseForIsRefusedNotIgnored) {
  // Ignored, each would read the log otherwise than asked: the time from the usual
  // fields, the cutelooker keys in a zone they do not have. Given the format, the flag is
  // a mistake in the command line (2); detected, it is found in the file (1).
  TempDir dir;
  std::string rec = make_recording(dir);
  const std::string syslog = kFixtures + "syslog.log";
  const std::string cutelooker = kFixtures + "cutelooker.json";
  struct Case {
    std::string fixture;
    std::vector<std::string> extra;
    int exit_status;
    std::string error;
  } cases[] = {
      {syslog, {"--time-field", "t"}, 1,
       "--time-field applies to jsonl logs only; '" + syslog + "' is read as lines (detected; --format picks another)"},
      {syslog, {"--format", "lines", "--message-field", "m"}, 2,
       "--message-field applies to jsonl logs only; '" + syslog + "' is read as lines"},
      {cutelooker, {"--tz", "UTC"}, 1,
       "--tz applies to logs whose times may lack a zone (lines, jsonl) only; '" + cutelooker +
           "' is read as cutelooker (detected; --format picks another)"},
      {syslog, {"--tz", ""}, 2, "--tz '': an empty value"},
      {syslog, {"--format", ""}, 2, "--format '': an empty value"},
  };
  for (const Case& c : cases) {
    auto result = add(rec, c.fixture, c.extra);
    EXPECT_EQ(result.exit_status, c.exit_status) << c.error;
    EXPECT_EQ(result.err, "canopy: " + c.error + "\n");
  }
  EXPECT_EQ(count(rec, "SELECT count(*) FROM log_source"), 0);
}

TEST(LogAdd, AnErrorAfterManyBatchesStillAddsNothing) {
  // 50,000 good lines go to SQLite in several batches before line 50,001 fails.
  TempDir dir;
  std::string rec = make_recording(dir);
  std::string log = dir.file("long.jsonl");
  {
    std::ofstream out(log);
    for (int i = 0; i < 50'000; ++i) {
      out << R"({"ts":)" << (kStartMs + i) << R"(,"msg":"line )" << i << "\"}\n";
    }
    out << R"({"ts":)" << kStartMs << R"(,"msg":"cut off)";
  }
  auto result = add(rec, log);
  EXPECT_EQ(result.exit_status, 1);
  EXPECT_NE(result.err.find(log + ":50001:"), std::string::npos) << result.err;
  EXPECT_EQ(count(rec, "SELECT count(*) FROM event"), 1);
  EXPECT_EQ(count(rec, "SELECT count(*) FROM log_source"), 0);

  std::ofstream(log, std::ios::app) << "\"}\n";  // completed, it imports
  ASSERT_EQ(add(rec, log).exit_status, 0);
  EXPECT_EQ(count(rec, "SELECT count(*) FROM event WHERE kind = 'log'"), 50'001);
  auto logs = logs_of(rec);
  EXPECT_EQ(logs[1].text, "cut off");  // at the first line's time, written after it
  EXPECT_EQ(logs.back().text, "line 49999");
}

TEST(LogAdd, UpgradesAFormatOneRecording) {
  TempDir dir;
  std::string rec = make_recording(dir);
  // What a format 1 recording looks like: no log_source table, no source_id column.
  sqlite3* db = nullptr;
  sqlite3_open(rec.c_str(), &db);
  ASSERT_EQ(sqlite3_exec(db,
                         "DROP INDEX event_by_time; DROP TABLE log_source; ALTER TABLE event DROP COLUMN source_id;"
                         "UPDATE meta SET value = '1' WHERE key = 'format_version';",
                         nullptr, nullptr, nullptr),
            SQLITE_OK)
      << sqlite3_errmsg(db);
  sqlite3_close(db);
  EXPECT_EQ(open_recording(rec).format_version(), 1);
  EXPECT_EQ(open_recording(rec).events()->size(), 1u);  // format 1 still reads

  ASSERT_EQ(add(rec, kFixtures + "syslog.log").exit_status, 0);
  auto reader = open_recording(rec);
  EXPECT_EQ(reader.format_version(), 2);
  EXPECT_EQ(reader.log_sources()->size(), 1u);
  EXPECT_EQ(logs_of(rec).size(), 2u);
}

TEST(LogAdd, LogsAddedBeforeDigestsGainTheColumnNotARefusal) {
  // A canopy from before content digests wrote log_source without the column.
  TempDir dir;
  std::string rec = make_recording(dir);
  ASSERT_EQ(add(rec, kFixtures + "syslog.log").exit_status, 0);
  sqlite3* db = nullptr;
  sqlite3_open(rec.c_str(), &db);
  ASSERT_EQ(sqlite3_exec(db, "ALTER TABLE log_source DROP COLUMN content_sha256", nullptr, nullptr, nullptr), SQLITE_OK)
      << sqlite3_errmsg(db);
  sqlite3_close(db);

  auto unknown = add(rec, kFixtures + "syslog.log");  // nothing to compare with: added
  ASSERT_EQ(unknown.exit_status, 0) << unknown.err;
  EXPECT_EQ(count(rec, "SELECT count(*) FROM log_source WHERE content_sha256 IS NULL"), 1);
  auto known = add(rec, kFixtures + "syslog.log");
  EXPECT_EQ(known.exit_status, 1);
  EXPECT_NE(known.err.find("(from '" + kFixtures + "syslog.log', 2 events); --again adds it a second time"),
            std::string::npos)
      << known.err;
  EXPECT_EQ(logs_of(rec).size(), 4u);
}

TEST(LogAdd, CmakeTraceOfARealConfigure) {
  // A real CMake configure under canopy record; its trace, added afterwards, gives one
  // event per traced command, all inside the recording, in the trace's order.
  TempDir dir;
  std::filesystem::create_directories(dir.file("proj"));
  std::ofstream(dir.file("proj/CMakeLists.txt"))
      << "cmake_minimum_required(VERSION 3.20)\nproject(demo NONE)\nset(GREETING \"hello world\")\n"
         "include(extra.cmake)\nmessage(STATUS \"${GREETING}\")\n";
  std::ofstream(dir.file("proj/extra.cmake")) << "function(shout what)\n  message(STATUS \"${what}!\")\nendfunction()\n"
                                                 "shout(\"a b\")\n";
  std::string rec = dir.file("configure.canopy");
  std::string trace = dir.file("trace.json");
  auto recorded = run({kCanopy, "record", "-q", "-o", rec, "--", "cmake", "-S", dir.file("proj"), "-B",
                       dir.file("build"), "--trace-format=json-v1", "--trace-redirect=" + trace});
  ASSERT_EQ(recorded.exit_status, 0) << recorded.err;

  std::vector<nlohmann::json> commands;
  std::ifstream in(trace);
  for (std::string line; std::getline(in, line);) {
    auto json = nlohmann::json::parse(line);
    if (!json.contains("version")) {
      commands.push_back(json);
    }
  }
  ASSERT_GT(commands.size(), 10u);

  auto result = add(rec, trace);
  ASSERT_EQ(result.exit_status, 0) << result.err;
  EXPECT_NE(result.out.find("(cmake-trace)"), std::string::npos) << result.out;
  EXPECT_EQ(result.err, "");  // nothing outside the recording
  auto reader = open_recording(rec);
  int64_t start = *reader.meta().start_ms;
  int64_t end = *reader.meta().end_ms;
  auto logs = logs_of(rec);
  ASSERT_EQ(logs.size(), commands.size());
  std::string previous_file;
  for (size_t i = 0; i < logs.size(); ++i) {
    EXPECT_GE(logs[i].t_ms, start);
    EXPECT_LE(logs[i].t_ms, end);
    // In the trace's order: the reader sorts by time, and ties keep the file's order.
    std::string text = commands[i]["cmd"].get<std::string>() + "(";
    std::string file = commands[i]["file"];
    if (file != previous_file) {
      text = file + ":" + std::to_string(commands[i]["line"].get<int>()) + "\n" + text;
      previous_file = file;
    }
    EXPECT_TRUE(logs[i].text.starts_with(text)) << i << ": " << logs[i].text << " vs " << text;
  }
  // Arguments with spaces are quoted, as they were written.
  bool found = false;
  for (const auto& e : logs) {
    found = found || e.text.find("shout(\"a b\")") != std::string::npos;
  }
  EXPECT_TRUE(found);
}

}  // namespace
}  // namespace canopy::testing
