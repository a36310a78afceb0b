// The recording's tables, each named once: its columns in on-disk order with their
// SQL, and an enum of their indices. The schema, the writer's statements and the
// reader's SELECTs are all made from these tables, so a column exists everywhere or
// nowhere. The order and the text are the file format: change them only with
// kFormatVersion (recording.h) in mind.
#pragma once

#include <array>
#include <span>
#include <string>
#include <utility>

#include "store/recording.h"

namespace canopy::store {

struct Column {
  const char* name;
  const char* definition;  // what follows the name in CREATE TABLE: type and constraints
};

struct Table {
  const char* name;
  std::span<const Column> columns;
  // How CREATE TABLE spells it: one column per line, unless `one_line`; `if_not_exists`
  // for tables a format upgrade adds; `options` after the closing parenthesis.
  bool one_line = false;
  bool if_not_exists = false;
  const char* options = "";
};

namespace meta_column {
enum Index : int { kKey, kValue, kCount };
}
inline constexpr std::array<Column, meta_column::kCount> kMetaColumns = {{
    {"key", "TEXT PRIMARY KEY"},
    {"value", "TEXT NOT NULL"},
}};
inline constexpr Table kMetaTable{"meta", kMetaColumns, true, false, " WITHOUT ROWID"};

namespace process_column {
enum Index : int {
  kId,
  kPid,
  kStartTicks,
  kStartMs,
  kParentId,
  kPpid,
  kAdopted,
  kName,
  kExe,
  kCmdline,
  kNamedFromExitRecord,  // added within format 2: older files lack it
  kFirstSeenMs,
  kLastSeenMs,
  kEndMs,
  kExitCode,
  kExitSignal,
  kPeakRssBytes,
  kPeakRssTMs,
  kHwmBytes,
  kCpuUserNs,
  kCpuSystemNs,
  kCount
};
}
inline constexpr std::array<Column, process_column::kCount> kProcessColumns = {{
    {"id", "INTEGER PRIMARY KEY"},
    {"pid", "INTEGER NOT NULL"},
    {"start_ticks", "INTEGER NOT NULL"},
    {"start_ms", "INTEGER NOT NULL"},
    {"parent_id", "INTEGER REFERENCES process(id)"},
    {"ppid", "INTEGER NOT NULL"},
    {"adopted", "INTEGER NOT NULL DEFAULT 0"},
    {"name", "TEXT NOT NULL"},
    {"exe", "TEXT NOT NULL"},
    {"cmdline", "TEXT NOT NULL"},
    {"named_from_exit_record", "INTEGER NOT NULL DEFAULT 0"},
    {"first_seen_ms", "INTEGER NOT NULL"},
    {"last_seen_ms", "INTEGER"},
    {"end_ms", "INTEGER"},
    {"exit_code", "INTEGER"},
    {"exit_signal", "INTEGER"},
    {"peak_rss_bytes", "INTEGER"},
    {"peak_rss_t_ms", "INTEGER"},
    {"hwm_bytes", "INTEGER"},
    {"cpu_user_ns", "INTEGER"},
    {"cpu_system_ns", "INTEGER"},
}};
inline constexpr Table kProcessTable{"process", kProcessColumns};

// A sample row: its time and process, then the SampleColumn values (kSampleColumnNames).
namespace sample_column {
enum Index : int { kTMs, kProcessId, kFirstValue, kCount = kFirstValue + kSampleColumnCount };
}
inline constexpr std::array<Column, sample_column::kCount> kSampleTableColumns = [] {
  std::array<Column, sample_column::kCount> columns{};
  columns[sample_column::kTMs] = {"t_ms", "INTEGER NOT NULL"};
  columns[sample_column::kProcessId] = {"process_id", "INTEGER NOT NULL REFERENCES process(id)"};
  for (int c = 0; c < kSampleColumnCount; ++c) {
    columns[sample_column::kFirstValue + c] = {kSampleColumnNames[c], "INTEGER"};
  }
  return columns;
}();
inline constexpr Table kSampleTable{"sample", kSampleTableColumns};

namespace tick_column {
enum Index : int {
  kTMs,
  kProcesses,
  kRssBytes,
  kSwapBytes,
  kPssBytes,
  kCpuNs,
  kMemTotalBytes,
  kMemAvailableBytes,
  kSwapTotalBytes,
  kSwapFreeBytes,
  kCount
};
}
inline constexpr std::array<Column, tick_column::kCount> kTickColumns = {{
    {"t_ms", "INTEGER PRIMARY KEY"},
    {"processes", "INTEGER NOT NULL"},
    {"rss_bytes", "INTEGER NOT NULL"},
    {"swap_bytes", "INTEGER NOT NULL"},
    {"pss_bytes", "INTEGER"},
    {"cpu_ns", "INTEGER NOT NULL"},
    {"mem_total_bytes", "INTEGER NOT NULL"},
    {"mem_available_bytes", "INTEGER NOT NULL"},
    {"swap_total_bytes", "INTEGER NOT NULL"},
    {"swap_free_bytes", "INTEGER NOT NULL"},
}};
inline constexpr Table kTickTable{"tick", kTickColumns};

namespace cgroup_tick_column {
enum Index : int { kTMs, kMemoryBytes, kMemoryPeakBytes, kCpuNs, kOomKills, kMemoryLimitHits, kCount };
}
inline constexpr std::array<Column, cgroup_tick_column::kCount> kCgroupTickColumns = {{
    {"t_ms", "INTEGER PRIMARY KEY"},
    {"memory_bytes", "INTEGER NOT NULL"},
    {"memory_peak_bytes", "INTEGER"},
    {"cpu_ns", "INTEGER"},
    {"oom_kills", "INTEGER NOT NULL"},
    {"memory_limit_hits", "INTEGER NOT NULL"},
}};
inline constexpr Table kCgroupTickTable{"cgroup_tick", kCgroupTickColumns};

namespace event_column {
enum Index : int { kTMs, kKind, kProcessId, kText, kSourceId /* format 2 */, kCount };
}
inline constexpr std::array<Column, event_column::kCount> kEventColumns = {{
    {"t_ms", "INTEGER NOT NULL"},
    {"kind", "TEXT NOT NULL"},
    {"process_id", "INTEGER REFERENCES process(id)"},
    {"text", "TEXT NOT NULL"},
    {"source_id", "INTEGER REFERENCES log_source(id)"},
}};
inline constexpr Table kEventTable{"event", kEventColumns};

// Format 2: one row per imported log.
namespace log_source_column {
enum Index : int {
  kId,
  kName,
  kFormat,
  kAddedMs,
  kEvents,
  kOutsideSpan,
  // The SHA-256 of the file's bytes came later within format 2: NULL for logs added
  // by an older canopy, and added to their table by the next import.
  kContentSha256,
  kCount
};
}
inline constexpr std::array<Column, log_source_column::kCount> kLogSourceColumns = {{
    {"id", "INTEGER PRIMARY KEY"},
    {"name", "TEXT NOT NULL"},
    {"format", "TEXT NOT NULL"},
    {"added_ms", "INTEGER NOT NULL"},
    {"events", "INTEGER NOT NULL"},
    {"outside_span", "INTEGER NOT NULL"},
    {"content_sha256", "TEXT"},
}};
inline constexpr Table kLogSourceTable{"log_source", kLogSourceColumns, false, true};

// Every table, in the order the schema creates them.
inline constexpr std::array<const Table*, 7> kTables = {&kMetaTable,       &kProcessTable, &kSampleTable,
                                                         &kTickTable,       &kCgroupTickTable, &kEventTable,
                                                         &kLogSourceTable};

// SQL made from a table. Parameters are numbered by column: column i is ?(i + 1) in
// every statement, so one function binds a row for an insert and any update alike.

// "CREATE TABLE name(\n  a INTEGER,\n  b TEXT);\n" (as Table says).
std::string create_table_sql(const Table& table);
// "INSERT INTO name(a, b) VALUES(?1, ?2)"; `verb` may be "INSERT OR REPLACE".
std::string insert_sql(const Table& table, const char* verb = "INSERT");
// "UPDATE name SET b = ?2, c = ?3 WHERE a = ?1".
std::string update_sql(const Table& table, std::span<const int> set, int where);
// "a, b, c": every column, or where `instead` names one, that expression (a column an
// older recording lacks then reads as NULL or a default).
std::string column_list(const Table& table, std::span<const std::pair<int, const char*>> instead = {});

}  // namespace canopy::store
