// Writer and reader on real SQLite files: what is written is read back, rows appear
// only on change, and files that are not recordings get one clear error.
#include <gtest/gtest.h>
#include <sqlite3.h>

#include <fstream>

#include "support/temp_dir.h"
#include "store/reader.h"
#include "store/writer.h"

namespace canopy::store {
namespace {

using canopy::testing::TempDir;

int64_t count_rows(const std::string& path, const char* sql) {
  sqlite3* db = nullptr;
  sqlite3_open_v2(path.c_str(), &db, SQLITE_OPEN_READONLY, nullptr);
  sqlite3_stmt* stmt = nullptr;
  sqlite3_prepare_v2(db, sql, -1, &stmt, nullptr);
  int64_t n = sqlite3_step(stmt) == SQLITE_ROW ? sqlite3_column_int64(stmt, 0) : -1;
  sqlite3_finalize(stmt);
  sqlite3_close(db);
  return n;
}

SampleValues memory(int64_t anon, int64_t cpu_user_ns) {
  SampleValues v;
  v[kRssAnonBytes] = anon;
  v[kRssFileBytes] = 4096;
  v[kRssShmemBytes] = 0;
  v[kCpuUserNs] = cpu_user_ns;
  v[kCpuSystemNs] = 0;
  return v;
}

// Command lines hold whatever a process was given: quotes, backslashes, control
// characters, other scripts, bytes that are not UTF-8 (replaced by U+FFFD).
TEST(Store, CommandLinesRoundTripThroughTheirJsonText) {
  const std::vector<std::string> argv = {"sh",  "-c",       "echo \"a\\b\"\t$HOME\n", "",
                                         "ünï", "\x01\x1f", "{\"not\": [\"json\"]}"};
  EXPECT_EQ(parse_json_string_array(json_string_array(argv)), argv);
  EXPECT_EQ(parse_json_string_array(json_string_array({})), std::vector<std::string>{});
  EXPECT_EQ(parse_json_string_array(json_string_array({"a\xff" "b"})), std::vector<std::string>{"a\uFFFDb"});
}

TEST(Store, ACommandLineThatIsNotAJsonArrayOfStringsReadsAsItsStrings) {
  EXPECT_EQ(parse_json_string_array("[\"make\", 8, null, \"-j8\"]"), (std::vector<std::string>{"make", "-j8"}));
  // Damaged text yields no arguments, never the ones before the damage.
  EXPECT_EQ(parse_json_string_array("[\"make\", \"-j8\""), std::vector<std::string>{});
  EXPECT_EQ(parse_json_string_array("[\"make\"] trailing"), std::vector<std::string>{});
  EXPECT_EQ(parse_json_string_array("\"make\""), std::vector<std::string>{});
  EXPECT_EQ(parse_json_string_array(""), std::vector<std::string>{});
}

TEST(Store, RoundTripWithCarryForward) {
  TempDir dir;
  std::string path = dir.file("a.canopy");
  {
    auto writer = Writer::create(path, false);
    ASSERT_TRUE(writer) << writer.error().message;
    ProcessRow root;
    root.pid = 100;
    root.start_ticks = 5;
    root.name = "make";
    root.cmdline = {"make", "-j8", "a b"};
    int64_t id = writer->add_process(root);
    EXPECT_EQ(id, 1);
    EXPECT_TRUE(writer->add_sample(1000, id, memory(1 << 20, 10)));
    EXPECT_FALSE(writer->add_sample(1100, id, memory(1 << 20, 10)));  // unchanged: no row
    EXPECT_TRUE(writer->add_sample(1200, id, memory(1 << 20, 20)));   // only CPU changed
    EXPECT_TRUE(writer->add_sample(1300, id, memory(3 << 20, 20)));
    writer->add_tick({1000, 1, 1 << 20, 0, std::nullopt, 10, 8, 4, 0, 0});
    writer->add_event({1200, "exec", id, "make -j8"});
    root.id = id;
    root.end_ms = 1300;
    root.peak_rss_bytes = (3 << 20) + 4096;
    writer->update_process_end(root);
    ASSERT_TRUE(writer->finish());
  }
  EXPECT_EQ(count_rows(path, "SELECT count(*) FROM sample"), 3);
  // The row where only CPU changed stores NULL for every memory column.
  EXPECT_EQ(count_rows(path, "SELECT count(*) FROM sample WHERE t_ms = 1200 AND rss_anon_bytes IS NULL"), 1);
  EXPECT_FALSE(std::ifstream(path + "-wal").good()) << "finish() leaves one self-contained file";
  EXPECT_FALSE(std::ifstream(path + "-journal").good());
  // The header's write and read versions (bytes 18 and 19): 2 means WAL, which a reader
  // could not open without creating files beside it, so not in a read-only place.
  char header[20] = {};
  std::ifstream(path, std::ios::binary).read(header, sizeof header);
  EXPECT_EQ(header[18], 1);
  EXPECT_EQ(header[19], 1);

  auto reader = Reader::open(path);
  ASSERT_TRUE(reader) << reader.error().message;
  auto processes = reader->processes();
  ASSERT_TRUE(processes);
  ASSERT_EQ(processes->size(), 1u);
  EXPECT_EQ(processes->front().cmdline, (std::vector<std::string>{"make", "-j8", "a b"}));
  EXPECT_EQ(processes->front().peak_rss_bytes, (3 << 20) + 4096);

  std::vector<std::pair<int64_t, SampleValues>> seen;
  ASSERT_TRUE(reader->for_each_sample([&](int64_t t, int64_t, const SampleValues& v) { seen.emplace_back(t, v); }));
  ASSERT_EQ(seen.size(), 3u);
  EXPECT_EQ(seen[1].first, 1200);
  EXPECT_EQ(seen[1].second[kRssAnonBytes], 1 << 20);  // carried forward
  EXPECT_EQ(seen[1].second[kCpuUserNs], 20);
  EXPECT_EQ(seen[2].second.rss_bytes(), (3 << 20) + 4096);
  EXPECT_EQ(seen[2].second[kReadBytes], std::nullopt);  // never known, never written
}

std::string query_text(const std::string& path, const char* sql) {
  sqlite3* db = nullptr;
  sqlite3_open_v2(path.c_str(), &db, SQLITE_OPEN_READONLY, nullptr);
  sqlite3_stmt* stmt = nullptr;
  sqlite3_prepare_v2(db, sql, -1, &stmt, nullptr);
  std::string text = sqlite3_step(stmt) == SQLITE_ROW && sqlite3_column_text(stmt, 0)
                         ? reinterpret_cast<const char*>(sqlite3_column_text(stmt, 0))
                         : "(none)";
  sqlite3_finalize(stmt);
  sqlite3_close(db);
  return text;
}

TEST(Store, AProcessRowIsCommittedWithTheUpdatesMadeBeforeAndAfterItsCommit) {
  TempDir dir;
  std::string path = dir.file("a.canopy");
  auto writer = Writer::create(path, false);
  ASSERT_TRUE(writer) << writer.error().message;
  auto process = [](int64_t pid, const char* name) {
    ProcessRow row;
    row.pid = pid;
    row.name = name;
    row.cmdline = {name};
    row.first_seen_ms = 10;
    row.last_seen_ms = 10;  // the sampler's own view; the file has none until the end
    return row;
  };
  ProcessRow running = process(1, "sh");
  running.id = writer->add_process(running);
  running.name = "cc";
  running.cmdline = {"cc", "-c", "a.c"};
  writer->update_process_exec(running);
  ProcessRow brief = process(2, "true");
  brief.id = writer->add_process(brief);
  brief.end_ms = brief.last_seen_ms = 300;
  brief.exit_code = 3;
  writer->update_process_end(brief);
  writer->commit_if_due(kUncommittedUnderMs, kUncommittedUnderMs);

  // As a reader sees it while the recording goes on (or after the recorder is killed).
  EXPECT_EQ(query_text(path, "SELECT name || ' ' || cmdline FROM process WHERE id = 1"), R"(cc ["cc","-c","a.c"])");
  EXPECT_EQ(count_rows(path, "SELECT count(*) FROM process WHERE id = 1 AND last_seen_ms IS NULL AND end_ms IS NULL"), 1)
      << "still running: no end, so readers run it to the recording's end";
  EXPECT_EQ(count_rows(path, "SELECT exit_code FROM process WHERE id = 2 AND end_ms = 300 AND last_seen_ms = 300"), 3);

  ProcessRow later = process(3, "sleep");
  later.id = writer->add_process(later);
  EXPECT_EQ(count_rows(path, "SELECT count(*) FROM process WHERE id = 3"), 0) << "not committed yet";
  running.end_ms = running.last_seen_ms = 900;
  running.exit_signal = 9;
  writer->update_process_end(running);  // a row written at the previous commit
  running.name = "ld";                  // its exec, seen after its end
  writer->update_process_exec(running);
  writer->add_event({900, "exec", running.id, "ld"});
  writer->commit_if_due(2 * kUncommittedUnderMs, 2 * kUncommittedUnderMs);
  EXPECT_EQ(count_rows(path, "SELECT exit_signal FROM process WHERE id = 1 AND end_ms = 900"), 9);
  EXPECT_EQ(query_text(path, "SELECT name FROM process WHERE id = 1"), "ld");
  EXPECT_EQ(count_rows(path, "SELECT count(*) FROM event WHERE process_id = 1 AND text = 'ld'"), 1);
  EXPECT_EQ(count_rows(path, "SELECT count(*) FROM process WHERE id = 3"), 1);
  ASSERT_TRUE(writer->finish());
  EXPECT_EQ(count_rows(path, "SELECT count(*) FROM process"), 3);
}

TEST(Store, ANameFromAnExitRecordIsMarkedAndARecordingWithoutTheMarkStillReads) {
  TempDir dir;
  std::string path = dir.file("a.canopy");
  {
    auto writer = Writer::create(path, false);
    ASSERT_TRUE(writer) << writer.error().message;
    ProcessRow row;
    row.pid = 7;
    row.name = "sh";
    row.id = writer->add_process(row);
    writer->commit_if_due(kUncommittedUnderMs, kUncommittedUnderMs);
    row.name = "true";  // the exec, named by the exit record after the row was written
    row.named_from_exit_record = true;
    writer->update_process_exec(row);
    ASSERT_TRUE(writer->finish());
  }
  auto processes = Reader::open(path)->processes();
  ASSERT_TRUE(processes);
  EXPECT_EQ(processes->at(0).name, "true");
  EXPECT_TRUE(processes->at(0).named_from_exit_record);

  // Recorded before canopy marked such names: the column is not there.
  sqlite3* db = nullptr;
  sqlite3_open(path.c_str(), &db);
  ASSERT_EQ(sqlite3_exec(db, "ALTER TABLE process DROP COLUMN named_from_exit_record", nullptr, nullptr, nullptr),
            SQLITE_OK)
      << sqlite3_errmsg(db);
  sqlite3_close(db);
  processes = Reader::open(path)->processes();
  ASSERT_TRUE(processes) << processes.error().message;
  EXPECT_EQ(processes->at(0).name, "true");
  EXPECT_FALSE(processes->at(0).named_from_exit_record);
}

// A kill loses under a second: each commit comes at the last tick before the next
// would leave a second uncommitted, and no sooner (a commit costs about a tick's reads).
TEST(Store, ACommitComesAtTheLastTickBeforeASecondWouldBeUncommitted) {
  TempDir dir;
  std::string path = dir.file("a.canopy");
  auto writer = Writer::create(path, false);
  ASSERT_TRUE(writer) << writer.error().message;
  auto tick_at = [&](int64_t t_ms, int64_t interval_ms) {
    TickRow row;
    row.t_ms = t_ms;
    writer->add_tick(row);
    writer->commit_if_due(t_ms, t_ms + interval_ms);
  };
  auto committed = [&] { return count_rows(path, "SELECT max(t_ms) FROM tick"); };
  const int64_t start = 1'700'000'000'000;
  tick_at(start, 100);
  EXPECT_EQ(committed(), start) << "the first tick commits the recording's start";
  for (int64_t t = start + 100; t <= start + 800; t += 100) {
    tick_at(t, 100);
  }
  EXPECT_EQ(committed(), start) << "ticks up to +800 ms wait";
  tick_at(start + 900, 100);
  EXPECT_EQ(committed(), start + 900) << "the next tick, at +1000 ms, would be a second on";
  tick_at(start + 1000, 100);
  EXPECT_EQ(committed(), start + 900);

  // At intervals of a second or more, each tick commits.
  tick_at(start + 2500, 1500);
  EXPECT_EQ(committed(), start + 2500);
  tick_at(start + 4000, 1500);
  EXPECT_EQ(committed(), start + 4000);
  ASSERT_TRUE(writer->finish());
}

// While a page follows the recording, a commit leaves under kWatchedUncommittedUnderMs
// uncommitted, so that what it holds is a few ticks old when the page reads it; and
// says it committed.
TEST(Store, AWatchedRecordingCommitsMoreOften) {
  TempDir dir;
  std::string path = dir.file("a.canopy");
  auto writer = Writer::create(path, false);
  ASSERT_TRUE(writer) << writer.error().message;
  std::vector<int64_t> commits;
  const int64_t start = 1'700'000'000'000;
  for (int64_t t = start; t <= start + 2000; t += 100) {
    TickRow row;
    row.t_ms = t;
    writer->add_tick(row);
    if (writer->commit_if_due(t, t + 100, kWatchedUncommittedUnderMs)) {
      commits.push_back(t - start);
      EXPECT_EQ(count_rows(path, "SELECT max(t_ms) FROM tick"), t);
    }
  }
  EXPECT_EQ(commits, (std::vector<int64_t>{0, 600, 1200, 1800}));
  ASSERT_TRUE(writer->finish());
}

// Events wait in memory for the next commit; more than fit are written early, and all
// keep the order they were added in.
TEST(Store, EveryEventIsWrittenInOrderAcrossCommits) {
  TempDir dir;
  std::string path = dir.file("a.canopy");
  auto writer = Writer::create(path, false);
  ASSERT_TRUE(writer) << writer.error().message;
  constexpr int kEvents = 10000;  // more than wait in memory at once
  for (int i = 0; i < kEvents; ++i) {
    writer->add_event({i / 100, "stdout", std::nullopt, std::to_string(i)});
    if (i == kEvents / 2) {
      writer->commit_if_due(kUncommittedUnderMs, kUncommittedUnderMs);
      EXPECT_EQ(count_rows(path, "SELECT count(*) FROM event"), kEvents / 2 + 1);
    }
  }
  ASSERT_TRUE(writer->finish());
  EXPECT_EQ(count_rows(path, "SELECT count(*) FROM event"), kEvents);
  EXPECT_EQ(count_rows(path, "SELECT count(*) FROM event WHERE CAST(text AS INTEGER) + 1 != rowid"), 0)
      << "each event's row is the place it was added at";
}

// The kind is a bound parameter, not text quoted into the SQL: any kind is asked for
// as it is, a quote included, and matches only itself.
TEST(Store, EventsOfAKindAreThoseOfExactlyThatKind) {
  TempDir dir;
  std::string path = dir.file("a.canopy");
  {
    auto writer = Writer::create(path, false);
    ASSERT_TRUE(writer) << writer.error().message;
    writer->add_event({2, "it's", std::nullopt, "quoted"});
    writer->add_event({1, "it's", std::nullopt, "first"});
    writer->add_event({3, "limit", std::nullopt, "other"});
    ASSERT_TRUE(writer->finish());
  }
  auto reader = Reader::open(path);
  ASSERT_TRUE(reader) << reader.error().message;
  auto quoted = reader->events_of_kind("it's");
  ASSERT_TRUE(quoted) << quoted.error().message;
  ASSERT_EQ(quoted->size(), 2u);
  EXPECT_EQ(quoted->at(0).text, "first");
  EXPECT_EQ(quoted->at(1).text, "quoted");
  auto injected = reader->events_of_kind("x' OR '1'='1");
  ASSERT_TRUE(injected) << injected.error().message;
  EXPECT_TRUE(injected->empty());
}

// The typed meta keeps the file's keys and texts: older and newer canopies, the
// benchmarks' shell scripts and the export consumers read them by key.
TEST(Store, MetaFieldsAreStoredUnderTheirKeysAsText) {
  TempDir dir;
  std::string path = dir.file("a.canopy");
  {
    auto writer = Writer::create(path, false);
    ASSERT_TRUE(writer) << writer.error().message;
    RecordingMeta meta;
    meta.start_ms = 1700000000123;
    meta.command = std::vector<std::string>{"make", "-j8"};
    meta.cgroup = "off: no permission";
    meta.exit_signal = 9;
    writer->set_meta(meta);
    writer->set_meta({.end_ms = 1700000001123});
    ASSERT_TRUE(writer->finish());
  }
  EXPECT_EQ(count_rows(path, "SELECT count(*) FROM meta"), 6);  // with format_version
  EXPECT_EQ(count_rows(path, "SELECT value FROM meta WHERE key = 'start_ms'"), 1700000000123);
  EXPECT_EQ(count_rows(path, "SELECT value FROM meta WHERE key = 'exit_signal'"), 9);
  EXPECT_EQ(count_rows(path, "SELECT count(*) FROM meta WHERE key = 'command' AND value = '[\"make\",\"-j8\"]'"), 1);
  auto reader = Reader::open(path);
  ASSERT_TRUE(reader) << reader.error().message;
  const RecordingMeta& read = reader->meta();
  EXPECT_EQ(read.format_version, kFormatVersion);
  EXPECT_EQ(read.start_ms, 1700000000123);
  EXPECT_EQ(read.end_ms, 1700000001123);
  EXPECT_EQ(read.command, (std::vector<std::string>{"make", "-j8"}));
  EXPECT_EQ(read.cgroup, "off: no permission");
  EXPECT_EQ(read.exit_signal, 9);
  EXPECT_EQ(read.exit_code, std::nullopt);
  EXPECT_EQ(read.host, std::nullopt);
}

// A killed recorder's file is in WAL mode; copied without its -wal (a CI artifact, a
// read-only mount), it holds everything it committed. Reading it must create no -wal and
// no -shm beside it: in a directory the reader may not write, SQLite could not.
TEST(Store, AWalModeFileWithoutItsWalIsReadWithoutWritingBesideIt) {
  TempDir dir;
  std::string path = dir.file("with ? and #.canopy");
  {
    auto writer = Writer::create(path, false);
    ASSERT_TRUE(writer) << writer.error().message;
    ProcessRow root;
    root.pid = 100;
    root.name = "make";
    writer->add_process(root);
    ASSERT_TRUE(writer->finish());
  }
  sqlite3* db = nullptr;
  ASSERT_EQ(sqlite3_open_v2(path.c_str(), &db, SQLITE_OPEN_READWRITE, nullptr), SQLITE_OK);
  ASSERT_EQ(sqlite3_exec(db, "PRAGMA journal_mode=WAL", nullptr, nullptr, nullptr), SQLITE_OK);
  sqlite3_close(db);  // the last connection: its WAL is checkpointed and removed
  ASSERT_FALSE(std::ifstream(path + "-wal").good());
  char header[20] = {};
  std::ifstream(path, std::ios::binary).read(header, sizeof header);
  ASSERT_EQ(header[18], 2) << "still in WAL mode";

  auto reader = Reader::open(path);
  ASSERT_TRUE(reader) << reader.error().message;
  auto processes = reader->processes();
  ASSERT_TRUE(processes) << processes.error().message;
  ASSERT_EQ(processes->size(), 1u);
  EXPECT_EQ((*processes)[0].name, "make");
  EXPECT_FALSE(std::ifstream(path + "-wal").good());
  EXPECT_FALSE(std::ifstream(path + "-shm").good());
}

TEST(Store, RefusesToOverwriteWithoutForce) {
  TempDir dir;
  std::string path = dir.file("a.canopy");
  std::ofstream(path) << "precious";
  auto refused = Writer::create(path, false);
  ASSERT_FALSE(refused);
  EXPECT_EQ(refused.error().message, "cannot write '" + path + "': file exists (use --force to replace it)");
  EXPECT_TRUE(Writer::create(path, true));
}

TEST(Store, ReaderNamesEachBadInput) {
  TempDir dir;
  auto error_of = [](const std::string& path) {
    auto reader = Reader::open(path);
    return reader ? std::string("opened") : reader.error().message;
  };
  EXPECT_EQ(error_of(dir.file("missing.canopy")),
            "cannot open '" + dir.file("missing.canopy") + "': No such file or directory");

  std::string text = dir.file("notes.txt");
  std::ofstream(text) << std::string(8192, 'x');
  EXPECT_EQ(error_of(text), "cannot open '" + text + "': not a canopy recording (not an SQLite file)");

  std::string other = dir.file("other.db");
  sqlite3* db = nullptr;
  sqlite3_open(other.c_str(), &db);
  sqlite3_exec(db, "CREATE TABLE t(x); INSERT INTO t VALUES(1);", nullptr, nullptr, nullptr);
  sqlite3_close(db);
  EXPECT_EQ(error_of(other), "cannot open '" + other + "': not a canopy recording (no meta table)");

  // A recorder that stopped before its first commit (killed at once, a full disk)
  // leaves the schema alone: a canopy recording, with nothing in it.
  std::string empty = dir.file("empty.canopy");
  ASSERT_TRUE(Writer::create(empty, false));
  EXPECT_EQ(error_of(empty), "cannot open '" + empty +
                                 "': the recording is empty: its recorder stopped before its first commit");

  std::string newer = dir.file("newer.canopy");
  {
    auto writer = Writer::create(newer, false);
    ASSERT_TRUE(writer);
    writer->set_meta({.format_version = kNewestFormatVersion + 1});
    ASSERT_TRUE(writer->finish());
  }
  EXPECT_EQ(error_of(newer), "cannot open '" + newer + "': recorded in format " +
                                 std::to_string(kNewestFormatVersion + 1) +
                                 " by a newer canopy; this canopy reads up to format " +
                                 std::to_string(kNewestFormatVersion));
}

}  // namespace
}  // namespace canopy::store
